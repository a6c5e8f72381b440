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
	const workers = 2
	var calls, atCancel atomic.Int32
	err := For(ctx, 10000, workers, 1, func(i int) {
		if calls.Add(1) == 10 {
			cancel()
			atCancel.Store(calls.Load())
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Until cancel returns, the other worker may go on (a busy machine can
	// hold the cancelling goroutine off the CPU for many calls). Once it
	// has returned, each other worker may finish only the call it had
	// already begun.
	if n, c := calls.Load(), atCancel.Load(); n > c+workers-1 {
		t.Fatalf("%d calls in all, %d when cancel returned: a worker went on after the cancel", n, c)
	}
}

// Results come in order, and no more than window are computed ahead of
// the consumer.
func TestOrdered(t *testing.T) {
	const n, window = 500, 8
	var ahead, most atomic.Int64
	var got []int
	err := Ordered(context.Background(), n, 4, window, func(i int) int {
		if a := ahead.Add(1); a > most.Load() {
			most.Store(a)
		}
		return i * i
	}, func(i, r int) error {
		ahead.Add(-1)
		if r != i*i {
			t.Errorf("result %d for %d", r, i)
		}
		got = append(got, i)
		return nil
	})
	if err != nil || len(got) != n {
		t.Fatalf("err %v, %d results", err, len(got))
	}
	for k, i := range got {
		if k != i {
			t.Fatalf("result %d came at place %d", i, k)
		}
	}
	if most.Load() > window {
		t.Errorf("%d results were held ahead of the consumer, window %d", most.Load(), window)
	}
}

// An error from consume, or a cancelled context, ends the run; no worker
// is left running.
func TestOrderedStops(t *testing.T) {
	stop := errors.New("stop")
	var calls atomic.Int64
	err := Ordered(context.Background(), 10000, 4, 16, func(i int) int { calls.Add(1); return i },
		func(i, _ int) error {
			if i == 20 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the consumer's", err)
	}
	if c := calls.Load(); c > 20+16+4 {
		t.Errorf("%d calls after the consumer stopped at 20 (window 16)", c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = Ordered(ctx, 10000, 4, 16, func(i int) int { return i }, func(i, _ int) error {
		if i == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if err := Ordered(context.Background(), 0, 4, 16, func(i int) int { return i }, func(int, int) error { return nil }); err != nil {
		t.Fatalf("no work: %v", err)
	}
}
