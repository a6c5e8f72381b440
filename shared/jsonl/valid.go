package jsonl

import (
	"bytes"
	"encoding/binary"
)

// maxDepth is how deeply encoding/json lets containers nest.
const maxDepth = 10000

// Valid says b is one JSON value, with white space around it allowed, as
// json.Valid does: the same grammar, the same nesting limit, and bytes
// that are not UTF-8 accepted inside strings, as there. It is the check a
// reader that walks a line (Members, Skip) needs to reject what
// encoding/json would reject, at a fraction of encoding/json's cost: most
// of a rollout line is string text, which is looked through eight bytes
// at a time.
func Valid(b []byte) bool {
	stack := make([]byte, 0, 64) // '{' or '[' for each open container
	i := SkipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		var ok bool
		switch b[i] {
		case '{', '[':
			if len(stack) >= maxDepth {
				return false
			}
			stack = append(stack, b[i])
			end := byte('}')
			if b[i] == '[' {
				end = ']'
			}
			if i = SkipSpace(b, i+1); i < len(b) && b[i] == end {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if end == ']' {
				continue // the first element
			}
			if i, ok = key(b, i); !ok {
				return false
			}
			continue
		case '"':
			if i, ok = validString(b, i); !ok {
				return false
			}
		case 't':
			if i, ok = literal(b, i, "true"); !ok {
				return false
			}
		case 'f':
			if i, ok = literal(b, i, "false"); !ok {
				return false
			}
		case 'n':
			if i, ok = literal(b, i, "null"); !ok {
				return false
			}
		default:
			if i, ok = number(b, i); !ok {
				return false
			}
		}
		// After a value: close what it ends, then a comma and the next.
		for {
			i = SkipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = SkipSpace(b, i+1)
				if top == '{' {
					if i, ok = key(b, i); !ok {
						return false
					}
				}
				break
			}
			if top == '{' && b[i] == '}' || top == '[' && b[i] == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return false
		}
	}
}

// key checks a member's key and colon at b[i], and returns the index of
// its value.
func key(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := validString(b, i)
	if !ok {
		return i, false
	}
	if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
		return i, false
	}
	return SkipSpace(b, i+1), true
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
// What follows it is checked by the caller, as after any value.
func number(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// validString returns the index just past the string literal at b[i] (a
// quote), and whether it is well-formed: no control characters, and only
// the escapes JSON has. It hops from quote to quote and from backslash to
// backslash with vectorised searches, and checks the text between for
// control characters eight bytes at a time: string text is almost all
// plain, and this is most of what Valid costs.
func validString(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b), false
		}
		q += j
		// b[j:q] holds no quote: check it up to q or an escape.
		for {
			e := q
			if k := bytes.IndexByte(b[j:q], '\\'); k >= 0 {
				e = j + k
			}
			if control(b[j:e]) {
				return j, false
			}
			if e == q {
				return q + 1, true
			}
			switch b[e+1] { // e+1 <= q
			case '"':
				j = e + 2 // an escaped quote: the literal goes on past q
			case '\\', '/', 'b', 'f', 'n', 'r', 't':
				j = e + 2
			case 'u':
				if e+5 >= q || !isHex(b[e+2]) || !isHex(b[e+3]) || !isHex(b[e+4]) || !isHex(b[e+5]) {
					return e, false
				}
				j = e + 6
			default:
				return e, false
			}
			if j > q {
				break // past the quote that was escaped: find the next
			}
		}
	}
}

// control says s holds a byte below 0x20.
func control(s []byte) bool {
	for len(s) >= 8 {
		x := binary.LittleEndian.Uint64(s)
		if (x-ones*0x20) & ^x & highs != 0 {
			return true
		}
		s = s[8:]
	}
	for _, c := range s {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)
