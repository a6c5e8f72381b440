package picker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

type item string

func (i item) Row() string             { return string(i) }
func (i item) Preview(int, int) string { return "preview of " + string(i) }

func items(prefix string, n int) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = item(fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// load does what go-fuzzyfinder does on a reload tick: under the reload
// lock, read the length and every row.
func load(s *Source) []string {
	l := reloadLock{s}
	l.Lock()
	defer l.Unlock()
	rows := make([]string, len(s.items))
	for i := range rows {
		rows[i] = s.row(i)
	}
	return rows
}

func TestRowsOnlyGrow(t *testing.T) {
	s := NewSource()
	s.Append(items("a", 3)...)
	if got := load(s); len(got) != 3 || got[0] != "a0" {
		t.Fatalf("first load: %q", got)
	}
	s.Append(items("b", 2)...)
	got := load(s)
	if len(got) != 5 || got[0] != "a0" || got[3] != "b0" {
		t.Fatalf("second load: %q", got)
	}
	if it := s.chosen(4); it == nil || it.Row() != "b1" {
		t.Fatalf("chosen(4) = %v", it)
	}
	if it := s.chosen(5); it != nil {
		t.Fatalf("chosen past the end = %v", it)
	}
}

// After a reload the filter that follows keeps the cursor's row; a screen
// drawn before that filter does not move it, and once the filter asked, the
// next draw ends it, so a query typed later ranks as usual.
func TestPreselectThroughAReload(t *testing.T) {
	s := NewSource()
	s.Append(items("r", 5)...)
	load(s)
	if got := s.preview(2, 80, 24); got != "preview of r2" {
		t.Fatalf("preview: %q", got)
	}
	if s.preselected(2) {
		t.Fatal("preselected before any reload")
	}
	s.Append(items("n", 3)...)
	load(s)
	// A screen of the unfiltered state, drawn before the filter ran.
	s.preview(0, 80, 24)
	for i := range 8 {
		if got, want := s.preselected(i), i == 2; got != want {
			t.Fatalf("after a reload, preselected(%d) = %v", i, got)
		}
	}
	s.preview(2, 80, 24) // the filtered screen
	if s.preselected(2) {
		t.Fatal("still preselected after the filtered screen")
	}
	// A tick that loads nothing new keeps nothing.
	load(s)
	if s.preselected(2) {
		t.Fatal("kept by a tick without new rows")
	}
	// With no query nothing asks: keep lapses after keepFor.
	s.Append(item("x"))
	load(s)
	time.Sleep(keepFor + 10*time.Millisecond)
	s.preview(4, 80, 24)
	if s.preselected(2) || s.preselected(4) {
		t.Fatal("keep did not lapse")
	}
	// Nothing matches: no cursor row.
	s.preview(-1, 80, 24)
	s.Append(item("y"))
	load(s)
	for i := range 10 {
		if s.preselected(i) {
			t.Fatalf("preselected(%d) with no cursor row", i)
		}
	}
}

func TestWaitAndEnd(t *testing.T) {
	s := NewSource()
	select {
	case <-s.Ready():
		t.Fatal("ready before anything arrived")
	default:
	}
	s.Append(items("r", 2)...)
	<-s.Ready()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait before End: %v", err)
	}
	s.End(nil)
	got, err := s.Wait(context.Background())
	if err != nil || len(got) != 2 {
		t.Fatalf("Wait: %v %v", got, err)
	}
	f := NewSource()
	boom := errors.New("listing failed")
	f.End(boom)
	if _, err := f.Wait(context.Background()); err != boom {
		t.Fatalf("Wait after a failure: %v", err)
	}
	if _, err := (Fuzzy{}).Pick(context.Background(), "", f); err != boom {
		t.Fatalf("Pick after a failure: %v", err)
	}
}

// A listing appends while the finder reloads and draws: with -race this
// checks the locking.
func TestAppendWhileTheFinderReloads(t *testing.T) {
	s := NewSource()
	var wg sync.WaitGroup
	wg.Go(func() {
		for k := range 200 {
			s.Append(item(fmt.Sprint(k)))
		}
		s.End(nil)
	})
	wg.Go(func() {
		for range 100 {
			rows := load(s)
			s.preselected(len(rows) - 1)
			s.preview(len(rows)-1, 80, 24)
			s.chosen(len(rows) - 1)
		}
	})
	wg.Wait()
	if got := load(s); len(got) != 200 || got[199] != "199" {
		t.Fatalf("%d rows, last %q", len(got), got[len(got)-1])
	}
}
