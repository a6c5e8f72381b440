package codex

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"golang.org/x/sys/unix"
)

// holder is the process holding a thread's write lock.
type holder struct {
	pid    int
	daemon bool // it is Codex's background daemon (app-server-daemon/daemon.pid)
}

// kind is the holder as ls --json names it.
func (hd holder) kind(s *harness.Session) string {
	switch {
	case hd.daemon:
		return "daemon"
	case s.Entrypoint == "codex_exec" || s.HiddenReason == "print-mode":
		return "exec"
	}
	return "tui"
}

// lockKey is a file as /proc/locks names it.
type lockKey struct {
	major, minor uint32
	ino          uint64
}

// holders are the threads whose write lock is held now, by whom. A lock
// file proves nothing (it stays after a SIGKILL): only a held lock does,
// and it is read without taking it (see locks_*.go).
func (h *Harness) holders() (map[string]holder, error) {
	dir := h.paths.Locks()
	d, err := fsutil.OpenDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	files := map[lockKey]string{}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || id == "" {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(int(d.Fd()), e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		dev := uint64(st.Dev) //nolint:unconvert // int32 on darwin
		files[lockKey{unix.Major(dev), unix.Minor(dev), uint64(st.Ino)}] = id
	}
	if len(files) == 0 {
		return nil, nil
	}
	held, err := writeLocks(h.procLocks)
	if err != nil {
		return nil, err
	}
	daemon := h.daemonPid()
	out := map[string]holder{}
	for key, id := range files {
		if pid, ok := held[key]; ok {
			out[id] = holder{pid: pid, daemon: daemon != 0 && pid == daemon}
		}
	}
	return out, nil
}

// daemonPid is the background daemon's pid, 0 when there is none.
func (h *Harness) daemonPid() int {
	b, err := fsutil.ReadRegular(h.paths.DaemonPid())
	if err != nil {
		return 0
	}
	var d struct {
		Pid int `json:"pid"`
	}
	if json.Unmarshal(b, &d) != nil {
		return 0
	}
	return d.Pid
}
