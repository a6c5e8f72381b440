package sessions

import (
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
	"golang.org/x/sys/unix"
)

// guardSpan is how much of a file's start, and of what comes just before
// the offset a summary stopped at, is checksummed. A rewrite in place that
// ends up longer than before (a sync tool, an editor) changes one or the
// other in every case seen; appending changes neither.
const guardSpan = 4096

// guard checksums the start of a file and the bytes just before the
// offset it was taken at.
type guard struct {
	HeadLen int64
	Head    uint32
	TailLen int64
	Tail    uint32
}

// guardOf checksums f up to offset.
func guardOf(f *os.File, offset int64) (guard, error) {
	n := min(guardSpan, offset)
	g := guard{HeadLen: n, TailLen: n}
	buf := make([]byte, 2*n)
	if !readAt(f, buf[:n], 0) || !readAt(f, buf[n:], offset-n) {
		return guard{}, os.ErrInvalid
	}
	g.Head = crc32.Checksum(buf[:n], castagnoli)
	g.Tail = crc32.Checksum(buf[n:], castagnoli)
	return g, nil
}

// holds reports whether f still has, up to offset, the bytes g was taken of.
func (g guard) holds(f *os.File, offset int64) bool {
	if offset == 0 {
		return true // nothing was read before
	}
	if g.HeadLen != min(guardSpan, offset) || g.TailLen != g.HeadLen {
		return false
	}
	got, err := guardOf(f, offset)
	return err == nil && got == g
}

func readAt(f *os.File, b []byte, off int64) bool {
	n, _ := f.ReadAt(b, off)
	return n == len(b)
}

// summarise brings one transcript's record up to date: it reads the bytes
// appended since old was taken, or the whole file when there is no usable
// record or the file was rewritten. It reports whether it had to read.
func summarise(sc *jsonl.Scanner, f *fileRef, path string, old *indexEntry) (*indexEntry, bool, error) {
	if old != nil && old.Ino == f.ino && old.Size == f.size && old.MtimeNs == f.mt {
		return old, false, nil
	}
	ent := &indexEntry{Ino: f.ino, Size: f.size, MtimeNs: f.mt, Side: sideEntry{Size: -1}}
	if old != nil {
		ent.Side, ent.Tasks = old.Side, old.Tasks
	}
	fh, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, true, err
	}
	defer fh.Close()
	// Append-only: a file that kept its inode and its bytes up to where the
	// record stopped is read on from there.
	if old != nil && old.Ino == f.ino && f.size >= old.Sum.Offset && old.Guard.holds(fh, old.Sum.Offset) {
		ent.Sum = old.Sum
	}
	if err := ent.Sum.ReadFrom(sc, fh); err != nil {
		// Unreadable now (gone, permissions, I/O): leave it out of this
		// listing and out of the cache, so the next listing reads it
		// again. Fixing a permission changes no mtime, so a cached empty
		// summary would stick.
		return nil, true, err
	}
	if ent.Guard, err = guardOf(fh, ent.Sum.Offset); err != nil {
		return nil, true, err
	}
	return ent, true, nil
}

// sidecar brings the sidecar title up to date for a session that could use
// one: a session with a folder whose transcript carries no title row (a row
// wins over the file, so most renamed sessions need no look). It returns
// ent itself when nothing changed, else an updated copy.
func sidecar(f *fileRef, path string, ent *indexEntry) (*indexEntry, error) {
	if ent.Sum.CustomTitle != "" || ent.Sum.AgentName != "" {
		return ent, nil
	}
	p := transcript.SidecarPath(path, strings.TrimSuffix(f.name, ".jsonl"))
	side := sideEntry{Size: -1}
	var st unix.Stat_t
	// No folder, no file: nothing to stat, but a title remembered from a
	// folder since removed must be forgotten.
	if f.folder && unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		side.Size, side.MtimeNs = st.Size, unixMtimeNs(&st)
	}
	if side.Size == ent.Side.Size && side.MtimeNs == ent.Side.MtimeNs {
		return ent, nil
	}
	var err error
	if side.Size >= 0 {
		b, rerr := fsutil.ReadRegular(p)
		if rerr != nil {
			// Unreadable now: not cached, so the next listing tries again.
			err = rerr
			side = sideEntry{Size: -2}
		} else {
			side.Title, side.By, _ = transcript.ParseSidecar(b)
		}
	}
	next := *ent // a record of the stored index is left as it was
	next.Side = side
	return &next, err
}

// TaskCounts counts one session's tasks: its task list on disk, else its
// snapshot. The source is "live", "snapshot" or "none".
func TaskCounts(c paths.Claude, id string, rec *snapstore.Record) (tasks.Counts, string) {
	n, src, _, _ := countTasks(c, map[string]bool{paths.SanitizeListID(id): true}, nil, id, rec)
	return n, src
}

// The error names task files that were skipped as not regular files.
func countTasks(c paths.Claude, dirs map[string]bool, cached *taskEntry, id string, rec *snapstore.Record) (tasks.Counts, string, *taskEntry, error) {
	var problem error
	if dirs[paths.SanitizeListID(id)] {
		var te *taskEntry
		if te, problem = readTaskCounts(c.TaskList(id), cached); te != nil && te.Counts.Total > 0 {
			return te.Counts, "live", te, problem
		}
	}
	if rec != nil && len(rec.Tasks) > 0 {
		return rec.Counts(), "snapshot", nil, problem
	}
	return tasks.Counts{}, "none", nil, problem
}

// readTaskCounts returns the cached entry when every task file still has
// the size and mtime it had, else reads the list again. A task file that
// is a FIFO, socket, device or folder is left out, and is the error.
func readTaskCounts(dir string, cached *taskEntry) (*taskEntry, error) {
	// Many task lists are read on every listing: stat relative to the
	// directory's descriptor, as statDir does for transcripts.
	d, err := fsutil.OpenDir(dir)
	if err != nil {
		return nil, nil
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, nil
	}
	var skipped []error
	fd := int(d.Fd())
	files := make([]taskFile, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, n, &st, 0) != nil {
			continue
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			skipped = append(skipped, fsutil.NotRegular(filepath.Join(dir, n), uint32(st.Mode)))
			continue
		}
		files = append(files, taskFile{Name: n, Size: st.Size, MtimeNs: unixMtimeNs(&st)})
	}
	// Directory order is arbitrary; the cached list is in name order.
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	problem := errors.Join(skipped...)
	if cached.same(files) {
		return cached, problem
	}
	l, err := tasks.ReadList(dir)
	if err != nil {
		return nil, problem
	}
	te := &taskEntry{Files: files}
	for _, t := range l.Tasks {
		te.Counts.Add(t.Status)
	}
	return te, problem
}
