package claude

import (
	"testing"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
	"github.com/google/go-cmp/cmp"
)

func sampleEntries() []*indexEntry {
	return []*indexEntry{
		{File: fresh.File{Ino: 7, Size: 123456789012, MtimeNs: -5}, Sums: fresh.Sums{Head: 1, Tail: 2},
			Sum: transcript.Summary{SessionID: "a", Cwd: "/é/x", FirstPrompt: "hi \x00 there", Messages: 3, BrokenLines: 1,
				Sidechain: true, Offset: 99, LastUserOff: -1, LastUserLen: 1 << 40},
			Side:  sideEntry{Size: 10, MtimeNs: 3, Title: "T", By: "user"},
			Tasks: &taskEntry{Files: []taskFile{{Name: "1.json", Size: 10, MtimeNs: 1}}, Counts: tasks.Counts{Pending: 1, Total: 1}}},
		{Side: sideEntry{Size: -1}},
	}
}

func encoded(fn func(*binrec.Encoder)) string {
	var e binrec.Encoder
	fn(&e)
	return string(e.B)
}

// What the listing's index stores for a transcript, and of the prompt
// history, decodes to what was encoded; every shorter payload is an
// error, never a record (the engine's checksum vouches for the bytes; the
// decoder must not trust a length).
func TestEntryRoundTrip(t *testing.T) {
	for _, want := range sampleEntries() {
		p := encoded(want.Encode)
		got, err := decodeEntry(want.File, p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(indexEntry{})); d != "" {
			t.Fatal(d)
		}
		for n := range len(p) {
			if got, err := decodeEntry(want.File, p[:n]); err == nil {
				t.Fatalf("%d of %d bytes decoded: %+v", n, len(p), got)
			}
		}
		// A summary that claims to have read past the file's end is no
		// record of it.
		if want.Sum.Offset > 0 {
			short := want.File
			short.Size = want.Sum.Offset - 1
			if _, err := decodeEntry(short, p); err == nil {
				t.Fatal("an offset past the file's end decoded")
			}
		}
	}

	he := histEntry{LastAtMs: 1795970509246, Last: "/rename x"}
	p := encoded(he.encode)
	if got, ok := decodeHistEntry(p); !ok || got != he {
		t.Fatalf("history entry: %+v %v", got, ok)
	}
	for n := range len(p) {
		if _, ok := decodeHistEntry(p[:n]); ok {
			t.Fatalf("%d bytes of a history entry decoded", n)
		}
	}

	hf := histFile{Stamp: fresh.Stamp{File: fresh.File{Ino: 3, Size: 40, MtimeNs: 8}, Offset: 39, Sums: fresh.Sums{Head: 5, Tail: 6}},
		Clears: []lineage.ClearEvent{{SessionID: "c1", AtMs: 12}}}
	p = encoded(hf.encode)
	if got := decodeHistFile(p); !cmp.Equal(hf, got) {
		t.Fatalf("history state: %+v", got)
	}
	// A state that does not decode is no history read: it is read whole.
	for n := range len(p) {
		if got := decodeHistFile(p[:n]); !cmp.Equal(got, histFile{}) {
			t.Fatalf("%d bytes of the history state decoded: %+v", n, got)
		}
	}
}

// Whatever bytes a record holds, decoding them is never a crash nor a
// huge allocation.
func FuzzEntry(f *testing.F) {
	for _, e := range sampleEntries() {
		f.Add(encoded(e.Encode))
	}
	f.Fuzz(func(t *testing.T, p string) {
		if ent, err := decodeEntry(fresh.File{Size: 1 << 40}, p); err == nil {
			// What decoded encodes to a record that decodes the same.
			again, err := decodeEntry(fresh.File{Size: 1 << 40}, encoded(ent.Encode))
			if err != nil || !cmp.Equal(ent, again, cmp.AllowUnexported(indexEntry{})) {
				t.Fatalf("%q: %+v does not survive a round trip: %+v %v", p, ent, again, err)
			}
		}
		decodeHistEntry(p)
		decodeHistFile(p)
	})
}
