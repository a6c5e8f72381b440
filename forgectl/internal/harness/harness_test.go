package harness

import (
	"context"
	"errors"
	"testing"
)

type countingWalk struct {
	Harness
	walks int
	fail  error
}

func (c *countingWalk) Walk(context.Context) ([]File, []error, error) {
	c.walks++
	if c.fail != nil {
		return nil, nil, c.fail
	}
	dir := "/p"
	return []File{{Dir: &dir, Name: "a.jsonl"}, {Dir: &dir, Name: "b.jsonl"}}, nil, nil
}

// Later walks are the first one's.
func TestWalkOnce(t *testing.T) {
	c := &countingWalk{}
	h := WalkOnce(c)
	first, _, _ := h.Walk(context.Background())
	second, _, err := h.Walk(context.Background())
	if err != nil || c.walks != 1 || len(second) != 2 || &first[0] != &second[0] {
		t.Fatalf("walks %d, err %v, %d files", c.walks, err, len(second))
	}
	// A walk that failed (cancelled) is not kept.
	boom := errors.New("cancelled")
	f := &countingWalk{fail: boom}
	h = WalkOnce(f)
	h.Walk(context.Background())
	f.fail = nil
	if files, _, err := h.Walk(context.Background()); err != nil || len(files) != 2 || f.walks != 2 {
		t.Errorf("after a failed walk: %d files, %v, %d walks", len(files), err, f.walks)
	}
}
