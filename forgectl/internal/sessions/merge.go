package sessions

import (
	"context"
	"errors"
	"sync"

	"forgectl.dev/forgectl/internal/harness"
)

// ListAll is List over several harnesses at once, each with its own
// options (its own index), their sessions merged newest first by last
// activity, which is the order each listing hands them on in. The
// listings run concurrently; each holds at most one session the merge has
// not taken, and until every listing has its first session each reads
// little past its own (Options.Hold). Stats add up; the first error ends
// every listing.
func ListAll(parent context.Context, opts []Options, emit func(*harness.Session) error) (Stats, error) {
	if len(opts) == 1 {
		return List(parent, opts[0], emit)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	type stream struct {
		ch   chan *harness.Session
		head *harness.Session
		st   Stats
		err  error
	}
	streams := make([]*stream, len(opts))
	stop := make(chan struct{})
	hold := make(chan struct{}) // closed once every listing's first session is in
	var wg sync.WaitGroup
	for i := range opts {
		s := &stream{ch: make(chan *harness.Session)}
		streams[i] = s
		opt := opts[i]
		opt.Hold = hold
		wg.Go(func() {
			defer close(s.ch)
			s.st, s.err = List(ctx, opt, func(x *harness.Session) error {
				select {
				case s.ch <- x:
					return nil
				case <-stop:
					return ErrStop // the merge is done: the index is still saved
				}
			})
		})
	}
	var emitErr error
	for _, s := range streams {
		s.head = <-s.ch
	}
	close(hold)
	for emitErr == nil {
		var next *stream
		for _, s := range streams {
			if s.head != nil && (next == nil || s.head.LastActivity.After(next.head.LastActivity)) {
				next = s
			}
		}
		if next == nil {
			break
		}
		x := next.head
		next.head = <-next.ch
		emitErr = emit(x)
	}
	close(stop)
	for _, s := range streams {
		for range s.ch { // a listing blocked on a send sees stop
		}
	}
	wg.Wait()
	var st Stats
	var err error
	for _, s := range streams {
		st.Listed += s.st.Listed
		st.Scanned += s.st.Scanned
		st.Reused += s.st.Reused
		st.Problems = append(st.Problems, s.st.Problems...)
		if err == nil && s.err != nil {
			err = s.err
		}
	}
	if errors.Is(emitErr, ErrStop) {
		emitErr = nil
	}
	if emitErr != nil {
		return st, emitErr
	}
	return st, err
}
