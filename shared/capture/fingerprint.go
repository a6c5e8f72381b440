package capture

import (
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
// rewriting a record per session costs ~1 ms each, so an unchanged session
// is recognised by a fingerprint instead: the registry facts plus the name,
// size, mtime and inode of every task file, all from one directory read
// and one fstatat per file, and no file contents.
//
// A fingerprint equal to the one recorded at the last full capture proves
// nothing changed, with one exception that git's index calls "racily
// clean": a file rewritten within the filesystem's timestamp granularity
// of the capture can keep its size and mtime. So a fingerprint is trusted
// only when every file it covers is older than its capture by racyWindow
// (covering 1 s mtime filesystems and the kernel's coarse clock).
const (
	racyWindow = 2 * time.Second
	// refreshAfter bounds how stale last_captured and last_seen_live get
	// while nothing changes.
	refreshAfter = 10 * time.Minute
)

// print is a session's fingerprint and the newest mtime it covers.
type print struct {
	sum    uint64
	newest time.Time
}

// fingerprint summarises t's inputs. The transcript path is left out: it is
// known from the hook's stdin but only guessed otherwise, and a record
// keeps it once known.
func (c Capturer) fingerprint(t target, sidecar string) (print, error) {
	h := fnv.New64a()
	var p print
	w := func(parts ...string) {
		for _, s := range parts {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	w("v1", t.id, t.cwd, t.version, t.name, t.nameSource, strings.Join(t.formerNames, "\x01"),
		strconv.Itoa(t.pid), t.procStart, t.listID)
	if sidecar != "" {
		var st unix.Stat_t
		if err := unix.Stat(sidecar, &st); err == nil {
			w("sidecar", stamp(&st))
			p.newest = mtime(&st)
		}
	}
	dir := c.Claude.TaskList(t.listID)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			w("no-task-dir")
			p.sum = h.Sum64()
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
		w(name, stamp(&st))
		if m := mtime(&st); m.After(p.newest) {
			p.newest = m
		}
	}
	p.sum = h.Sum64()
	return p, nil
}

func readNames(fd int) ([]string, error) {
	buf := make([]byte, 8<<10)
	var names []string
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

func stamp(st *unix.Stat_t) string {
	return strconv.FormatInt(int64(st.Size), 10) + "/" + strconv.FormatInt(mtime(st).UnixNano(), 10) + "/" + strconv.FormatUint(uint64(st.Ino), 10)
}

func mtime(st *unix.Stat_t) time.Time {
	return time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))
}
