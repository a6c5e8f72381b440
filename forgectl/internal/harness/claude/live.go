package claude

import (
	"errors"
	"os"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/registry"
)

func liveSessions(dir string) (map[string]registry.Entry, []error) {
	entries, problems := registry.Read(dir)
	live := map[string]registry.Entry{}
	for _, e := range entries {
		if e.SessionID == "" || e.ParkedJobID != "" {
			continue
		}
		// An entry whose start time cannot be verified still counts as live:
		// refusing a resume wrongly costs a retry, allowing it wrongly
		// corrupts a transcript.
		if st := registry.Check(e); st != registry.Stale {
			live[e.SessionID] = e
		}
	}
	return live, problems
}

func listDirs(root string) map[string]bool {
	ents, err := fsutil.ReadDir(root)
	if err != nil {
		return nil
	}
	m := make(map[string]bool, len(ents))
	for _, e := range ents {
		if e.IsDir() {
			m[e.Name()] = true
		}
	}
	return m
}

// Refresh brings what can change between a listing and a resume up to
// date on s: whether it is live now (the registry is read again) and
// whether its transcript is still there. It reports a transcript that is
// gone.
func (h *Harness) Refresh(s *harness.Session) (gone bool) {
	if _, err := os.Stat(s.Transcript); errors.Is(err, os.ErrNotExist) {
		return true
	}
	live, _ := liveSessions(h.paths.Registry())
	s.Live, s.Pid, s.Tmux, s.Status, s.LiveState = false, 0, "", "", 0
	if e, ok := live[s.ID]; ok {
		s.Live, s.Pid, s.Tmux, s.Status, s.LiveState = true, e.Pid, e.Tmux, e.Status, registry.Check(e)
	}
	return false
}
