package harness

import (
	"errors"
	"time"
)

// Renamer is a harness that can name a session from outside, writing what
// the agent's own rename command writes (Claude Code: /rename). It is an
// interface of its own so that a harness without one still fits.
type Renamer interface {
	// CheckName is the name as the agent would store it, or an error that
	// says why the agent would store something else (or nothing): a name
	// is refused rather than changed behind the user's back.
	CheckName(name string) (string, error)
	// Rename names s, which must not be live (the running agent writes the
	// same file), at now. The session's files are never left unreadable:
	// what cannot be written whole is not written.
	Rename(s *Session, name string, now time.Time) error
}

// ErrLive is Rename's refusal of a session an agent process has open: it
// appends to the same file, and keeps its own name in memory.
var ErrLive = errors.New("the session is running")

// AsRenamer is h's Renamer, looking through WalkOnce; ok is false for a
// harness that cannot rename.
func AsRenamer(h Harness) (r Renamer, ok bool) {
	if w, isWalk := h.(*walkOnce); isWalk {
		h = w.Harness
	}
	r, ok = h.(Renamer)
	return r, ok
}
