package hookstate

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Result is what one external command (launchctl, systemctl, osascript)
// answered.
type Result struct {
	Stdout, Stderr []byte
	// Code is the exit code; -1 when the command could not run or was
	// killed at its bound (Err says which).
	Code int
	Err  error
}

// Runner runs one external command. Tests replace it to play launchctl or
// systemctl on any OS.
type Runner func(ctx context.Context, name string, args ...string) Result

// ExecRunner runs commands for real, each in its own process group so a
// terminal's signals do not reach it, killed as a group past timeout.
func ExecRunner(timeout time.Duration) Runner {
	return func(ctx context.Context, name string, args ...string) Result {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		res := Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
		var ee *exec.ExitError
		switch {
		case err == nil:
		case ctx.Err() != nil:
			res.Code, res.Err = -1, errors.New(name+" did not answer within "+timeout.String())
		case errors.As(err, &ee) && ee.Exited():
			res.Code = ee.ExitCode()
		default:
			res.Code, res.Err = -1, err
		}
		return res
	}
}
