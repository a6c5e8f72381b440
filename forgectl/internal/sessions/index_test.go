package sessions

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"github.com/google/go-cmp/cmp"
)

// testFormat is the format the engine's own tests write: a harness's
// number folded in as formatOf does.
const testFormat = indexFormat<<16 | 0xfe

// rawRecord is a harness's payload, opaque to the engine.
type rawRecord string

func (r rawRecord) Encode(e *binrec.Encoder) { e.B = append(e.B, r...) }

func sampleRecords() map[string]harness.Stored {
	return map[string]harness.Stored{
		"/p/a.jsonl": {File: fresh.File{Ino: 7, Size: 123456789012, MtimeNs: -5}, Payload: "a harness's \x00 payload", OK: true},
		"/p/b.jsonl": {Payload: "", OK: true},
	}
}

func sampleAux() map[string]string {
	return map[string]string{"a": "/rename x", "b": ""}
}

const sampleState = "how far the harness read"

func writeSample(t testing.TB, p string) {
	w, err := newIndexWriter(p, testFormat, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, rec := range sampleRecords() {
		w.entry(path, rec.File, rawRecord(rec.Payload))
	}
	for k, v := range sampleAux() {
		w.Put(k, []byte(v))
	}
	if err := w.finish([]byte(sampleState)); err != nil {
		t.Fatal(err)
	}
}

func TestIndexRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "idx")
	writeSample(t, p)
	ix, err := openIndex(p, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	// A record copied into the next index unchanged decodes to the same
	// entry there.
	p2 := filepath.Join(t.TempDir(), "idx2")
	w2, err := newIndexWriter(p2, testFormat, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range sampleRecords() {
		got, off := ix.lookup(path)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: %s", path, d)
		}
		w2.copied(path, ix, off)
	}
	if err := w2.finish([]byte(ix.State())); err != nil {
		t.Fatal(err)
	}
	ix2, err := openIndex(p2, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range sampleRecords() {
		if got, _ := ix2.lookup(path); !cmp.Equal(want, got) {
			t.Fatalf("%s: the copied record does not hold the entry: %+v", path, got)
		}
	}
	if e, _ := ix.lookup("/p/missing.jsonl"); e.OK {
		t.Fatalf("found a record for a path never stored: %+v", e)
	}
	for k, want := range sampleAux() {
		if got, ok, err := ix.Get(k); !ok || err != nil || got != want {
			t.Fatalf("aux %s: %q %v %v", k, got, ok, err)
		}
	}
	if _, ok, _ := ix.Get("c"); ok {
		t.Fatal("an aux record never stored")
	}
	got := map[string]string{}
	if err := ix.Each(func(k, v string) { got[k] = v }); err != nil || !cmp.Equal(got, sampleAux()) || ix.Len() != len(got) {
		t.Fatalf("each: %v %v (%d)", got, err, ix.Len())
	}
	if ix.State() != sampleState || ix2.State() != sampleState {
		t.Fatalf("state: %q %q", ix.State(), ix2.State())
	}
	// Another harness's index (or another version of this one's) is no
	// index at all: rebuilt silently.
	if other, err := openIndex(p, testFormat+1); err != nil || other.nFiles != 0 {
		t.Fatalf("another format: %d records, %v", other.nFiles, err)
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
	ix, _ := openIndex(path, testFormat)
	for k, want := range sampleRecords() {
		if got, _ := ix.lookup(k); got.OK && !cmp.Equal(want, got) {
			t.Fatalf("%s: a damaged index returned a wrong record for %s: %+v", name, k, got)
		}
	}
	aux := sampleAux()
	for k, want := range aux {
		if got, ok, _ := ix.Get(k); ok && got != want {
			t.Fatalf("%s: a damaged index returned a wrong aux record: %q", name, got)
		}
	}
	ix.Each(func(k, v string) {
		if want, ok := aux[k]; !ok || v != want {
			t.Fatalf("%s: a damaged index holds a wrong aux record: %q %q", name, k, v)
		}
	})
	if st := ix.State(); st != "" && st != sampleState {
		t.Fatalf("%s: a damaged index returned a wrong state: %q", name, st)
	}
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

// keyHash is FNV-1a: the index files on disk hold its values.
func TestKeyHashIsFNV1a(t *testing.T) {
	for _, k := range []string{"", "a", "/home/u/.claude/projects/-w/11111111-2222-4333-8444-555555555555.jsonl", "é\x00\xff"} {
		h := fnv.New64a()
		h.Write([]byte(k))
		if got, want := keyHash(k), h.Sum64(); got != want {
			t.Errorf("keyHash(%q) = %x, want %x", k, got, want)
		}
	}
}
