package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/parallel"

	"golang.org/x/sys/unix"
)

// Walk stats projects/*/*.jsonl with size, mtime and inode, a folder of
// the project at a time on each core.
func (h *Harness) Walk(ctx context.Context) ([]harness.File, []error, error) {
	root := h.paths.Projects()
	dirs, err := fsutil.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	type out struct {
		files    []harness.File
		problems []error
	}
	results := make([]out, len(dirs))
	parallel.For(ctx, len(dirs), max(2, runtime.GOMAXPROCS(0)), 1, func(i int) {
		if d := dirs[i]; d.IsDir() {
			results[i].files, results[i].problems = statDir(filepath.Join(root, d.Name()))
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := 0
	for _, r := range results {
		n += len(r.files)
	}
	files := make([]harness.File, 0, n)
	var problems []error
	for _, r := range results {
		files = append(files, r.files...)
		problems = append(problems, r.problems...)
	}
	return files, problems, nil
}

// Stat is Walk for the given transcripts.
func (h *Harness) Stat(paths []string) []harness.File {
	files := make([]harness.File, 0, len(paths))
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || !strings.HasSuffix(p, ".jsonl") {
			continue
		}
		dir, name := filepath.Split(p)
		dir = filepath.Clean(dir)
		folder := false
		if fi, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(name, ".jsonl"))); err == nil && fi.IsDir() {
			folder = true
		}
		files = append(files, harness.File{Dir: &dir, Name: name, File: fileOf(&st), Folder: folder})
	}
	return files
}

func fileOf(st *unix.Stat_t) fresh.File {
	return fresh.File{Ino: uint64(st.Ino), Size: st.Size, MtimeNs: fresh.MtimeNs(st)}
}

// statDir lists dir's *.jsonl regular files with their size, mtime and
// inode. It reads the directory unsorted and stats relative to its fd, as
// find does, which matters at 10,000 files. A *.jsonl that is a FIFO, a
// socket, a device or a folder is never opened: it is a problem.
func statDir(dir string) ([]harness.File, []error) {
	f, err := fsutil.OpenDir(dir)
	if err != nil {
		return nil, []error{err}
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, []error{err}
	}
	fd := int(f.Fd())
	// A session's folder sits beside its transcript: the directory listing
	// already says which exist, so only those are looked into for a
	// sidecar title.
	var folders map[string]bool
	for _, e := range ents {
		if e.IsDir() {
			if folders == nil {
				folders = map[string]bool{}
			}
			folders[e.Name()] = true
		}
	}
	var out []harness.File
	var problems []error
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue // removed since the listing: not a session any more
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			if st.Mode&unix.S_IFMT != unix.S_IFLNK { // a symlink is not followed, as ever
				problems = append(problems, fsutil.NotRegular(filepath.Join(dir, name), uint32(st.Mode)))
			}
			continue
		}
		out = append(out, harness.File{Dir: &dir, Name: name, File: fileOf(&st), Folder: folders[strings.TrimSuffix(name, ".jsonl")]})
	}
	return out, problems
}
