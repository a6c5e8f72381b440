package restart

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Terminate sends SIGTERM to pid only if it is still the process that
// started at procStart. The pidfd pins the process: once it is open, a pid
// reused after the check cannot receive the signal.
func Terminate(pid int, procStart string, startTime func(int) (string, error)) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return ErrExited
	}
	if err != nil {
		// Kernels before 5.3: check, then signal, with the small window
		// that remains.
		return terminateByPid(pid, procStart, startTime)
	}
	defer unix.Close(fd)
	if err := sameStart(pid, procStart, startTime); err != nil {
		return err
	}
	err = unix.PidfdSendSignal(fd, unix.SIGTERM, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		return ErrExited
	}
	return err
}
