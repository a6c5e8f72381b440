package main

import (
	"context"
	"testing"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/shared/snapstore"
)

// walkCounter is Claude Code's harness, counting its walks.
type walkCounter struct {
	harness.Harness
	walks int
}

func (w *walkCounter) Walk(ctx context.Context) ([]harness.File, []error, error) {
	w.walks++
	return w.Harness.Walk(ctx)
}

// One walk per invocation: a search of several words that no session
// holds together runs one more search per word for its hint, and a search
// lists its hits; all of it stats the tree once.
func TestOneWalkPerInvocation(t *testing.T) {
	h, _, _ := demo(t)
	for _, args := range [][]string{
		{"resume", "search", "login", "zzqxnotthere", "invoice"},
		{"resume", "search", "login"},
		{"resume", "ls"},
	} {
		a, _ := h.newTestApp(false, nil, nil)
		wc := &walkCounter{Harness: claude.New(a.claudePaths(), snapstore.Store{Dir: a.forgectlPaths().Snapshots()})}
		a.walked = map[string]harness.Harness{claude.Name: harness.WalkOnce(wc)}
		a.run(context.Background(), args)
		if wc.walks != 1 {
			t.Errorf("%v walked the tree %d times, want once", args, wc.walks)
		}
	}
}
