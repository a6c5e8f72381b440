package sessions

import (
	"os"
	"path/filepath"
	"testing"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
	"github.com/google/go-cmp/cmp"
)

func sampleEntries() map[string]*indexEntry {
	return map[string]*indexEntry{
		"/p/a.jsonl": {File: fresh.File{Ino: 7, Size: 123456789012, MtimeNs: -5}, Sums: fresh.Sums{Head: 1, Tail: 2},
			Sum: transcript.Summary{SessionID: "a", Cwd: "/é/x", FirstPrompt: "hi \x00 there", Messages: 3, BrokenLines: 1,
				Sidechain: true, Offset: 99, LastUserOff: -1, LastUserLen: 1 << 40},
			Side:  sideEntry{Size: 10, MtimeNs: 3, Title: "T", By: "user"},
			Tasks: &taskEntry{Files: []taskFile{{Name: "1.json", Size: 10, MtimeNs: 1}}, Counts: tasks.Counts{Pending: 1, Total: 1}}},
		"/p/b.jsonl": {Side: sideEntry{Size: -1}},
	}
}

func writeSample(t testing.TB, p string) {
	w, err := newIndexWriter(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, ent := range sampleEntries() {
		w.entry(path, ent)
	}
	w.history("a", histEntry{LastAtMs: 1795970509246, Last: "/rename x"})
	w.history("b", histEntry{LastAtMs: 1, Last: ""})
	if err := w.finish(histFile{Stamp: fresh.Stamp{File: fresh.File{Ino: 3, Size: 40, MtimeNs: 8}, Offset: 39, Sums: fresh.Sums{Head: 5, Tail: 6}}}); err != nil {
		t.Fatal(err)
	}
}

func TestIndexRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "idx")
	writeSample(t, p)
	ix, err := openIndex(p)
	if err != nil {
		t.Fatal(err)
	}
	// A record copied into the next index unchanged decodes to the same
	// entry there.
	p2 := filepath.Join(t.TempDir(), "idx2")
	w2, err := newIndexWriter(p2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range sampleEntries() {
		got, off := ix.lookup(path)
		if d := cmp.Diff(want, got, cmp.AllowUnexported(indexEntry{})); d != "" {
			t.Fatalf("%s: %s", path, d)
		}
		w2.copied(path, ix, off)
	}
	if err := w2.finish(ix.histState); err != nil {
		t.Fatal(err)
	}
	ix2, err := openIndex(p2)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range sampleEntries() {
		if got, _ := ix2.lookup(path); !cmp.Equal(want, got, cmp.AllowUnexported(indexEntry{})) {
			t.Fatalf("%s: the copied record does not hold the entry: %+v", path, got)
		}
	}
	if e, _ := ix.lookup("/p/missing.jsonl"); e != nil {
		t.Fatalf("found a record for a path never stored: %+v", e)
	}
	if e, ok, _ := ix.history("a"); !ok || e.LastAtMs != 1795970509246 || e.Last != "/rename x" {
		t.Fatalf("history: %+v %v", e, ok)
	}
	if _, ok, _ := ix.history("c"); ok {
		t.Fatal("history of a session never stored")
	}
	if ix.histState.Offset != 39 || ix.histState.Tail != 6 || ix.histState.MtimeNs != 8 {
		t.Fatalf("history state: %+v", ix.histState)
	}
}

// A damaged index is never a crash and never a wrong record: every byte
// flipped, and every truncation, either opens as empty or damaged, or
// yields records that are exactly the ones written (or none).
func TestIndexDamage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "idx")
	writeSample(t, p)
	good, _ := os.ReadFile(p)
	check := func(name string, b []byte) {
		q := filepath.Join(dir, "damaged")
		os.Remove(q) // a new inode: the mapping of the last one stays valid
		if err := os.WriteFile(q, b, 0o600); err != nil {
			t.Fatal(err)
		}
		checkDecodes(t, name, q)
	}
	for i := range good {
		b := append([]byte(nil), good...)
		b[i] ^= 0x41
		check("flip", b)
	}
	for n := range good {
		check("cut", good[:n])
	}
}

// checkDecodes opens the index at path and fails when any lookup returns
// something that was never written.
func checkDecodes(t testing.TB, name, path string) {
	ix, _ := openIndex(path)
	for k, want := range sampleEntries() {
		if got, _ := ix.lookup(k); got != nil && !cmp.Equal(want, got, cmp.AllowUnexported(indexEntry{})) {
			t.Fatalf("%s: a damaged index returned a wrong record for %s: %+v", name, k, got)
		}
	}
	if e, ok, _ := ix.history("a"); ok && (e.LastAtMs != 1795970509246 || e.Last != "/rename x") {
		t.Fatalf("%s: a damaged index returned a wrong history entry: %+v", name, e)
	}
	ix.eachHistory(func(string, histEntry) {})
	ix.close()
}

func FuzzIndex(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "seed")
	writeSample(f, p)
	good, _ := os.ReadFile(p)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(indexMagic))
	n := 0
	f.Fuzz(func(t *testing.T, b []byte) {
		n++
		q := filepath.Join(dir, "fuzz")
		os.Remove(q)
		if err := os.WriteFile(q, b, 0o600); err != nil {
			t.Fatal(err)
		}
		checkDecodes(t, "fuzz", q)
	})
}
