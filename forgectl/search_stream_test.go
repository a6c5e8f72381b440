package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/shared/poll"
)

// lockedBuffer is stdout written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A first search on a terminal prints the newest hit while the index is
// still being built: the build is held inside its first Early call until
// that hit's row is on stdout (it never is without the streaming), and
// the index is written only after.
func TestFirstSearchPrintsBeforeTheIndexIsBuilt(t *testing.T) {
	h := newHome(t)
	api := h.repo("api")
	for k := range 12 {
		h.session(fmt.Sprintf("5e55%04d-1111-4222-8333-444455556666", k), api, "main", fmt.Sprintf("the needle %d", k), "", time.Duration(k+1)*time.Hour)
	}
	a, _ := h.newTestApp(true, nil, map[string]string{"COLUMNS": "200"})
	out := &lockedBuffer{}
	a.stdout = out
	catalog := filepath.Join(h.fc, "cache", "search", "catalog")
	var once sync.Once
	heldErr := "the search streamed nothing"
	a.searchSeam = func(o *search.Options) {
		early := o.Early
		if early == nil {
			return
		}
		o.Early = func(path string, hits []search.Hit) {
			early(path, hits)
			once.Do(func() {
				heldErr = ""
				// The newest session's row, printed while the build waits.
				ok := poll.Every(5*time.Millisecond).Wait(poll.Long, func() bool {
					return strings.Contains(out.String(), "5e550000-")
				})
				if !ok {
					heldErr = "the newest hit was not printed while the build waited"
				} else if _, err := os.Stat(catalog); err == nil {
					heldErr = "the index was written before its build was done"
				}
			})
		}
	}
	code := a.run(context.Background(), []string{"resume", "search", "needle"})
	if code != 0 || heldErr != "" {
		t.Fatalf("exit %d: %s\n%s", code, heldErr, out.String())
	}
	if n := strings.Count(out.String(), "\n5e55"); n != 12 {
		t.Errorf("%d rows after the header, want 12:\n%s", n, out.String())
	}
	if _, err := os.Stat(catalog); err != nil {
		t.Errorf("no index after the search: %v", err)
	}
}

// The picker over search hits highlights the query's words in the hits of
// its preview on a terminal, and not under NO_COLOR or --color=never.
func TestSearchPickerPreviewHighlightsTheMatch(t *testing.T) {
	h, _, _ := demo(t)
	for _, c := range []struct {
		env  map[string]string
		args []string
		want bool
	}{
		{nil, nil, true},
		{map[string]string{"NO_COLOR": "1"}, nil, false},
		{nil, []string{"--color=never"}, false},
	} {
		p := &fakePicker{}
		r := h.runWith(true, p, c.env, append([]string{"resume", "--search", "o"}, c.args...)...)
		if r.code != 0 || len(p.previews) < 2 {
			t.Fatalf("%v %v: exit %d, %d previews: %s", c.env, c.args, r.code, len(p.previews), r.stderr)
		}
		got := strings.Contains(p.previews[0], "\x1b[1;33mo\x1b[0m")
		if got != c.want || (!c.want && strings.Contains(p.previews[0], "\x1b[")) {
			t.Errorf("%v %v: highlighted %v, want %v:\n%q", c.env, c.args, got, c.want, p.previews[0])
		}
	}
}
