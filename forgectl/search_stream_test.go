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

	"forgectl.dev/forgectl/internal/harness/codex/codextest"
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

// codexThreads writes n Codex threads holding text into home's ~/.codex,
// the k-th last written at(k) ago.
func codexThreads(t *testing.T, home, cwd string, n int, text string, at func(k int) time.Duration) []string {
	t.Helper()
	var ids []string
	for k := range n {
		id := fmt.Sprintf("019ad1%02d-0000-7000-8000-000000000001", k)
		created := time.Now().Add(-at(k) - time.Minute).UTC().Truncate(time.Second)
		p := filepath.Join(home, ".codex", "sessions", codextest.DayDir(created), codextest.FileName(created, id, ""))
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := append(codextest.MetaLine(codextest.Meta{ID: id, Cwd: cwd, Branch: "main", At: created}),
			codextest.User(created, 1, fmt.Sprintf("thread %d: %s", k, text))...)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		mt := time.Now().Add(-at(k))
		os.Chtimes(p, mt, mt)
		ids = append(ids, id)
	}
	return ids
}

// With a ~/.codex beside Claude Code's sessions, a first search still
// streams: both indexes are built side by side and their early hits are
// merged newest first, so the newest hit (a Codex thread) is printed while
// Claude Code's build is still held, and the rows come in the order a warm
// search prints them, the two harnesses interleaved.
func TestFirstSearchStreamsWithCodexToo(t *testing.T) {
	h := newHome(t)
	api := h.repo("api")
	for k := range 8 {
		h.session(fmt.Sprintf("5e55%04d-1111-4222-8333-444455556666", k), api, "main", fmt.Sprintf("the needle %d", k), "", time.Duration(2*k+2)*time.Hour)
	}
	// Codex threads 1h, 3h, 5h… ago: between the Claude Code sessions.
	cx := codexThreads(t, h.home, api, 8, "the needle", func(k int) time.Duration { return time.Duration(2*k+1) * time.Hour })
	run := func(hold bool) (string, string) {
		a, _ := h.newTestApp(true, nil, map[string]string{"COLUMNS": "200"})
		out := &lockedBuffer{}
		a.stdout = out
		var once sync.Once
		heldErr := ""
		if hold {
			heldErr = "Claude Code's build streamed nothing"
			a.searchSeam = func(o *search.Options) {
				early := o.Early
				if early == nil || !strings.HasSuffix(o.Dir, "search") {
					return
				}
				o.Early = func(path string, hits []search.Hit) {
					early(path, hits)
					once.Do(func() {
						heldErr = ""
						if !poll.Every(5*time.Millisecond).Wait(poll.Long, func() bool { return strings.Contains(out.String(), cx[0]) }) {
							heldErr = "the newest hit, a Codex thread, was not printed while Claude Code's build waited"
						}
					})
				}
			}
		}
		if code := a.run(context.Background(), []string{"resume", "search", "needle"}); code != 0 {
			t.Fatalf("exit %d\n%s", code, out.String())
		}
		return out.String(), heldErr
	}
	first, heldErr := run(true)
	if heldErr != "" {
		t.Fatalf("%s:\n%s", heldErr, first)
	}
	warm, _ := run(false)
	if first != warm {
		t.Errorf("the first search's rows differ from the warm one's:\n%s\n---\n%s", first, warm)
	}
	var order []string
	for _, l := range strings.Split(first, "\n") {
		if len(l) > 36 {
			order = append(order, l[:4])
		}
	}
	want := strings.Repeat("019a 5e55 ", 8)
	if got := strings.Join(order[1:], " ") + " "; got != want {
		t.Errorf("rows not interleaved newest first: %s\n%s", got, first)
	}
}
