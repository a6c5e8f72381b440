package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/poll"
)

// binary is resume-hooks built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "resume-hooks-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "resume-hooks")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

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

// running is the built binary running in the world's environment.
type running struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
}

func (w *world) start(args ...string) *running {
	w.t.Helper()
	cmd := exec.Command(binary, args...)
	for k, v := range w.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "RIG="+w.home)
	p := &running{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *running) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(poll.Long):
		t.Fatalf("the run did not end\n%s", p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// eventualWait bounds every wait for what a run does in the background.
const eventualWait = poll.Long

func (w *world) file(name string) string {
	b, _ := os.ReadFile(filepath.Join(w.home, name))
	return string(b)
}

func (w *world) recorded() string {
	st, err := hookstate.LoadState(filepath.Join(w.cfgDir, "resume-hooks", "state.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	return st.Harnesses["claude"].Version
}

func (w *world) baseline(v string) {
	w.t.Helper()
	w.claude(v)
	if code := w.start("run").wait(w.t); code != 0 || w.recorded() != v {
		w.t.Fatalf("baseline: exit %d, recorded %q", code, w.recorded())
	}
}

func pidGone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

func TestSignalMidRunRecordsNothing(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			w := newWorld(t)
			slow := filepath.Join(w.home, "bin", "slow")
			os.WriteFile(slow, []byte("#!/bin/sh\necho $$ > \"$RIG/slow.pid\"\nexec sleep 300\n"), 0o755)
			next := filepath.Join(w.home, "bin", "next")
			os.WriteFile(next, []byte("#!/bin/sh\necho ran > \"$RIG/next.ran\"\n"), 0o755)
			w.config(`[[resume.on_update]]
harness = "claude"
command = ["` + slow + `"]

[[resume.on_update]]
harness = "claude"
command = ["` + next + `"]
`)
			w.baseline("2.1.1")
			w.claude("2.1.2")
			p := w.start("run")
			poll.Until(t, eventualWait, "the first hook", func() (bool, string) { return w.file("slow.pid") != "", "" })
			hookPid, _ := strconv.Atoi(strings.TrimSpace(w.file("slow.pid")))
			p.cmd.Process.Signal(sig)
			if code := p.wait(t); code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, p.stderr.String())
			}
			if w.file("next.ran") != "" {
				t.Fatal("a hook started after the signal")
			}
			if v := w.recorded(); v != "2.1.1" {
				t.Fatalf("recorded %q after the signal", v)
			}
			if !strings.Contains(p.stderr.String(), "stopped by a signal: no version recorded") {
				t.Fatalf("stderr:\n%s", p.stderr.String())
			}
			poll.Until(t, eventualWait, "the interrupted hook to end", func() (bool, string) { return pidGone(hookPid), "" })
		})
	}
}

func TestSignalEndsTheRestartsWaiting(t *testing.T) {
	w := newWorld(t)
	fake := filepath.Join(w.home, "bin", "resume-restart")
	// Plays a restart waiting for a busy session: on SIGTERM it stops
	// waiting and exits 1, as resume-restart does.
	os.WriteFile(fake, []byte(`#!/bin/sh
trap 'echo term > "$RIG/restart.term"; echo "[]"; exit 1' TERM
echo "$*" > "$RIG/restart.args"
while :; do sleep 0.05; done
`), 0o755)
	w.env["FORGECTL_RESTART_BIN"] = fake
	w.config("[[resume.on_update]]\nharness = \"claude\"\naction = \"restart\"\ntimeout_seconds = 120\n")
	w.baseline("2.1.1")
	w.claude("2.1.2")
	p := w.start("run")
	poll.Until(t, eventualWait, "the restart", func() (bool, string) { return w.file("restart.args") != "", "" })
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t); code != 1 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	if w.file("restart.term") == "" {
		t.Fatal("the restart was not told to stop waiting")
	}
	if got := strings.TrimSpace(w.file("restart.args")); got != "restart --outdated --json --timeout 2m0s" {
		t.Fatalf("restart args %q", got)
	}
	st, _ := hookstate.LoadState(filepath.Join(w.cfgDir, "resume-hooks", "state.json"))
	if h := st.Harnesses["claude"]; h.Version != "2.1.1" || h.Pending != nil {
		t.Fatalf("state after the signal %+v", h)
	}
}

func TestASecondRunWaitsForTheFirst(t *testing.T) {
	w := newWorld(t)
	gate := filepath.Join(w.home, "bin", "gate")
	os.WriteFile(gate, []byte(`#!/bin/sh
echo "$FORGECTL_NEW_VERSION" >> "$RIG/fired"
while [ ! -e "$RIG/open" ]; do sleep 0.05; done
`), 0o755)
	w.config("[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"" + gate + "\"]\n")
	w.baseline("2.1.1")
	w.claude("2.1.2")
	first := w.start("run")
	poll.Until(t, eventualWait, "the first run's hook", func() (bool, string) { return w.file("fired") != "", "" })
	second := w.start("run")
	want := "forgectl: waiting for the hooks run already in progress (pid " + strconv.Itoa(first.cmd.Process.Pid) + ", manual, since "
	poll.Until(t, eventualWait, "the waiting line", func() (bool, string) {
		s := second.stderr.String()
		return strings.Contains(s, want), s
	})

	// A third run stopped while it waits records nothing and exits 1.
	third := w.start("run")
	poll.Until(t, eventualWait, "the third run to wait", func() (bool, string) {
		s := third.stderr.String()
		return strings.Contains(s, "waiting for"), s
	})
	third.cmd.Process.Signal(syscall.SIGINT)
	if code := third.wait(t); code != 1 || !strings.Contains(third.stderr.String(), "stopped while waiting") {
		t.Fatalf("third: exit %d\n%s", code, third.stderr.String())
	}

	os.WriteFile(filepath.Join(w.home, "open"), nil, 0o600)
	if code := first.wait(t); code != 0 {
		t.Fatalf("first: exit %d\n%s", code, first.stderr.String())
	}
	if code := second.wait(t); code != 0 {
		t.Fatalf("second: exit %d\n%s", code, second.stderr.String())
	}
	if got := w.file("fired"); got != "2.1.2\n" {
		t.Fatalf("fired %q: the hook must run once for the update", got)
	}
}

// fifos puts a FIFO at each of the hooks' files named, in the world's
// resume-hooks directory: an open for writing that blocks on one blocks
// until a reader comes, which is never.
func (w *world) fifos(names ...string) {
	w.t.Helper()
	dir := filepath.Join(w.cfgDir, "resume-hooks")
	for _, n := range names {
		p := filepath.Join(dir, n)
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
}

// A FIFO where the audit trail and the watcher log go cannot hang a run:
// the hook still runs, the version is recorded, the line that could not
// be appended is reported naming the file, and the run exits 1 (an audit
// line could not be written).
func TestAFIFOAuditTrailFailsTheAppendNotTheRun(t *testing.T) {
	w := newWorld(t)
	hook := filepath.Join(w.home, "bin", "hook")
	os.WriteFile(hook, []byte("#!/bin/sh\necho ran >> \"$RIG/hook.ran\"\n"), 0o755)
	w.config("[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"" + hook + "\"]\n")
	w.baseline("2.1.1")
	w.fifos("runs.jsonl", "watcher.log")
	w.claude("2.1.2")
	p := w.start("run")
	code := p.wait(t)
	stderr := p.stderr.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if w.file("hook.ran") != "ran\n" {
		t.Fatalf("the hook did not run once\n%s", stderr)
	}
	runs := filepath.Join(w.cfgDir, "resume-hooks", "runs.jsonl")
	if want := "forgectl: error: cannot append to the audit trail (hook 1: command hook: ok): open " + runs + ": is a FIFO, not a regular file"; !strings.Contains(stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, stderr)
	}
	if v := w.recorded(); v != "2.1.2" {
		t.Fatalf("recorded %q: a failed append must not cost the run its record", v)
	}
}

// A run stopped by a signal while the audit trail is a FIFO still stops:
// the interrupted hook's line fails to append instead of blocking, and the
// run exits 1 with nothing recorded.
func TestSignalWithAFIFOAuditTrail(t *testing.T) {
	w := newWorld(t)
	slow := filepath.Join(w.home, "bin", "slow")
	os.WriteFile(slow, []byte("#!/bin/sh\necho $$ > \"$RIG/slow.pid\"\nexec sleep 300\n"), 0o755)
	w.config("[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"" + slow + "\"]\n")
	w.baseline("2.1.1")
	w.fifos("runs.jsonl", "watcher.log")
	w.claude("2.1.2")
	p := w.start("run")
	poll.Until(t, eventualWait, "the hook", func() (bool, string) { return w.file("slow.pid") != "", "" })
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, p.stderr.String())
	}
	stderr := p.stderr.String()
	if !strings.Contains(stderr, "stopped by a signal: no version recorded") || !strings.Contains(stderr, "runs.jsonl: is a FIFO, not a regular file") {
		t.Fatalf("stderr:\n%s", stderr)
	}
	if v := w.recorded(); v != "2.1.1" {
		t.Fatalf("recorded %q after the signal", v)
	}
}
