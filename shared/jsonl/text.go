package jsonl

import (
	"unicode"
	"unicode/utf8"
)

// What a row of any agent shows of a JSON line's text, and the longest
// line whose text is decoded whole: rules every harness shares, so that
// they live beside the decoder rather than in one agent's package.

// DecodeCap bounds the rows whose text is decoded whole, for the listing
// and for search alike, for every harness: a longer row is an attachment
// or a pasted file.
// Search leaves the text of such a row out; the listing still shows the
// start of a prompt that long (PromptText), read without decoding it all.
const DecodeCap = 4 << 20

// Oneline collapses whitespace (unicode.IsSpace) and cuts at 200 runes
// with an ellipsis. It reads no further than the 201st rune: a listing
// calls it on every prompt of history.jsonl, where a pasted text can run
// to kilobytes. A bad UTF-8 byte counts as a rune; it is kept as it is in
// a line that fits, and becomes U+FFFD in one that is cut.
func Oneline(s string) string {
	const most = 200
	if isOneline(s, most) {
		return s // most prompts are one line already: no copy
	}
	var b []byte
	n, space := 0, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = true
			i += size
			continue
		}
		if space && n > 0 {
			b = append(b, ' ')
			n++
		}
		space = false
		if n > most {
			break
		}
		b = append(b, s[i:i+size]...)
		n++
		i += size
	}
	if n > most {
		return string([]rune(string(b))[:most]) + "…"
	}
	return string(b)
}

// isOneline says Oneline would give s back as it is: at most most runes,
// no white space but single spaces between words.
func isOneline(s string, most int) bool {
	n, space := 0, true // a leading space is not kept
	for i := 0; i < len(s); n++ {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ':
				if space {
					return false
				}
				space = true
			case '\t', '\n', '\v', '\f', '\r':
				return false
			default:
				space = false
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return false
			}
			space = false
			i += size
		}
		if n >= most {
			return false
		}
	}
	return !space || s == ""
}
