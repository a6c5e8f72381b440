package harness

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
	// LiveHint is the hint when s is live and so refused: what to do
	// instead, given the name that was asked for.
	LiveHint(name string) string
	// Renamed is a note for after a rename, "" for none: what the agent
	// itself will still show.
	Renamed() string
}

// ErrLive is Rename's refusal of a session an agent process has open: it
// appends to the same file, and keeps its own name in memory.
var ErrLive = errors.New("the session is running")

// NameError is a name the agent would not store as given.
type NameError struct{ Reason string }

func (e *NameError) Error() string { return e.Reason }

// OneLineName is the rule both agents share: name trimmed of surrounding
// spaces, refused when it is not UTF-8, is empty, or holds a control or
// format character or a line or paragraph separator (a rename box is one
// line). empty and control end the refusal's reason, saying what the
// agent would do (": Codex refuses an empty thread name"); control follows
// the character.
func OneLineName(name, empty, control string) (string, error) {
	if !utf8.ValidString(name) {
		return "", &NameError{"the name is not valid UTF-8"}
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", &NameError{"the name is empty" + empty}
	}
	for _, r := range name {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return "", &NameError{fmt.Sprintf("the name holds a control character (%U)%s", r, control)}
		}
	}
	return name, nil
}
