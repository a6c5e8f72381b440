package picker

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// harnessSettle is wide, so a test's Enter right after the swap is surely
// inside it even on a loaded machine.
const harnessSettle = 2 * time.Second

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

func startHarness(t *testing.T, mode ...string) *harnessRun {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	h := &harnessRun{t: t, sock: fmt.Sprintf("picker-%d-%d", os.Getpid(), time.Now().UnixNano()), out: filepath.Join(t.TempDir(), "result")}
	t.Cleanup(func() { exec.Command("tmux", "-L", h.sock, "kill-server").Run() })
	h.stderr = filepath.Join(filepath.Dir(h.out), "stderr")
	h.tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", "t",
		"sh", "-c", `TERM=xterm-256color exec "$0" "$1" "$2" $4 2>"$3"`, harnessBinary(t), h.out, harnessSettle.String(), h.stderr, strings.Join(mode, " "))
	return h
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
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		last = h.tmux("capture-pane", "-p", "-t", "t")
		if ok(last) {
			return last
		}
	}
	h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, last)
	return ""
}

func (h *harnessRun) result() string {
	h.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(h.out); err == nil {
			time.Sleep(200 * time.Millisecond) // the race detector reports at exit
			// go-fuzzyfinder races with itself (it can draw after tcell's
			// Fini); only a race whose accesses are in our code fails.
			if report, _ := os.ReadFile(h.stderr); oursRaced(string(report)) {
				h.t.Errorf("a data race in the picker:\n%s", report)
			}
			return string(b)
		}
	}
	h.t.Fatalf("the harness never returned; screen:\n%s", h.tmux("capture-pane", "-p", "-t", "t"))
	return ""
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

// Enter right after the rows change comes back unsettled, naming the row
// the finder had under its cursor, for the caller to confirm.
func TestRealFinderChoiceAsRowsChange(t *testing.T) {
	h := startHarness(t)
	h.waitScreen("the cached rows", func(s string) bool { return strings.Contains(s, "cached0") })
	h.tmux("send-keys", "-t", "t", "Up") // the cursor to row 1
	h.waitScreen("the fresh rows", func(s string) bool { return strings.Contains(s, "fresh1") })
	if got := cursorRow(h.tmux("capture-pane", "-p", "-t", "t")); got != "fresh1" {
		t.Fatalf("after the swap the cursor is on %q", got)
	}
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "unsettled: fresh1" {
		t.Fatalf("harness: %s", got)
	}
}

// Once the rows have stood, a choice is taken as it is.
func TestRealFinderSettledChoice(t *testing.T) {
	h := startHarness(t)
	h.waitScreen("the fresh rows", func(s string) bool { return strings.Contains(s, "fresh2") && !strings.Contains(s, "cached") })
	time.Sleep(harnessSettle + 200*time.Millisecond)
	h.tmux("send-keys", "-t", "t", "Up")
	h.waitScreen("the cursor on fresh1", func(s string) bool { return cursorRow(s) == "fresh1" })
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "picked: fresh1" {
		t.Fatalf("harness: %s", got)
	}
}

// Three fresh rows replace five: blank rows keep the list from shrinking
// under a cursor on the oldest row (go-fuzzyfinder would crash), and
// choosing one chooses nothing.
func TestRealFinderShorterListAndBlankRows(t *testing.T) {
	h := startHarness(t)
	h.waitScreen("the cached rows", func(s string) bool { return strings.Contains(s, "cached4") })
	h.tmux("send-keys", "-t", "t", "-N", "10", "Up") // the cursor to the oldest row
	h.waitScreen("the cursor on cached4", func(s string) bool { return cursorRow(s) == "cached4" })
	h.waitScreen("the fresh rows", func(s string) bool { return strings.Contains(s, "fresh2") && !strings.Contains(s, "cached") })
	time.Sleep(harnessSettle + 200*time.Millisecond)
	if got := cursorRow(h.tmux("capture-pane", "-p", "-t", "t")); got != "" {
		t.Fatalf("the cursor is on %q, not a blank row", got)
	}
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "error: "+ErrBlank.Error() {
		t.Fatalf("harness: %s", got)
	}
}

// The session under the cursor stays but one appears above the next: an
// Up typed against the old screen lands on the new one, so Enter right
// after the swap is asked about.
func TestRealFinderShiftNextToTheCursor(t *testing.T) {
	h := startHarness(t, "shift")
	h.waitScreen("the cached rows", func(s string) bool { return strings.Contains(s, "s4") })
	h.waitScreen("the fresh rows", func(s string) bool { return strings.Contains(s, "new") })
	h.tmux("send-keys", "-t", "t", "Up")
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "unsettled: new" {
		t.Fatalf("harness: %s", got)
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

// The fresh rows are the cached ones again (the usual case when nothing
// happened since the last run): the swap changes nothing on screen, and a
// choice right after it is taken, not asked about.
func TestRealFinderSameRowsAgain(t *testing.T) {
	h := startHarness(t, "same")
	h.waitScreen("the rows", func(s string) bool { return strings.Contains(s, "s4") })
	time.Sleep(700 * time.Millisecond) // the swap, 300 ms after the first screen, is in
	h.tmux("send-keys", "-t", "t", "Up")
	h.tmux("send-keys", "-t", "t", "Enter")
	if got := h.result(); got != "picked: s1" {
		t.Fatalf("harness: %s", got)
	}
}
