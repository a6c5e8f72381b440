package claude

import (
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
)

// lister is one listing of Claude Code's sessions: what rows are joined
// with besides their transcript (see harness.Lister).
type lister struct {
	h         *Harness
	skipTasks bool
	now       time.Time
	live      map[string]registry.Entry
	snaps     map[string]*snapstore.Record
	taskDirs  map[string]bool
	hist      *history
	files     []harness.File // every transcript the listing has
	idsOnce   sync.Once
	ids       []string // their session ids, sorted, once a parent is looked up
	// clears are the history's /clear lines in time order, made the first
	// time a session with a lineage marker is decided.
	clearsOnce sync.Once
	clears     lineage.Clears
}

// Open starts a listing.
func (h *Harness) Open(opt harness.OpenOptions) harness.Lister {
	return &lister{h: h, skipTasks: opt.SkipTasks, now: opt.Now, snaps: map[string]*snapstore.Record{}}
}

// Join reads the live registry, the snapshot store and which sessions
// have a task list.
func (l *lister) Join() []error {
	var problems []error
	l.live, problems = liveSessions(l.h.paths.Registry())
	if l.h.snaps.Dir != "" {
		recs, sproblems := l.h.snaps.All()
		problems = append(problems, sproblems...)
		for i := range recs {
			l.snaps[recs[i].SessionID] = &recs[i]
		}
	}
	if !l.skipTasks {
		l.taskDirs = listDirs(l.h.paths.Tasks())
	}
	return problems
}

// ReadAux brings the prompt history up to date.
func (l *lister) ReadAux(stored harness.Aux) (bool, error) {
	var err error
	l.hist, err = readHistory(l.h.paths.History(), stored)
	return l.hist.changed, err
}

func (l *lister) Begin(files []harness.File) { l.files = files }

// WriteAux writes the prompt history.
func (l *lister) WriteAux(w harness.AuxWriter, files []harness.File) ([]byte, error) {
	return l.hist.write(w, files)
}

// Row summarises one transcript and makes its row.
func (l *lister) Row(sc *jsonl.Scanner, f *harness.File, path string, stored harness.Stored) harness.Row {
	var r harness.Row
	var old *indexEntry
	if stored.OK {
		old, _ = decodeEntry(stored.File, stored.Payload) // one that does not decode is read again
	}
	ent, scanned, err := summarise(sc, f, path, old)
	r.Scanned = scanned
	if err != nil {
		r.Problem = err
		return r
	}
	ent, r.Problem = sidecar(f, path, ent)
	var aerr error
	if ent, aerr = archived(f, path, ent); aerr != nil {
		r.Problem = errors.Join(r.Problem, aerr)
	}
	h, hasHist := l.hist.get(strings.TrimSuffix(f.Name, ".jsonl"))
	var promptAt time.Time
	if hasHist {
		promptAt = time.UnixMilli(h.LastAtMs).UTC()
	}
	s := build(f, path, ent, ent.Arch.archivedNow(promptAt))
	s.CacheExpired = cacheExpired(&s, l.now)
	if rec := l.snaps[s.ID]; rec != nil {
		s.Snapshot = rec
		if derivedName(s.NameSource) && rec.Name != "" {
			s.Name, s.NameSource = rec.Name, "snapshot"
		}
	}
	if !l.skipTasks {
		var te *taskEntry
		var tp error
		s.Tasks, s.TasksSource, te, tp = countTasks(l.h.paths, l.taskDirs, ent.Tasks, s.ID, s.Snapshot)
		if tp != nil {
			r.Problem = errors.Join(r.Problem, tp)
		}
		if te != ent.Tasks {
			if ent == old {
				next := *old
				ent = &next
			}
			ent.Tasks = te
		}
	}
	if e, ok := l.live[s.ID]; ok {
		s.Live, s.Pid, s.Tmux, s.Status, s.LiveState = true, e.Pid, e.Tmux, e.Status, registry.Check(e)
		if derivedName(s.NameSource) && e.UserNamed() {
			s.Name, s.NameSource = e.Name, "registry"
		}
	}
	if hasHist {
		s.LastPromptAt = promptAt
		if s.LastPrompt == "" {
			s.LastPrompt = h.Last
		}
	}
	if m := ent.Sum.Marks; m != (lineage.Marks{}) {
		l.setLineage(&s, m)
	}
	r.Session = &s
	if ent == old {
		r.Keep = true
	} else {
		r.Record = ent
	}
	return r
}

// setLineage decides the session's parent from its transcript's markers
// and the history's /clear lines (see lineage.Decide); a parent exists
// when the walk found its transcript. Few sessions carry a marker, so the
// set of listed ids is made the first time one does.
func (l *lister) setLineage(s *harness.Session, m lineage.Marks) {
	l.clearsOnce.Do(func() { l.clears = lineage.NewClears(l.hist.file.Clears) })
	d := lineage.Decide(lineage.Node{ID: s.ID, Marks: m}, l.clears)
	if d.Parent == "" {
		return
	}
	l.idsOnce.Do(func() {
		// Sorted substrings of the names: at 100,000 sessions a map of
		// them cost the listing a fifth of its heap.
		l.ids = make([]string, len(l.files))
		for k := range l.files {
			l.ids[k] = strings.TrimSuffix(l.files[k].Name, ".jsonl")
		}
		sort.Strings(l.ids)
	})
	i := sort.SearchStrings(l.ids, d.Parent)
	s.ParentID, s.Relation, s.ParentExists = d.Parent, d.Relation, i < len(l.ids) && l.ids[i] == d.Parent
}

// Indexed makes a row from a stored record alone (see harness.Harness).
func (h *Harness) Indexed(f *harness.File, path string, stored harness.Stored) (harness.Session, bool) {
	ent, err := decodeEntry(stored.File, stored.Payload)
	if err != nil {
		return harness.Session{}, false
	}
	return build(f, path, ent, ent.Arch.archivedNow(time.Time{})), true
}
