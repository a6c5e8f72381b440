package fsutil

import (
	"os"
	"path/filepath"
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
