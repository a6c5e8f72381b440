// Package picker is the fuzzy finder behind `forgectl resume`. It is the
// only package in the suite that links a terminal UI library, and it draws
// on the terminal (/dev/tty), never on stdout, so stdout stays for results.
package picker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	fuzzyfinder "github.com/ktr0731/go-fuzzyfinder"
)

// ErrAborted means the user left with Esc or Ctrl-C.
var ErrAborted = errors.New("picker aborted")

// Item is one row: the text that is drawn and searched, and a preview.
type Item interface {
	Row() string
	Preview(width int) string
}

// Settle is how long after the rows on screen were replaced a choice is not
// trusted: the finder may still be filtering the new list, and the person
// may have meant the row that was there a moment ago. Such a choice reopens
// the finder instead.
const Settle = 300 * time.Millisecond

// Source feeds the picker. The finder may open before the rows are ready
// (they fill it when they arrive) and rows may be replaced while it is open:
// the picker first shows the rows it cached last time, then the fresh
// listing's.
//
// Two locks, never held together by this package: mu is the finder's
// hot-reload lock, which it holds while it loads rows (and then takes its
// own state lock); shownMu guards what the finder loaded, which the preview
// reads while the finder holds its state lock. One lock for both deadlocked.
type Source struct {
	mu    sync.Mutex
	items []Item // what the finder loads next
	gen   int    // bumped by every Set

	shownMu sync.Mutex
	shown   []Item // what the finder loaded last: its indexes refer to it
	shownAs int    // the gen of shown
	// swappedAt is when the finder loaded rows that replaced rows it had
	// shown (zero until then).
	swappedAt time.Time

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

// Set delivers the rows, or replaces the ones delivered before; items must
// not be empty (an empty listing is a Fail).
//
// go-fuzzyfinder reloads a hot-reloaded list only when its length changes,
// and a list that shrinks under its cursor crashes it (the cursor is not
// moved back inside). So the list it is handed only ever grows: a
// replacement no longer than the rows on screen is padded with blank rows
// to one more than that. They sit below the oldest session, no query
// matches them, and choosing one reopens the finder.
func (s *Source) Set(items []Item) {
	if len(items) == 0 {
		s.Fail(errors.New("no rows"))
		return
	}
	s.shownMu.Lock()
	onScreen := len(s.shown)
	s.shownMu.Unlock()
	if onScreen > 0 && len(items) <= onScreen {
		padded := make([]Item, onScreen+1)
		copy(padded, items)
		for k := len(items); k < len(padded); k++ {
			padded[k] = blank{}
		}
		items = padded
	}
	s.mu.Lock()
	s.items = items
	s.gen++
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
}

// row is the finder's item function. The finder calls it with s.mu held
// (its hot-reload lock) for every row in order each time it loads the
// list, so the last call marks what it now shows.
func (s *Source) row(i int) string {
	r := s.items[i].Row()
	if i == len(s.items)-1 {
		s.shownMu.Lock()
		if s.shown != nil && s.shownAs != s.gen {
			s.swappedAt = time.Now()
		}
		s.shown, s.shownAs = s.items, s.gen
		s.shownMu.Unlock()
	}
	return r
}

// settled reports whether the rows on screen have stood for Settle.
func (s *Source) settled(now time.Time) bool {
	s.shownMu.Lock()
	defer s.shownMu.Unlock()
	return s.swappedAt.IsZero() || now.Sub(s.swappedAt) >= Settle
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
	return s.items, s.err
}

// shownItem is row i of the list on screen.
func (s *Source) shownItem(i int) Item {
	s.shownMu.Lock()
	defer s.shownMu.Unlock()
	if i < 0 || i >= len(s.shown) {
		return nil
	}
	return s.shown[i]
}

// blank pads a replacement list (see Set).
type blank struct{}

func (blank) Row() string        { return "" }
func (blank) Preview(int) string { return "" }

// Picker chooses one item; callers depend on this interface so tests and
// non-terminal runs never touch the UI.
type Picker interface {
	Pick(ctx context.Context, header string, src *Source) (Item, error)
}

// Fuzzy is the real picker.
type Fuzzy struct{}

// Pick opens the finder. Every item is searched from the first keystroke:
// nothing is loaded lazily. A choice made within Settle of the rows being
// replaced, or of a blank padding row, reopens the finder over the rows
// there are now rather than guess.
func (Fuzzy) Pick(ctx context.Context, header string, src *Source) (Item, error) {
	defer src.markDrawn()
	for {
		it, err := findOnce(ctx, header, src)
		if err != nil {
			return nil, err
		}
		if _, pad := it.(blank); !pad && src.settled(time.Now()) {
			return it, nil
		}
	}
}

func findOnce(ctx context.Context, header string, src *Source) (Item, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
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
		// screen: the first call marks the first screen drawn. It runs with
		// the finder's state lock held, so it must not take src.mu.
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
	it := src.shownItem(i)
	if it == nil {
		return nil, fmt.Errorf("the finder chose row %d of a shorter list", i)
	}
	return it, nil
}
