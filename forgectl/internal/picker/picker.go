// Package picker is the fuzzy finder behind `forgectl resume`. It is the
// only package in the suite that links a terminal UI library, and it draws
// on the terminal (/dev/tty), never on stdout, so stdout stays for results.
package picker

import (
	"context"
	"errors"
	"fmt"
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

// Source feeds the picker. The finder may open before the rows are ready
// (they fill it when they arrive) and rows may be replaced while it is open:
// the picker first shows the rows it cached last time, then the fresh
// listing's.
type Source struct {
	mu sync.Mutex
	// items is what the finder loads next; shown is what it loaded last,
	// the list its indexes (cursor, choice, preview) refer to.
	items, shown []Item
	// next waits one reload: see Set.
	next   []Item
	done   chan struct{}
	once   sync.Once
	err    error
	cancel context.CancelFunc
	// drawn is closed when the finder has drawn its first screen with rows
	// (or returned): see Drawn.
	drawn     chan struct{}
	drawnOnce sync.Once
}

// NewSource returns an empty source.
func NewSource() *Source { return &Source{done: make(chan struct{}), drawn: make(chan struct{})} }

// Drawn is closed once the finder has drawn rows, or has returned. Work
// that would slow the first screen (the fresh listing, which allocates tens
// of megabytes on the cores the finder needs) can wait for it.
func (s *Source) Drawn() <-chan struct{} { return s.drawn }

func (s *Source) markDrawn() { s.drawnOnce.Do(func() { close(s.drawn) }) }

// Set delivers the rows, or replaces the ones delivered before.
//
// go-fuzzyfinder reloads a hot-reloaded list only when its length changes.
// A replacement as long as the list on screen therefore goes in two steps:
// all rows but the last, and once the finder has loaded those (see row),
// the whole list, one reload (30 ms) later. Both steps are prefixes of the
// new list, so an index the finder hands back means the same row in either.
func (s *Source) Set(items []Item) {
	s.mu.Lock()
	s.items, s.next = items, nil
	if len(items) > 1 && len(items) == len(s.shown) {
		s.items, s.next = items[:len(items)-1], items
	}
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
}

// row is the finder's item function. The finder calls it with s.mu held
// (its hot-reload lock) for every row in order each time it loads the
// list, so the last call marks what it now shows.
func (s *Source) row(i int) string {
	r := s.items[i].Row()
	if i == len(s.items)-1 {
		s.shown = s.items
		if s.next != nil {
			s.items, s.next = s.next, nil
		}
	}
	return r
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

// Ready is closed once rows (or a failure) arrived.
func (s *Source) Ready() <-chan struct{} { return s.done }

// Wait blocks until rows (or a failure) arrived and returns the newest.
func (s *Source) Wait(ctx context.Context) ([]Item, error) {
	select {
	case <-s.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next != nil {
		return s.next, s.err
	}
	return s.items, s.err
}

// shownItem is row i of the list on screen.
func (s *Source) shownItem(i int) Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.shown) {
		return nil
	}
	return s.shown[i]
}

// Picker chooses one item; callers depend on this interface so tests and
// non-terminal runs never touch the UI.
type Picker interface {
	Pick(ctx context.Context, header string, src *Source) (Item, error)
}

// Fuzzy is the real picker.
type Fuzzy struct{}

// Pick opens the finder. Every item is searched from the first keystroke:
// nothing is loaded lazily.
func (Fuzzy) Pick(ctx context.Context, header string, src *Source) (Item, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer src.markDrawn()
	src.mu.Lock()
	src.cancel = cancel
	failed := src.err
	src.mu.Unlock()
	if failed != nil {
		return nil, failed
	}
	i, err := fuzzyfinder.Find(&src.items,
		src.row,
		fuzzyfinder.WithHotReloadLock(&src.mu),
		fuzzyfinder.WithContext(ctx),
		fuzzyfinder.WithHeader(header),
		fuzzyfinder.WithPromptString("resume> "),
		// The finder draws the preview with the rows, before it shows the
		// screen: the first call marks the first screen drawn.
		fuzzyfinder.WithPreviewWindow(func(i, width, _ int) string {
			src.markDrawn()
			if it := src.shownItem(i); it != nil {
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
		return nil, failed
	case errors.Is(err, fuzzyfinder.ErrAbort) || (err != nil && ctx.Err() != nil):
		return nil, ErrAborted
	case err != nil:
		return nil, err
	}
	// The index refers to the list on screen when Enter was read. (A reload
	// swaps the finder's list a few microseconds after row marks it shown;
	// an Enter read exactly between the two would pick by the new list.)
	it := src.shownItem(i)
	if it == nil {
		return nil, fmt.Errorf("the finder chose row %d of a shorter list", i)
	}
	return it, nil
}
