package picker

import (
	"context"
	"fmt"
	"testing"
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

// finder does what go-fuzzyfinder's hot reload does on each 30 ms tick:
// under the source's lock, when the list's length changed since its last
// load, it calls the item function for every row in order.
type finder struct {
	src  *Source
	prev int
	rows []string
}

func (f *finder) tick() bool {
	f.src.mu.Lock()
	defer f.src.mu.Unlock()
	n := len(f.src.items)
	if n == f.prev {
		return false
	}
	f.rows = make([]string, n)
	for i := range n {
		f.rows[i] = f.src.row(i)
	}
	f.prev = n
	return true
}

func TestReplaceSameLengthInTwoReloads(t *testing.T) {
	src := NewSource()
	src.Set(items("cached", 3))
	f := &finder{src: src}
	if !f.tick() || f.rows[0] != "cached0" {
		t.Fatalf("first load: %v", f.rows)
	}
	if got := src.shownItem(2); got != item("cached2") {
		t.Errorf("shown row 2 = %v", got)
	}

	// The fresh list is as long as the cached one: a finder that only
	// notices length changes must still get it.
	src.Set(items("fresh", 3))
	if !f.tick() || len(f.rows) != 2 || f.rows[1] != "fresh1" {
		t.Fatalf("second load: %v", f.rows)
	}
	// Between the two steps, an index means the fresh list's row.
	if got := src.shownItem(1); got != item("fresh1") {
		t.Errorf("between steps, shown row 1 = %v", got)
	}
	if !f.tick() || len(f.rows) != 3 || f.rows[2] != "fresh2" {
		t.Fatalf("third load: %v", f.rows)
	}
	if got := src.shownItem(2); got != item("fresh2") {
		t.Errorf("shown row 2 = %v", got)
	}
	if f.tick() {
		t.Error("the finder reloaded a list that had not changed")
	}
	got, err := src.Wait(context.Background())
	if err != nil || len(got) != 3 || got[0] != item("fresh0") {
		t.Errorf("Wait = %v, %v", got, err)
	}
}

func TestReplaceOtherLengthAndBeforeTheFinderOpens(t *testing.T) {
	src := NewSource()
	// Replaced before the finder loaded anything: no two-step dance.
	src.Set(items("cached", 2))
	src.Set(items("fresh", 2))
	f := &finder{src: src}
	if !f.tick() || len(f.rows) != 2 || f.rows[0] != "fresh0" {
		t.Fatalf("first load: %v", f.rows)
	}
	src.Set(items("more", 5))
	if !f.tick() || len(f.rows) != 5 || src.shownItem(4) != item("more4") {
		t.Fatalf("longer list: %v", f.rows)
	}
	if src.shownItem(5) != nil || src.shownItem(-1) != nil {
		t.Error("an index past the list named an item")
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
}
