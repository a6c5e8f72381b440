package picker

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

var harnessBuild struct {
	sync.Once
	path string
	err  error
}

// harnessBinary builds testdata/harness (see its doc) once per test run.
func harnessBinary(t *testing.T) string {
	harnessBuild.Do(func() {
		dir, err := os.MkdirTemp("", "picker-harness-")
		if err != nil {
			harnessBuild.err = err
			return
		}
		harnessBuild.path = filepath.Join(dir, "harness")
		args := []string{"build", "-o", harnessBuild.path}
		if raceBuild { // the finder's locking is race-checked too
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "./testdata/harness")...).CombinedOutput()
		if err != nil {
			harnessBuild.err = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if harnessBuild.err != nil {
		t.Fatal(harnessBuild.err)
	}
	return harnessBuild.path
}

type harnessRun struct {
	t      *testing.T
	sock   string
	out    string
	stderr string
}

// startHarness runs the harness in tmux; it shows the first ten rows, and
// the next come as release lets them.
func startHarness(t *testing.T) *harnessRun {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	h := &harnessRun{t: t, sock: fmt.Sprintf("picker-%d-%d", os.Getpid(), time.Now().UnixNano()), out: filepath.Join(t.TempDir(), "result")}
	t.Cleanup(func() { exec.Command("tmux", "-L", h.sock, "kill-server").Run() })
	h.stderr = filepath.Join(filepath.Dir(h.out), "stderr")
	h.tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", "t",
		"sh", "-c", `TERM=xterm-256color exec "$0" "$1" 2>"$2"`, harnessBinary(t), h.out, h.stderr)
	return h
}

// release lets the harness have the first n batches of ten rows in.
func (h *harnessRun) release(n int) {
	h.t.Helper()
	tmp := h.out + ".release.tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(n)), 0o600); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, h.out+".release"); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harnessRun) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", h.sock}, args...)...).CombinedOutput()
	if err != nil {
		h.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (h *harnessRun) waitScreen(what string, ok func(string) bool) string {
	h.t.Helper()
	var last string
	poll.Until(h.t, poll.Long, what, func() (bool, string) {
		last = h.tmux("capture-pane", "-p", "-t", "t")
		return ok(last), last
	})
	return last
}

func (h *harnessRun) result() string {
	h.t.Helper()
	var b []byte
	if !poll.Every(20*time.Millisecond).Wait(poll.Long, func() bool {
		var err error
		b, err = os.ReadFile(h.out)
		return err == nil
	}) {
		h.t.Fatalf("the harness never returned; screen:\n%s", h.tmux("capture-pane", "-p", "-t", "t"))
	}
	h.waitExit() // the race detector reports at exit
	// go-fuzzyfinder races with itself (it can draw after tcell's
	// Fini); only a race whose accesses are in our code fails.
	if report, _ := os.ReadFile(h.stderr); oursRaced(string(report)) {
		h.t.Errorf("a data race in the picker:\n%s", report)
	}
	return string(b)
}

// waitExit waits for the harness to exit: its tmux session ends with it.
func (h *harnessRun) waitExit() {
	poll.Until(h.t, poll.Long, "the harness to exit after returning", func() (bool, string) {
		return exec.Command("tmux", "-L", h.sock, "has-session", "-t", "t").Run() != nil, ""
	})
}

// cursorRow is the row the finder's cursor is on ("> " marks it).
func cursorRow(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "> ") {
			return strings.TrimSpace(strings.SplitN(l[2:], "│", 2)[0])
		}
	}
	return ""
}

// counts reads the finder's "matched/total" line.
func counts(screen string) (matched, total int) {
	for _, l := range strings.Split(screen, "\n") {
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "%d/%d", &matched, &total); err == nil {
			return matched, total
		}
	}
	return -1, -1
}

// watchCursor lets the rows in a few batches at a time and, at each step,
// samples the screen until that step's rows are all in, failing if the
// cursor's row is ever another than want: every step is seen, however
// slow the machine, and so is every screen a reload draws on the way.
func (h *harnessRun) watchCursor(want string) {
	h.t.Helper()
	for n := 4; ; n += 3 {
		n = min(n, 40)
		h.release(n)
		poll.Every(15*time.Millisecond).Until(h.t, poll.Long, fmt.Sprintf("%d rows to arrive", 10*n), func() (bool, string) {
			screen := h.tmux("capture-pane", "-p", "-t", "t")
			_, total := counts(screen)
			if total < 0 {
				return false, screen // a screen caught mid-draw
			}
			if got := cursorRow(screen); got != want {
				h.t.Fatalf("with %d rows the cursor is on %q, want %q; screen:\n%s", total, got, want, screen)
			}
			return total == 10*n, screen
		})
		if n == 40 {
			return
		}
	}
}

// Rows stream in below the cursor's row; the cursor never leaves it, and
// Enter resumes it.
func TestRealFinderCursorStaysWhileRowsArrive(t *testing.T) {
	h := startHarness(t)
	h.waitScreen("the first rows", func(s string) bool { return strings.Contains(s, "row009") })
	h.tmux("send-keys", "-t", "t", "Up", "Up", "Up")
	h.waitScreen("the cursor on row003", func(s string) bool { return cursorRow(s) == "row003 beta" })
	h.watchCursor("row003 beta")
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "picked: row003 beta" {
		t.Fatalf("got %q", got)
	}
}

// With a query typed, new matches rank above the cursor's row (the finder
// ranks equal scores newest-index first); the cursor stays on its row.
func TestRealFinderCursorStaysOnItsMatch(t *testing.T) {
	h := startHarness(t)
	h.waitScreen("the first rows", func(s string) bool { return strings.Contains(s, "row009") })
	h.tmux("send-keys", "-t", "t", "-l", "alpha")
	h.waitScreen("the one match", func(s string) bool { return cursorRow(s) == "row007 alpha" })
	h.watchCursor("row007 alpha")
	screen := h.tmux("capture-pane", "-p", "-t", "t")
	if m, _ := counts(screen); m != 8 || !strings.Contains(screen, "row357 alpha") {
		t.Fatalf("the later matches are not listed:\n%s", screen)
	}
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "picked: row007 alpha" {
		t.Fatalf("got %q", got)
	}
}

// Enter while rows are still to come resumes the highlighted row: the
// harness holds the rest back until Enter is in.
func TestRealFinderEnterDuringTheFill(t *testing.T) {
	h := startHarness(t)
	h.waitScreen("the first rows", func(s string) bool { return strings.Contains(s, "row009") })
	h.tmux("send-keys", "-t", "t", "Up", "Up")
	screen := h.waitScreen("the cursor on row002", func(s string) bool { return cursorRow(s) == "row002 beta" })
	if _, total := counts(screen); total != 10 {
		t.Fatalf("%d rows before any was let in:\n%s", total, screen)
	}
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "picked: row002 beta" {
		t.Fatalf("got %q", got)
	}
}

// oursRaced reports whether a race detector report has an access whose
// innermost frame is forgectl's code.
func oursRaced(report string) bool {
	lines := strings.Split(report, "\n")
	for k, l := range lines {
		if strings.Contains(l, " at 0x") && strings.Contains(l, " by ") && k+1 < len(lines) &&
			strings.HasPrefix(strings.TrimSpace(lines[k+1]), "forgectl.dev/") {
			return true
		}
	}
	return false
}
