package search

import (
	"unicode"
	"unicode/utf8"
)

// Matching is case-insensitive by simple case folding (each rune mapped to
// the lower case of its upper case, so σ, ς and Σ match, and K, k and the
// Kelvin sign) and treats any run of white space as one space, so a phrase
// typed on one line finds text that wrapped.

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}
	return unicode.IsSpace(r)
}

// normalize folds s and collapses white space runs into one space,
// trimming both ends.
func normalize(s string) string { return string(appendNormalized(nil, s)) }

// appendNormalized appends normalize(s) to b, so that a caller matching
// many messages reuses one buffer.
func appendNormalized(b []byte, s string) []byte {
	start := len(b)
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case ' ', '\t', '\n', '\r', '\v', '\f':
				space = true
				continue
			}
			if space && len(b) > start {
				b = append(b, ' ')
			}
			space = false
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isSpace(r) {
			space = true
			continue
		}
		if space && len(b) > start {
			b = append(b, ' ')
		}
		space = false
		b = utf8.AppendRune(b, foldRune(r))
	}
	return b
}

// origOffset maps a byte offset in normalize(s) back to the offset in s of
// the same rune.
func origOffset(s string, p int) int {
	n := 0 // bytes of normalized output so far
	space, started := false, false
	for i, r := range s {
		if isSpace(r) {
			space = true
			continue
		}
		if space && started {
			if n >= p {
				return i
			}
			n++
		}
		space = false
		if n >= p {
			return i
		}
		started = true
		n += utf8.RuneLen(foldRune(r)) // an invalid byte is U+FFFD there, 3 bytes
	}
	return len(s)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// Tokens are the runs of letters and digits of normalized text: the index
// maps each to the sessions holding it, and a query word is looked up by
// its longest token, so the index only ever narrows down which sessions
// the exact match is tried on.
//
// A token longer than maxToken bytes (a hash, a base64 blob) is indexed as
// overlapping windows of maxToken bytes every tokenStride bytes, so any
// query token of up to maxQueryToken bytes inside it is inside one window.
const (
	maxToken      = 256
	tokenStride   = 128
	maxQueryToken = 120
)

// eachToken calls fn with every token of the normalized string s.
func eachToken(s string, fn func(string)) {
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emitToken(s[start:i], fn)
			start = -1
		}
	}
	if start >= 0 {
		emitToken(s[start:], fn)
	}
}

func emitToken(t string, fn func(string)) {
	if len(t) <= maxToken {
		fn(t)
		return
	}
	for i := 0; i < len(t); i += tokenStride {
		i = runeStart(t, i)
		end := runeStart(t, min(len(t), i+maxToken))
		if end == len(t) || i+maxToken >= len(t) {
			fn(t[i:])
			return
		}
		fn(t[i:end])
	}
}

// runeStart moves i back to the start of the rune holding byte i.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// keyToken is the token a normalized query term is looked up by: its
// longest one that the index can answer for, or "" when none can (the term
// is then matched against every session).
func keyToken(term string) string {
	best := ""
	eachToken(term, func(t string) {
		if len(t) > len(best) && len(t) <= maxQueryToken {
			best = t
		}
	})
	return best
}
