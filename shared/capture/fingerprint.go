package capture

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The fast path. A Stop hook runs on every turn of every session, and most
// turns change nothing in most sessions. Reading 30 task files and
// rewriting a record per session costs about a millisecond each, so an
// unchanged session is recognised by a fingerprint instead, computed from
// metadata alone, and a full capture happens only when it differs from
// the one taken at the session's last full capture.
//
// There are two depths:
//
//   - deep, for the session whose Stop hook is running (the one whose
//     turn just changed things): the registry facts plus name, size, mtime
//     and inode of every task file, from one directory read and one
//     fstatat per file;
//   - shallow, for every other live session: the registry facts plus the
//     task folder's own mtime and inode, one stat. Claude Code takes a
//     proper-lockfile lock (a <n>.json.lock folder made and removed beside
//     the file) around each task write, and creating or deleting a task
//     changes the folder too, so its writes move the folder's mtime. A
//     write that did not (another tool editing a file in place) is caught
//     by that session's own Stop hook, which looks deep, or within
//     refreshAfter.
//
// An equal fingerprint proves nothing changed, with one exception that
// git's index calls "racily clean": a file rewritten within the file
// system's timestamp granularity of the capture can keep its size and
// mtime. So a fingerprint is trusted only when everything it covers is
// older than its capture by racyWindow (covering 1 s mtime file systems and
// the kernel's coarse clock).
const (
	racyWindow = 2 * time.Second
	// refreshAfter bounds how stale last_captured and last_seen_live get
	// while nothing changes, and how long a shallow look can miss a write.
	refreshAfter = 10 * time.Minute
)

// print is a session's fingerprint and the newest mtime it covers.
type print struct {
	sum    uint64
	newest time.Time
}

// fingerprint summarises t's inputs, deep or shallow. The transcript path
// is left out: it is known from the hook's stdin but only guessed
// otherwise, and a record keeps it once known.
func (c Capturer) fingerprint(t target, sidecar string, deep bool) (print, error) {
	var p print
	b := make([]byte, 0, 2048)
	str := func(parts ...string) {
		for _, s := range parts {
			b = append(b, s...)
			b = append(b, 0)
		}
	}
	file := func(name string, st *unix.Stat_t) {
		str(name)
		m := mtime(st)
		b = binary.LittleEndian.AppendUint64(b, uint64(st.Size))
		b = binary.LittleEndian.AppendUint64(b, uint64(m.UnixNano()))
		b = binary.LittleEndian.AppendUint64(b, uint64(st.Ino))
		if m.After(p.newest) {
			p.newest = m
		}
	}
	str("v1", t.id, t.cwd, t.version, t.name, t.nameSource, strings.Join(t.formerNames, "\x01"),
		strconv.Itoa(t.pid), t.procStart, t.listID)
	if sidecar != "" {
		var st unix.Stat_t
		if err := unix.Stat(sidecar, &st); err == nil {
			file("sidecar", &st)
		}
	}
	dir := c.Claude.TaskList(t.listID)
	if !deep {
		var st unix.Stat_t
		err := unix.Stat(dir, &st)
		switch {
		case err == nil:
			file("task-dir", &st)
		case errors.Is(err, unix.ENOENT):
			str("no-task-dir")
		default:
			return p, err
		}
		p.sum = sum(b)
		return p, nil
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			str("no-task-dir")
			p.sum = sum(b)
			return p, nil
		}
		return p, err
	}
	defer unix.Close(fd)
	names, err := readNames(fd)
	if err != nil {
		return p, err
	}
	slices.Sort(names)
	for _, name := range names {
		if !(strings.HasSuffix(name, ".json") || name == ".highwatermark") {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // deleted since the read: the next pass sees it
			}
			return p, err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			continue // proper-lockfile's <n>.json.lock folders
		}
		file(name, &st)
	}
	p.sum = sum(b)
	return p, nil
}

func sum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

func readNames(fd int) ([]string, error) {
	buf := make([]byte, 8<<10)
	names := make([]string, 0, 64)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

func mtime(st *unix.Stat_t) time.Time {
	return time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))
}
