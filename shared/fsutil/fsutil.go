// Package fsutil holds the two file disciplines every forgectl store uses:
// atomic replacement (write a temp file beside the target, rename over it)
// and advisory locks on dedicated lock files.
//
// There is deliberately no fsync: the snapshotter runs on every Claude Code
// turn, and on macOS an fsync is a full device flush costing milliseconds. A
// crash can lose the newest write, never leave a torn one.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// DirPerm and FilePerm are the modes of every forgectl store.
const (
	DirPerm  fs.FileMode = 0o700
	FilePerm fs.FileMode = 0o600
)

// MkdirPrivate creates dir (and parents) owner-only.
func MkdirPrivate(dir string) error {
	return os.MkdirAll(dir, DirPerm)
}

// WriteAtomic replaces path with data so that a reader sees either the old
// or the new content, never a mix, even when the writer is killed.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// ErrLocked is returned by TryLock when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held flock on a dedicated lock file. The lock file is never the
// file being replaced: renaming over a locked file would silently hand the
// next locker a different inode.
type Lock struct{ f *os.File }

func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, FilePerm)
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// TryLock takes an exclusive lock without waiting; ErrLocked when it is held.
//
// A holder may remove the lock file before releasing it (retiring a store
// record does). A locker that opened the old file then holds a lock nobody
// else will ever see, so after locking it checks that the path still names
// the file it locked, and starts over when it does not.
func TryLock(path string) (*Lock, error) {
	for attempt := 0; ; attempt++ {
		f, err := openLockFile(path)
		if err != nil {
			return nil, err
		}
		if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if err == unix.EWOULDBLOCK {
				return nil, ErrLocked
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		held, herr := f.Stat()
		now, nerr := os.Stat(path)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return &Lock{f: f}, nil
		}
		f.Close()
		if nerr != nil && !errors.Is(nerr, os.ErrNotExist) {
			return nil, nerr
		}
		if herr != nil || attempt >= 100 {
			return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
		}
	}
}

// LockWait takes an exclusive lock, polling until it is free or the deadline
// passes. Polling (rather than a blocking flock) keeps the wait cancellable
// and bounded, which a Stop hook needs.
func LockWait(path string, timeout time.Duration) (*Lock, error) {
	deadline := time.Now().Add(timeout)
	delay := time.Millisecond
	for {
		l, err := TryLock(path)
		if err != ErrLocked || time.Now().After(deadline) {
			return l, err
		}
		time.Sleep(delay)
		if delay < 50*time.Millisecond {
			delay *= 2
		}
	}
}

// Unlock releases the lock. The lock file stays. A holder that wants it
// gone removes it before unlocking, never after: TryLock's identity check
// covers a locker that opened it just before; removing it unlocked would
// delete a file another process may already hold.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the flock
	l.f = nil
	return err
}
