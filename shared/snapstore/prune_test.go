package snapstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/fsutil"
	"github.com/google/go-cmp/cmp"
)

// pruneHome is a store and a Claude Code projects folder.
type pruneHome struct {
	t        *testing.T
	store    Store
	projects string
	now      time.Time
}

func newPruneHome(t *testing.T) *pruneHome {
	root := t.TempDir()
	h := &pruneHome{t: t, store: Store{Dir: filepath.Join(root, "resume-sessions")}, projects: filepath.Join(root, "claude", "projects"),
		now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	os.MkdirAll(h.projects, 0o700)
	return h
}

// record stores a snapshot last captured age ago.
func (h *pruneHome) record(id string, age time.Duration, transcript string) {
	h.t.Helper()
	if _, err := h.store.Update(Observation{SessionID: id, Transcript: transcript, Tasks: nil, At: h.now.Add(-age)}); err != nil {
		h.t.Fatal(err)
	}
}

// transcript writes projects/<dir>/<id>.jsonl.
func (h *pruneHome) transcript(dir, id string) string {
	h.t.Helper()
	p := filepath.Join(h.projects, dir, id+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *pruneHome) pruner(live ...string) Pruner {
	return Pruner{Store: h.store, Projects: h.projects, Now: func() time.Time { return h.now },
		Live: func(id string) bool {
			for _, l := range live {
				if l == id {
					return true
				}
			}
			return false
		}}
}

func (h *pruneHome) ids() []string {
	h.t.Helper()
	recs, problems := h.store.All()
	if len(problems) > 0 {
		h.t.Fatal(problems)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.SessionID)
	}
	return out
}

const day = 24 * time.Hour

func TestMaxRetire(t *testing.T) {
	got := map[int]int{}
	for n := 0; n <= 12; n++ {
		got[n] = MaxRetire(n)
	}
	want := map[int]int{0: 0, 1: 0, 2: 1, 3: 2, 4: 3, 5: 3, 6: 3, 7: 3, 8: 4, 9: 4, 10: 5, 11: 5, 12: 6}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestPruneRetiresByTranscript(t *testing.T) {
	h := newPruneHome(t)
	// Kept: its recorded transcript exists, however old the record.
	h.record("kept-own-path", 400*day, h.transcript("-home-alice-a", "kept-own-path"))
	// Kept: the recorded path is gone but the session's transcript is
	// elsewhere under projects/ (found by the one walk).
	h.transcript("-home-alice-moved", "kept-found")
	h.record("kept-found", 30*day, filepath.Join(h.projects, "-old", "kept-found.jsonl"))
	// Kept: no path recorded, found by the walk.
	h.transcript("-home-alice-b", "kept-no-path")
	h.record("kept-no-path", day, "")
	// Retired: transcript gone.
	h.record("gone", 2*day, filepath.Join(h.projects, "-x", "gone.jsonl"))
	// Kept: live, even without a transcript (no prompt yet).
	h.record("live-no-prompt", 0, "")

	rep := h.pruner("live-no-prompt").Pass()
	if d := cmp.Diff([]string{"gone"}, rep.Retired); d != "" || rep.Refused != "" || len(rep.Problems) != 0 {
		t.Fatalf("retired (-want +got):\n%s\nrefused %q problems %v", d, rep.Refused, rep.Problems)
	}
	if d := cmp.Diff([]string{"kept-found", "kept-no-path", "kept-own-path", "live-no-prompt"}, h.ids()); d != "" {
		t.Fatalf("left (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(h.store.Dir, "gone.lock")); !os.IsNotExist(err) {
		t.Fatalf("lock file of a retired record left behind: %v", err)
	}
}

func TestPruneRefusesMostOfTheStore(t *testing.T) {
	h := newPruneHome(t)
	for i := range 4 {
		id := fmt.Sprintf("alive-%d", i)
		h.record(id, day, h.transcript("-p", id))
	}
	for i := range 5 {
		h.record(fmt.Sprintf("gone-%d", i), 10*day, "")
	}
	h.record("ancient-0", 181*day, "")
	h.record("ancient-1", 365*day, h.transcript("-p", "ancient-1")) // transcript survives: kept
	// 6 of 11 have no transcript, more than MaxRetire(11) = 5.
	rep := h.pruner().Pass()
	if !strings.Contains(rep.Refused, "6 of 11 records have no transcript") || rep.Withheld != 5 {
		t.Fatalf("refused %q withheld %d", rep.Refused, rep.Withheld)
	}
	if d := cmp.Diff([]string{"ancient-0"}, rep.Retired); d != "" {
		t.Fatalf("the 180-day exception (-want +got):\n%s", d)
	}
	// Now 5 of 10: exactly half is allowed.
	rep = h.pruner().Pass()
	if rep.Refused != "" || len(rep.Retired) != 5 {
		t.Fatalf("%+v", rep)
	}
	if d := cmp.Diff([]string{"alive-0", "alive-1", "alive-2", "alive-3", "ancient-1"}, h.ids()); d != "" {
		t.Fatal(d)
	}
}

func TestPruneSmallStoreFloor(t *testing.T) {
	h := newPruneHome(t)
	h.record("alive", day, h.transcript("-p", "alive"))
	h.record("gone-1", day, "")
	h.record("gone-2", day, "")
	// 2 of 3 is more than half, but within the floor of 3.
	rep := h.pruner().Pass()
	if rep.Refused != "" || len(rep.Retired) != 2 {
		t.Fatalf("%+v", rep)
	}
	// The last record is never retired by the floor: a lone record whose
	// transcript is gone waits for the 180-day ceiling.
	h2 := newPruneHome(t)
	h2.transcript("-p", "other-session")
	h2.record("lonely", 100*day, "")
	if rep := h2.pruner().Pass(); rep.Refused == "" || len(rep.Retired) != 0 {
		t.Fatalf("%+v", rep)
	}
	h2.now = h2.now.Add(81 * day)
	if rep := h2.pruner().Pass(); len(rep.Retired) != 1 {
		t.Fatalf("past the ceiling: %+v", rep)
	}
}

func TestPruneBrokenLookup(t *testing.T) {
	tests := []struct {
		name   string
		breakF func(h *pruneHome)
		reason string
	}{
		{"projects folder missing", func(h *pruneHome) { os.RemoveAll(h.projects) }, "no such file"},
		{"projects folder empty", func(h *pruneHome) {}, "found no transcript at all"},
		{"projects folder not a folder", func(h *pruneHome) { os.RemoveAll(h.projects); os.WriteFile(h.projects, nil, 0o600) }, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newPruneHome(t)
			h.record("gone-1", day, "")
			h.record("ancient", 200*day, "")
			tt.breakF(h)
			rep := h.pruner().Pass()
			if !strings.Contains(rep.Refused, tt.reason) || rep.Withheld != 1 {
				t.Fatalf("refused %q withheld %d", rep.Refused, rep.Withheld)
			}
			if d := cmp.Diff([]string{"ancient"}, rep.Retired); d != "" {
				t.Fatal(d)
			}
		})
	}
}

func TestPruneStamp(t *testing.T) {
	h := newPruneHome(t)
	h.transcript("-p", "alive")
	h.record("alive", day, "")
	h.record("gone", day, "")
	p := h.pruner()

	// No store yet: nothing runs, nothing is created.
	empty := Pruner{Store: Store{Dir: filepath.Join(t.TempDir(), "none")}, Projects: h.projects, Now: p.Now}
	if rep := empty.Run(); rep.Ran {
		t.Fatal("ran without a store")
	}
	if _, err := os.Stat(empty.Store.Dir); !os.IsNotExist(err) {
		t.Fatal("created a store")
	}

	rep := p.Run()
	if !rep.Ran || len(rep.Retired) != 1 {
		t.Fatalf("first run: %+v", rep)
	}
	last, err := h.store.LastPrune()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(PruneReport{Ran: true, At: h.now, Records: 2, Retired: []string{"gone"}, ProblemText: []string{}}, last); d != "" {
		t.Fatalf("stamp (-want +got):\n%s", d)
	}
	st, _ := os.Stat(filepath.Join(h.store.Dir, PruneStamp))
	if !st.ModTime().Equal(h.now) || st.Mode().Perm() != 0o600 {
		t.Fatalf("stamp mtime %v mode %v", st.ModTime(), st.Mode())
	}

	// Within a day the stamp stops every pass.
	h.record("gone-later", day, "")
	h.now = h.now.Add(23 * time.Hour)
	if rep := p.Run(); rep.Ran {
		t.Fatal("ran twice in a day")
	}
	h.now = h.now.Add(2 * time.Hour)
	if rep := p.Run(); !rep.Ran || len(rep.Retired) != 1 {
		t.Fatalf("next day: %+v", rep)
	}
	// A stamp from the future (the clock was set back) holds for at most
	// a day, never for good.
	h.now = h.now.Add(-30 * time.Hour)
	if rep := p.Run(); !rep.Ran {
		t.Fatal("a stamp over a day ahead stopped pruning")
	}

	// Another pass holding the lock: this one skips.
	h.now = h.now.Add(48 * time.Hour)
	l, err := lockFor(h.store)
	if err != nil {
		t.Fatal(err)
	}
	if rep := p.Run(); rep.Ran {
		t.Fatal("ran while another pass held the lock")
	}
	l.Unlock()
	if rep := p.Run(); !rep.Ran {
		t.Fatal("did not run after the lock was released")
	}
}

func TestPruneRefusalIsStamped(t *testing.T) {
	h := newPruneHome(t)
	h.record("gone", day, "")
	os.RemoveAll(h.projects)
	if rep := h.pruner().Run(); rep.Refused == "" {
		t.Fatal("not refused")
	}
	last, err := h.store.LastPrune()
	if err != nil || last.Refused == "" || last.Withheld != 1 {
		t.Fatalf("%+v %v", last, err)
	}
}

func TestIndexTranscripts(t *testing.T) {
	h := newPruneHome(t)
	a := h.transcript("-a", "s1")
	b := h.transcript("-b", "s2")
	os.MkdirAll(filepath.Join(h.projects, "-a", "s1", "subagents"), 0o700)
	os.WriteFile(filepath.Join(h.projects, "-a", "s1", "subagents", "agent-x.jsonl"), nil, 0o600)
	os.WriteFile(filepath.Join(h.projects, "stray.jsonl"), nil, 0o600)
	idx, err := IndexTranscripts(h.projects)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"s1": a, "s2": b}, idx.Sessions); d != "" {
		t.Fatal(d)
	}
}

func lockFor(s Store) (*fsutil.Lock, error) {
	return fsutil.TryLock(filepath.Join(s.Dir, pruneLock))
}
