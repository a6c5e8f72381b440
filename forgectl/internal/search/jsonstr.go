package search

import (
	"bytes"
	"sort"
	"strconv"

	"unicode/utf16"
	"unicode/utf8"
)

// Most searchable rows are a prompt or a reply with one string in them.
// Decoding such a row with encoding/json validates the whole line and then
// decodes it again; reading the one string literal directly halves the cost
// of a first build. Rows of any other shape take the full decoder.

// stringLit returns the JSON string literal at the start of b (b[0] is its
// opening quote), decoded, and the bytes after it.
func stringLit(b []byte) (string, []byte, bool) {
	n, esc, ok := stringEnd(b)
	if !ok {
		return "", nil, false
	}
	raw := b[1 : n-1]
	if !utf8.Valid(raw) {
		return "", nil, false // encoding/json's way with bad bytes is the reference
	}
	if !esc {
		return string(raw), b[n:], true
	}
	s, ok := unescape(raw)
	return s, b[n:], ok
}

// stringEnd finds the end of the string literal at the start of b: n is
// the length of the literal with its quotes, esc whether it holds escapes.
// It looks for quotes with a vectorised search rather than byte by byte: a
// quote is the end unless an odd run of backslashes comes before it.
func stringEnd(b []byte) (n int, esc bool, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return 0, false, false
	}
	for from := 1; ; {
		q := bytes.IndexByte(b[from:], '"')
		if q < 0 {
			return 0, false, false
		}
		q += from
		k := q - 1
		for k >= 1 && b[k] == '\\' {
			k--
		}
		if (q-1-k)%2 == 0 {
			raw := b[1:q]
			for _, c := range raw {
				if c < 0x20 {
					return 0, false, false // not valid JSON in a string
				}
			}
			return q + 1, bytes.IndexByte(raw, '\\') >= 0, true
		}
		from = q + 1
	}
}

// unescape decodes the body of a JSON string literal holding escapes, as
// encoding/json does (a lone surrogate becomes U+FFFD).
func unescape(raw []byte) (string, bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				out = append(out, raw[i:]...)
				break
			}
			out = append(out, raw[i:i+j]...)
			i += j
			continue
		}
		if i+1 >= len(raw) {
			return "", false
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out = append(out, raw[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw[i+2:])
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(raw[min(len(raw), i+2):]); ok && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

var (
	userString    = []byte(`"message":{"role":"user","content":"`)
	assistantText = []byte(`"content":[{"type":"text","text":"`)
	blockEnd      = []byte(`}]`)
)

// fastUser reads a typed prompt row: string content, then the envelope.
func (x *extractor) fastUser(line []byte) bool {
	i := bytes.Index(line[:min(len(line), headWindow)], userString)
	if i < 0 {
		return false
	}
	text, rest, ok := stringLit(line[i+len(userString)-1:])
	if !ok || !bytes.HasPrefix(rest, []byte("},")) {
		return false
	}
	x.add(Prompt, x.stampFrom(rest), text)
	return true
}

// fastReply reads an assistant row holding one text block.
func (x *extractor) fastReply(line []byte) bool {
	i := bytes.Index(line[:min(len(line), 2*headWindow)], assistantText)
	if i < 0 {
		return false
	}
	text, rest, ok := stringLit(line[i+len(assistantText)-1:])
	if !ok || !bytes.HasPrefix(rest, blockEnd) {
		return false
	}
	x.add(Reply, x.stampFrom(rest), text)
	return true
}

// stampFrom reads the row's timestamp from the envelope after the message.
func (x *extractor) stampFrom(rest []byte) int64 {
	i := bytes.Index(rest, timestampKey)
	if i < 0 {
		return x.lastAt
	}
	ts, _, ok := stringLit(rest[i+len(timestampKey)-1:])
	if !ok {
		return x.lastAt
	}
	return x.stamp(ts)
}

var toolUsePrefix = []byte(`"content":[{"type":"tool_use","id":`)

// fastTool reads an assistant row holding one tool call whose input is a
// flat object of strings and scalars (Bash, Read, Edit, Grep, …): the
// string values, in key order, file bodies left undecoded.
func (x *extractor) fastTool(line []byte) bool {
	i := bytes.Index(line[:min(len(line), 2*headWindow)], toolUsePrefix)
	if i < 0 {
		return false
	}
	rest := line[i+len(toolUsePrefix):]
	n, _, ok := stringEnd(rest) // the id
	if !ok || !bytes.HasPrefix(rest[n:], []byte(`,"name":`)) {
		return false
	}
	rest = rest[n+len(`,"name":`):]
	if n, _, ok = stringEnd(rest); !ok || !bytes.HasPrefix(rest[n:], []byte(`,"input":{`)) {
		return false
	}
	rest = rest[n+len(`,"input":{`):]
	type kv struct{ k, v string }
	var vals []kv
	for len(rest) > 0 && rest[0] != '}' {
		key, after, ok := stringLit(rest)
		if !ok || len(after) == 0 || after[0] != ':' {
			return false
		}
		rest = after[1:]
		switch c := firstByte(rest); {
		case c == '"':
			if skippedInputKeys[key] {
				n, _, ok := stringEnd(rest)
				if !ok {
					return false
				}
				rest = rest[n:]
				break
			}
			v, after, ok := stringLit(rest)
			if !ok {
				return false
			}
			vals = append(vals, kv{key, v})
			rest = after
		case c == 't' || c == 'f' || c == 'n' || c == '-' || c >= '0' && c <= '9':
			end := bytes.IndexAny(rest, ",}")
			if end < 0 {
				return false
			}
			rest = rest[end:]
		default:
			return false // a nested value: the full decoder
		}
		if firstByte(rest) == ',' {
			rest = rest[1:]
		}
	}
	if !bytes.HasPrefix(rest, []byte("}}]")) {
		return false
	}
	sort.Slice(vals, func(a, b int) bool { return vals[a].k < vals[b].k })
	at := x.stampFrom(rest)
	for _, p := range vals {
		x.add(Tool, at, p.v)
	}
	return true
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
