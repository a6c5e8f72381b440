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
