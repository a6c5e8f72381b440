// Package interrupt is how forgectl's commands stop on a signal. The first
// SIGINT or SIGTERM cancels the work's context and the work winds down as
// soon as it notices, with the exit status it chooses (forgectl's is
// Signalled: 130 for SIGINT, 143 for SIGTERM). The second ends the process
// at once with 128 plus the first signal's number, for work blocked where
// no context reaches (an open on a hung network mount, a write to a pipe
// nobody reads). Either way the cleanups registered with OnExit (temp
// files, lock directories) have run by the time Run returns to main, and
// os.Exit stays in main.
//
// signal.NotifyContext alone catches every later signal too, so once the
// work is stuck only SIGKILL ends it.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// handler is one Run's signal handling and cleanup registry.
type handler struct {
	sigs   chan os.Signal
	cancel context.CancelFunc
	now    chan struct{} // closed once the second signal's cleanups ran

	mu       sync.Mutex
	code     int // 128 + the first signal's number; 0 before one
	next     int
	cleanups map[int]func()
	closed   bool // the cleanups ran: later ones run at once
	ran      sync.Once
}

type ctxKey struct{}

// Run runs work with a context that the first of sigs (SIGINT and SIGTERM
// when none are given) cancels, and returns work's exit status. A second
// signal returns 128 plus the first one's number at once, work still
// running, after the cleanups ran; the caller must then exit. Cleanups
// still registered when work returns run too: they belong to goroutines
// work left behind, which die with the process.
func Run(parent context.Context, work func(context.Context) int, sigs ...os.Signal) int {
	if len(sigs) == 0 {
		sigs = []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	}
	ctx, cancel := context.WithCancel(parent)
	h := &handler{sigs: make(chan os.Signal, 2), cancel: cancel, now: make(chan struct{}), cleanups: map[int]func(){}}
	ctx = context.WithValue(ctx, ctxKey{}, h)
	signal.Notify(h.sigs, sigs...)
	stop := make(chan struct{})
	go h.watch(stop)
	done := make(chan int, 1)
	go func() { done <- work(ctx) }()
	select {
	case code := <-done:
		close(stop)
		signal.Stop(h.sigs)
		h.runCleanups()
		cancel()
		return code
	case <-h.now:
		cancel()
		return h.signalled()
	}
}

// Signalled is 128 plus the number of the first signal the Run that made
// ctx caught (130 for SIGINT, 143 for SIGTERM), or 0 when none came.
func Signalled(ctx context.Context) int {
	if h, _ := ctx.Value(ctxKey{}).(*handler); h != nil {
		return h.signalled()
	}
	return 0
}

// watch cancels on the first signal and ends the run on the second.
func (h *handler) watch(stop chan struct{}) {
	for n := 0; ; n++ {
		var sig os.Signal
		select {
		case sig = <-h.sigs:
		case <-stop:
			return
		}
		if n == 0 {
			h.mu.Lock()
			h.code = 128 + int(sig.(syscall.Signal))
			h.mu.Unlock()
			h.cancel()
			continue
		}
		// A third signal, while a cleanup is stuck, kills as by default.
		signal.Stop(h.sigs)
		h.runCleanups()
		close(h.now)
		return
	}
}

func (h *handler) signalled() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.code
}

// runCleanups runs the cleanups once; a second caller waits for the first.
func (h *handler) runCleanups() {
	h.ran.Do(func() {
		h.mu.Lock()
		fns := h.cleanups
		h.cleanups, h.closed = nil, true
		h.mu.Unlock()
		for _, fn := range fns {
			fn()
		}
	})
}

// OnExit registers fn (removing a temp file, say) to run if the process
// ends before remove is called: by a second signal, or after a first one
// while the goroutine that registered fn is still at work. It does nothing
// for a context that no Run made. fn may run concurrently with the code
// that registered it, so it must only undo what that code made (os.Remove
// of a temp file is fine: its rename then fails, or has already happened).
// A cleanup registered once the cleanups ran runs at once.
func OnExit(ctx context.Context, fn func()) (remove func()) {
	h, _ := ctx.Value(ctxKey{}).(*handler)
	if h == nil {
		return func() {}
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		fn()
		return func() {}
	}
	id := h.next
	h.next++
	h.cleanups[id] = fn
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.cleanups, id)
		h.mu.Unlock()
	}
}
