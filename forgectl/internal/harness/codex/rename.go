package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
)

// NameError is a name Codex would not store as given.
type NameError struct{ Reason string }

func (e *NameError) Error() string { return e.Reason }

// CheckName is the name as Codex's /rename stores it, trimmed of
// surrounding spaces. Codex refuses an empty name ("Thread name cannot be
// empty", 0.171.0) and its rename box is one line, so a name with a
// newline or another control character is one /rename could never have
// written and its one-row picker would not show as typed: both are
// refused here.
func (h *Harness) CheckName(name string) (string, error) {
	if !utf8.ValidString(name) {
		return "", &NameError{"the name is not valid UTF-8"}
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", &NameError{"the name is empty: Codex refuses an empty thread name"}
	}
	for _, r := range name {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return "", &NameError{fmt.Sprintf("the name holds a control character (%U): Codex's rename box takes one line", r)}
		}
	}
	return name, nil
}

// Rename appends to session_index.jsonl the line /rename appends,
// {"id","thread_name","updated_at"} in that order with updated_at in UTC
// to the nanosecond (as the real files have it); the last line of a
// thread wins. Every thread's names share the file and any running Codex
// appends to it, so the line goes in one append that a cut line or a
// failed write cannot leave unreadable (harness.AppendRows). The file is
// made, 0644 as Codex makes it, when no thread was ever named.
func (h *Harness) Rename(s *harness.Session, name string, now time.Time) error {
	if s.Live {
		return harness.ErrLive
	}
	var row bytes.Buffer
	enc := json.NewEncoder(&row)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		ID        string `json:"id"`
		Name      string `json:"thread_name"`
		UpdatedAt string `json:"updated_at"`
	}{s.ID, name, now.UTC().Format("2006-01-02T15:04:05.000000000Z")}); err != nil {
		return err
	}
	return harness.AppendRows(h.paths.Index(), row.Bytes(), 0o644)
}
