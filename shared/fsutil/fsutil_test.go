package fsutil

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	l2, err := LockWait(p, 10*time.Second)
	if err != nil {
		t.Fatalf("LockWait after release: %v", err)
	}
	l2.Unlock()
	if err := (*Lock)(nil).Unlock(); err != nil {
		t.Fatal(err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789"), 500) // past the first buffer
	os.WriteFile(filepath.Join(dir, "big"), big, 0o600)
	got, err := ReadFile(filepath.Join(dir, "big"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	_, err = ReadFile(filepath.Join(dir, "missing"))
	if !errors.Is(err, fs.ErrNotExist) || !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := ReadFile(dir); err == nil {
		t.Fatal("reading a folder succeeded")
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

func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache")
	if _, err := MapFile(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v, want ErrNotExist", err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := MapFile(p); err != nil || s != "" {
		t.Fatalf("empty file: %q, %v", s, err)
	}
	want := strings.Repeat("forgectl cache bytes\n", 1000)
	if err := WriteAtomic(p, []byte(want), FilePerm); err != nil {
		t.Fatal(err)
	}
	got, err := MapFile(p)
	if err != nil || got != want {
		t.Fatalf("MapFile = %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	// A writer replaces the file by rename: the mapping keeps the old bytes.
	if err := WriteAtomic(p, []byte("new"), FilePerm); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Error("the mapping changed when the file was replaced")
	}
	if _, err := MapFile(dir); err == nil {
		t.Error("mapping a directory succeeded")
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
