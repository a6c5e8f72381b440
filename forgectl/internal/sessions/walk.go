package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/parallel"

	"golang.org/x/sys/unix"
)

// fileRef is a transcript found by the walk. At 100,000 sessions the
// walk's list is most of a warm listing's memory, so the directory is
// shared, not repeated in every path.
type fileRef struct {
	dir  *string
	name string
	ino  uint64
	size int64
	mt   int64
	// folder says the session has its own folder beside the transcript
	// (subagents, tool results, the sidecar title of a /rename).
	folder bool
}

func (f *fileRef) path() string { return *f.dir + string(filepath.Separator) + f.name }

// stat is what the walk saw of the file, for fresh.Decide.
func (f *fileRef) stat() fresh.File { return fresh.File{Ino: f.ino, Size: f.size, MtimeNs: f.mt} }

// walk lists projects/*/*.jsonl with size, mtime and inode, newest first
// (the order a listing hands sessions on in; ties by id, so that it is the
// same every time).
func walk(ctx context.Context, root string) ([]fileRef, []error, error) {
	dirs, err := fsutil.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	type out struct {
		files    []fileRef
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
	files := make([]fileRef, 0, n)
	var problems []error
	for _, r := range results {
		files = append(files, r.files...)
		problems = append(problems, r.problems...)
	}
	sortNewestFirst(files)
	return files, problems, nil
}

// sortNewestFirst orders files by mtime, newest first (ties by path, so
// that the order is the same every time).
func sortNewestFirst(files []fileRef) {
	sort.Slice(files, func(a, b int) bool {
		fa, fb := &files[a], &files[b]
		if fa.mt != fb.mt {
			return fa.mt > fb.mt
		}
		if *fa.dir != *fb.dir {
			return *fa.dir < *fb.dir
		}
		return fa.name < fb.name
	})
}

// statPaths is walk for the given transcripts; one that is gone is left
// out, as the walk would.
func statPaths(paths []string) []fileRef {
	files := make([]fileRef, 0, len(paths))
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
		files = append(files, fileRef{dir: &dir, name: name, ino: uint64(st.Ino), size: st.Size, mt: unixMtimeNs(&st), folder: folder})
	}
	sortNewestFirst(files)
	return files
}

// statDir lists dir's *.jsonl regular files with their size, mtime and
// inode. It reads the directory unsorted and stats relative to its fd, as
// find does, which matters at 10,000 files. A *.jsonl that is a FIFO, a
// socket, a device or a folder is never opened: it is a problem.
func statDir(dir string) ([]fileRef, []error) {
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
	// sidecar title (see readSidecars).
	var folders map[string]bool
	for _, e := range ents {
		if e.IsDir() {
			if folders == nil {
				folders = map[string]bool{}
			}
			folders[e.Name()] = true
		}
	}
	var out []fileRef
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
		out = append(out, fileRef{dir: &dir, name: name, ino: uint64(st.Ino), size: st.Size, mt: unixMtimeNs(&st),
			folder: folders[strings.TrimSuffix(name, ".jsonl")]})
	}
	return out, problems
}

// Transcript is a transcript as the walk found it.
type Transcript struct {
	Path    string
	Ino     uint64
	Size    int64
	MtimeNs int64
}

// Walk stats projects/*/*.jsonl under root as a listing does, newest
// first, for the search index, which keeps its own records of the same
// files.
func Walk(ctx context.Context, root string) ([]Transcript, []error, error) {
	files, problems, err := walk(ctx, root)
	out := make([]Transcript, len(files))
	for k := range files {
		f := &files[k]
		out[k] = Transcript{Path: f.path(), Ino: f.ino, Size: f.size, MtimeNs: f.mt}
	}
	return out, problems, err
}
