package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/registry"
)

// filterValue is one session as FILTER completion offers it.
type filterValue struct {
	ID, Name, Repo string
}

// completionSessions is the one call completion makes into the listing:
// the sessions a default `resume ls` shows, as the index has them (see
// sessions.Indexed: no stat of every transcript, so a Tab answers at once;
// sessions newer than the last listing are not offered until one runs).
// Without an index (a first run) it lists, which writes one.
func (a *app) completionSessions() ([]filterValue, error) {
	var out []filterValue
	add := func(s *harness.Session) {
		if !s.Hidden {
			out = append(out, filterValue{ID: s.ID, Name: s.Name, Repo: s.Repo})
		}
	}
	// Every harness's index must answer: one that has none yet (a first
	// run) is listed, which writes them.
	ok := true
	for _, h := range a.harnesses() {
		n, err := sessions.Indexed(sessions.Options{Harness: h, IndexPath: a.indexPath(h), Home: a.home}, add)
		ok = ok && err == nil && n > 0
	}
	if ok {
		return out, nil
	}
	out = out[:0]
	_, err := a.list(context.Background(), listing{w: io.Discard}, func(s *harness.Session) error {
		add(s)
		return nil
	})
	return out, err
}

// liveSessionIDs is what `restart --session` completes to: the sessions
// running now, from Claude Code's registry (a pid alive with its start time).
func (a *app) liveSessionIDs() []string {
	live, _ := registry.Live(a.claudePaths().Registry())
	out := make([]string, 0, len(live))
	for _, e := range live {
		out = append(out, e.SessionID)
	}
	return out
}

// transcriptIDs are the session ids starting with prefix, read from the
// transcript names (projects/<folder>/<id>.jsonl) without the listing: a
// Tab after an id prefix must answer within 50 ms, and the listing stats
// every transcript. Hidden sessions are included, which is right: FILTER
// matches an exact id whether or not the session is hidden.
func (a *app) transcriptIDs(prefix string) []string {
	projects := a.claudePaths().Projects()
	folders, err := fsutil.ReadDir(projects)
	if err != nil {
		return nil
	}
	var ids []string
	for _, f := range folders {
		if !f.IsDir() {
			continue
		}
		entries, err := fsutil.ReadDir(filepath.Join(projects, f.Name()))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && strings.HasPrefix(id, prefix) && !e.IsDir() {
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}
