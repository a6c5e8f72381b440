package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"runtime/debug"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mapping is a file mapped read-only, for a cache read on a hot path: the
// kernel maps the page cache's pages instead of copying them into fresh
// heap memory, which on a virtual machine whose host reclaims idle guest
// memory is the difference between one millisecond and sixty for a few
// megabytes (measured on the 2-core VMs this project is built on), and a
// reader touches only the pages it needs.
//
// Every forgectl store is replaced by rename, which leaves a mapping of
// the old file valid. But another program can truncate the file in place,
// and touching a mapped page past the new end raises SIGBUS, which would
// kill the process from whatever goroutine touched it. So the mapped bytes
// are reached only inside Read, which turns that fault into ErrShrunk, and
// nothing taken from them may outlive the call unless copied.
type Mapping struct {
	b []byte // nil for an empty file
}

// ErrShrunk is a mapped file that was truncated while it was read.
var ErrShrunk = errors.New("the file shrank while it was read (another program truncated it)")

// MapFile maps the file at path; anything but a regular file is refused
// without blocking (see OpenRegular).
func MapFile(path string) (*Mapping, error) {
	fd, _, err := openRegular(path) // a FIFO must not block the open
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return mapFd(fd, path)
}

// Map maps the open file f; f may be closed afterwards.
func Map(f *os.File) (*Mapping, error) {
	return mapFd(int(f.Fd()), f.Name())
}

func mapFd(fd int, path string) (*Mapping, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > 1<<40 {
		return nil, &fs.PathError{Op: "map", Path: path, Err: unix.EINVAL}
	}
	if st.Size == 0 {
		return &Mapping{}, nil // mmap refuses an empty length
	}
	b, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, &fs.PathError{Op: "mmap", Path: path, Err: err}
	}
	return &Mapping{b: b}, nil
}

// Len is the size the file had when it was mapped.
func (m *Mapping) Len() int { return len(m.b) }

// Read calls fn with the mapped bytes as a string sharing the mapping. If
// the file shrank and fn touches a page past its new end, fn stops there
// and Read returns ErrShrunk; any other panic goes on. fn must leave
// nothing of data behind that is not a copy, and must not start
// goroutines that read data (the fault is caught only on this one). Read
// costs a deferred call: take it once per record, not once per byte.
func (m *Mapping) Read(fn func(data string)) (err error) {
	b := m.b
	if len(b) == 0 {
		fn("")
		return nil
	}
	// A fault at an address the runtime does not expect panics, on this
	// goroutine, instead of crashing the process.
	prev := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(prev)
		if r := recover(); r != nil {
			if f, ok := r.(interface{ Addr() uintptr }); ok && inMapping(b, f.Addr()) {
				err = ErrShrunk
				return
			}
			panic(r)
		}
	}()
	fn(unsafe.String(&b[0], len(b)))
	return nil
}

func inMapping(b []byte, addr uintptr) bool {
	start := uintptr(unsafe.Pointer(&b[0]))
	return addr >= start && addr-start < uintptr(len(b))
}

// Release tells the kernel that the mapping's pages are not needed now.
// They leave the process's resident set; a later read of any of them maps
// it again from the page cache. A reader that passes over a large mapping
// once releases the pages it has passed, so its peak memory does not grow
// with the file.
func (m *Mapping) Release() {
	if len(m.b) > 0 {
		unix.Madvise(m.b, unix.MADV_DONTNEED)
	}
}

// Close unmaps the file. Nothing may read the mapping after it.
func (m *Mapping) Close() error {
	if len(m.b) == 0 {
		return nil
	}
	b := m.b
	m.b = nil
	return unix.Munmap(b)
}
