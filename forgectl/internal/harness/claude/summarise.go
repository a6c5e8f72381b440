package claude

import (
	"errors"
	"path/filepath"
	"sort"
	"strings"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
	"golang.org/x/sys/unix"
)

// summarise brings one transcript's record up to date: it reads the bytes
// appended since old was taken, or the whole file when there is no usable
// record or the file was rewritten (fresh.Decide says which). It reports
// whether it had to read.
func summarise(sc *jsonl.Scanner, f *harness.File, path string, old *indexEntry) (*indexEntry, bool, error) {
	now := f.File
	if old != nil && old.stamp().Same(now) {
		return old, false, nil
	}
	ent := &indexEntry{File: now, Side: sideEntry{Size: -1}, Arch: archEntry{Size: -1}}
	if old != nil {
		ent.Side, ent.Arch, ent.Tasks = old.Side, old.Arch, old.Tasks
	}
	fh, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, true, err
	}
	defer fh.Close()
	if old != nil && fresh.Decide(old.stamp(), now, fh) == fresh.Appended {
		ent.Sum = old.Sum // read on from old.Sum.Offset
	}
	if err := ent.Sum.ReadFrom(sc, fh); err != nil {
		// Unreadable now (gone, permissions, I/O): leave it out of this
		// listing and out of the cache, so the next listing reads it
		// again. Fixing a permission changes no mtime, so a cached empty
		// summary would stick.
		return nil, true, err
	}
	st, err := fresh.Take(now, ent.Sum.Offset, fh, sc.Spare())
	if err != nil {
		return nil, true, err
	}
	ent.Sums = st.Sums
	return ent, true, nil
}

// sidecar brings the sidecar title up to date for a session that could use
// one: a session with a folder whose transcript carries no title row (a row
// wins over the file, so most renamed sessions need no look). It returns
// ent itself when nothing changed, else an updated copy.
func sidecar(f *harness.File, path string, ent *indexEntry) (*indexEntry, error) {
	if ent.Sum.CustomTitle != "" || ent.Sum.AgentName != "" {
		return ent, nil
	}
	side := sideEntry{Size: -1}
	var st unix.Stat_t
	// No folder, no file: nothing to stat, but a title remembered from a
	// folder since removed must be forgotten.
	var p string
	if f.Folder {
		p = transcript.SidecarPath(path, strings.TrimSuffix(f.Name, ".jsonl"))
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			side.Size, side.MtimeNs = st.Size, fresh.MtimeNs(&st)
		}
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

// Tasks counts one session's tasks: its task list on disk, else its
// snapshot. The source is "live", "snapshot" or "none".
func (h *Harness) Tasks(s *harness.Session) (tasks.Counts, string) {
	n, src, _, _ := countTasks(h.paths, map[string]bool{paths.SanitizeListID(s.ID): true}, nil, s.ID, s.Snapshot)
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
		files = append(files, taskFile{Name: n, Size: st.Size, MtimeNs: fresh.MtimeNs(&st)})
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
