package search

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
	"github.com/google/go-cmp/cmp"
)

type tree struct {
	t        *testing.T
	projects string
	opt      Options
}

func newTree(t *testing.T) *tree {
	d := t.TempDir()
	tr := &tree{t: t, projects: filepath.Join(d, "claude", "projects")}
	tr.opt = Options{Harness: claude.New(paths.Claude{Root: filepath.Join(d, "claude")}, snapstore.Store{}), Dir: filepath.Join(d, "cache", "search")}
	return tr
}

func (tr *tree) path(name string) string {
	return filepath.Join(tr.projects, "-home-alice-src-demo", name+".jsonl")
}

func (tr *tree) write(name string, lines ...string) {
	tr.t.Helper()
	p := tr.path(name)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) append(name string, lines ...string) {
	tr.t.Helper()
	f, err := os.OpenFile(tr.path(name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tr.t.Fatal(err)
	}
	f.WriteString(strings.Join(lines, "\n") + "\n")
	f.Close()
	// A later mtime, as a real append a moment later has.
	later := time.Now().Add(time.Duration(len(lines)) * time.Second)
	os.Chtimes(tr.path(name), later, later)
}

// search returns the names of the sessions q finds, sorted, and the result.
func (tr *tree) search(q string) ([]string, Result) {
	tr.t.Helper()
	pq, err := ParseQuery(q)
	if err != nil {
		tr.t.Fatal(err)
	}
	res, err := Search(context.Background(), tr.opt, pq)
	if err != nil {
		tr.t.Fatalf("search %q: %v", q, err)
	}
	var names []string
	for p := range res.Hits {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".jsonl"))
	}
	slices.Sort(names)
	return names, res
}

func (tr *tree) expect(q string, want ...string) Result {
	tr.t.Helper()
	got, res := tr.search(q)
	if want == nil {
		want = []string{}
	}
	if got == nil {
		got = []string{}
	}
	if d := cmp.Diff(want, got); d != "" {
		tr.t.Errorf("search %q (-want +got):\n%s", q, d)
	}
	return res
}

func TestQueryMeaning(t *testing.T) {
	tr := newTree(t)
	tr.write("a", cchome.PromptRow("Fix the INVOICE rounding", 1), cchome.ReplyRow("Done: see roundHalfEven", 2))
	tr.write("b", cchome.PromptRow("invoice only", 1))
	tr.write("c", cchome.PromptRow("rounding only", 1), cchome.ToolUseRow("Bash", map[string]any{"command": `say "hi" C:\temp`}, 2))
	tr.write("d", cchome.PromptRow("ship it\n\n  today, naïve CAFÉ ΣΊΣΥΦΟΣ", 1))
	tr.write("e", cchome.PromptRow("ship today it", 1))

	tr.expect("invoice rounding", "a")      // AND across messages, no decoy
	tr.expect("invoice", "a", "b")          // case-insensitive
	tr.expect("roundhalfeven", "a")         // inside a reply
	tr.expect("round", "a", "c")            // inside longer words
	tr.expect(`"ship it today"`, "d")       // a phrase across a newline, in order
	tr.expect(`"it today"`, "d")            // not e: the words are there, not the phrase
	tr.expect("today ship", "d", "e")       // words in any order
	tr.expect("café σίσυφος", "d")          // Unicode case folding, final sigma
	tr.expect(`"say \"hi\""`, "c")          // an escaped quote inside a phrase
	tr.expect(`C:\temp`, "c")               // a backslash as written
	tr.expect("zebra")                      // nothing
	tr.expect(`invoice "rounding only"`)    // AND with a phrase, in different sessions
	tr.expect(":", "a", "c")                // no token to look up: every session is tried
	tr.expect("i", "a", "b", "c", "d", "e") // one letter
	tr.expect(`"fix the invoice"`, "a")     // phrase at the start
	tr.expect("roundhalfeven.")             // punctuation is matched as written
}

func TestParseQuery(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Term
		err  bool
	}{
		{in: "a b", want: []Term{{Text: "a"}, {Text: "b"}}},
		{in: `"a b" c`, want: []Term{{Text: "a b", Phrase: true}, {Text: "c"}}},
		{in: `x"a b"`, want: []Term{{Text: "x"}, {Text: "a b", Phrase: true}}},
		{in: `"\"q\"" \\`, want: []Term{{Text: `"q"`, Phrase: true}, {Text: `\`}}},
		{in: `C:\dir`, want: []Term{{Text: `C:\dir`}}},
		{in: `"open`, err: true},
		{in: `  `, err: true},
		{in: `""`, err: true},
	} {
		q, err := ParseQuery(c.in)
		if (err != nil) != c.err {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		var got []Term
		for _, tm := range q.Terms {
			got = append(got, Term{Text: tm.Text, Phrase: tm.Phrase})
		}
		if d := cmp.Diff(c.want, got, cmp.AllowUnexported(Term{})); d != "" {
			t.Errorf("%q (-want +got):\n%s", c.in, d)
		}
	}
}

func TestHitsAndSnippets(t *testing.T) {
	tr := newTree(t)
	long := strings.Repeat("filler words here ", 20) + "the needle is\nhere " + strings.Repeat("and more after ", 20)
	tr.write("a", cchome.PromptRow("needle haystack", 1), cchome.ReplyRow(long, 2), cchome.TitleRow("custom-title", "customTitle", "Needle work"))
	res := tr.expect("needle haystack", "a")
	hits := res.Hits[tr.path("a")]
	if len(hits) != 3 {
		t.Fatalf("hits: %+v", hits)
	}
	// The prompt holds both words: it is the best hit.
	if hits[0].Role != harness.Prompt || hits[0].Snippet != "needle haystack" || !hits[0].At.Equal(time.UnixMilli(cchome.RowMs(1))) {
		t.Errorf("best hit %+v", hits[0])
	}
	// Then the reply and the name, equally good and equally new: in the
	// order written.
	if hits[1].Role != harness.Reply || hits[2].Role != harness.Name || hits[2].Snippet != "Needle work" {
		t.Errorf("hits after the best: %+v", hits)
	}
	if s := hits[1].Snippet; !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || !strings.Contains(s, "the needle is here") {
		t.Errorf("snippet %q", s)
	}
}

func TestIncrementalUpdates(t *testing.T) {
	tr := newTree(t)
	tr.write("a", cchome.PromptRow("alpha first", 1))
	tr.write("b", cchome.PromptRow("beta first", 1))
	res := tr.expect("first", "a", "b")
	if res.Stats.Read != 2 || res.Stats.Rebuilt != "there was none" {
		t.Errorf("first build: %+v", res.Stats)
	}
	res = tr.expect("first", "a", "b")
	if res.Stats.Read != 0 || res.Stats.Reused != 2 {
		t.Errorf("unchanged: %+v", res.Stats)
	}

	// Appended rows are found, and only the appended bytes are read: the
	// old text comes from the index (the file's first line is replaced
	// by one of equal length but the tail checksum only covers the
	// bytes just before the offset, so this proves nothing alone; the
	// Read count does).
	tr.append("a", cchome.ReplyRow("gamma appended", 2))
	res = tr.expect("gamma alpha", "a")
	if res.Stats.Read != 1 || res.Stats.Reused != 1 {
		t.Errorf("after an append: %+v", res.Stats)
	}

	// An in-place rewrite (same inode, longer) is read again from the
	// start: the old words are gone.
	p := tr.path("b")
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	f.WriteString(cchome.PromptRow("delta rewritten entirely, and longer than before", 1) + "\n")
	f.Close()
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	tr.expect("beta")
	tr.expect("delta", "b")

	// A deleted session drops out.
	os.Remove(tr.path("a"))
	res = tr.expect("first")
	if res.Stats.Removed != 1 {
		t.Errorf("after a delete: %+v", res.Stats)
	}
	tr.expect("rewritten", "b")
}

func TestManyUpdatesCompact(t *testing.T) {
	tr := newTree(t)
	tr.write("keep", cchome.PromptRow("stable words", 1))
	for i := 0; i < 3*maxSegments; i++ {
		tr.write("hot", cchome.PromptRow("round "+strings.Repeat("x", i), 1))
		later := time.Now().Add(time.Duration(i+1) * time.Second)
		os.Chtimes(tr.path("hot"), later, later)
		tr.expect("stable", "keep")
		tr.expect("round", "hot")
		ents, _ := filepath.Glob(filepath.Join(tr.opt.Dir, "seg-*"))
		if len(ents) > maxSegments {
			t.Fatalf("after %d updates %d segments", i, len(ents))
		}
	}
}

// A truncated or garbage index is noticed, reported and rebuilt; the answer
// is the same exact one.
func TestDamagedIndexIsRebuilt(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(dir string)
	}{
		{"truncated catalog", func(dir string) { truncate(filepath.Join(dir, "catalog"), 0.5) }},
		{"garbage catalog", func(dir string) {
			os.WriteFile(filepath.Join(dir, "catalog"), []byte("FCTSRCHC garbage garbage"), 0o600)
		}},
		{"empty catalog", func(dir string) { os.WriteFile(filepath.Join(dir, "catalog"), nil, 0o600) }},
		{"truncated segment", func(dir string) { truncate(filepath.Join(dir, "seg-0"), 0.7) }},
		{"missing segment", func(dir string) { os.Remove(filepath.Join(dir, "seg-0")) }},
		{"flipped record byte", func(dir string) { flip(filepath.Join(dir, "seg-0"), 20) }},
		{"flipped table byte", func(dir string) { flipFromEnd(filepath.Join(dir, "seg-0"), footerLen+3) }},
		// Not regular files: refused without blocking, and rebuilt like
		// any other damage, as transcripts.idx is.
		{"FIFO catalog", func(dir string) { replaceWith(t, filepath.Join(dir, "catalog"), fifo) }},
		{"FIFO segment", func(dir string) { replaceWith(t, filepath.Join(dir, "seg-0"), fifo) }},
		{"directory catalog", func(dir string) { replaceWith(t, filepath.Join(dir, "catalog"), nonEmptyDir) }},
		{"directory segment", func(dir string) { replaceWith(t, filepath.Join(dir, "seg-0"), nonEmptyDir) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			// Written oldest first: the index holds the newest first, so
			// the damage lands in a record the query reads.
			tr.write("c", cchome.PromptRow("other", 1))
			tr.write("a", cchome.PromptRow("needle one", 1))
			tr.write("b", cchome.PromptRow("needle two", 1))
			tr.expect("needle", "a", "b")
			c.damage(tr.opt.Dir)
			res := tr.expect("needle", "a", "b")
			if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "damaged") {
				t.Errorf("notes %q", res.Notes)
			}
			res = tr.expect("two", "b")
			if len(res.Notes) != 0 {
				t.Errorf("rebuilt index still noted: %q", res.Notes)
			}
		})
	}
}

// replaceWith removes the file at p and makes something else there.
func replaceWith(t *testing.T, p string, make func(string) error) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := make(p); err != nil {
		t.Fatal(err)
	}
}

func fifo(p string) error { return syscall.Mkfifo(p, 0o600) }

func nonEmptyDir(p string) error {
	if err := os.Mkdir(p, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p, "x"), nil, 0o600)
}

func truncate(p string, keep float64) {
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:int(float64(len(b))*keep)], 0o600)
}

func flip(p string, at int) {
	b, _ := os.ReadFile(p)
	b[at] ^= 0x55
	os.WriteFile(p, b, 0o600)
}

func flipFromEnd(p string, back int) {
	b, _ := os.ReadFile(p)
	b[len(b)-back] ^= 0x55
	os.WriteFile(p, b, 0o600)
}

// Eight searches at once while a writer appends: each sees a whole index
// (exact for the rows written before it started), none fails.
func TestConcurrentSearchesWhileAppending(t *testing.T) {
	tr := newTree(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		tr.write(n, cchome.PromptRow("steady "+n, 1))
	}
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tr.append("a", cchome.ReplyRow("moving "+strings.Repeat("y", i%50), 2))
		}
	}()
	q, _ := ParseQuery("steady")
	var wg sync.WaitGroup
	errs := make(chan error, 8*5)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				res, err := Search(context.Background(), tr.opt, q)
				if err == nil && len(res.Hits) != 4 {
					err = errors.New("wrong answer: " + strings.Join(keys(res.Hits), " "))
				}
				if err == nil && len(res.Notes) > 0 {
					err = errors.New("note: " + res.Notes[0])
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tr.expect("moving steady", "a")
}

func keys(m map[string][]Hit) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The decoders never panic and never accept what they cannot vouch for.
func FuzzCatalog(f *testing.F) {
	c := &catalog{NextSeg: 2, Segs: []segInfo{{ID: 1, Size: 100, CRC: 7, Recs: 2}},
		Entries: []entry{{Path: "/p/a.jsonl", Stamp: fresh.Stamp{File: fresh.File{Ino: 3, Size: 10, MtimeNs: 5}, Offset: 10, Sums: fresh.Sums{Head: 8, Tail: 9}},
			LastAt: 1, Seg: 1, Rec: 1}}}
	f.Add(encodeCatalog(c))
	f.Add([]byte(catalogMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCatalog(string(b))
		if err == nil {
			// What decodes re-encodes to what decodes the same; in the
			// current format, to the same bytes.
			re := encodeCatalog(c)
			if again, err := decodeCatalog(string(re)); err != nil || !reflect.DeepEqual(again, c) {
				t.Errorf("a decoded catalog does not decode the same once re-encoded: %v", err)
			}
			d := binrec.Decoder{S: string(b[len(catalogMagic):])}
			if d.Uint() == catalogFormat && !bytes.Equal(re, b) {
				t.Errorf("decoded catalog does not re-encode identically")
			}
		}
	})
}

// A catalog of format 3 (entries without a text version) is read, not
// wiped: the index holds the only searchable text of archived sessions.
func TestCatalogFormat3IsRead(t *testing.T) {
	c := &catalog{NextSeg: 2, Segs: []segInfo{{ID: 1, Size: 100, CRC: 7, Recs: 2}},
		Entries: []entry{{Path: "/p/a.jsonl", Stamp: fresh.Stamp{File: fresh.File{Ino: 3, Size: 10, MtimeNs: 5}, Offset: 10, Sums: fresh.Sums{Head: 8, Tail: 9}},
			LastAt: 1, Seg: 1, Rec: 1}}}
	b := encodeCatalogAs(c, 3)
	got, err := decodeCatalog(string(b))
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("format 3: %+v, %v; want %+v", got, err, c)
	}
}

func FuzzSegment(f *testing.F) {
	dir := f.TempDir()
	w, _ := newSegWriter(filepath.Join(dir, "seg"), nil)
	w.add([]harness.Message{{Role: harness.Prompt, At: 1, Text: "needle in a haystack"}}, []string{"needle", "in", "a", "haystack"})
	w.add([]harness.Message{{Role: harness.Reply, At: 2, Text: "two"}, {Role: harness.Name, At: 3, Text: "name"}}, []string{"two", "name"})
	size, _, err := w.finish()
	if err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "seg"))
	_ = size
	f.Add(good)
	f.Fuzz(func(t *testing.T, b []byte) {
		// The catalog's CRC is not known for fuzzed bytes: take the one
		// the footer claims, so the checks behind it are reached too.
		crc := uint32(0)
		if len(b) >= footerLen {
			foot := b[len(b)-footerLen:]
			crc = uint32(foot[32]) | uint32(foot[33])<<8 | uint32(foot[34])<<16 | uint32(foot[35])<<24
		}
		s, err := parseSegment(string(b), int64(len(b)), crc)
		if err != nil {
			return
		}
		marks := make([]bool, s.nrec)
		for _, tok := range []string{"needle", "a", "two", "x"} {
			s.match(tok, marks)
		}
		for i := 0; i < s.nrec; i++ {
			s.record(i, nil)
		}
	})
}
