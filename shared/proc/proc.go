// Package proc reads facts about other processes: whether a pid is alive,
// its kernel start time (to tell a reused pid from the original), its
// environment, executable and parent. Linux reads /proc; macOS uses sysctl.
package proc

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoProcess means the pid does not exist (or no longer does).
var ErrNoProcess = errors.New("no such process")

// Alive reports whether a process with this pid exists and has not exited.
// EPERM counts as alive: the process is there, it just belongs to someone
// else. A zombie (exited, not yet reaped by its parent: a pane's program
// the terminal has not waited for) is not alive, though its pid and start
// time still answer.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := unix.Kill(pid, 0); err != nil && err != unix.EPERM {
		return false
	}
	return !exited(pid)
}

// Getenv returns one variable from the process's environment as it was at
// exec time, and whether it was present.
func Getenv(pid int, key string) (string, bool, error) {
	env, err := Environ(pid)
	if err != nil {
		return "", false, err
	}
	prefix := key + "="
	for _, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			return kv[len(prefix):], true, nil
		}
	}
	return "", false, nil
}

// IsAncestor reports whether pid is self or one of self's ancestors. A
// command run from inside a session's own shell tool must never stop that
// session: this is how it notices.
func IsAncestor(pid, self int) bool {
	for cur, steps := self, 0; cur > 1 && steps < 4096; steps++ {
		if cur == pid {
			return true
		}
		parent, err := Parent(cur)
		if err != nil || parent == cur {
			return false
		}
		cur = parent
	}
	return false
}

// Fields collected at once for a candidate claude process.
type Info struct {
	Pid       int
	StartTime string // as Claude Code records procStart on this OS
	Exe       string // absolute path of the executable, when readable
	Name      string // short command name
}
