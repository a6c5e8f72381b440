package picker

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

type item string

func (i item) Row() string        { return string(i) }
func (i item) Preview(int) string { return "preview of " + string(i) }
func (i item) Key() string        { return strings.TrimPrefix(string(i), "same-") }

func items(prefix string, n int) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = item(fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// finder does what go-fuzzyfinder v0.9.0 does with a hot-reloaded list:
// at start and on each 30 ms tick it holds the hot-reload lock and, when
// the list's length differs from its last load (prev starts at 0, so the
// first tick loads again), calls the item function for every row in order
// and swaps the rows into its state under its state lock. It draws, and
// calls the preview, under the state lock. Its cursor is never moved back
// inside a shorter list, which is why it must never see one.
type finder struct {
	t     *testing.T
	src   *Source
	lock  reloadLock
	state sync.Mutex
	prev  int
	rows  []string
}

func open(t *testing.T, src *Source) *finder {
	f := &finder{t: t, src: src, lock: reloadLock{src}}
	f.load()
	f.prev = 0
	return f
}

// shown opens a finder over first and draws it.
func shown(t *testing.T, first []Item) (*Source, *finder) {
	src := NewSource()
	src.Set(first)
	f := open(t, src)
	f.draw()
	return src, f
}

func (f *finder) load() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	n := len(f.src.items)
	if n == f.prev {
		return false
	}
	if n < len(f.rows) {
		f.t.Fatalf("the finder was handed %d rows after showing %d: its cursor may be past the end", n, len(f.rows))
	}
	rows := make([]string, n)
	for i := range n {
		rows[i] = f.src.row(i)
	}
	f.state.Lock()
	f.rows = rows
	f.state.Unlock()
	f.prev = n
	return true
}

// tick loads as the finder's reload goroutine does, then draws.
func (f *finder) tick() bool {
	loaded := f.load()
	f.draw()
	return loaded
}

func (f *finder) draw() string {
	f.state.Lock()
	defer f.state.Unlock()
	return f.src.preview(0, 80)
}

func TestReplacementsOnlyGrow(t *testing.T) {
	src, f := shown(t, items("cached", 3))
	if len(f.rows) != 3 || f.rows[0] != "cached0" {
		t.Fatalf("first load: %v", f.rows)
	}
	// The first tick loads the same rows again: not a replacement.
	if !f.tick() || f.tick() || !src.settled(time.Now(), Settle) {
		t.Error("the first rows, drawn and reloaded, are not settled")
	}

	// As many fresh rows: one more, a blank one, so the finder sees a
	// change of length at all.
	src.Set(items("fresh", 3))
	if !f.tick() || fmt.Sprintf("%q", f.rows) != `["fresh0" "fresh1" "fresh2" ""]` {
		t.Fatalf("same length: %q", f.rows)
	}
	if src.chosen(3) != (blank{}) || src.chosen(1) != item("fresh1") {
		t.Error("the rows are not the fresh ones and a blank")
	}
	// Fewer: padded to one more than loaded, never shorter.
	src.Set(items("fewer", 2))
	if !f.tick() || fmt.Sprintf("%q", f.rows) != `["fewer0" "fewer1" "" "" ""]` {
		t.Fatalf("fewer: %q", f.rows)
	}
	// More: as they are.
	src.Set(items("more", 9))
	if !f.tick() || len(f.rows) != 9 || src.chosen(8) != item("more8") {
		t.Fatalf("more: %v", f.rows)
	}
	if src.chosen(9) != nil || src.chosen(-1) != nil {
		t.Error("an index past the list named an item")
	}
	got, err := src.Wait(context.Background())
	if err != nil || len(got) != 9 {
		t.Errorf("Wait = %d rows, %v", len(got), err)
	}
}

func TestSingleRowIsReplaced(t *testing.T) {
	src, f := shown(t, items("cached", 1))
	src.Set(items("fresh", 1))
	if !f.tick() || f.rows[0] != "fresh0" {
		t.Fatalf("one cached row, one fresh: the finder shows %v", f.rows)
	}
}

// A choice counts only when the rows it refers to have stood on screen,
// unchanged, for Settle.
func TestChoiceSettles(t *testing.T) {
	src := NewSource()
	// Rows set before the finder opens are not a replacement.
	src.Set(items("cached", 2))
	src.Set(items("fresh", 2))
	f := open(t, src)
	if src.settled(time.Now(), Settle) {
		t.Fatal("rows never drawn were trusted")
	}
	f.draw()
	if !src.settled(time.Now(), Settle) {
		t.Fatal("the first rows the finder drew counted as a replacement")
	}

	src.Set(items("newer", 2))
	// Loaded, not yet in the finder's state: an index may be the old list's.
	f.lock.Lock()
	for i := range len(src.items) {
		src.row(i)
	}
	if src.settled(time.Now().Add(time.Hour), Settle) {
		t.Error("a choice while rows were being loaded was trusted")
	}
	f.lock.Unlock()
	// In the state, not yet drawn: the person saw the old rows.
	if src.settled(time.Now().Add(time.Hour), Settle) {
		t.Error("a choice of rows never drawn was trusted")
	}
	f.draw()
	now := time.Now()
	if src.settled(now, Settle) {
		t.Error("a choice right after the rows changed was trusted")
	}
	if !src.settled(now.Add(Settle), Settle) {
		t.Error("a choice Settle after the rows changed was not trusted")
	}

	// The same rows again (the cache was right) are no swap.
	src.Set(items("newer", 2))
	f.tick()
	if !src.settled(now.Add(Settle), Settle) {
		t.Error("the same rows again unsettled a choice")
	}
	// The session under the cursor kept, one below it changed: a key typed
	// against the old screen may have moved the cursor there.
	src.Set([]Item{item("newer0"), item("other")})
	f.tick()
	if src.settled(time.Now(), Settle) {
		t.Error("a change next to the cursor did not unsettle a choice")
	}
}

// go-fuzzyfinder redraws before it releases the reload lock: a screen drawn
// then counts for nothing, and the finder is made to load and draw again.
func TestScreenDrawnMidSwapIsDrawnAgain(t *testing.T) {
	src, f := shown(t, items("cached", 3))
	src.Set(items("fresh", 4))
	f.lock.Lock()
	for i := range len(src.items) {
		src.row(i)
	}
	if got := f.draw(); got != "" { // the finder's redraw, mid-swap
		t.Errorf("a mid-swap preview showed %q", got)
	}
	f.lock.Unlock()
	if len(src.items) != 5 || src.items[4] != (blank{}) {
		t.Fatalf("no reload was forced: %d rows", len(src.items))
	}
	if src.settled(time.Now().Add(time.Hour), Settle) {
		t.Error("a choice off a mid-swap screen was trusted")
	}
	f.prev = 4
	if !f.tick() || f.draw() != "preview of fresh0" || !src.settled(time.Now().Add(Settle), Settle) {
		t.Error("the forced reload did not draw the fresh rows for good")
	}
}

// The finder holds the hot-reload lock and then takes its state lock to
// reload; it holds its state lock and calls the preview to draw. With one
// lock behind both, the two waited on each other forever.
func TestReloadAndPreviewDoNotDeadlock(t *testing.T) {
	src := NewSource()
	src.Set(items("a", 50))
	f := open(t, src)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // reloads, as fresh rows keep arriving
			defer wg.Done()
			for k := range 300 {
				src.Set(items(fmt.Sprint("g", k, "-"), 50+k))
				f.load()
			}
		}()
		go func() { // draws
			defer wg.Done()
			for range 3000 {
				f.draw()
				src.settled(time.Now(), Settle)
			}
		}()
		wg.Wait()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("reload and preview deadlocked")
	}
}

// go-fuzzyfinder's reload goroutine can be left holding the hot-reload lock
// for good after its finder returned; Set must not hang the listing.
func TestSetDoesNotHangOnAStuckFinder(t *testing.T) {
	src := NewSource()
	src.Set(items("a", 2))
	src.mu.Lock() // stuck for good
	done := make(chan struct{})
	go func() { src.Set(items("b", 3)); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Set hung on a lock nobody will release")
	}
	if src.failed() != nil {
		t.Error("Set failed the source")
	}
}

func TestWaitAndFail(t *testing.T) {
	src := NewSource()
	select {
	case <-src.Ready():
		t.Fatal("ready before any rows")
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Wait(ctx); err == nil {
		t.Error("Wait ignored a cancelled context")
	}
	boom := fmt.Errorf("listing failed")
	src.Fail(boom)
	if _, err := src.Wait(context.Background()); err != boom {
		t.Errorf("Wait after Fail = %v", err)
	}
	src.markDrawn()
	src.markDrawn() // twice is fine
	<-src.Drawn()

	empty := NewSource()
	empty.Set(nil)
	if _, err := empty.Wait(context.Background()); err == nil {
		t.Error("an empty set of rows was not a failure")
	}
}

// Any change counts, however far from the cursor: with a query typed, the
// rows next to the cursor on screen can be anywhere in the list, and a
// changed row text can add or drop a match.
func TestAnyChangeUnsettles(t *testing.T) {
	for name, change := range map[string]func([]Item){
		"order far below": func(l []Item) { l[260], l[261] = l[261], l[260] },
		"a row's text":    func(l []Item) { l[150] = item("same-r150 ● live") },
		"a session":       func(l []Item) { l[299] = item("another") },
	} {
		src, f := shown(t, items("r", 300))
		next := items("r", 300)
		change(next)
		src.Set(next)
		f.tick()
		if src.settled(time.Now(), Settle) {
			t.Errorf("%s: the change did not unsettle a choice", name)
		}
	}
}
