// Package parallel is the suite's one worker pool: the listing, the
// snapshot capture and forgectl's row building all hand it their loops.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in 0..n-1 on up to workers goroutines
// (GOMAXPROCS when workers <= 0). Indexes are handed out in increasing
// order, chunk at a time (1 when chunk <= 0), so a consumer that waits for
// the results in order finds them coming in that order: the listing relies
// on this to show its newest sessions first. Cheap calls want a bigger
// chunk, so that handing out indexes does not dominate.
//
// It stops handing out indexes once ctx is done; calls already started run
// to their end. It returns ctx's error when it stopped early.
func For(ctx context.Context, n, workers, chunk int, fn func(i int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunk = max(chunk, 1)
	workers = min(workers, (n+chunk-1)/chunk)
	if workers <= 1 {
		for i := range n {
			if i%chunk == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			fn(i)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				start := int(next.Add(int64(chunk))) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
	if int(next.Load()) < n {
		return ctx.Err()
	}
	return nil
}

// Ordered calls work(i) for every i in 0..n-1 on up to workers goroutines
// (GOMAXPROCS when workers <= 0) and hands each result to consume on the
// calling goroutine, in order of i. At most window results (at least one
// per worker) are computed ahead of consume, so a slow consumer (a writer)
// bounds what is held in memory.
//
// An error from consume ends the run and is returned; so does ctx's error
// when ctx ends it first. Calls already started run to their end, and
// Ordered returns only once they have.
func Ordered[T any](ctx context.Context, n, workers, window int, work func(i int) T, consume func(i int, r T) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, n))
	window = max(window, workers)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel() // the workers waiting for a token leave
		wg.Wait()
	}()
	// A token is taken before an index and given back once its result is
	// consumed: no more than window indexes are out, so index i's slot
	// (i % window) is free when its result arrives.
	tokens := make(chan struct{}, window)
	slots := make([]chan T, window)
	for k := range slots {
		slots[k] = make(chan T, 1)
	}
	var next atomic.Int64
	for range workers {
		wg.Go(func() {
			for {
				select {
				case tokens <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				slots[i%window] <- work(i)
			}
		})
	}
	for i := range n {
		select {
		case r := <-slots[i%window]:
			if err := consume(i, r); err != nil {
				return err
			}
			<-tokens
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
