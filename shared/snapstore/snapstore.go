// Package snapstore is the snapshot store: one JSON file per session in
// forgectl's resume-sessions directory, holding what a Claude Code session's
// exit destroys (its /rename name and its task bodies) plus recovery
// metadata (ids, cwd, version, times, the task-directory association).
//
// The store never shrinks to follow Claude Code: Merge keeps every task it
// ever captured, marking the ones no longer seen live, because the tasks a
// session has just lost are exactly the ones worth rescuing.
//
// Writers lock <id>.lock (never the record itself, which is renamed over) so
// concurrent Stop hooks of one session lose nothing.
package snapstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/tasks"
)

// Schema is the record format version.
const Schema = 1

// Record is one session's snapshot.
type Record struct {
	Schema       int       `json:"schema"`
	SessionID    string    `json:"session_id"`
	Cwd          string    `json:"cwd,omitempty"`
	Version      string    `json:"version,omitempty"`
	Name         string    `json:"name,omitempty"`
	NameSource   string    `json:"name_source,omitempty"`
	FormerNames  []string  `json:"former_names"`
	Pid          int       `json:"pid,omitempty"`
	ProcStart    string    `json:"proc_start,omitempty"`
	TaskListID   string    `json:"task_list_id,omitempty"`
	TaskDir      string    `json:"task_dir,omitempty"`
	Transcript   string    `json:"transcript_path,omitempty"`
	HighWater    int       `json:"high_water_mark,omitempty"`
	FirstCapture time.Time `json:"first_captured"`
	LastCapture  time.Time `json:"last_captured"`
	Tasks        []Task    `json:"tasks"`
}

// Task is a captured task body with its capture history.
type Task struct {
	tasks.Task
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen_live"`
	// GoneSince is set when a later capture no longer found the task live.
	GoneSince *time.Time `json:"gone_since,omitempty"`
}

// Observation is what one capture pass saw of a live session.
type Observation struct {
	SessionID   string
	Cwd         string
	Version     string
	Name        string // only a user-given name; "" keeps the previous one
	NameSource  string
	FormerNames []string
	Pid         int
	ProcStart   string
	TaskListID  string
	TaskDir     string
	Transcript  string
	// Tasks is nil when the task directory could not be read at all: then
	// nothing is marked gone, since nothing was actually observed.
	Tasks []tasks.Task
	// Partial says Tasks holds only what could be read: some task files
	// did not parse (a write in flight). What was read is folded in, but
	// nothing is marked gone, since a torn file is not a deleted task.
	Partial   bool
	HighWater int
	At        time.Time
}

// Merge folds an observation into a record (which may be zero).
//
// Concurrent captures can reach the store out of order: one that read the
// task files earlier may take the lock later. Such a stale observation
// (At before the record's LastCapture) still adds tasks the record lacks,
// but never overwrites a newer body, marks anything gone or moves the
// capture times back.
func Merge(r Record, o Observation) Record {
	at := o.At.UTC().Truncate(time.Millisecond)
	stale := at.Before(r.LastCapture)
	r.Schema = Schema
	if r.SessionID == "" {
		r.SessionID = o.SessionID
	}
	if r.FirstCapture.IsZero() || at.Before(r.FirstCapture) {
		r.FirstCapture = at
	}
	if !stale {
		r.LastCapture = at
	}
	setIf(&r.Cwd, o.Cwd)
	setIf(&r.Version, o.Version)
	if o.Name != "" {
		if r.Name != "" && r.Name != o.Name {
			r.FormerNames = appendUnique(r.FormerNames, r.Name)
		}
		r.Name = o.Name
		setIf(&r.NameSource, o.NameSource)
	}
	for _, n := range o.FormerNames {
		if n != r.Name {
			r.FormerNames = appendUnique(r.FormerNames, n)
		}
	}
	if o.Pid != 0 {
		r.Pid, r.ProcStart = o.Pid, o.ProcStart
	}
	setIf(&r.TaskListID, o.TaskListID)
	setIf(&r.TaskDir, o.TaskDir)
	setIf(&r.Transcript, o.Transcript)
	if o.HighWater > r.HighWater {
		r.HighWater = o.HighWater
	}
	if o.Tasks != nil {
		seen := make(map[string]bool, len(o.Tasks))
		idx := make(map[string]int, len(r.Tasks))
		for i, t := range r.Tasks {
			idx[t.ID] = i
		}
		for _, lt := range o.Tasks {
			seen[lt.ID] = true
			if i, ok := idx[lt.ID]; ok {
				if stale {
					continue
				}
				r.Tasks[i].Task = lt
				r.Tasks[i].LastSeen = at
				r.Tasks[i].GoneSince = nil
				continue
			}
			r.Tasks = append(r.Tasks, Task{Task: lt, FirstSeen: at, LastSeen: at})
			idx[lt.ID] = len(r.Tasks) - 1
		}
		for i := range r.Tasks {
			if stale || o.Partial {
				break
			}
			if !seen[r.Tasks[i].ID] && r.Tasks[i].GoneSince == nil {
				gone := at
				r.Tasks[i].GoneSince = &gone
			}
		}
	}
	sort.SliceStable(r.Tasks, func(i, j int) bool { return tasks.IDLess(r.Tasks[i].ID, r.Tasks[j].ID) })
	if r.FormerNames == nil {
		r.FormerNames = []string{}
	}
	if r.Tasks == nil {
		r.Tasks = []Task{}
	}
	return r
}

func setIf(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// TaskBodies returns the captured tasks as restorable task files.
func (r Record) TaskBodies() []tasks.Task {
	out := make([]tasks.Task, len(r.Tasks))
	for i, t := range r.Tasks {
		out[i] = t.Task
	}
	return out
}

// Counts tallies the captured tasks by status.
func (r Record) Counts() tasks.Counts {
	var c tasks.Counts
	for _, t := range r.Tasks {
		c.Add(t.Status)
	}
	return c
}

// Store is a snapshot directory.
type Store struct{ Dir string }

// FileName maps a session id to its record's file name. Ids are sanitised
// the way task list ids are, so no id can escape the directory.
func FileName(sessionID string) string { return paths.SanitizeListID(sessionID) + ".json" }

// Path is the record file of a session.
func (s Store) Path(sessionID string) string { return filepath.Join(s.Dir, FileName(sessionID)) }

func (s Store) lockPath(sessionID string) string {
	return filepath.Join(s.Dir, paths.SanitizeListID(sessionID)+".lock")
}

// ErrNoRecord means the store has no snapshot for the session.
var ErrNoRecord = errors.New("no snapshot")

// Load reads a session's record.
func (s Store) Load(sessionID string) (Record, error) {
	return readRecord(s.Path(sessionID))
}

func readRecord(path string) (Record, error) {
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Record{}, ErrNoRecord
		}
		return Record{}, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// LockTimeout bounds how long one capture waits for another capture of the
// same session; a Stop hook must never hang a turn.
const LockTimeout = 2 * time.Second

// Update merges o into the session's record under the session's lock and
// writes it atomically. A record that exists but does not parse is moved
// aside (<id>.json.corrupt-<unix>) rather than overwritten, so nothing it
// held is lost.
func (s Store) Update(o Observation) (Record, error) {
	if o.SessionID == "" {
		return Record{}, errors.New("observation has no session id")
	}
	if err := fsutil.MkdirPrivate(s.Dir); err != nil {
		return Record{}, err
	}
	l, err := fsutil.LockWait(s.lockPath(o.SessionID), LockTimeout)
	if err != nil {
		return Record{}, fmt.Errorf("lock snapshot of %s: %w", o.SessionID, err)
	}
	defer l.Unlock()
	path := s.Path(o.SessionID)
	prev, err := readRecord(path)
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil, errors.Is(err, ErrNoRecord):
	case !errors.As(err, &syntax) && !errors.As(err, &typeErr) && !errors.Is(err, io.ErrUnexpectedEOF):
		// Not a damaged record but a failed read (permissions, I/O, too
		// many open files): leave the record alone and report it.
		return Record{}, err
	default:
		aside := fmt.Sprintf("%s.corrupt-%d", path, o.At.UnixNano())
		if rerr := os.Rename(path, aside); rerr != nil {
			return Record{}, errors.Join(err, rerr)
		}
		prev = Record{}
	}
	rec := Merge(prev, o)
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return Record{}, err
	}
	return rec, fsutil.WriteAtomic(path, append(b, '\n'), fsutil.FilePerm)
}

// All reads every record, returning those that parse and the problems of
// those that do not. A missing store is empty.
func (s Store) All() ([]Record, []error) {
	ents, err := fsutil.ReadDir(s.Dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	var out []Record
	var problems []error
	for _, de := range ents {
		name := de.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		r, err := readRecord(filepath.Join(s.Dir, name))
		if err != nil {
			if !errors.Is(err, ErrNoRecord) {
				problems = append(problems, err)
			}
			continue
		}
		out = append(out, r)
	}
	return out, problems
}

// Remove retires a session's record (pruning only).
func (s Store) Remove(sessionID string) error {
	l, err := fsutil.LockWait(s.lockPath(sessionID), LockTimeout)
	if err != nil {
		return err
	}
	defer l.Unlock()
	err = os.Remove(s.Path(sessionID))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	os.Remove(s.lockPath(sessionID))
	return err
}
