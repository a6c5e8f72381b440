package picker

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

type item string

func (i item) Row() string        { return string(i) }
func (i item) Preview(int) string { return "preview of " + string(i) }

func items(prefix string, n int) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = item(fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// finder does what go-fuzzyfinder v0.9.0 does with a hot-reloaded list: at
// start and on each 30 ms tick, with the source's lock held, it loads the
// list when its length differs from the last load (prev starts at 0, so the
// first tick loads again), calling the item function for every row in
// order; then it takes its own state lock to swap in the rows. Its cursor
// is never moved back inside a shorter list, which is why it must never
// see one.
type finder struct {
	t     *testing.T
	src   *Source
	state sync.Mutex
	prev  int
	rows  []string
}

func (f *finder) tick() bool {
	f.src.mu.Lock()
	defer f.src.mu.Unlock()
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

func TestReplacementsOnlyGrow(t *testing.T) {
	src := NewSource()
	src.Set(items("cached", 3))
	f := &finder{t: t, src: src}
	if !f.tick() || len(f.rows) != 3 || f.rows[0] != "cached0" {
		t.Fatalf("first load: %v", f.rows)
	}
	if f.tick(); !src.settled(time.Now()) {
		t.Error("reloading the same rows counted as a replacement")
	}

	// As many fresh rows: one more, a blank one, so the finder sees a
	// change of length at all.
	src.Set(items("fresh", 3))
	if !f.tick() || fmt.Sprintf("%q", f.rows) != `["fresh0" "fresh1" "fresh2" ""]` {
		t.Fatalf("same length: %q", f.rows)
	}
	if src.shownItem(3) != (blank{}) || src.shownItem(1) != item("fresh1") {
		t.Error("the rows are not the fresh ones and a blank")
	}
	// Fewer: padded to one more than on screen, never shorter.
	src.Set(items("fewer", 2))
	if !f.tick() || fmt.Sprintf("%q", f.rows) != `["fewer0" "fewer1" "" "" ""]` {
		t.Fatalf("fewer: %q", f.rows)
	}
	// More: as they are.
	src.Set(items("more", 9))
	if !f.tick() || len(f.rows) != 9 || src.shownItem(8) != item("more8") {
		t.Fatalf("more: %v", f.rows)
	}
	if src.shownItem(9) != nil || src.shownItem(-1) != nil {
		t.Error("an index past the list named an item")
	}
	got, err := src.Wait(context.Background())
	if err != nil || len(got) != 9 {
		t.Errorf("Wait = %d rows, %v", len(got), err)
	}
}

func TestSingleRowIsReplaced(t *testing.T) {
	src := NewSource()
	src.Set(items("cached", 1))
	f := &finder{t: t, src: src}
	f.tick()
	src.Set(items("fresh", 1))
	if !f.tick() || f.rows[0] != "fresh0" {
		t.Fatalf("one cached row, one fresh: the finder shows %v", f.rows)
	}
}

func TestChoiceSettles(t *testing.T) {
	src := NewSource()
	// Rows set before the finder opens are not a replacement.
	src.Set(items("cached", 2))
	src.Set(items("fresh", 2))
	f := &finder{t: t, src: src}
	f.tick()
	if !src.settled(time.Now()) {
		t.Fatal("the first rows the finder loaded counted as a replacement")
	}
	src.Set(items("newer", 2))
	f.tick()
	now := time.Now()
	if src.settled(now) {
		t.Error("a choice right after the rows changed was trusted")
	}
	if !src.settled(now.Add(Settle)) {
		t.Error("a choice Settle after the rows changed was not trusted")
	}
}

// The finder holds the source's lock and then takes its state lock to
// reload; it holds its state lock and calls the preview (shownItem) to
// draw. With one lock behind both, the two waited on each other forever.
func TestReloadAndPreviewDoNotDeadlock(t *testing.T) {
	src := NewSource()
	src.Set(items("a", 50))
	f := &finder{t: t, src: src}
	f.tick()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // reloads, as fresh rows keep arriving
			defer wg.Done()
			for k := range 300 {
				src.Set(items(fmt.Sprint("g", k, "-"), 50+k))
				f.tick()
			}
		}()
		go func() { // draws
			defer wg.Done()
			for range 3000 {
				f.state.Lock()
				src.shownItem(0)
				src.settled(time.Now())
				f.state.Unlock()
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
