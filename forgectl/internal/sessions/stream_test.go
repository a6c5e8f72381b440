package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/shared/snapstore"
)

func manyTranscripts(t *testing.T, f *fixture, n int) {
	t.Helper()
	repo := filepath.Join(f.home, "r")
	os.MkdirAll(repo, 0o755)
	base := time.Now().Add(-time.Hour)
	for k := range n {
		id := fmt.Sprintf("s%04d", k)
		// Every third in a folder of its own: order must not follow folders.
		cwd := filepath.Join(repo, fmt.Sprint(k%3))
		f.transcript(cwd, id, base.Add(time.Duration(k)*time.Second), row(cwd, id, "main", "cli", "prompt "+id))
	}
}

// Sessions come newest first; a listing stopped early still leaves an
// index of what it read, so the next listing starts from there.
func TestListStreamsNewestFirstAndStops(t *testing.T) {
	f := newFixture(t)
	manyTranscripts(t, f, 60)
	idx := filepath.Join(f.home, "idx")
	var got []string
	st, err := List(context.Background(), Options{Harness: claude.New(f.claude, snapstore.Store{}), IndexPath: idx, Workers: 2}, func(s *harness.Session) error {
		got = append(got, s.ID)
		if len(got) == 5 {
			return ErrStop
		}
		return nil
	})
	if err != nil || st.Listed != 5 {
		t.Fatalf("stopped listing: %v, %d listed", err, st.Listed)
	}
	for k, id := range got {
		if want := fmt.Sprintf("s%04d", 59-k); id != want {
			t.Fatalf("row %d is %s, want %s (newest first)", k, id, want)
		}
	}
	res, err := listAll(f.options(idx))
	if err != nil || len(res.Sessions) != 60 || res.Reused < 5 || res.Reused+res.Scanned != 60 {
		t.Fatalf("after a stopped listing: %v, %d sessions, %d reused, %d scanned", err, len(res.Sessions), res.Reused, res.Scanned)
	}
	for k := 1; k < len(res.Sessions); k++ {
		if res.Sessions[k-1].LastActivity.Before(res.Sessions[k].LastActivity) {
			t.Fatalf("row %d is newer than row %d", k, k-1)
		}
	}
	res, _ = listAll(f.options(idx))
	if res.Reused != 60 || res.Scanned != 0 {
		t.Fatalf("warm: %d reused, %d scanned", res.Reused, res.Scanned)
	}
	// A session deleted since is gone from the listing and the index.
	p := filepath.Join(f.claude.Projects())
	matches, _ := filepath.Glob(filepath.Join(p, "*", "s0059.jsonl"))
	os.Remove(matches[0])
	res, _ = listAll(f.options(idx))
	if len(res.Sessions) != 59 || res.Sessions[0].ID != "s0058" {
		t.Fatalf("after a delete: %d sessions, first %s", len(res.Sessions), res.Sessions[0].ID)
	}
	ix, err := openIndex(idx, formatOf(f.options("").Harness))
	if err != nil || ix.nFiles != 59 {
		t.Fatalf("the index keeps %d records (%v)", ix.nFiles, err)
	}
}

// An emit error ends the listing and is returned; so is a cancelled
// context.
func TestListErrors(t *testing.T) {
	f := newFixture(t)
	manyTranscripts(t, f, 20)
	boom := errors.New("stdout is closed")
	st, err := List(context.Background(), f.options(""), func(*harness.Session) error { return boom })
	if err != boom || st.Listed != 1 {
		t.Fatalf("emit error: %v, %d listed", err, st.Listed)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = List(ctx, Options{Harness: claude.New(f.claude, snapstore.Store{}), Workers: 1}, func(*harness.Session) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n >= 20 {
		t.Fatalf("cancelled: %v after %d rows", err, n)
	}
}

// A held pipe (Options.Hold) lets its workers no further than its span
// ahead of the consumer, which stops consuming as ListAll's merge does
// while it waits for another listing; widened, they go on.
func TestPipeHoldsThenWidens(t *testing.T) {
	p := newPipe(200, 4)
	entered := make(chan int, 200)
	go func() {
		for k := range 200 {
			if !p.enter(k) {
				return
			}
			entered <- k
			p.finish(k)
		}
	}()
	settled := func(want int) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for len(entered) < want {
			select {
			case <-deadline:
				t.Fatalf("%d slots entered, want %d", len(entered), want)
			case <-time.After(time.Millisecond):
			}
		}
		time.Sleep(100 * time.Millisecond)
		if n := len(entered); n != want {
			t.Fatalf("%d slots entered, want %d", n, want)
		}
	}
	if !p.await(0) {
		t.Fatal("slot 0 never came")
	}
	settled(4) // the consumer took one row and waits: 4 ahead of it
	p.widen(64)
	settled(64)
	for k := 1; k < 200; k++ {
		if !p.await(k) {
			t.Fatalf("slot %d never came", k)
		}
	}
	p.stop()
}
