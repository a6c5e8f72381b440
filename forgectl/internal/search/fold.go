package search

import (
	"hash/maphash"
	"math/bits"
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
// its time here, most of it telling a token it has seen from a new one).
// A non-ASCII rune sends the rest of its run, from the token being built
// or else from the character before (a combining mark can compose with
// it), through normalize's folding and NFC, and that part is split into
// tokens as normalized text is. The tokens share one string, in the order
// first seen.
func tokensOf(msgs []harness.Message, set *tokenSet) []string {
	set.reset()
	keep := set.add
	var low, seg []byte
	// emit adds the ASCII token t; key packs its first eight bytes,
	// lowered (tokenSet.addShort); upper says t has a capital.
	emit := func(t string, key uint64, upper bool) {
		switch {
		case len(t) <= shortToken:
			set.addShort(key)
		case upper:
			low = append(low[:0], t...)
			for k, c := range low {
				if 'A' <= c && c <= 'Z' {
					low[k] = c + 'a' - 'A'
				}
			}
			emitToken(unsafe.String(unsafe.SliceData(low), len(low)), keep)
		default:
			emitToken(t, keep)
		}
	}
	for _, m := range msgs {
		s := m.Text
		for i := 0; i < len(s); {
			// An ASCII token s[start:i] that runs into the rune at i.
			start, key, caps := -1, uint64(0), byte(0)
			if c := s[i]; c < utf8.RuneSelf {
				if l := c | 0x20; (l < 'a' || l > 'z') && (c < '0' || c > '9') {
					i++
					continue
				}
				// The token's end is found eight bytes at a time. Every
				// byte of it is a letter or a digit, lowered by setting
				// bit 5 (a digit has it); caps gathers the bytes that
				// lacked it.
				start = i
				var upper uint64
				for i+8 <= len(s) {
					w := load64(s, i)
					word := asciiWordBytes(w)
					if stop := ^word & hi8; stop != 0 {
						n := bits.TrailingZeros64(stop) >> 3
						upper |= (^w << 2) & word & (1<<(8*n) - 1)
						i += n
						break
					}
					upper |= (^w << 2) & word
					i += 8
				}
				if upper != 0 {
					caps = 1
				}
				for ; i < len(s); i++ {
					c := s[i]
					if l := c | 0x20; (l < 'a' || l > 'z') && (c < '0' || c > '9') {
						break
					}
					caps |= ^c & 0x20
				}
				if n := i - start; n <= shortToken {
					if start+8 <= len(s) {
						// (1<<64 - 1 is every bit: n may be 8.)
						key = (load64(s, start) | 0x2020202020202020) & (1<<(8*n) - 1)
					} else {
						for k := range n {
							key |= uint64(s[start+k]|0x20) << (8 * k)
						}
					}
				}
				if i == len(s) || s[i] < utf8.RuneSelf {
					emit(s[start:i], key, caps != 0)
					continue
				}
			}
			if r, size := utf8.DecodeRuneInString(s[i:]); isSpace(r) {
				if start >= 0 {
					emit(s[start:i], key, caps != 0)
				}
				i += size
				continue
			}
			// The ASCII token before the rune goes through the folding
			// with its run, or else the character before it.
			from := i
			if start >= 0 {
				from = start
			} else if i > 0 && s[i-1] < utf8.RuneSelf && !isSpace(rune(s[i-1])) {
				from = i - 1
			}
			end := runEnd(s, i)
			seg = appendFoldedRun(seg[:0], s[from:end])
			eachToken(unsafe.String(unsafe.SliceData(seg), len(seg)), keep)
			i = end
		}
	}
	return set.list()
}

// hi8 is bit 7 of each byte of a word.
const hi8 = 0x8080808080808080

// load64 reads s[i:i+8] as a little-endian word.
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// asciiWordBytes sets bit 7 of each byte of w that is an ASCII letter or
// digit: range checks done on all eight bytes at once, by adding to each
// 7-bit byte a constant that carries into its bit 7 at the range's bound
// (no sum leaves its byte).
func asciiWordBytes(w uint64) uint64 {
	x := w &^ hi8
	l := x | 0x2020202020202020
	letter := (l + 0x1f1f1f1f1f1f1f1f) &^ (l + 0x0505050505050505) // 0x61 <= l <= 0x7a
	digit := (x + 0x5050505050505050) &^ (x + 0x4646464646464646)  // 0x30 <= x <= 0x39
	return (letter | digit) & hi8 &^ w
}

// tokenSet is the distinct tokens of one session. A first build asks it
// once for every token of every message, so it avoids what a Go map of
// strings costs there (hashing each token, comparing bytes, allocating
// each new one): a token of up to eight bytes, most of them, is packed
// into a uint64 (its bytes, little-endian; no byte of a token is 0) and
// looked up by a multiply in a table of those; a longer one is kept in one
// buffer under an open-addressed table of its hash.
type tokenSet struct {
	short  []uint64 // 0: empty
	shorts []uint64 // the short tokens, in the order added
	seed   maphash.Seed
	seeded bool
	slots  []tokenSlot
	end    []uint32 // long token k is bytes[end[k-1]:end[k]], in the order added
	bytes  []byte
}

// shortToken is the longest token addShort takes.
const shortToken = 8

// tokenSlot is a long token's hash (folded to 32 bits) and its bytes; to
// is 0 in an empty slot.
type tokenSlot struct{ hash, from, to uint32 }

func (ts *tokenSet) reset() {
	if !ts.seeded {
		ts.seed, ts.seeded = maphash.MakeSeed(), true
	}
	// A huge session's tables are not cleared for every small one after it.
	if len(ts.short) > 1<<16 && len(ts.shorts) < 1<<12 || ts.short == nil {
		ts.short = make([]uint64, 1<<10)
	} else {
		clear(ts.short)
	}
	if len(ts.slots) > 1<<16 && len(ts.end) < 1<<12 || ts.slots == nil {
		ts.slots = make([]tokenSlot, 1<<8)
	} else {
		clear(ts.slots)
	}
	ts.shorts, ts.end, ts.bytes = ts.shorts[:0], ts.end[:0], ts.bytes[:0]
}

// add puts t in the set unless it is there; t may alias a buffer that
// changes afterwards.
func (ts *tokenSet) add(t string) {
	if len(t) <= shortToken {
		var key uint64
		for k := 0; k < len(t); k++ {
			key |= uint64(t[k]) << (8 * k)
		}
		ts.addShort(key)
		return
	}
	h := maphash.String(ts.seed, t)
	h32 := uint32(h ^ h>>32)
	mask := uint32(len(ts.slots) - 1)
	i := h32 & mask
	for ; ts.slots[i].to != 0; i = (i + 1) & mask {
		if sl := ts.slots[i]; sl.hash == h32 && string(ts.bytes[sl.from:sl.to]) == t {
			return
		}
	}
	from := uint32(len(ts.bytes))
	ts.bytes = append(ts.bytes, t...)
	ts.slots[i] = tokenSlot{h32, from, uint32(len(ts.bytes))}
	ts.end = append(ts.end, uint32(len(ts.bytes)))
	if 2*len(ts.end) > len(ts.slots) {
		old := ts.slots
		ts.slots = make([]tokenSlot, 2*len(old))
		mask := uint32(len(ts.slots) - 1)
		for _, sl := range old {
			if sl.to != 0 {
				i := sl.hash & mask
				for ts.slots[i].to != 0 {
					i = (i + 1) & mask
				}
				ts.slots[i] = sl
			}
		}
	}
}

// addShort puts the packed token key in the set unless it is there.
func (ts *tokenSet) addShort(key uint64) {
	mask := uint64(len(ts.short) - 1)
	i := shortSlot(key, mask)
	for ; ts.short[i] != 0; i = (i + 1) & mask {
		if ts.short[i] == key {
			return
		}
	}
	ts.short[i] = key
	ts.shorts = append(ts.shorts, key)
	if 2*len(ts.shorts) > len(ts.short) {
		ts.short = make([]uint64, 2*len(ts.short))
		mask := uint64(len(ts.short) - 1)
		for _, k := range ts.shorts {
			i := shortSlot(k, mask)
			for ts.short[i] != 0 {
				i = (i + 1) & mask
			}
			ts.short[i] = k
		}
	}
}

// shortSlot is where a packed token's probe starts: Fibonacci hashing,
// the top bits of a multiply.
func shortSlot(key, mask uint64) uint64 {
	return (key * 0x9e3779b97f4a7c15 >> 32) & mask
}

// list returns the tokens, short ones first, each in the order added, as
// slices of one string (a single allocation however many there are).
func (ts *tokenSet) list() []string {
	buf := make([]byte, 0, len(ts.shorts)*shortToken+len(ts.bytes))
	ends := make([]int, 0, len(ts.shorts))
	for _, k := range ts.shorts {
		for ; k != 0; k >>= 8 {
			buf = append(buf, byte(k))
		}
		ends = append(ends, len(buf))
	}
	buf = append(buf, ts.bytes...)
	all := unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is not written again
	out := make([]string, 0, len(ts.shorts)+len(ts.end))
	from := 0
	for _, e := range ends {
		out = append(out, all[from:e])
		from = e
	}
	base := from
	for _, e := range ts.end {
		out = append(out, all[from:base+int(e)])
		from = base + int(e)
	}
	return out
}
