package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// holders matches a lock file by device and inode against the WRITE
// flocks /proc/locks lists; a waiter, a READ lock or a POSIX lock holds
// no thread, and the daemon's pid says the daemon holds it.
func TestHoldersFromProcLocks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/locks is Linux's")
	}
	root := t.TempDir()
	h := New(Paths{Root: root})
	locks := filepath.Join(root, "thread-writer-locks")
	os.MkdirAll(locks, 0o755)
	key := func(id string) string {
		p := filepath.Join(locks, id+".lock")
		os.WriteFile(p, nil, 0o644)
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		dev := uint64(st.Dev)
		return fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), st.Ino)
	}
	a, b, c, d := key("a"), key("b"), key("c"), key("d")
	h.procLocks = filepath.Join(root, "locks")
	os.WriteFile(h.procLocks, fmt.Appendf(nil,
		"1: FLOCK  ADVISORY  WRITE 100 %s 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 101 %s 0 EOF\n2: FLOCK  ADVISORY  READ  102 %s 0 EOF\n3: POSIX  ADVISORY  WRITE 103 %s 0 EOF\n4: FLOCK  ADVISORY  WRITE 200 %s 0 EOF\n",
		a, b, c, d, d), 0o644)
	os.MkdirAll(filepath.Dir(h.paths.DaemonPid()), 0o755)
	os.WriteFile(h.paths.DaemonPid(), []byte(`{"pid":200,"processStartTime":5}`), 0o644)
	got, err := h.holders()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]holder{"a": {pid: 100}, "d": {pid: 200, daemon: true}}
	if len(got) != len(want) || got["a"] != want["a"] || got["d"] != want["d"] {
		t.Errorf("holders = %+v, want %+v", got, want)
	}
}
