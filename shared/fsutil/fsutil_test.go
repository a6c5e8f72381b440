package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	if err := WriteAtomic(p, []byte("one"), FilePerm); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("two"), FilePerm); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "two" {
		t.Fatalf("got %q", b)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != FilePerm {
		t.Fatalf("mode %v", st.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temp files left behind: %v", ents)
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "x"), nil, FilePerm); err == nil {
		t.Fatal("want error for a missing directory")
	}
}

func TestWriteAtomicOwned(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := WriteAtomicOwned(p, []byte("x"), 0o640, 12345, 12346); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 12345 || st.Gid != 12346 || fi.Mode().Perm() != 0o640 {
		t.Fatalf("%d:%d %v", st.Uid, st.Gid, fi.Mode())
	}
	// -1 leaves the owner as created.
	if err := WriteAtomicOwned(p, []byte("y"), 0o600, -1, -1); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(p)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 {
		t.Fatalf("uid %d", st.Uid)
	}
}

func TestLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	l, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file description, so a second open in
	// the same process conflicts just as another process would.
	if _, err := TryLock(p); err != ErrLocked {
		t.Fatalf("second TryLock: %v, want ErrLocked", err)
	}
	if _, err := LockWait(p, 20*time.Millisecond); err != ErrLocked {
		t.Fatalf("LockWait on held lock: %v", err)
	}
	go func() { time.Sleep(30 * time.Millisecond); l.Unlock() }()
	l2, err := LockWait(p, poll.Long)
	if err != nil {
		t.Fatalf("LockWait after release: %v", err)
	}
	l2.Unlock()
	if err := (*Lock)(nil).Unlock(); err != nil {
		t.Fatal(err)
	}
}

func TestLockFileRemovedByHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	held, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	// A locker opens the file, then the holder removes it and unlocks
	// before the locker's flock, and a newcomer locks a fresh file.
	stale, err := openLockFile(p)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	held.Unlock()
	fresh, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	// The stale file's flock succeeds, but it is not the lock anyone else
	// sees: the locker must notice and treat the lock as held.
	l, replaced, err := lockOpened(stale, p)
	if l != nil || !replaced || err != nil {
		t.Fatalf("lock on a replaced file: %v %v %v", l, replaced, err)
	}
	if _, err := TryLock(p); err != ErrLocked {
		t.Fatalf("TryLock while the newcomer holds it: %v", err)
	}
	fresh.Unlock()
}

// MapFile refuses what is not a regular file, as the openers do, and
// never blocks on a FIFO.
func TestMapFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if _, err := MapFile(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("mapping a directory: %v, want ErrNotRegular", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := MapFile(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("mapping a FIFO: %v, want ErrNotRegular", err)
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "picker-rows-[1]")
	old := filepath.Join(dir, ".picker-rows-[1].tmp-123")
	young := filepath.Join(dir, ".picker-rows-[1].tmp-456")
	other := filepath.Join(dir, ".transcripts.idx.tmp-789")
	for _, f := range []string{p, old, young, other} {
		os.WriteFile(f, []byte("x"), 0o600)
	}
	long := time.Now().Add(-time.Hour)
	os.Chtimes(old, long, long)
	os.Chtimes(other, long, long)
	RemoveStaleTemps(p, time.Minute)
	for f, want := range map[string]bool{p: true, old: false, young: true, other: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}
