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
	"strings"
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
	return WriteAtomicOwned(path, data, perm, -1, -1)
}

// WriteAtomicOwned is WriteAtomic for a file that must keep its owner: the
// temp file is given uid and gid (-1 leaves either as created) before it
// is renamed over path, since a rename hands path to whoever wrote the
// temp file (root, under sudo). When the chown is not allowed, nothing is
// replaced and the error wraps fs.ErrPermission.
func WriteAtomicOwned(path string, data []byte, perm fs.FileMode, uid, gid int) error {
	return writeAtomic(path, data, perm, uid, gid, false)
}

// WriteDurable is WriteAtomic for a file a crash of the machine must not
// empty (a journal that says which copy of a session is whole): the data
// is flushed before the rename, so the name never points at a file whose
// blocks were not written. The caller flushes the folder for the name.
func WriteDurable(path string, data []byte, perm fs.FileMode) error {
	return writeAtomic(path, data, perm, -1, -1, true)
}

func writeAtomic(path string, data []byte, perm fs.FileMode, uid, gid int, durable bool) error {
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
	if uid != -1 || gid != -1 {
		// Before the chmod: a chown may clear set-id bits.
		if err := f.Chown(uid, gid); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if durable {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
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

// RemoveStaleTemps removes the temp files WriteAtomic left beside path when
// a writer was killed between creating and renaming one, if they are older
// than age (a younger one may be another writer's, still being written).
// It is for stores written now and then, such as caches: the hot path's
// stores keep their writes short instead.
func RemoveStaleTemps(path string, age time.Duration) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".tmp-*"))
	for _, m := range matches {
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > age {
			os.Remove(m)
		}
	}
}

// globEscape quotes the pattern characters filepath.Match knows.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '*' || r == '?' || r == '[' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ErrLocked is returned by TryLock when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is a held flock on a dedicated lock file. The lock file is never the
// file being replaced: renaming over a locked file would silently hand the
// next locker a different inode.
type Lock struct{ f *os.File }

// openLockFile opens (creating) a lock file through the one opener: a
// FIFO or a device planted at a lock's path is refused, never opened.
func openLockFile(path string) (*os.File, error) {
	fd, _, err := open(path, unix.O_RDWR|unix.O_CREAT, FilePerm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
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
		l, replaced, err := lockOpened(f, path)
		if !replaced {
			return l, err
		}
		if attempt >= 100 {
			return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
		}
	}
}

// lockOpened locks f, opened from path, and reports replaced (f closed)
// when path no longer names f's file by the time the lock is held.
func lockOpened(f *os.File, path string) (l *Lock, replaced bool, err error) {
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, false, ErrLocked
		}
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	held, herr := f.Stat()
	now, nerr := os.Stat(path)
	if herr == nil && nerr == nil && os.SameFile(held, now) {
		return &Lock{f: f}, false, nil
	}
	f.Close()
	if herr != nil {
		return nil, false, herr
	}
	if !errors.Is(nerr, os.ErrNotExist) && nerr != nil {
		return nil, false, nerr
	}
	return nil, true, nil
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

// Rewrite replaces the lock file's content with b, through the descriptor
// the lock holds: a note for readers that cannot take the lock (who holds
// it, since when). The flock is the lock, so writing in place is safe, and
// going through the held descriptor means no second open of the path.
func (l *Lock) Rewrite(b []byte) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt(b, 0)
	return err
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
