package codex

import "forgectl.dev/forgectl/internal/harness"

// ArchiveArgs are `codex archive ID` and `codex unarchive ID`: Codex moves
// the rollouts (every segment) to archived_sessions/ and back by their
// date, and marks the thread in its state database, which a move by hand
// does not (TestCodexHandArchiveBreaksResume).
func (h *Harness) ArchiveArgs(s *harness.Session, undo bool) []string {
	if undo {
		return []string{"unarchive", s.ID}
	}
	return []string{"archive", s.ID}
}

// ArchiveDir is archived_sessions/.
func (h *Harness) ArchiveDir() string { return h.paths.Archived() }
