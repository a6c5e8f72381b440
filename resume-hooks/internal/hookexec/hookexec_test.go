package hookexec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"forgectl.dev/shared/poll"
)

// gone reports a pid that no longer runs. A zombie counts as gone: the
// kill reached it and only its reaping (by whoever adopted it) remains.
func gone(pid int) bool {
	if err := unix.Kill(pid, 0); err == unix.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	if !poll.Every(20*time.Millisecond).Wait(poll.Long, func() bool { return gone(pid) }) {
		unix.Kill(pid, unix.SIGKILL)
		t.Fatalf("pid %d still runs", pid)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var n int
	poll.Until(t, poll.Long, "a pid in "+path, func() (bool, string) {
		b, err := os.ReadFile(path)
		var perr error
		n, perr = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && perr == nil && n > 0, fmt.Sprintf("%q", b)
	})
	return n
}

func TestTimeoutKillsTheGroupWithAForkedGrandchild(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	// The helper forks a grandchild and both block; the grandchild keeps
	// stderr open, which must not hold the run past the kill either.
	script := `echo started >&2; sleep 300 & echo $! > "$1"; wait`
	// A busy machine can take longer than the timeout to get the shell as
	// far as the pid file: such a run killed a helper that had not forked
	// yet and proves nothing, so it is run again with twice the time.
	var res Result
	for timeout := 500 * time.Millisecond; ; timeout *= 2 {
		res = Run(context.Background(), Spec{
			Argv:    []string{"/bin/sh", "-c", script, "sh", pidFile},
			Timeout: timeout,
		})
		if b, err := os.ReadFile(pidFile); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
				break
			}
		}
		if timeout > poll.Long {
			t.Fatalf("the helper never wrote its grandchild's pid; result %+v", res)
		}
	}
	grandchild := readPid(t, pidFile)
	waitGone(t, grandchild)
	if !res.TimedOut || res.Signal != "SIGKILL" || res.ExitStatus != -1 {
		t.Fatalf("result %+v", res)
	}
	if string(res.Captured) != "started\n" {
		t.Fatalf("captured %q", res.Captured)
	}
}

func TestExitStatusAndStreams(t *testing.T) {
	var stderr bytes.Buffer
	res := Run(context.Background(), Spec{
		Argv:    []string{"/bin/sh", "-c", `echo to-stdout; echo to-stderr >&2; exit 7`},
		Timeout: 10 * time.Second,
		Stderr:  &stderr,
	})
	if res.ExitStatus != 7 || res.TimedOut || res.Interrupted || res.StartErr != nil {
		t.Fatalf("result %+v", res)
	}
	if string(res.Captured) != "to-stderr\n" || stderr.String() != "to-stderr\n" {
		t.Fatalf("stderr captured %q, passed on %q", res.Captured, stderr.String())
	}
	if bytes.Contains(res.Captured, []byte("to-stdout")) {
		t.Fatal("stdout was kept")
	}
}

func TestKeepStdout(t *testing.T) {
	res := Run(context.Background(), Spec{
		Argv:       []string{"/bin/sh", "-c", `echo '[{"a":1}]'; echo progress >&2`},
		Timeout:    10 * time.Second,
		KeepStdout: true,
	})
	if string(res.Stdout) != "[{\"a\":1}]\n" || string(res.Captured) != "progress\n" {
		t.Fatalf("stdout %q stderr %q", res.Stdout, res.Captured)
	}
}

func TestNoShellAndOwnGroup(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// A shell would expand $HOME and the glob; the argv runs as written.
	res := Run(context.Background(), Spec{
		Argv:    []string{"/bin/sh", "-c", `printf '%s|%s|' "$1" "$2" > "$3"; ps -o pgid= -p $$ >> "$3"`, "sh", "$HOME", "*", out},
		Timeout: 10 * time.Second,
	})
	if res.ExitStatus != 0 {
		t.Fatalf("result %+v", res)
	}
	b, _ := os.ReadFile(out)
	parts := strings.Split(strings.TrimSpace(string(b)), "|")
	if len(parts) != 3 || parts[0] != "$HOME" || parts[1] != "*" {
		t.Fatalf("argv reached the program as %q", b)
	}
	if pgid, _ := strconv.Atoi(strings.TrimSpace(parts[2])); pgid == unix.Getpgrp() || pgid == 0 {
		t.Fatalf("the hook ran in this process group (%d)", pgid)
	}
}

func TestInterruptTerminatesTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "gc.pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() {
		done <- Run(ctx, Spec{
			Argv:    []string{"/bin/sh", "-c", `sleep 300 & echo $! > "$1"; wait`, "sh", pidFile},
			Timeout: time.Minute,
			Grace:   time.Second,
		})
	}()
	grandchild := readPid(t, pidFile)
	cancel()
	res := <-done
	waitGone(t, grandchild)
	if !res.Interrupted || res.TimedOut || res.Signal != "SIGTERM" {
		t.Fatalf("result %+v", res)
	}
}

func TestStartError(t *testing.T) {
	res := Run(context.Background(), Spec{Argv: []string{filepath.Join(t.TempDir(), "missing")}, Timeout: time.Second})
	if res.StartErr == nil || res.ExitStatus != -1 {
		t.Fatalf("result %+v", res)
	}
}

func TestTailBufferDropsThePartialFirstLine(t *testing.T) {
	tb := &tailBuffer{max: 16}
	fmt.Fprint(tb, "Authorization: secret-token\nline two\nend\n")
	if got := string(tb.Bytes()); got != "line two\nend\n" {
		t.Fatalf("got %q", got)
	}
}
