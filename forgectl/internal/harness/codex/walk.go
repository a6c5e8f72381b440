package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"golang.org/x/sys/unix"
)

const zstSuffix = ".zst"

// isRollout says a file name is a rollout segment, plain or compressed.
func isRollout(name string) bool {
	return strings.HasPrefix(name, "rollout-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl"+zstSuffix))
}

// Walk stats sessions/**/rollout-*.jsonl[.zst] and archived_sessions/'s.
// When a segment exists both plain and compressed, the plain one wins (as
// Codex reads it), and the other is not listed.
func (h *Harness) Walk(ctx context.Context) ([]harness.File, []error, error) {
	var files []harness.File
	var problems []error
	for _, root := range []string{h.paths.Sessions(), h.paths.Archived()} {
		if err := walkDir(ctx, root, &files, &problems); err != nil {
			return nil, nil, err
		}
	}
	return files, problems, nil
}

func walkDir(ctx context.Context, dir string, files *[]harness.File, problems *[]error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := fsutil.OpenDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			*problems = append(*problems, err)
		}
		return nil
	}
	ents, err := f.ReadDir(-1)
	fd := int(f.Fd())
	defer f.Close()
	if err != nil {
		*problems = append(*problems, err)
		return nil
	}
	plain := map[string]bool{}
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".jsonl") {
			plain[n] = true
		}
	}
	d := dir // shared by the files of the folder
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			if err := walkDir(ctx, filepath.Join(dir, name), files, problems); err != nil {
				return err
			}
			continue
		}
		if !isRollout(name) || (strings.HasSuffix(name, zstSuffix) && plain[strings.TrimSuffix(name, zstSuffix)]) {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue // removed since the directory was read
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			if st.Mode&unix.S_IFMT != unix.S_IFLNK {
				*problems = append(*problems, fsutil.NotRegular(filepath.Join(dir, name), uint32(st.Mode)))
			}
			continue
		}
		*files = append(*files, harness.File{Dir: &d, Name: name, File: fileOf(&st)})
	}
	return nil
}

func fileOf(st *unix.Stat_t) fresh.File {
	return fresh.File{Ino: uint64(st.Ino), Size: st.Size, MtimeNs: fresh.MtimeNs(st)}
}

// Stat is Walk for the given segments, with every other segment that may
// belong to their threads: a thread's row needs all of them (search finds
// a hit in one). Candidates are the walked files whose name carries the
// same thread uuid (rollout-<ts>-<thread>[_<uuid>].jsonl), and grouping
// then decides by what their session_meta says. One that is gone, or is
// not a rollout, is left out.
func (h *Harness) Stat(paths []string) []harness.File {
	want := map[string]bool{}
	for _, p := range paths {
		if t := nameThread(filepath.Base(p)); t != "" {
			want[t] = true
		}
	}
	var files []harness.File
	seen := map[string]bool{}
	if all, _, err := h.Walk(context.Background()); err == nil {
		for _, f := range all {
			if t := nameThread(f.Name); t != "" && want[t] {
				files = append(files, f)
				seen[f.Path()] = true
			}
		}
	}
	for _, p := range paths {
		if seen[filepath.Clean(p)] {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || !isRollout(filepath.Base(p)) {
			continue
		}
		dir, name := filepath.Split(p)
		dir = filepath.Clean(dir)
		files = append(files, harness.File{Dir: &dir, Name: name, File: fileOf(&st)})
	}
	return files
}

// nameThread is the thread uuid a segment's name carries: what follows
// "rollout-YYYY-MM-DDTHH-MM-SS-", up to a "_" or the extension. It only
// finds candidates; the session_meta id decides.
func nameThread(name string) string {
	const prefix = len("rollout-2006-01-02T15-04-05-")
	if !isRollout(name) || len(name) < prefix+36 {
		return ""
	}
	return name[prefix : prefix+36]
}
