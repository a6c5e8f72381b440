package gencc

import (
	"bytes"
	"encoding/json"
)

// obj is a JSON object that keeps its keys in the order given, for rows whose
// shape is too irregular for a struct.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	out := []byte{'{'}
	for i, p := range o {
		if i > 0 {
			out = append(out, ',')
		}
		b.Reset()
		if err := enc.Encode(p.k); err != nil {
			return nil, err
		}
		out = append(out, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
		out = append(out, ':')
		b.Reset()
		if err := enc.Encode(p.v); err != nil {
			return nil, err
		}
		out = append(out, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
	}
	return append(out, '}'), nil
}
