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
	// Preview is drawn in the preview pane, width columns by height
	// lines (0: unknown).
	Preview(width, height int) string
}

// Source feeds the picker while it is open. Rows are appended as a listing
// produces them, newest first, and never replaced or removed: an index the
// finder hands back always names the row it showed.
//
// How go-fuzzyfinder v0.9.0 takes a hot-reloaded list shapes this. Every
// 30 ms it takes its hot-reload lock (the reloadLock here) and, when the
// list's length changed, reads every row and swaps them into its state;
// then it filters again and draws. It draws, and calls the preview, under
// its own state lock. So the order is always mu, then the finder's state
// lock, then shownMu; Append takes only pendMu, so a listing never waits
// for the finder.
//
// With no query a reload leaves the cursor where it was, and since rows
// are only appended, on the same row. With a query the matches are ranked
// again and new ones may rank above the cursor's row; the finder then puts
// the cursor on its first "preselected" row, and the Source preselects
// the row under the cursor when the reload began (keep), until the filter
// that follows the reload has asked. Keys typed after that rank as usual.
//
// Between a reload and its filter the finder's state holds every row
// unfiltered, and a screen drawn then names the wrong row as the cursor's:
// while keep is set, a draw does not move it. The filter may run before
// the reload lock is released, so keep is set when it is taken. With no
// query the filter asks nothing, so keep lapses after keepFor. A reload
// also waits for the last one's screen (see reloadLock.Lock), which would
// otherwise be drawn late, over the unfiltered state.
//
// When more new matches than fit on screen rank above the cursor's row,
// go-fuzzyfinder keeps the cursor on the row but does not scroll to it: it
// is still the one Enter chooses and the preview shows.
type Source struct {
	pendMu  sync.Mutex
	pending []Item
	err     error
	ready   chan struct{} // closed by the first Append or by End
	once    sync.Once
	ended   chan struct{} // closed by End

	mu    sync.Mutex // the finder's hot-reload lock
	items []Item     // what the finder loads: it only grows

	shownMu sync.Mutex
	state   []Item // what the finder loaded last: its indexes refer to it
	cursor  int    // the row under the cursor at the last draw, -1 for none
	keep    int    // the row to keep the cursor on through a reload, -1 for none
	since   time.Time
	asked   bool // the filter after the reload asked about keep
	// undrawn is closed by the first draw after a reload; nil when there
	// was none since.
	undrawn chan struct{}

	errMu  sync.Mutex
	cancel context.CancelFunc
}

// NewSource returns an empty source.
func NewSource() *Source {
	return &Source{ready: make(chan struct{}), ended: make(chan struct{}), cursor: -1, keep: -1}
}

// Append adds rows below the ones there are.
func (s *Source) Append(items ...Item) {
	if len(items) == 0 {
		return
	}
	s.pendMu.Lock()
	s.pending = append(s.pending, items...)
	s.pendMu.Unlock()
	s.once.Do(func() { close(s.ready) })
}

// End says no more rows will come; a non-nil err ends the picker with it
// (the listing failed, or found nothing).
func (s *Source) End(err error) {
	s.pendMu.Lock()
	s.err = err
	s.pendMu.Unlock()
	s.once.Do(func() { close(s.ready) })
	close(s.ended)
	if err != nil {
		s.errMu.Lock()
		cancel := s.cancel
		s.errMu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// Ready is closed once rows, or the end, arrived.
func (s *Source) Ready() <-chan struct{} { return s.ready }

// Wait blocks until the rows stopped coming and returns them all, for a
// caller that does not draw them as they come (tests).
func (s *Source) Wait(ctx context.Context) ([]Item, error) {
	select {
	case <-s.ended:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.pendMu.Lock()
	defer s.pendMu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	return append([]Item(nil), s.pending...), nil
}

func (s *Source) failed() error {
	s.pendMu.Lock()
	defer s.pendMu.Unlock()
	return s.err
}

// reloadLock is the finder's hot-reload lock. Taking it moves the rows
// appended since into the list the finder reads; releasing it notes what
// the finder now holds.
type reloadLock struct{ s *Source }

// reloadDrawWait bounds how long a reload waits for the last one's screen:
// past the finder's end nothing draws any more.
const reloadDrawWait = 200 * time.Millisecond

func (l reloadLock) Lock() {
	s := l.s
	s.shownMu.Lock()
	undrawn := s.undrawn
	s.shownMu.Unlock()
	if undrawn != nil {
		select {
		case <-undrawn:
		case <-time.After(reloadDrawWait):
		}
	}
	s.mu.Lock()
	s.pendMu.Lock()
	grew := len(s.pending) > 0
	s.items = append(s.items, s.pending...)
	s.pending = s.pending[:0]
	s.pendMu.Unlock()
	if !grew {
		return
	}
	// The finder loads these rows next: its indexes refer to them from
	// now on (the old ones are a prefix of them).
	s.shownMu.Lock()
	s.state = s.items
	if s.keep < 0 {
		s.keep, s.since, s.asked = s.cursor, time.Now(), false
	}
	if s.undrawn == nil {
		s.undrawn = make(chan struct{})
	}
	s.shownMu.Unlock()
}

func (l reloadLock) Unlock() { l.s.mu.Unlock() }

// keepFor is how long keep holds when no filter asks about it (no query).
const keepFor = 100 * time.Millisecond

// row is the finder's item function, called with mu held.
func (s *Source) row(i int) string { return s.items[i].Row() }

// preselected keeps the cursor on its row through the filter that follows
// a reload.
func (s *Source) preselected(i int) bool {
	s.shownMu.Lock()
	defer s.shownMu.Unlock()
	if s.keep >= 0 && i == s.keep {
		s.asked = true
		return true
	}
	return false
}

// preview draws row i of the finder's state (-1: nothing matches); the
// finder calls it each time it draws, so it also notes the cursor's row.
func (s *Source) preview(i, width, height int) string {
	s.shownMu.Lock()
	switch {
	case s.keep < 0:
		s.cursor = i
	case s.asked || time.Since(s.since) > keepFor:
		// The filter after the reload has placed the cursor (or there is
		// no query): this screen is the filtered one.
		s.keep, s.cursor = -1, i
	}
	if s.undrawn != nil {
		close(s.undrawn)
		s.undrawn = nil
	}
	var it Item
	if i >= 0 && i < len(s.state) {
		it = s.state[i]
	}
	s.shownMu.Unlock()
	if it == nil {
		return ""
	}
	return it.Preview(width, height)
}

// Pane is the room for text inside the preview's frame, on a terminal of
// width by height cells: go-fuzzyfinder v0.9.0 hands its preview function
// the whole terminal's size, draws the frame on the right half from column
// width/2, starts the text two columns in, and ends a line that would
// reach width-3 with "..". Items wrap to this width, so that nothing they
// say is cut.
func Pane(width, height int) (int, int) {
	return max(0, width-width/2-5), max(0, height-2)
}

// chosen is row i of the finder's state.
func (s *Source) chosen(i int) Item {
	s.shownMu.Lock()
	defer s.shownMu.Unlock()
	if i < 0 || i >= len(s.state) {
		return nil
	}
	return s.state[i]
}

// Picker chooses one item; callers depend on this interface so tests and
// non-terminal runs never touch the UI.
type Picker interface {
	Pick(ctx context.Context, header string, src *Source) (Item, error)
}

// Fuzzy is the real picker.
type Fuzzy struct{}

// Pick opens the finder over what src has now and what it gets while open.
// Every row is searched from the first keystroke.
func (Fuzzy) Pick(ctx context.Context, header string, src *Source) (Item, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src.errMu.Lock()
	src.cancel = cancel
	src.errMu.Unlock()
	if err := src.failed(); err != nil {
		return nil, err
	}
	i, err := fuzzyfinder.Find(&src.items, src.row,
		fuzzyfinder.WithHotReloadLock(reloadLock{src}),
		fuzzyfinder.WithContext(ctx),
		fuzzyfinder.WithHeader(header),
		fuzzyfinder.WithPromptString("resume> "),
		fuzzyfinder.WithPreselected(src.preselected),
		fuzzyfinder.WithPreviewWindow(func(i, width, height int) string {
			w, h := Pane(width, height)
			return src.preview(i, w, h)
		}),
	)
	switch failed := src.failed(); {
	case failed != nil:
		return nil, failed
	case errors.Is(err, fuzzyfinder.ErrAbort) || (err != nil && ctx.Err() != nil):
		return nil, ErrAborted
	case err != nil:
		return nil, err
	}
	it := src.chosen(i)
	if it == nil {
		return nil, fmt.Errorf("the finder chose row %d, which it never loaded", i)
	}
	return it, nil
}
