package sessions

import (
	"path/filepath"
	"testing"

	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
	"github.com/google/go-cmp/cmp"
)

func TestIndexRoundTrip(t *testing.T) {
	ix := index{
		"/p/a.jsonl": {Ino: 7, Size: 123456789012, MtimeNs: -5, Sum: transcript.Summary{SessionID: "a", Cwd: "/é/x", FirstPrompt: "hi \x00 there", Messages: 3, BrokenLines: 1, Sidechain: true, Offset: 99, LastUserOff: -1, LastUserLen: 1 << 40,
			Marks: lineage.Marks{CopiedFrom: "p", CopiedBy: "fork", ClearedAt: "2026-12-01T13:01:48.739Z", ProcessSession: "c1"}}},
		"/p/b.jsonl": {Sum: transcript.Summary{}},
	}
	tix := taskIndex{"s1": {Files: []taskFile{{Name: "1.json", Size: 10, MtimeNs: 1}}, Counts: tasks.Counts{Pending: 1, Total: 1}}}
	p := filepath.Join(t.TempDir(), "idx")
	hist := &historyIndex{Ino: 3, Size: 40, Offset: 39, Sessions: map[string]histEntry{"a": {LastAtMs: 1795970509246, Last: "/rename x"}},
		Clears: []lineage.ClearEvent{{SessionID: "a", AtMs: 1795970509246}}}
	if err := saveIndex(p, ix, tix, hist); err != nil {
		t.Fatal(err)
	}
	gotIx, gotTix, gotHist, err := loadIndex(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ix, gotIx); d != "" {
		t.Fatal(d)
	}
	if d := cmp.Diff(tix, gotTix); d != "" {
		t.Fatal(d)
	}
	if d := cmp.Diff(hist, gotHist); d != "" {
		t.Fatal(d)
	}
}
