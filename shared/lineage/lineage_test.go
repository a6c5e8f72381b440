package lineage

import (
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
		out[i] = Decide(n, clears)
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
	got := Decide(n, []ClearEvent{{"A", ms("2026-12-01T13:00:00.500Z")}, {"Z", ms("2026-12-01T13:00:00.990Z")}})
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
