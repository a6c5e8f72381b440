package lineage

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ms(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func decideAll(nodes []Node, clears []ClearEvent) []Link {
	out := make([]Link, len(nodes))
	for i, n := range nodes {
		out[i] = Decide(n, NewClears(clears))
	}
	return out
}

func TestDecide(t *testing.T) {
	// The shapes the real CLI left in a home (see the package doc): P, its
	// branch B, its fork F, a fork of the fork FF, a branch of the fork BF,
	// a /clear chain C1 -> C2 -> C3 in one process, a fork FC of C2, and
	// C4: C1 resumed in a later process and cleared again.
	nodes := []Node{
		{ID: "P"},
		{ID: "B", Marks: Marks{CopiedFrom: "P", CopiedBy: Branch, ProcessSession: "P"}},
		{ID: "F", Marks: Marks{CopiedFrom: "P", CopiedBy: Fork, ProcessSession: "P"}},
		{ID: "FF", Marks: Marks{CopiedFrom: "F", CopiedBy: Fork, ProcessSession: "F"}},
		{ID: "BF", Marks: Marks{CopiedFrom: "F", CopiedBy: Branch, ProcessSession: "F"}},
		{ID: "C1"},
		{ID: "C2", Marks: Marks{ClearedAt: "2026-12-01T13:01:48.739Z", ProcessSession: "C1"}},
		{ID: "C3", Marks: Marks{ClearedAt: "2026-12-01T13:01:49.541Z", ProcessSession: "C1"}},
		{ID: "FC", Marks: Marks{CopiedFrom: "C2", CopiedBy: Fork, ClearedAt: "2026-12-01T13:01:48.739Z", ProcessSession: "C1"}},
		{ID: "C4", Marks: Marks{ClearedAt: "2026-12-01T14:00:00.010Z", ProcessSession: "C1"}},
	}
	history := []ClearEvent{
		{"C1", ms("2026-12-01T13:01:48.711Z")},
		{"C2", ms("2026-12-01T13:01:49.539Z")},
		{"C1", ms("2026-12-01T14:00:00.001Z")},
	}
	want := []Link{
		{},
		{"P", Branch},
		{"P", Fork},
		{"F", Fork},
		{"F", Branch},
		{},
		{"C1", Clear},
		{"C2", Clear},
		{"C2", Fork},
		{"C1", Clear},
	}
	if d := cmp.Diff(want, decideAll(nodes, history)); d != "" {
		t.Errorf("with the history (-want +got):\n%s", d)
	}

	// Without the history (pruned, or another machine's home), a
	// continuation names the session its process started as: all that its
	// own rows say.
	want[7], want[9] = Link{"C1", Clear}, Link{"C1", Clear}
	if d := cmp.Diff(want, decideAll(nodes, nil)); d != "" {
		t.Errorf("without the history (-want +got):\n%s", d)
	}
}

func TestDecideClearWithoutRows(t *testing.T) {
	// /clear and nothing after it: the new transcript names no process id,
	// so only the history can say what it continued.
	nodes := []Node{{ID: "C2", Marks: Marks{ClearedAt: "2026-12-01T13:01:48.739Z"}}}
	got := decideAll(nodes, []ClearEvent{{"C1", ms("2026-12-01T13:01:48.711Z")}, {"X", ms("2026-12-01T12:00:00Z")}})
	if d := cmp.Diff([]Link{{"C1", Clear}}, got); d != "" {
		t.Error(d)
	}
	if got := decideAll(nodes, nil); got[0] != (Link{}) {
		t.Errorf("with nothing to go on: %+v, want no parent", got[0])
	}
}

func TestDecideTakesTheClosestClear(t *testing.T) {
	// Two /clears within the window: the one logged just before the
	// continuation began made it, whichever process it was.
	n := Node{ID: "N", Marks: Marks{ClearedAt: "2026-12-01T13:00:01.000Z", ProcessSession: "A"}}
	got := Decide(n, NewClears([]ClearEvent{{"A", ms("2026-12-01T13:00:00.500Z")}, {"Z", ms("2026-12-01T13:00:00.990Z")}}))
	if got != (Link{"Z", Clear}) {
		t.Errorf("%+v, want Z", got)
	}
}

func TestDecideNeverSelf(t *testing.T) {
	nodes := []Node{{ID: "S", Marks: Marks{CopiedFrom: "S", CopiedBy: Fork}}, {ID: "T", Marks: Marks{ClearedAt: "2026-12-01T13:00:00Z", ProcessSession: "T"}}}
	for i, l := range decideAll(nodes, []ClearEvent{{"T", ms("2026-12-01T13:00:00Z")}}) {
		if l != (Link{}) {
			t.Errorf("%s: %+v, want no parent", nodes[i].ID, l)
		}
	}
}

func TestIsClearCommand(t *testing.T) {
	for in, want := range map[string]bool{"/clear": true, "/clear next task": true, "/reset": true, "/new": true,
		"/clearly": false, "/newline": false, "clear": false, "": false, "/compact": false} {
		if IsClearCommand(in) != want {
			t.Errorf("IsClearCommand(%q) = %v", in, !want)
		}
	}
}

// A /clear chain thousands long (one process cleared again and again):
// each continuation's line is found by looking at the lines next to its
// start, not by a scan of the whole history, so deciding every session of
// the chain is linear in its length.
func TestClearChainIsLinear(t *testing.T) {
	const n = 5000
	start := ms("2026-12-01T00:00:00Z")
	id := func(k int) string { return fmt.Sprintf("C%05d", k) }
	var ev []ClearEvent
	for k := 0; k < n-1; k++ {
		// Each session logs its /clear 30 ms before the next one's first
		// row, and a prompt's worth of unrelated /clears of its own.
		ev = append(ev, ClearEvent{id(k), start + int64(k)*1000 + 970})
	}
	// History lines are appended as processes write them: not in order.
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ev), func(a, b int) { ev[a], ev[b] = ev[b], ev[a] })
	c := NewClears(ev)
	looked := 0
	for k := 1; k < n; k++ {
		at := start + int64(k)*1000
		got, l := c.closest(id(k), at)
		looked += l
		if got != id(k-1) {
			t.Fatalf("%s: parent %q, want %s", id(k), got, id(k-1))
		}
		node := Node{ID: id(k), Marks: Marks{ClearedAt: time.UnixMilli(at).UTC().Format(time.RFC3339Nano), ProcessSession: id(0)}}
		if l := Decide(node, c); l != (Link{id(k - 1), Clear}) {
			t.Fatalf("Decide(%s) = %+v", id(k), l)
		}
	}
	if looked > 2*n {
		t.Errorf("deciding a %d-long /clear chain looked at %d history lines, want at most %d (linear)", n, looked, 2*n)
	}
}

// The search gives what a scan of every line would: the nearest line in
// the window that is not the session's own, the one before on a tie, and
// of lines in one millisecond the nearest in the history's order.
func TestClearsAgreeWithAScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := []string{"A", "B", "C", "D"}
	for round := 0; round < 2000; round++ {
		var ev []ClearEvent
		for k := r.IntN(12); k > 0; k-- {
			ev = append(ev, ClearEvent{ids[r.IntN(len(ids))], int64(r.IntN(8000))})
		}
		self, at := ids[r.IntN(len(ids))], int64(r.IntN(8000))
		// The scan: rank every line in the window by distance, then side
		// (before first), then log order (nearest to at first).
		best := -1
		rank := func(k int) (int64, int, int) {
			gap := at - ev[k].AtMs
			if gap >= 0 {
				return gap, 0, -k
			}
			return -gap, 1, k
		}
		for k, e := range ev {
			if e.SessionID == self || at-e.AtMs > clearWindow.Milliseconds() || e.AtMs-at > clearLate.Milliseconds() {
				continue
			}
			if best < 0 {
				best = k
				continue
			}
			g1, s1, o1 := rank(k)
			g2, s2, o2 := rank(best)
			if g1 < g2 || g1 == g2 && (s1 < s2 || s1 == s2 && o1 < o2) {
				best = k
			}
		}
		want := ""
		if best >= 0 {
			want = ev[best].SessionID
		}
		if got, _ := NewClears(ev).closest(self, at); got != want {
			t.Fatalf("lines %v, %s at %d: %q, a scan says %q", ev, self, at, got, want)
		}
	}
}
