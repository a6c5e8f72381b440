package restart

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"forgectl.dev/shared/proc"
)

// ErrExited means the process was already gone when the signal was due.
var ErrExited = errors.New("the process had already exited")

// ErrReused means the pid now belongs to another process.
var ErrReused = errors.New("the pid belongs to another process now")

func sameStart(pid int, procStart string, startTime func(int) (string, error)) error {
	st, err := startTime(pid)
	if errors.Is(err, proc.ErrNoProcess) {
		return ErrExited
	}
	if err != nil {
		return fmt.Errorf("read start time of pid %d: %w", pid, err)
	}
	if st != procStart {
		return ErrReused
	}
	return nil
}

func terminateByPid(pid int, procStart string, startTime func(int) (string, error)) error {
	if err := sameStart(pid, procStart, startTime); err != nil {
		return err
	}
	err := unix.Kill(pid, unix.SIGTERM)
	if errors.Is(err, unix.ESRCH) {
		return ErrExited
	}
	return err
}
