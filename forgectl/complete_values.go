package main

import (
	"path/filepath"

	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/sessions"
	"forgectl.dev/shared/snapstore"
)

// filterValue is one session as FILTER completion offers it.
type filterValue struct {
	ID, Name, Repo string
}

// completionSessions is the one call completion makes into the listing:
// the sessions a default `resume ls` shows, newest first, from the warm
// index. Task counts are not needed, so they are skipped.
func (a *app) completionSessions() ([]filterValue, error) {
	fp := a.forgectlPaths()
	res, err := sessions.List(sessions.Options{
		Claude:    a.claudePaths(),
		Snapshots: snapstore.Store{Dir: fp.Snapshots()},
		IndexPath: filepath.Join(fp.Cache(), "transcripts.idx"),
		SkipTasks: true,
		Home:      a.home,
	})
	if err != nil {
		return nil, err
	}
	out := make([]filterValue, 0, len(res.Sessions))
	for _, s := range res.Sessions {
		if !s.Hidden {
			out = append(out, filterValue{ID: s.ID, Name: s.Name, Repo: s.Repo})
		}
	}
	return out, nil
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
