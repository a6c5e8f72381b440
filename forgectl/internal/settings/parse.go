package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// node is one JSON value and the bytes it spans, [start, end).
type node struct {
	kind       byte // '{', '[', '"', or 'v' for a number, true, false or null
	start, end int
	members    []member // of an object, in document order
	elems      []*node  // of an array
	str        string   // of a string
}

type member struct {
	key      string
	keyStart int
	val      *node
}

// last returns the value of the last member named key: JSON.parse, which
// Claude Code uses, keeps the last of duplicate keys.
func (n *node) last(key string) (int, *node) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return i, n.members[i].val
		}
	}
	return -1, nil
}

// count is how many members are named key.
func (n *node) count(key string) int {
	c := 0
	for _, m := range n.members {
		if m.key == key {
			c++
		}
	}
	return c
}

// SyntaxError is a document that is not valid JSON. Line and Column are
// 1-based; Column counts characters.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// parse reads one JSON document into spans. Anything but whitespace after
// the value is a syntax error, as it is for JSON.parse.
func parse(data []byte) (*node, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	root, err := parseValue(d, data)
	if err != nil {
		// The decoder's token API reports where its buffer stood, not the
		// bad byte; Unmarshal's scanner names the byte exactly.
		var v any
		if uerr := json.Unmarshal(data, &v); uerr != nil {
			err = uerr
		}
		return nil, syntaxError(data, d, err)
	}
	if _, err := d.Token(); err != io.EOF {
		off := skipSpace(data, root.end)
		return nil, position(data, off, "unexpected text after the JSON document")
	}
	return root, nil
}

func parseValue(d *json.Decoder, data []byte) (*node, error) {
	start := skipSep(data, int(d.InputOffset()))
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	n := &node{start: start}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = '{'
			for d.More() {
				ks := skipSep(data, int(d.InputOffset()))
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, &json.SyntaxError{Offset: int64(ks + 1)}
				}
				v, err := parseValue(d, data)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key: key, keyStart: ks, val: v})
			}
		case '[':
			n.kind = '['
			for d.More() {
				v, err := parseValue(d, data)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
		default:
			return nil, &json.SyntaxError{Offset: int64(start + 1)}
		}
		if _, err := d.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = '"', t
	default:
		n.kind = 'v'
	}
	n.end = int(d.InputOffset())
	return n, nil
}

// syntaxError turns a decoder error into a line and column.
func syntaxError(data []byte, d *json.Decoder, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the bad one included.
		off := int(se.Offset) - 1
		msg := se.Error()
		if int(se.Offset) >= len(data) && strings.Contains(msg, "end of JSON input") {
			off = len(data) // nothing is wrong but that the text stops
		}
		return position(data, off, msg)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		if len(bytes.TrimSpace(data)) == 0 {
			return position(data, len(data), "no JSON value")
		}
		return position(data, len(data), "unexpected end of the document")
	}
	return position(data, int(d.InputOffset()), err.Error())
}

func position(data []byte, off int, msg string) *SyntaxError {
	off = min(max(off, 0), len(data))
	if bomAt(data, off) {
		msg = "a byte-order mark (U+FEFF), which JSON allows only as the file's first character"
	}
	line, lineStart := 1, 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line, lineStart = line+1, i+1
		}
	}
	return &SyntaxError{Line: line, Column: utf8.RuneCount(data[lineStart:off]) + 1, Msg: msg}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// skipSep skips the whitespace and the ':' or ',' the decoder consumes
// between tokens, to where the next token starts.
func skipSep(data []byte, i int) int {
	for i < len(data) && (isSpace(data[i]) || data[i] == ':' || data[i] == ',') {
		i++
	}
	return i
}
