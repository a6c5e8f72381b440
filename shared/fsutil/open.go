package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Every file forgectl's binaries read goes through OpenRegular or
// ReadRegular (or MapFile, for a cache), every folder through OpenDir or
// ReadDir, and every file opened for writing that may already exist (a log,
// an audit trail, a lock file) through OpenAppend or the lock opener; a new
// file is made with O_EXCL (os.CreateTemp), which fails on anything already
// there. A plain open(2) of a FIFO blocks until a writer comes (or, for
// writing, a reader), which may be never, and a device's open can wait on
// hardware; Go's runtime
// cannot interrupt either, so one such file named like a transcript, a
// registry file or a config would hang a listing or a Stop hook for good.
// Opening with O_NONBLOCK returns at once for all of them; the descriptor's
// own type then decides, without a window between a stat and the open.
// (A hung network mount can still block in the kernel; only the signal
// handling in shared/interrupt gets a person out of that.)

// ErrNotRegular matches a *NotRegularError with errors.Is.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError is what OpenRegular, ReadRegular, OpenAppend and MapFile return,
// inside an *fs.PathError naming the path, for a path that names a
// directory, FIFO, socket or device. Kind says which, for the message.
type NotRegularError struct {
	Kind string // "directory", "FIFO", "socket", "character device", "block device" or "special file"
}

func (e *NotRegularError) Error() string { return "is a " + e.Kind + ", not a regular file" }

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// NotRegular is the error for path, whose stat says mode (a unix.Stat_t
// Mode), when it is not a regular file: for a walk that skips such entries
// and reports them as the openers would.
func NotRegular(path string, mode uint32) error {
	return notRegular("read", path, mode)
}

func notRegular(op, path string, mode uint32) error {
	return &fs.PathError{Op: op, Path: path, Err: &NotRegularError{Kind: kindOf(mode)}}
}

// kindOf names a non-regular file type.
func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFIFO:
		return "FIFO"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	}
	return "special file"
}

// openRegular opens path read-only without blocking and returns its
// descriptor, in blocking mode again, with its stat, or an *fs.PathError:
// one holding a *NotRegularError when path is not a regular file.
func openRegular(path string) (int, unix.Stat_t, error) {
	return open(path, unix.O_RDONLY, 0)
}

// open is the one opener under every other: it opens path with flags (an
// access mode, with O_APPEND or O_CREAT as a writer needs) plus
// O_NONBLOCK, checks the descriptor's own type, and clears O_NONBLOCK
// again. O_NONBLOCK matters to a writer as much as to a reader: opening a
// FIFO write-only blocks until a reader comes, and O_CREAT does not help
// when the FIFO is already there. (No O_TRUNC: a device would act on it at
// the open, before the type is known.)
func open(path string, flags int, perm fs.FileMode) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	var fd int
	var err error
	op := "read" // the refusal's verb: "read" for a reader, as a walk says it
	if flags&(unix.O_WRONLY|unix.O_RDWR) != 0 {
		op = "open"
	}
	for {
		// O_NOCTTY: a terminal opened by a process without one would
		// otherwise become its controlling terminal.
		fd, err = unix.Open(path, flags|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, uint32(perm.Perm()))
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		// A socket cannot be opened at all (ENXIO on Linux, EOPNOTSUPP on
		// macOS), nor a FIFO for writing without a reader (ENXIO), nor a
		// directory for writing (EISDIR); say what it is, as for the others.
		if (err == unix.ENXIO || err == unix.EOPNOTSUPP || err == unix.EISDIR) && unix.Stat(path, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
			return -1, st, notRegular(op, path, uint32(st.Mode))
		}
		return -1, st, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, st, notRegular(op, path, uint32(st.Mode))
	}
	// Regular files ignore O_NONBLOCK on local file systems, but a network
	// or FUSE one may honour it and fail a read with EAGAIN. F_SETFL sets
	// every status flag at once, and of those open set only O_APPEND can
	// be among flags, so it is kept and the rest cleared (no F_GETFL: this
	// runs for every registry file on the Stop hook's path).
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags&unix.O_APPEND); err != nil {
		unix.Close(fd)
		return -1, st, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return fd, st, nil
}

// OpenRegular opens path for reading, refusing anything but a regular file
// (see NotRegularError) without ever blocking on the open.
func OpenRegular(path string) (*os.File, error) {
	fd, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadRegular reads a whole regular file, refusing anything else as
// OpenRegular does. It reads with plain system calls: os.ReadFile also
// probes the descriptor for the network poller (fstat, fcntl, epoll_ctl),
// which on the Stop hook's hot path (a registry file and a /proc stat per
// live session) is most of the cost. Errors are *fs.PathError, as
// os.ReadFile's are, so errors.Is(err, fs.ErrNotExist) works.
func ReadRegular(path string) ([]byte, error) {
	fd, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	// /proc files say size 0; a file may also grow while it is read.
	buf := make([]byte, 0, max(512, int(min(st.Size, 1<<30))+1))
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// OpenAppend opens path for appending, creating it with perm when it is
// missing: for a log or an audit trail, a file that may already be there.
// Anything but a regular file is refused without blocking, as OpenRegular
// refuses it, with the same *NotRegularError; a plain O_WRONLY open of a
// FIFO would wait for a reader for good. perm applies only to a file this
// creates, through the umask, as with os.OpenFile.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	fd, _, err := open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// OpenAppendExisting opens path for reading and appending, never creating
// it: for a file that belongs to another program (a Claude Code
// transcript), where a row appended to a file that was deleted meanwhile
// must not leave a new file holding that row alone. Anything but a
// regular file is refused as OpenAppend refuses it.
func OpenAppendExisting(path string) (*os.File, error) {
	fd, _, err := open(path, unix.O_RDWR|unix.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// OpenDir opens a folder for reading its entries. O_DIRECTORY makes the
// open fail with ENOTDIR before anything else is opened, so a FIFO where a
// folder should be cannot block it.
func OpenDir(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadDir is os.ReadDir through OpenDir: the folder's entries, sorted by
// name.
func ReadDir(path string) ([]os.DirEntry, error) {
	f, err := OpenDir(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}
