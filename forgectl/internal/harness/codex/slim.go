package codex

import (
	"bytes"
	"encoding/binary"
)

// instructionsKey is the session_meta payload's member that holds Codex's
// whole system prompt: about 22 KB of the line's 23, and nothing a row
// shows.
var instructionsKey = []byte(`"base_instructions":`)

// withoutInstructions is a session_meta line with its payload's
// base_instructions value replaced by null, so that decoding it does not
// scan the system prompt three times over (encoding/json validates the
// whole line, then decodes, then skips the unknown member). The cut
// keeps what the line decodes to, and whether it decodes at all: the
// value cut out is checked here to be well-formed JSON, and it sits
// directly in the payload object, whose fields do not include it.
// Anything this does not recognise (whitespace, numbers, a member not
// at the payload's top level) gives the line back whole, to be decoded
// the slow way.
func withoutInstructions(line []byte) []byte {
	i := bytes.Index(line, instructionsKey)
	if i <= 0 || !inPayload(line[:i]) {
		return line
	}
	start := i + len(instructionsKey)
	end, ok := skipValue(line, start, 0)
	if !ok {
		return line
	}
	out := make([]byte, 0, len(line)-(end-start)+len("null"))
	out = append(out, line[:start]...)
	out = append(out, "null"...)
	return append(out, line[end:]...)
}

// inPayload says the text before a member's key ends directly inside the
// line's payload object, just after its opening brace or a comma.
func inPayload(prefix []byte) bool {
	if last := prefix[len(prefix)-1]; last != '{' && last != ',' {
		return false
	}
	var stack []byte    // the open containers, '{' or '['
	var keys [][]byte   // the key each open container is the value of
	var str, key []byte // the last string closed, and the key pending
	inStr, esc := false, false
	strStart := 0
	for j, c := range prefix {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr, str = false, prefix[strStart:j]
			}
			continue
		}
		switch c {
		case '"':
			inStr, strStart = true, j+1
		case ':':
			key = str
		case '{', '[':
			stack, keys = append(stack, c), append(keys, key)
			key = nil
		case '}', ']':
			if len(stack) == 0 {
				return false
			}
			stack, keys = stack[:len(stack)-1], keys[:len(keys)-1]
		}
	}
	return !inStr && len(stack) == 2 && stack[0] == '{' && stack[1] == '{' && string(keys[1]) == "payload"
}

// skipValue is the end of the JSON object, array or string at line[i],
// and whether it is well-formed with no whitespace, numbers or literals
// (which send the line the slow way).
func skipValue(line []byte, i, depth int) (int, bool) {
	if i >= len(line) || depth > 64 {
		return 0, false
	}
	switch line[i] {
	case '"':
		return skipString(line, i)
	case '{':
		i++
		if i < len(line) && line[i] == '}' {
			return i + 1, true
		}
		for {
			var ok bool
			if i >= len(line) || line[i] != '"' {
				return 0, false
			}
			if i, ok = skipString(line, i); !ok || i >= len(line) || line[i] != ':' {
				return 0, false
			}
			if i, ok = skipValue(line, i+1, depth+1); !ok || i >= len(line) {
				return 0, false
			}
			switch line[i] {
			case ',':
				i++
			case '}':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case '[':
		i++
		if i < len(line) && line[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = skipValue(line, i, depth+1); !ok || i >= len(line) {
				return 0, false
			}
			switch line[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

// skipString is the end of the JSON string at line[i], and whether it is
// well-formed: no control characters, and only the escapes JSON has.
func skipString(line []byte, i int) (int, bool) {
	for j := i + 1; j < len(line); j++ {
		// Eight bytes at a time while none is a quote, a backslash or a
		// control character: the system prompt is almost all plain text.
		for j+8 <= len(line) && !special(binary.LittleEndian.Uint64(line[j:])) {
			j += 8
		}
		if j >= len(line) {
			break
		}
		switch c := line[j]; {
		case c == '"':
			return j + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			if j+1 >= len(line) {
				return 0, false
			}
			switch line[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if j+5 >= len(line) || !isHex(line[j+2]) || !isHex(line[j+3]) || !isHex(line[j+4]) || !isHex(line[j+5]) {
					return 0, false
				}
				j += 5
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special says one of the eight bytes of x may be a quote, a backslash or
// below 0x20 (never false when one is; a false alarm only sends those
// bytes through the byte-at-a-time check).
func special(x uint64) bool {
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return zero(x^(ones*'"'))|zero(x^(ones*'\\'))|((x-ones*0x20) & ^x & highs) != 0
}
