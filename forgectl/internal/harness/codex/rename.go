package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"forgectl.dev/forgectl/internal/harness"
)

// CheckName is the name as Codex's /rename stores it, trimmed of
// surrounding spaces. Codex refuses an empty name ("Thread name cannot be
// empty", 0.171.0) and its rename box is one line, so a name with a
// newline or another control character is one /rename could never have
// written and its one-row picker would not show as typed: both are
// refused here.
func (h *Harness) CheckName(name string) (string, error) {
	return harness.OneLineName(name, ": Codex refuses an empty thread name", ": Codex's rename box takes one line")
}

// LiveHint is the hint for a thread some process holds. The daemon keeps
// a thread loaded, and its name in memory, for about a minute after the
// last client quits.
func (h *Harness) LiveHint(name string) string {
	return fmt.Sprintf("type /rename %s inside it, or quit it and run this again once codex lets go of it: the process holding it writes the thread's names too, and keeps its own", name)
}

// Renamed says what a rename from outside leaves: Codex's picker reads
// its state database, which only its own /rename updates.
func (h *Harness) Renamed() string {
	return "codex's own picker keeps showing the name its state database cached; /rename inside codex changes both"
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
