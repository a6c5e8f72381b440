package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/parallel"
)

// Query is what to look for: every term must appear in the session, each
// inside one message (AND across messages).
type Query struct {
	Terms []Term
}

// Term is a word or a "quoted phrase", as typed and normalized.
type Term struct {
	Text   string // as typed (quotes removed, escapes applied)
	Phrase bool
	norm   string
	normB  []byte
	key    string // the token the index is asked for; "" means none
}

// ErrEmptyQuery is a query with nothing to look for.
var ErrEmptyQuery = errors.New("the query has no words")

// ParseQuery reads the words of a query. Words are separated by white
// space; double quotes make a phrase, matched as written and in order
// (white space runs matching any white space). Inside and outside quotes,
// \" is a quote and \\ a backslash; any other backslash is itself, so a
// Windows path needs no doubling.
func ParseQuery(s string) (Query, error) {
	var q Query
	var cur strings.Builder
	inQuote, have := false, false
	flush := func(phrase bool) {
		if have || phrase {
			t := cur.String()
			if n := normalize(t); n != "" {
				q.Terms = append(q.Terms, Term{Text: t, Phrase: phrase, norm: n, normB: []byte(n), key: keyToken(n)})
			}
		}
		cur.Reset()
		have = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			cur.WriteByte(s[i+1])
			have = true
			i++
		case c == '"':
			if inQuote {
				flush(true)
			} else {
				flush(false)
			}
			inQuote = !inQuote
		case !inQuote && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			flush(false)
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if inQuote {
		return Query{}, errors.New(`a quote is not closed (write \" for a quote character)`)
	}
	flush(false)
	if len(q.Terms) == 0 {
		return Query{}, ErrEmptyQuery
	}
	if !utf8.ValidString(s) {
		return Query{}, errors.New("the query is not valid UTF-8")
	}
	return q, nil
}

// Hit is one message that holds query terms.
type Hit struct {
	Role    harness.Role
	At      time.Time
	Snippet string
	terms   int // how many of the query's terms it holds
}

// MaxHits is how many hits are kept per session, best first.
const MaxHits = 5

// Result is a search's answer.
type Result struct {
	// Hits holds, per transcript path of a matching session, its best
	// hits: the messages holding the most terms, newest first among equals.
	Hits map[string][]Hit
	// Problems are transcripts that could not be read; they never fail the
	// search.
	Problems []error
	Stats    Stats
	// Notes say what the caller should tell the person (a damaged index
	// that was rebuilt).
	Notes []string
}

// Search brings the index up to date and runs q over it, under the index
// lock, so concurrent searches each see a whole index. Cancelling ctx ends
// an update between transcripts; the index on disk is left as it was.
func Search(ctx context.Context, opt Options, q Query) (Result, error) {
	lock, err := lockIndex(opt)
	if err != nil {
		return Result{}, err
	}
	defer lock.Unlock()
	var res Result
	for attempt := 0; ; attempt++ {
		res.Stats = Stats{}
		ix, problems, err := update(ctx, opt, q, &res.Stats)
		if err == nil {
			res.Problems = problems
			res.Hits, err = ix.query(q, workers(opt))
			ix.close()
			if err == nil {
				return res, nil
			}
		}
		if !errors.Is(err, errDamaged) || attempt > 0 {
			return res, err
		}
		// A damaged index is never trusted: start again from nothing.
		res.Notes = append(res.Notes, fmt.Sprintf("the search index was damaged (%v); rebuilding it", strings.TrimPrefix(err.Error(), errDamaged.Error()+": ")))
		if err := wipe(opt.Dir); err != nil {
			return res, err
		}
	}
}

// query finds the sessions holding every term.
func (ix *index) query(q Query, nworkers int) (map[string][]Hit, error) {
	// Which records may match: those holding, for every term, a token
	// containing the term's key token. Records superseded by a newer
	// segment are not candidates.
	type cand struct {
		e    *entry
		seg  *segment
		hits []Hit
		err  error
	}
	owner := map[uint64][]int32{}
	for id, s := range ix.segs {
		o := make([]int32, s.nrec)
		for i := range o {
			o[i] = -1
		}
		owner[id] = o
	}
	for i := range ix.cat.Entries {
		e := &ix.cat.Entries[i]
		if o := owner[e.Seg]; o != nil && e.Rec < len(o) {
			o[e.Rec] = int32(i)
		}
	}
	var cands []cand
	for id, s := range ix.segs {
		ok := make([]bool, s.nrec)
		for i := range ok {
			ok[i] = owner[id][i] >= 0
		}
		marks := make([]bool, s.nrec)
		for _, t := range q.Terms {
			if t.key == "" {
				continue
			}
			clear(marks)
			if err := s.match(t.key, marks); err != nil {
				return nil, err
			}
			for i := range ok {
				ok[i] = ok[i] && marks[i]
			}
		}
		for r, yes := range ok {
			if yes {
				cands = append(cands, cand{e: &ix.cat.Entries[owner[id][r]], seg: s})
			}
		}
	}
	bufs := sync.Pool{New: func() any { return new([]byte) }}
	parallel.For(context.Background(), len(cands), nworkers, 1, func(i int) {
		c := &cands[i]
		buf := bufs.Get().(*[]byte)
		defer bufs.Put(buf)
		msgs, b, err := c.seg.record(c.e.Rec, *buf)
		*buf = b
		if err != nil {
			c.err = err
			return
		}
		c.hits = matchSession(msgs, q)
	})
	out := map[string][]Hit{}
	for _, c := range cands {
		if c.err != nil {
			return nil, c.err
		}
		if c.hits != nil {
			out[c.e.Path] = c.hits
		}
	}
	return out, nil
}

// matchSession returns the best hits when every term is in some message,
// else nil. The snippets are copies: the messages live in a mapping.
func matchSession(msgs []harness.Message, q Query) []Hit {
	found := make([]bool, len(q.Terms))
	type hit struct {
		m     int
		terms int
		first int // the first term found, for the snippet
	}
	var hits []hit
	var buf []byte
	for k, m := range msgs {
		buf = appendNormalized(buf[:0], m.Text)
		h := hit{m: k, first: -1}
		for ti, t := range q.Terms {
			if bytes.Contains(buf, t.normB) {
				found[ti] = true
				h.terms++
				if h.first < 0 {
					h.first = ti
				}
			}
		}
		if h.terms > 0 {
			hits = append(hits, h)
		}
	}
	for _, f := range found {
		if !f {
			return nil
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.terms != b.terms {
			return b.terms - a.terms
		}
		return int(msgs[b.m].At - msgs[a.m].At) // newest first (ms fit an int)
	})
	out := make([]Hit, 0, min(len(hits), MaxHits))
	for _, h := range hits[:min(len(hits), MaxHits)] {
		m := msgs[h.m]
		out = append(out, Hit{Role: m.Role, At: time.UnixMilli(m.At).UTC(), Snippet: snippet(m.Text, q.Terms[h.first].norm), terms: h.terms})
	}
	return out
}

// snippetBefore and snippetLen shape a snippet: some context before the
// match, the rest after, on one line.
const (
	snippetBefore = 30
	snippetLen    = 100
)

// snippet is the text around the first occurrence of norm (a normalized
// term) in text, on one line, with … where it was cut.
func snippet(text, norm string) string {
	n := normalize(text)
	p := strings.Index(n, norm)
	if p < 0 {
		p = 0
	}
	at := origOffset(text, p)
	start := at
	for k := 0; k < snippetBefore && start > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	// Start at a word boundary when one is near.
	if start > 0 {
		if i := strings.IndexAny(text[start:at], " \t\n"); i >= 0 {
			start += i + 1
		}
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	runes, space := 0, false
	i := start
	for i < len(text) && runes < snippetLen {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if isSpace(r) || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			runes++
			space = false
		}
		b.WriteRune(r)
		runes++
	}
	for ; i < len(text); i++ {
		if !isSpace(rune(text[i])) {
			b.WriteString("…")
			break
		}
	}
	return b.String()
}

// Marks are the byte ranges of s (a snippet, as shown) where q's terms
// are, folded and normalized as a search matches them, in order and
// without overlaps: what a terminal highlights.
func (q Query) Marks(s string) [][2]int {
	n := normalize(s)
	var out [][2]int
	for _, t := range q.Terms {
		if t.norm == "" {
			continue
		}
		for from := 0; ; {
			p := strings.Index(n[from:], t.norm)
			if p < 0 {
				break
			}
			p += from
			end := p + len(t.norm)
			a := origOffset(s, p)
			b := origOffset(s, end-1)
			_, size := utf8.DecodeRuneInString(s[b:])
			out = append(out, [2]int{a, b + size})
			from = end
		}
	}
	slices.SortFunc(out, func(x, y [2]int) int { return x[0] - y[0] })
	merged := out[:0]
	for _, m := range out {
		if k := len(merged) - 1; k >= 0 && m[0] <= merged[k][1] {
			merged[k][1] = max(merged[k][1], m[1])
			continue
		}
		merged = append(merged, m)
	}
	return merged
}
