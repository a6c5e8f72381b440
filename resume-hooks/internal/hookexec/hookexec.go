// Package hookexec runs one hook's process: in a process group of its own,
// with no shell, bounded by a deadline at which the whole group (helpers it
// forked included) is killed, and stopped early when the run is signalled.
package hookexec

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Spec is one process to run.
type Spec struct {
	Argv []string
	Env  []string
	Dir  string
	// Timeout bounds the whole run; at it the process group is killed.
	Timeout time.Duration
	// Stdout receives the standard output; nil discards it.
	Stdout io.Writer
	// Stderr also receives the standard error; nil passes it nowhere.
	// The tail is kept in Result.Captured either way.
	Stderr io.Writer
	// KeepStdout collects standard output in Result.Stdout (up to
	// Capture bytes) instead of passing it to Stdout: the restart's JSON.
	KeepStdout bool
	// Capture is how many trailing bytes to keep; default 64 KiB.
	Capture int
	// Grace is how long a signalled run gives the group between SIGTERM
	// and SIGKILL when ctx is cancelled; default 5s.
	Grace time.Duration
}

// Result is how the process ended.
type Result struct {
	// ExitStatus is the exit code, -1 when killed by a signal or not started.
	ExitStatus int
	Signal     string
	TimedOut   bool
	// Interrupted: ctx was cancelled (the run was signalled) before the
	// process ended on its own.
	Interrupted bool
	// StartErr is set when the process could not be started.
	StartErr error
	// Stdout is the start of standard output, with Spec.KeepStdout.
	Stdout []byte
	// Captured is the tail of standard error.
	// When older bytes were dropped, the first, partial line is dropped
	// too, so a line is never judged on half its text.
	Captured []byte
	Duration time.Duration
}

// Run runs the process and waits for it. Cancelling ctx sends SIGTERM to the
// process group and SIGKILL after Grace.
func Run(ctx context.Context, s Spec) Result {
	start := time.Now()
	keep := s.Capture
	if keep <= 0 {
		keep = 64 << 10
	}
	tail := &tailBuffer{max: keep}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Env = s.Env
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Helpers that outlive the process must not hold Wait on their pipes.
	cmd.WaitDelay = 2 * time.Second
	cmd.Stderr = tee(tail, s.Stderr)
	var stdout *headBuffer
	switch {
	case s.KeepStdout:
		stdout = &headBuffer{max: keep}
		cmd.Stdout = stdout
	case s.Stdout != nil:
		cmd.Stdout = s.Stdout
	}
	if err := cmd.Start(); err != nil {
		return Result{ExitStatus: -1, StartErr: err, Duration: time.Since(start)}
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var res Result
	timeout := time.NewTimer(s.Timeout)
	defer timeout.Stop()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timeout.C:
		res.TimedOut = true
		_ = unix.Kill(-pgid, unix.SIGKILL)
		waitErr = <-done
	case <-ctx.Done():
		res.Interrupted = true
		_ = unix.Kill(-pgid, unix.SIGTERM)
		grace := s.Grace
		if grace <= 0 {
			grace = 5 * time.Second
		}
		select {
		case waitErr = <-done:
		case <-time.After(grace):
			_ = unix.Kill(-pgid, unix.SIGKILL)
			waitErr = <-done
		case <-timeout.C:
			res.TimedOut = true
			_ = unix.Kill(-pgid, unix.SIGKILL)
			waitErr = <-done
		}
	}
	res.Duration = time.Since(start)
	res.Captured = tail.Bytes()
	if stdout != nil {
		res.Stdout = stdout.buf
	}
	res.ExitStatus = -1
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = unix.SignalName(ws.Signal())
		} else {
			res.ExitStatus = ps.ExitCode()
		}
	} else if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		res.StartErr = waitErr
	}
	return res
}

func tee(tail *tailBuffer, w io.Writer) io.Writer {
	if w == nil {
		return tail
	}
	return io.MultiWriter(tail, w)
}

// headBuffer keeps the first max bytes written to it and drops the rest.
type headBuffer struct {
	max int
	buf []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// tailBuffer keeps the last max bytes written to it. Stdout and stderr may
// be written from two goroutines, hence the mutex.
type tailBuffer struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-t.max:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		t.truncated = true
	}
	if t.truncated {
		for i, c := range b {
			if c == '\n' {
				b = b[i+1:]
				break
			}
		}
	}
	return append([]byte(nil), b...)
}
