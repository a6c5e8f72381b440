// Package tasks reads and restores Claude Code task lists:
// <claude dir>/tasks/<listId>/<n>.json, with .highwatermark and .lock.
//
// Task bodies are carried as raw JSON so that restoring writes back exactly
// what Claude Code wrote, fields this package does not know included.
package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/interrupt"
)

// Task is one task file.
type Task struct {
	ID      string          `json:"id"`
	Subject string          `json:"subject,omitempty"`
	Status  string          `json:"status,omitempty"`
	Body    json.RawMessage `json:"body"`
}

// Counts tallies tasks by status.
type Counts struct {
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Total      int `json:"total"`
}

// Add counts one task.
func (c *Counts) Add(status string) {
	c.Total++
	switch status {
	case "pending":
		c.Pending++
	case "in_progress":
		c.InProgress++
	case "completed":
		c.Completed++
	}
}

// ParseTask decodes a task body, keeping it verbatim.
func ParseTask(b []byte) (Task, error) {
	var t struct {
		ID      json.RawMessage `json:"id"`
		Subject string          `json:"subject"`
		Status  string          `json:"status"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return Task{}, err
	}
	id := strings.Trim(string(t.ID), `"`)
	if id == "" {
		return Task{}, errors.New("task has no id")
	}
	return Task{ID: id, Subject: t.Subject, Status: t.Status, Body: json.RawMessage(bytes.TrimSpace(b))}, nil
}

// List is what a task list directory holds right now.
type List struct {
	Dir           string
	Tasks         []Task // sorted by numeric id
	HighWaterMark int    // 0 when .highwatermark is absent
	Problems      []error
}

// ReadList reads a task list. A missing directory returns an error that
// satisfies errors.Is(err, os.ErrNotExist): many sessions never have one.
func ReadList(dir string) (List, error) {
	ents, err := fsutil.ReadDir(dir)
	if err != nil {
		return List{Dir: dir}, err
	}
	l := List{Dir: dir}
	for _, de := range ents {
		name := de.Name()
		stem, ok := strings.CutSuffix(name, ".json")
		if !ok || de.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		b, err := fsutil.ReadRegular(filepath.Join(dir, name))
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) { // deleted while we read: not a problem
				l.Problems = append(l.Problems, err)
			}
			continue
		}
		t, err := ParseTask(b)
		if err != nil {
			l.Problems = append(l.Problems, fmt.Errorf("%s: %w", filepath.Join(dir, name), err))
			continue
		}
		if t.ID != stem {
			// The file name is the identity Claude Code uses on disk.
			t.ID = stem
		}
		l.Tasks = append(l.Tasks, t)
	}
	SortByID(l.Tasks)
	l.HighWaterMark, _ = readHWM(dir)
	return l, nil
}

// SortByID orders tasks numerically, then lexically for non-numeric ids.
func SortByID(ts []Task) {
	sort.Slice(ts, func(i, j int) bool { return IDLess(ts[i].ID, ts[j].ID) })
}

// IDLess orders task ids numerically, non-numeric ids last and lexically.
func IDLess(a, b string) bool {
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	switch {
	case ea == nil && eb == nil:
		return na < nb
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a < b
}

func readHWM(dir string) (int, error) {
	b, err := fsutil.ReadRegular(filepath.Join(dir, ".highwatermark"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// Restored reports what Restore did.
type Restored struct {
	Written []string // ids written back
	Present []string // ids already on disk, left alone
	Skipped []string // ids that cannot name a file safely
	// HighWaterMark before and after; After >= Before always.
	Before, After int
}

// LockTimeout bounds the wait for Claude Code's own list lock.
const LockTimeout = 5 * time.Second

// Restore writes tasks back into dir without ever overwriting a file that
// exists (the live session's copy always wins), and raises .highwatermark
// to at least the highest restored numeric id, and to at least
// minHighWater (the mark the snapshot saw), so Claude Code never hands out
// an id it used before. It never lowers it. It takes the list's lock the way
// Claude Code does (proper-lockfile: an exclusive mkdir of
// "<dir>/.lock.lock", the .lock file itself being created with O_EXCL
// first). Running it twice is a no-op. Cancelling ctx ends the wait for
// that lock; a process ended by a second signal (see shared/interrupt)
// still removes the lock and its temp files.
func Restore(ctx context.Context, dir string, ts []Task, minHighWater int) (Restored, error) {
	var r Restored
	if len(ts) == 0 {
		return r, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return r, err
	}
	unlock, err := lockList(ctx, dir)
	if err != nil {
		return r, err
	}
	defer unlock()

	r.Before, _ = readHWM(dir)
	maxID := 0
	for _, t := range ts {
		n, err := strconv.Atoi(t.ID)
		if err != nil || n < 0 || strconv.Itoa(n) != t.ID {
			r.Skipped = append(r.Skipped, t.ID)
			continue
		}
		if n > maxID {
			maxID = n
		}
		wrote, err := createNew(ctx, filepath.Join(dir, t.ID+".json"), pretty(t.Body))
		if err != nil {
			return r, err
		}
		if wrote {
			r.Written = append(r.Written, t.ID)
		} else {
			r.Present = append(r.Present, t.ID)
		}
	}
	r.After = r.Before
	if want := max(maxID, minHighWater); want > r.Before {
		r.After = want
		if err := writeFileAtomic(ctx, filepath.Join(dir, ".highwatermark"), []byte(strconv.Itoa(want)), 0o644); err != nil {
			return r, err
		}
	}
	return r, nil
}

// pretty re-indents a body the way Claude Code writes task files (2 spaces).
func pretty(b []byte) []byte {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return b
	}
	return buf.Bytes()
}

// createNew writes path only if it does not exist, atomically: the content
// goes to a temp file that is then hard-linked into place, and link fails
// rather than replace an existing file.
func createNew(ctx context.Context, path string, data []byte) (bool, error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".restore-*")
	if err != nil {
		return false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	defer interrupt.OnExit(ctx, func() { os.Remove(tmp) })()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		return false, errors.Join(werr, cerr)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return false, err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

func writeFileAtomic(ctx context.Context, path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".hwm-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	defer interrupt.OnExit(ctx, func() { os.Remove(tmp) })()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		return errors.Join(werr, cerr)
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// staleLock is proper-lockfile's default: a lock directory whose mtime has
// not been refreshed for this long belongs to a dead holder.
const staleLock = 10 * time.Second

func lockList(ctx context.Context, dir string) (func(), error) {
	lockFile := filepath.Join(dir, ".lock")
	if f, err := os.OpenFile(lockFile, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		f.Close()
	}
	lockDir := lockFile + ".lock"
	deadline := time.Now().Add(LockTimeout)
	for {
		err := os.Mkdir(lockDir, 0o755)
		if err == nil {
			// Claude Code would wait on a lock left behind.
			kept := interrupt.OnExit(ctx, func() { os.Remove(lockDir) })
			return func() { os.Remove(lockDir); kept() }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(lockDir); err == nil && time.Since(st.ModTime()) > staleLock {
			os.Remove(lockDir)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("task list %s is locked by claude (%s held for over %s)", dir, lockDir, LockTimeout)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		time.Sleep(25 * time.Millisecond)
	}
}
