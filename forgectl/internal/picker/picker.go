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
	// Key names what the row stands for (a session id), so that a swap of
	// rows that leaves the same session under the cursor goes unnoticed.
	Key() string
}

// Settle is how long after a swap that changed the rows a choice is not
// taken as it is: the person may have meant the row that was
// there a moment before. Such a choice comes back as an
// *Unsettled error, for the caller to confirm.
const Settle = 300 * time.Millisecond

// Unsettled is a choice made as the rows changed.
type Unsettled struct{ Item Item }

func (u *Unsettled) Error() string { return "the rows changed as the choice was made" }

// ErrBlank is a choice of a blank padding row (see Source.Set).
var ErrBlank = errors.New("an empty row was chosen")

// Source feeds the picker. The finder may open before the rows are ready
// (they fill it when they arrive) and rows may be replaced while it is open:
// the picker first shows the rows it cached last time, then the fresh
// listing's.
//
// How go-fuzzyfinder v0.9.0 takes a hot-reloaded list shapes all of this.
// On each 30 ms tick it holds its hot-reload lock (mu, here) and, when the
// list's length changed, calls the item function for every row and then
// swaps the rows into its state under its own state lock. It draws, and
// calls the preview, under that state lock. So the order is always mu,
// then the finder's state lock, then shownMu, and the preview (under the
// state lock) never takes mu.
type Source struct {
	mu     sync.Mutex // the finder's hot-reload lock
	items  []Item     // what the finder loads next (possibly padded: see Set)
	latest []Item     // the newest rows as delivered, unpadded
	gen    int        // bumped by every Set

	shownMu sync.Mutex
	// loaded is what the finder's last load read (row marks it), and
	// state what it then swapped into its state (the lock's release marks
	// it): the finder's indexes refer to state.
	loaded, state     []Item
	loadedAs, stateAs int
	drawnAs           int       // the gen of the last screen drawn
	drawnList         []Item    // its rows
	drawnKey          string    // the Key under the cursor on it
	swappedAt         time.Time // when a swap changed the sessions near the top
	// redraw notes a screen drawn while the finder was swapping rows in:
	// which list its cursor indexed cannot be told, so it is drawn again.
	redraw bool

	errMu  sync.Mutex // never mu: a finder stuck holding mu must not hang Pick
	err    error
	cancel context.CancelFunc

	done      chan struct{}
	once      sync.Once
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
// moved back inside). So an open finder's list only ever grows: a
// replacement no longer than what it loaded is padded with blank rows to
// one more than that. They come after the oldest session, no query matches
// them, and choosing one chooses nothing.
func (s *Source) Set(items []Item) {
	if len(items) == 0 {
		s.Fail(errors.New("no rows"))
		return
	}
	if !s.lockItems() {
		return // a finder that will never load again holds the lock
	}
	s.latest = items
	s.shownMu.Lock()
	open := len(s.loaded)
	s.shownMu.Unlock()
	if open > 0 && len(items) <= open {
		padded := make([]Item, open+1)
		copy(padded, items)
		for k := len(items); k < len(padded); k++ {
			padded[k] = blank{}
		}
		items = padded
	}
	s.items = items
	s.gen++
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
}

// lockItems takes mu, giving up after a second: go-fuzzyfinder's reload
// goroutine can be left blocked for good, holding mu, when its finder has
// returned (it sends to a full channel nobody reads any more).
func (s *Source) lockItems() bool {
	for deadline := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		if s.mu.TryLock() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// row is the finder's item function, called with mu held for every row in
// order each time it loads the list: the last call marks what it loaded.
func (s *Source) row(i int) string {
	r := s.items[i].Row()
	if i == len(s.items)-1 {
		s.shownMu.Lock()
		s.loaded, s.loadedAs = s.items, s.gen
		s.shownMu.Unlock()
	}
	return r
}

// reloadLock is the finder's hot-reload lock: mu, and on release the note
// that what it loaded is now in its state (it loads and swaps in one hold).
type reloadLock struct{ s *Source }

func (l reloadLock) Lock() { l.s.mu.Lock() }

func (l reloadLock) Unlock() {
	s := l.s
	s.shownMu.Lock()
	s.state, s.stateAs = s.loaded, s.loadedAs
	redraw := s.redraw
	s.redraw = false
	s.shownMu.Unlock()
	if redraw {
		// One more blank row makes the finder load, and so draw, again.
		grown := make([]Item, len(s.items)+1)
		copy(grown, s.items)
		grown[len(s.items)] = blank{}
		s.items = grown
	}
	s.mu.Unlock()
}

// sameRows reports whether a and b show the same sessions the same way in
// the same order, padding aside. All of them: with a query typed, the rows around the
// cursor on screen can lie anywhere in the list, and a changed row text
// (a name, the live mark) can add or drop a match.
func sameRows(a, b []Item) bool {
	a, b = withoutPadding(a), withoutPadding(b)
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Row() != b[k].Row() || a[k].Key() != b[k].Key() {
			return false
		}
	}
	return true
}

// withoutPadding is l without the blank rows Set padded it with.
func withoutPadding(l []Item) []Item {
	for len(l) > 0 {
		if _, pad := l[len(l)-1].(blank); !pad {
			break
		}
		l = l[:len(l)-1]
	}
	return l
}

// preview draws row i of the finder's state; the finder calls it under its
// state lock each time it draws, after the rows, so it also marks which
// rows have been on screen and since when.
func (s *Source) preview(i, width int) string {
	s.markDrawn()
	s.shownMu.Lock()
	if s.loadedAs != s.stateAs {
		// Drawn while rows are being swapped in (go-fuzzyfinder redraws
		// before it releases the reload lock): this screen counts for
		// nothing and is drawn again once the swap is done.
		s.redraw = true
		s.shownMu.Unlock()
		return ""
	}
	gen, list := s.stateAs, s.state
	var it Item
	if i >= 0 && i < len(list) {
		it = list[i]
	}
	s.shownMu.Unlock()
	text, key := "", ""
	if it != nil {
		text, key = it.Preview(width), it.Key()
	}
	s.shownMu.Lock()
	defer s.shownMu.Unlock()
	if gen != s.stateAs {
		return text
	}
	if gen != s.drawnAs {
		// The first screen of new rows: a swap, unless nothing was drawn
		// before. It matters unless it left every row as it was (the cache
		// was right): keys typed against the old screen may have moved the
		// cursor onto any row that changed.
		if s.drawnAs != 0 && (key != s.drawnKey || !sameRows(s.drawnList, list)) {
			s.swappedAt = time.Now()
		}
		s.drawnAs, s.drawnList = gen, list
	}
	s.drawnKey = key
	return text
}

// settled reports whether a choice the finder just returned refers to rows
// that were on screen, unchanged, for settle: nothing loaded since, nothing
// swapped in undrawn, no replacement drawn less than Settle ago.
func (s *Source) settled(now time.Time, settle time.Duration) bool {
	s.shownMu.Lock()
	defer s.shownMu.Unlock()
	return s.loadedAs == s.stateAs && s.stateAs == s.drawnAs &&
		(s.swappedAt.IsZero() || now.Sub(s.swappedAt) >= settle)
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

// Fail ends the picker with err (the listing failed or found nothing).
func (s *Source) Fail(err error) {
	s.errMu.Lock()
	s.err = err
	cancel := s.cancel
	s.errMu.Unlock()
	s.once.Do(func() { close(s.done) })
	if cancel != nil {
		cancel()
	}
}

func (s *Source) failed() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
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
	if err := s.failed(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest, nil
}

// blank pads a replacement list (see Set).
type blank struct{}

func (blank) Row() string        { return "" }
func (blank) Preview(int) string { return "" }
func (blank) Key() string        { return "" }

// Picker chooses one item; callers depend on this interface so tests and
// non-terminal runs never touch the UI.
type Picker interface {
	Pick(ctx context.Context, header string, src *Source) (Item, error)
}

// Fuzzy is the real picker.
type Fuzzy struct {
	// Settle overrides the package's Settle (tests that drive a real
	// terminal need a wider window than a person does).
	Settle time.Duration
}

// Pick opens the finder. Every item is searched from the first keystroke:
// nothing is loaded lazily. A choice of rows that had not stood on screen
// for Settle comes back as *Unsettled; a blank padding row as ErrBlank.
func (p Fuzzy) Pick(ctx context.Context, header string, src *Source) (Item, error) {
	defer src.markDrawn()
	settle := p.Settle
	if settle <= 0 {
		settle = Settle
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src.errMu.Lock()
	src.cancel = cancel
	failed := src.err
	src.errMu.Unlock()
	if failed != nil {
		return nil, failed
	}
	i, err := fuzzyfinder.Find(&src.items, src.row,
		fuzzyfinder.WithHotReloadLock(reloadLock{src}),
		fuzzyfinder.WithContext(ctx),
		fuzzyfinder.WithHeader(header),
		fuzzyfinder.WithPromptString("resume> "),
		fuzzyfinder.WithPreviewWindow(func(i, width, _ int) string { return src.preview(i, width) }),
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
	switch it.(type) {
	case nil:
		return nil, fmt.Errorf("the finder chose row %d of a shorter list", i)
	case blank:
		return nil, ErrBlank
	}
	if !src.settled(time.Now(), settle) {
		return nil, &Unsettled{Item: it}
	}
	return it, nil
}
