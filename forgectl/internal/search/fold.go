package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"forgectl.dev/forgectl/internal/harness"
	"golang.org/x/text/unicode/norm"
)

// Matching is case-insensitive by full Unicode case folding (Unicode's
// CaseFolding.txt, statuses C and F: ß and ẞ match "ss", ﬁ matches "fi",
// σ, ς and Σ match, K, k and the Kelvin sign), in Unicode normalization
// form NFC on both sides (a precomposed é matches e and a combining acute
// accent), and treats any run of white space as one space, so a phrase
// typed on one line finds text that wrapped. No Turkic special case: İ
// folds to i and a combining dot above, as in CaseFolding.txt.
//
// Folding works rune by rune; the normalization form works on runs of
// non-space runes, and only on runs that hold a non-ASCII rune: ASCII
// text, most of what is indexed, takes a byte-at-a-time path. A space
// never composes with what is next to it, so a run's NFC form is the same
// alone as inside its text.

// foldRune is the simple case folding of r: the lower case of its upper
// case, one representative for each set of runes that fold together.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// appendFold appends the full case folding of the non-ASCII rune r.
func appendFold(b []byte, r rune) []byte {
	if f, ok := fullFold(r); ok {
		return append(b, f...)
	}
	return utf8.AppendRune(b, foldRune(r))
}

// appendFoldedRun appends run (non-space runes), folded and in NFC.
func appendFoldedRun(b []byte, run string) []byte {
	from := len(b)
	for _, r := range run {
		if r < utf8.RuneSelf {
			b = append(b, byte(foldRune(r)))
		} else {
			b = appendFold(b, r) // a byte that is not UTF-8 is U+FFFD
		}
	}
	return toNFC(b, from)
}

// toNFC puts b[from:], folded text, in NFC.
func toNFC(b []byte, from int) []byte {
	if norm.NFC.IsNormal(b[from:]) {
		return b
	}
	n := norm.NFC.Append(nil, b[from:]...)
	return append(b[:from], n...)
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}
	return unicode.IsSpace(r)
}

// normalize folds s, puts it in NFC and collapses white space runs into
// one space, trimming both ends.
func normalize(s string) string { return string(appendNormalized(nil, s)) }

// appendNormalized appends normalize(s) to b, so that a caller matching
// many messages reuses one buffer.
func appendNormalized(b []byte, s string) []byte {
	start := len(b)
	space := false
	run := -1 // where the current run starts in b, once it holds a non-ASCII rune
	runStart := start
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case ' ', '\t', '\n', '\r', '\v', '\f':
				if run >= 0 {
					b, run = toNFC(b, run), -1
				}
				space = true
				continue
			}
			if space && len(b) > start {
				b = append(b, ' ')
			}
			if space || len(b) == start {
				runStart = len(b)
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
			if run >= 0 {
				b, run = toNFC(b, run), -1
			}
			space = true
			continue
		}
		if space && len(b) > start {
			b = append(b, ' ')
		}
		if space || len(b) == start {
			runStart = len(b)
		}
		space = false
		if run < 0 {
			run = runStart
		}
		b = appendFold(b, r)
	}
	if run >= 0 {
		b = toNFC(b, run)
	}
	return b
}

// runEnd is the index of the first white space rune at or after i in s,
// or len(s).
func runEnd(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isSpace(r) {
			return i
		}
		i += size
	}
	return i
}

// origOffset maps a byte offset in normalize(s) back to an offset in s:
// exactly in ASCII, else to the start of the normalization segment
// (a character and its combining marks) holding it, close enough for a
// snippet.
func origOffset(s string, p int) int {
	n := 0 // bytes of normalized output so far
	started := false
	var buf []byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isSpace(r) {
			i += size
			continue
		}
		end := runEnd(s, i)
		if started {
			if n >= p {
				return i
			}
			n++ // the space between runs
		}
		started = true
		run := s[i:end]
		if isASCII(run) {
			if p < n+len(run) {
				return i + max(0, p-n)
			}
			n += len(run)
		} else {
			for k := 0; k < len(run); {
				seg := len(run) - k
				if j := norm.NFC.NextBoundaryInString(run[k:], true); j > 0 {
					seg = j
				}
				buf = appendFoldedRun(buf[:0], run[k:k+seg])
				if p < n+len(buf) {
					return i + k
				}
				n += len(buf)
				k += seg
			}
		}
		i = end
	}
	return len(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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

// tokensOf lists the distinct tokens of msgs (set is scratch space): the
// tokens of each message's normalized text, found in one pass over ASCII
// text with the folding done on the way (a first build spends a third of
// its time here). A non-ASCII rune sends the rest of its run, from the
// token being built or else from the character before (a combining mark
// can compose with it), through normalize's folding and NFC, and that
// part is split into tokens as normalized text is.
func tokensOf(msgs []harness.Message, set map[string]struct{}) []string {
	clear(set)
	keep := func(t string) {
		if _, ok := set[t]; !ok {
			set[strings.Clone(t)] = struct{}{} // t aliases tok or seg
		}
	}
	var tok, seg []byte
	flush := func() {
		if len(tok) > 0 {
			emitToken(unsafe.String(unsafe.SliceData(tok), len(tok)), keep)
			tok = tok[:0]
		}
	}
	for _, m := range msgs {
		s := m.Text
		for i := 0; i < len(s); {
			c := s[i]
			if c < utf8.RuneSelf {
				i++
				switch {
				case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
					tok = append(tok, c)
				case 'A' <= c && c <= 'Z':
					tok = append(tok, c+'a'-'A')
				default:
					flush()
				}
				continue
			}
			if r, size := utf8.DecodeRuneInString(s[i:]); isSpace(r) {
				flush()
				i += size
				continue
			}
			// tok holds the ASCII bytes just before i, one for one.
			from := i - len(tok)
			if len(tok) == 0 && i > 0 && s[i-1] < utf8.RuneSelf && !isSpace(rune(s[i-1])) {
				from = i - 1
			}
			tok = tok[:0]
			end := runEnd(s, i)
			seg = appendFoldedRun(seg[:0], s[from:end])
			eachToken(unsafe.String(unsafe.SliceData(seg), len(seg)), keep)
			i = end
		}
		flush()
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	return out
}
