package fsutil

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MapFile maps path read-only and returns its content as a string sharing
// the mapping, for a cache read on a hot path: the kernel maps the page
// cache's pages instead of copying them into fresh heap memory, which on a
// virtual machine whose host reclaims idle guest memory is the difference
// between one millisecond and sixty for a few megabytes (measured on the
// 2-core VMs this project is built on).
//
// The mapping is never unmapped: every string decoded from it refers into
// it, and the callers are commands that exit (or exec) after one listing.
// It stays valid when the file is replaced by rename, as every forgectl
// store is written; truncating the file in place while it is mapped would
// fault the reader, which is why only forgectl's own caches are mapped.
func MapFile(path string) (string, error) {
	fd, st, err := openRegular(path) // a FIFO must not block the open
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	if st.Size == 0 {
		return "", nil // mmap refuses an empty length
	}
	if st.Size > 1<<30 {
		return "", &fs.PathError{Op: "map", Path: path, Err: unix.EINVAL}
	}
	b, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return "", &fs.PathError{Op: "mmap", Path: path, Err: err}
	}
	return unsafe.String(&b[0], len(b)), nil
}

// ReleaseMapped tells the kernel that the pages of a mapping made by
// MapFile are not needed now. They leave the process's resident set; a
// later read of any of them maps it again from the page cache, with the
// same bytes (the file is never written in place). A listing that reads
// every record of a large index once releases the pages it has passed, so
// its peak memory does not grow with the index.
func ReleaseMapped(data string) {
	if len(data) == 0 {
		return
	}
	unix.Madvise(unsafe.Slice(unsafe.StringData(data), len(data)), unix.MADV_DONTNEED)
}
