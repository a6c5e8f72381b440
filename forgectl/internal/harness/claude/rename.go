package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/transcript"
)

// MaxName is how many characters of a name Claude Code keeps (2.1.333:
// the title is cut to 200 code points after control characters go).
const MaxName = 200

// CheckName is the name as /rename stores it, trimmed of surrounding
// spaces. Claude Code (2.1.333, function Ul) replaces control and format
// characters and line or paragraph separators with a space, drops what
// is left of control characters and keeps the first 200 characters; a
// name it would change that way is refused here instead, so what the user
// typed is what the picker shows.
func (h *Harness) CheckName(name string) (string, error) {
	name, err := harness.OneLineName(name, "", ": Claude Code would turn it into a space")
	if err != nil {
		return "", err
	}
	if n := utf8.RuneCountInString(name); n > MaxName {
		return "", &harness.NameError{Reason: fmt.Sprintf("the name is %d characters long: Claude Code keeps only the first %d", n, MaxName)}
	}
	return name, nil
}

// LiveHint is the hint for a running session, which keeps its own name.
func (h *Harness) LiveHint(name string) string {
	return fmt.Sprintf("type /rename %s inside it, or quit it and run this again: the running claude appends to the same transcript and keeps its own name", name)
}

// Renamed is "": Claude Code's picker reads the rows written.
func (h *Harness) Renamed() string { return "" }

// Rename appends what /rename appends to the transcript, a custom-title
// row and an agent-name row (the picker shows an agent name first, so a
// custom title alone would lose to an earlier /rename's agent name), and
// then writes <id>/custom-title.json as /rename does: {"customTitle",
// "by":"user","at"}, mode 0600 in a 0700 folder, replaced atomically.
//
// The rows go in one append that a cut line or a failed write cannot
// leave unreadable (harness.AppendRows), and never into a transcript
// deleted meanwhile.
func (h *Harness) Rename(s *harness.Session, name string, now time.Time) error {
	if s.Live {
		return harness.ErrLive
	}
	var rows bytes.Buffer
	for _, row := range []any{
		struct {
			Type        string `json:"type"`
			CustomTitle string `json:"customTitle"`
			SessionID   string `json:"sessionId"`
		}{"custom-title", name, s.ID},
		struct {
			Type      string `json:"type"`
			AgentName string `json:"agentName"`
			SessionID string `json:"sessionId"`
		}{"agent-name", name, s.ID},
	} {
		if err := encodeJS(&rows, row); err != nil {
			return err
		}
		rows.WriteByte('\n')
	}
	if err := harness.AppendRows(s.Transcript, rows.Bytes(), 0); err != nil {
		return err
	}
	side := transcript.SidecarPath(s.Transcript, s.ID)
	var doc bytes.Buffer
	if err := encodeJS(&doc, struct {
		CustomTitle string `json:"customTitle"`
		By          string `json:"by"`
		At          string `json:"at"`
	}{name, "user", now.UTC().Format("2006-01-02T15:04:05.000Z")}); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(side), 0o700); err != nil {
		return fmt.Errorf("the transcript is renamed, but %w", err)
	}
	if err := fsutil.WriteAtomic(side, doc.Bytes(), 0o600); err != nil {
		return fmt.Errorf("the transcript is renamed, but writing %s failed: %w", side, err)
	}
	return nil
}

// encodeJS writes v as JavaScript's JSON.stringify does, with no
// whitespace and without encoding/json's escapes of <, > and &.
func encodeJS(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}
