//go:build !linux

package restart

// Terminate sends SIGTERM to pid only if it is still the process that
// started at procStart (checked immediately before the signal).
func Terminate(pid int, procStart string, startTime func(int) (string, error)) error {
	return terminateByPid(pid, procStart, startTime)
}
