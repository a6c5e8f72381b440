package snaprun

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/capture"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/fsutil"
	"github.com/google/go-cmp/cmp"
)

func testApp(t *testing.T, env map[string]string) (app, *bytes.Buffer, *bytes.Buffer) {
	home := t.TempDir()
	var out, errb bytes.Buffer
	base := map[string]string{
		"CLAUDE_CONFIG_DIR":   filepath.Join(home, ".claude"),
		"FORGECTL_CONFIG_DIR": filepath.Join(home, "forgectl"),
	}
	for k, v := range env {
		base[k] = v
	}
	return app{
		stdout: &out, stderr: &errb,
		getenv:      func(k string) string { return base[k] },
		home:        func() (string, error) { return home, nil },
		now:         time.Now,
		goos:        "linux",
		stdinLimits: stdinLimits{keep: 1 << 20, drop: 1 << 20, idle: 50 * time.Millisecond, total: time.Second},
		budget:      budget,
	}, &out, &errb
}

func TestPanicIsRecovered(t *testing.T) {
	a, out, errb := testApp(t, nil)
	a.now = nil // every use of the clock panics: the capture, the prune
	os.MkdirAll(filepath.Join(a.getenv("FORGECTL_CONFIG_DIR"), "resume-sessions"), 0o700)
	code := a.main(context.Background(), nil)
	if code != 0 || !strings.Contains(errb.String(), "forgectl: error: resume snapshot failed unexpectedly") || out.Len() != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errb)
	}
	a, out, errb = testApp(t, nil)
	a.now = nil
	os.MkdirAll(filepath.Join(a.getenv("FORGECTL_CONFIG_DIR"), "resume-sessions"), 0o700)
	if code := a.main(context.Background(), []string{"--quiet"}); code != 0 || out.Len()+errb.Len() != 0 {
		t.Fatalf("quiet panic: exit %d %q %q", code, out, errb)
	}
}

func TestCancelledContextStillExitsZero(t *testing.T) {
	a, _, _ := testApp(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.stdin = strings.NewReader(`{"session_id":"1fc9d747-58cb-4e62-b7f1-a85d62252943"}`)
	if code := a.main(ctx, []string{"--quiet"}); code != 0 {
		t.Fatal(code)
	}
}

func TestQuietIn(t *testing.T) {
	tests := map[string]bool{
		"--quiet": true, "-quiet": true, "--quiet=true": true, "--quiet=false": false, "--quiet=maybe": false,
		"quiet": false, "--quietly": false, "-- --quiet": false, "--bogus --quiet": true,
	}
	for in, want := range tests {
		if got := quietIn(strings.Fields(in)); got != want {
			t.Errorf("quietIn(%q) = %v", in, got)
		}
	}
}

func TestDescribe(t *testing.T) {
	got := []string{
		describe(capture.Captured{SessionID: "s1", Name: `Login "v2"`, Tasks: 3, Gone: 1}),
		describe(capture.Captured{SessionID: "s2", Tasks: 1, Unchanged: true}),
	}
	want := []string{
		`captured s1 "Login \"v2\"": 3 tasks (1 no longer live)`,
		`captured s2 (no name): 1 task, unchanged`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatal(d)
	}
}

func TestReadStdin(t *testing.T) {
	lim := stdinLimits{keep: 16, drop: 64, idle: 30 * time.Millisecond, total: 5 * time.Second}
	pipe := func(t *testing.T, write func(w *os.File)) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		write(w)
		return r
	}
	t.Run("silent and open: gives up after the idle time", func(t *testing.T) {
		r := pipe(t, func(w *os.File) {})
		b, err := readStdin(r, lim)
		if err != nil || len(b) != 0 {
			t.Fatalf("%q %v", b, err)
		}
	})
	t.Run("complete JSON, pipe left open", func(t *testing.T) {
		r := pipe(t, func(w *os.File) { io.WriteString(w, `{"a":1}`) })
		b, err := readStdin(r, stdinLimits{keep: 1 << 10, drop: 1 << 10, idle: time.Hour, total: time.Hour})
		if err != nil || string(b) != `{"a":1}` {
			t.Fatalf("%q %v", b, err)
		}
	})
	t.Run("over the cap: kept part, the rest drained", func(t *testing.T) {
		r := pipe(t, func(w *os.File) { io.WriteString(w, strings.Repeat("x", 40)); w.Close() })
		b, err := readStdin(r, lim)
		if err != nil || string(b) != strings.Repeat("x", 16) {
			t.Fatalf("%q %v", b, err)
		}
	})
	t.Run("endless input stops at the drop cap", func(t *testing.T) {
		r, w, _ := os.Pipe()
		defer r.Close()
		// The first bytes are in before the read starts: a writer not yet
		// scheduled after the 30 ms idle time would end the read empty.
		w.Write(bytes.Repeat([]byte("y"), 32))
		done := make(chan struct{})
		go func() {
			defer w.Close()
			for {
				select {
				case <-done:
					return
				default:
					w.Write(bytes.Repeat([]byte("y"), 32))
				}
			}
		}()
		b, err := readStdin(r, lim)
		close(done)
		if err != nil || len(b) != 16 {
			t.Fatalf("%d bytes, %v", len(b), err)
		}
	})
	t.Run("regular file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "in.json")
		os.WriteFile(p, []byte(`{"session_id":"x"}`), 0o600)
		f, _ := os.Open(p)
		defer f.Close()
		b, err := readStdin(f, stdinLimits{keep: 1 << 10, drop: 1 << 10, idle: time.Hour, total: time.Hour})
		if err != nil || string(b) != `{"session_id":"x"}` {
			t.Fatalf("%q %v", b, err)
		}
	})
	t.Run("/dev/null", func(t *testing.T) {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := readStdin(f, lim)
		if err != nil || len(b) != 0 {
			t.Fatalf("%q %v", b, err)
		}
	})
	t.Run("closed descriptor", func(t *testing.T) {
		r, w, _ := os.Pipe()
		w.Close()
		r.Close()
		b, err := readStdin(r, lim)
		if len(b) != 0 || (err != nil && !errors.Is(err, os.ErrClosed)) {
			t.Fatalf("%q %v", b, err)
		}
	})
}

// TestGivesUpWithinItsBudget: captures stuck past the budget (here on
// snapshot locks another capture holds, each waited for up to 2 s) are
// left behind, said, and the hook still exits 0 at once.
func TestGivesUpWithinItsBudget(t *testing.T) {
	a, out, errb := testApp(t, nil)
	a.budget = 300 * time.Millisecond
	a.stdin = strings.NewReader("")
	home := cchome.New(t, a.getenv("CLAUDE_CONFIG_DIR"))
	store := filepath.Join(a.getenv("FORGECTL_CONFIG_DIR"), "resume-sessions")
	os.MkdirAll(store, 0o700)
	for _, id := range []string{"1fc9d747-58cb-4e62-b7f1-a85d62252943", "fcb86714-61b8-4fdd-af04-0d6d365ff47a", "3a6b2f0e-9c41-4d7e-8f25-6e0d1b7c9a10"} {
		home.Live(id, nil)
		l, err := fsutil.TryLock(filepath.Join(store, id+".lock"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
	}
	done := make(chan int, 1)
	go func() { done <- a.main(context.Background(), nil) }()
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(errb.String(), "forgectl: error: resume snapshot gave up after 300ms on what still blocked") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errb)
		}
		// Left behind, not waited out: the lock waits would have ended
		// in these errors.
		if strings.Contains(errb.String(), "locked by another process") {
			t.Errorf("the hook waited for the locks: %s", errb)
		}
	case <-time.After(time.Minute):
		t.Fatal("the hook hung")
	}
}
