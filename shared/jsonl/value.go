package jsonl

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Reading the parts of a JSON line without decoding it whole. A row can be
// megabytes long and a reader needs a few of its top-level keys: walking
// it from key to key, skipping every value it does not need, costs about
// one byte search per string in the row. encoding/json is the reference:
// for valid JSON these helpers find what it would decode; for invalid JSON
// they report ok=false where they notice, and never read past b.

// isSpace is JSON's white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// StringEnd finds the end of the string literal at the start of b: n is
// the literal's length with its quotes, esc whether it holds escapes. It
// does not check what lies between the quotes (String does).
func StringEnd(b []byte) (n int, esc bool, ok bool) {
	end, ok := skipString(b, 0)
	if !ok {
		return 0, false, false
	}
	return end, bytes.IndexByte(b[1:end-1], '\\') >= 0, true
}

// skipString returns the index just past the string literal at b[i] (a
// quote). It looks for quotes with a vectorised search rather than byte
// by byte: a quote is the end unless an odd run of backslashes comes
// before it. Hopping from quote to quote is most of the cost of reading
// a row's keys (tool output holds an escaped quote every few dozen
// bytes); a loop over 8-byte words measured no faster.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	for from := i + 1; ; {
		q := bytes.IndexByte(b[from:], '"')
		if q < 0 {
			return len(b), false
		}
		q += from
		k := q - 1
		for k > i && b[k] == '\\' {
			k--
		}
		if (q-1-k)%2 == 0 {
			return q + 1, true
		}
		from = q + 1
	}
}

// String decodes the JSON string literal at the start of b (b[0] is its
// opening quote) as encoding/json does, and returns the bytes after it.
// A lone surrogate escape and each byte that is not UTF-8 become U+FFFD,
// as there.
func String(b []byte) (string, []byte, bool) {
	n, esc, ok := StringEnd(b)
	if !ok {
		return "", nil, false
	}
	raw := b[1 : n-1]
	for _, c := range raw {
		if c < 0x20 {
			return "", nil, false // not valid JSON in a string
		}
	}
	if !esc && utf8.Valid(raw) {
		return string(raw), b[n:], true
	}
	out, ok := unescape(make([]byte, 0, len(raw)), raw, -1, false)
	return string(out), b[n:], ok
}

// StringHead decodes the first max bytes or so of the text of the string
// literal at the start of b (whole code points, never more than max+4
// bytes), for showing the start of a string too long to decode whole. b
// may be cut off before the literal ends. ok is false when b does not
// start with a string literal or the part read is not valid JSON.
func StringHead(b []byte, max int) (string, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	raw, cut := b[1:], true
	if n, _, ok := StringEnd(b); ok {
		raw, cut = b[1:n-1], false
	}
	// A literal cut off inside an escape or a code point ends before it.
	out, ok := unescape(make([]byte, 0, min(len(raw), max+4)), raw, max, cut)
	return string(out), ok
}

// unescape appends the decoded body of a JSON string literal to out, as
// encoding/json decodes it, stopping once out has grown by max bytes when
// max >= 0. When raw is cut off (the literal goes on past it), an escape
// or a code point that the cut splits ends it quietly.
func unescape(out, raw []byte, max int, cut bool) ([]byte, bool) {
	start := len(out)
	limit := func() bool { return max >= 0 && len(out)-start >= max }
	for i := 0; i < len(raw); {
		if limit() {
			return out, true
		}
		c := raw[i]
		switch {
		case c < 0x20:
			return out, false
		case c < utf8.RuneSelf && c != '\\':
			j := i + 1
			for j < len(raw) && raw[j] >= 0x20 && raw[j] < utf8.RuneSelf && raw[j] != '\\' {
				j++
			}
			if max >= 0 {
				j = min(j, i+max-(len(out)-start))
			}
			out = append(out, raw[i:j]...)
			i = j
			continue
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 && cut && !utf8.FullRune(raw[i:]) {
				return out, true // cut off inside a code point
			}
			out = utf8.AppendRune(out, r) // a bad byte is U+FFFD, as in encoding/json
			i += size
			continue
		}
		if i+1 >= len(raw) {
			return out, cut
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
				return out, cut && len(raw) < i+6
			}
			i += 6
			if utf16.IsSurrogate(r) && cut && len(raw) < i+6 {
				return out, true // the other half may be past the cut
			}
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
			return out, false
		}
		i += 2
	}
	return out, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return 0, false // ParseUint would take a sign or an underscore
		}
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

// Skip returns the index just past the JSON value that starts at b[i] (i
// is at its first byte, not at white space before it). Containers are
// skipped by counting brackets outside strings, so the bytes inside are
// checked no further than that.
func Skip(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var ok bool
				if i, ok = skipString(b, i); !ok {
					return i, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	case '}', ']', ',', ':':
		return i, false
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' && b[j] != '"' {
		j++
	}
	return j, j > i
}

// Members walks the members of the JSON object that starts at b[i], in
// order. For each it calls fn with the member's key (decoded when it holds
// escapes, else a slice of b) and the index of its value's first byte; fn
// returns the index just past that value, having skipped it (Skip) or
// read it. Members returns the index just past the object.
func Members(b []byte, i int, fn func(key []byte, v int) (int, bool)) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		n, esc, ok := StringEnd(b[i:])
		if !ok {
			return i, false
		}
		key := b[i+1 : i+n-1]
		if esc {
			s, _, ok := String(b[i : i+n])
			if !ok {
				return i, false
			}
			key = []byte(s)
		}
		i = SkipSpace(b, i+n)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = SkipSpace(b, i+1)
		if i >= len(b) {
			return i, false
		}
		if i, ok = fn(key, i); !ok {
			return i, false
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return i, false
		}
	}
}

// Elements walks the elements of the JSON array that starts at b[i], as
// Members does an object's: fn gets the index of each element's first
// byte and returns the index just past it.
func Elements(b []byte, i int, fn func(v int) (int, bool)) (int, bool) {
	if i >= len(b) || b[i] != '[' {
		return i, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		if i >= len(b) {
			return i, false
		}
		var ok bool
		if i, ok = fn(i); !ok {
			return i, false
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return i, false
		}
	}
}
