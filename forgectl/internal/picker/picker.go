// Package picker is the fuzzy finder behind `forgectl resume`. It is the
// only package in the suite that links a terminal UI library, and it draws
// on the terminal (/dev/tty), never on stdout, so stdout stays for results.
package picker

import (
	"context"
	"errors"
	"sync"

	fuzzyfinder "github.com/ktr0731/go-fuzzyfinder"
)

// ErrAborted means the user left with Esc or Ctrl-C.
var ErrAborted = errors.New("picker aborted")

// Item is one row: the text that is drawn and searched, and a preview.
type Item interface {
	Row() string
	Preview(width int) string
}

// Source feeds the picker. The finder opens at once and the rows arrive
// when the listing is done, so the terminal setup and the listing overlap
// instead of adding up.
type Source struct {
	mu     sync.Mutex
	items  []Item
	done   chan struct{}
	once   sync.Once
	err    error
	cancel context.CancelFunc
}

// NewSource returns an empty source.
func NewSource() *Source { return &Source{done: make(chan struct{})} }

// Set delivers the rows; it is called once.
func (s *Source) Set(items []Item) {
	s.mu.Lock()
	s.items = items
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
}

// Fail ends the picker with err (the listing failed or found nothing).
func (s *Source) Fail(err error) {
	s.mu.Lock()
	s.err = err
	cancel := s.cancel
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
	if cancel != nil {
		cancel()
	}
}

// Ready is closed once the rows (or a failure) arrived.
func (s *Source) Ready() <-chan struct{} { return s.done }

// Wait blocks until the rows (or a failure) arrived.
func (s *Source) Wait(ctx context.Context) ([]Item, error) {
	select {
	case <-s.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.items, s.err
}

func (s *Source) item(i int) Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.items) {
		return nil
	}
	return s.items[i]
}

// Picker chooses one item; callers depend on this interface so tests and
// non-terminal runs never touch the UI.
type Picker interface {
	Pick(ctx context.Context, header string, src *Source) (int, error)
}

// Fuzzy is the real picker.
type Fuzzy struct{}

// Pick opens the finder. Every item is searched from the first keystroke:
// nothing is loaded lazily.
func (Fuzzy) Pick(ctx context.Context, header string, src *Source) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src.mu.Lock()
	src.cancel = cancel
	failed := src.err
	src.mu.Unlock()
	if failed != nil {
		return -1, failed
	}
	i, err := fuzzyfinder.Find(&src.items,
		// Called by the finder with src.mu held (its hot-reload lock).
		func(i int) string { return src.items[i].Row() },
		fuzzyfinder.WithHotReloadLock(&src.mu),
		fuzzyfinder.WithContext(ctx),
		fuzzyfinder.WithHeader(header),
		fuzzyfinder.WithPromptString("resume> "),
		fuzzyfinder.WithPreviewWindow(func(i, width, _ int) string {
			if it := src.item(i); it != nil {
				return it.Preview(width)
			}
			return ""
		}),
	)
	src.mu.Lock()
	failed = src.err
	src.mu.Unlock()
	switch {
	case failed != nil:
		return -1, failed
	case errors.Is(err, fuzzyfinder.ErrAbort) || (err != nil && ctx.Err() != nil):
		return -1, ErrAborted
	}
	return i, err
}
