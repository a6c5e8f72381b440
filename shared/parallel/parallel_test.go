package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestForCoversEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, workers, chunk int }{
		{0, 4, 1}, {1, 4, 1}, {7, 1, 3}, {1000, 3, 1}, {1000, 0, 64}, {65, 2, 64},
	} {
		seen := make([]atomic.Int32, tc.n)
		if err := For(context.Background(), tc.n, tc.workers, tc.chunk, func(i int) { seen[i].Add(1) }); err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("%+v: index %d called %d times", tc, i, got)
			}
		}
	}
}

func TestForStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	err := For(ctx, 10000, 2, 1, func(i int) {
		if calls.Add(1) == 10 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Each worker may finish the call it started after the cancel.
	if n := calls.Load(); n > 12 {
		t.Fatalf("%d calls after a cancel at the 10th", n)
	}
}
