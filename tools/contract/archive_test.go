//go:build contract

package contract

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestArchiveKeepsASessionThroughTheRealSweep runs Claude Code's own
// retention sweep over sessions with old mtimes: the unarchived ones go,
// the archived one is safe, and once forgectl resumes it (restoring it
// first) the conversation is whole and a second sweep leaves it.
func TestArchiveKeepsASessionThroughTheRealSweep(t *testing.T) {
	h := newHome(t)
	s := h.s
	claude := s.claude[s.current]
	repo := h.repo("sweep-repo", "main")
	h.trust(repo)
	prompts := []string{"keep this conversation", "let this one go", "and this one too"}
	var ids []string
	for _, text := range prompts {
		p := h.startClaude(repo, claude)
		ids = append(ids, p.prompt(text, "You said: "+text).SessionID)
		p.exit()
	}
	kept := ids[0]
	paths := h.transcripts()
	original, err := os.ReadFile(paths[kept])
	if err != nil {
		t.Fatal(err)
	}

	// One day of retention, no record of a last sweep, everything 3 days old.
	tmuxrig.WriteFile(t, filepath.Join(h.claude, "settings.json"), "{\n  \"cleanupPeriodDays\": 1\n}\n")
	os.Remove(filepath.Join(h.claude, ".last-cleanup"))
	old := time.Now().Add(-72 * time.Hour)
	for _, dir := range []string{"projects", "tasks", "file-history", "session-env"} {
		filepath.WalkDir(filepath.Join(h.claude, dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != filepath.Join(h.claude, dir) {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}

	if out, errs, code := h.forgectl("resume", "archive", kept); code != 0 || strings.TrimSpace(out) != kept {
		t.Fatalf("archive: exit %d %q\n%s", code, out, errs)
	}
	if _, err := os.Stat(paths[kept]); err == nil {
		t.Fatalf("the archived transcript is still in Claude Code's tree")
	}

	// The sweep: a print-mode claude alive past 5 s (the stand-in streams
	// a "slow" reply over 6 s).
	h.sweep("a slow reply to hold the sweep")
	for _, id := range ids[1:] {
		if _, err := os.Stat(paths[id]); err == nil {
			t.Errorf("the sweep left the old unarchived session %s: did it run?", id)
		}
	}
	if rows := h.lsArchived(); len(rows) != 1 || rows[0] != kept {
		t.Fatalf("after the sweep the archive lists %v, want %s", rows, kept)
	}

	// Resumed through forgectl: restored, then the real CLI takes it back.
	r := h.newPane(h.dir, filepath.Join(s.bin, "forgectl"), "resume", kept)
	reg := r.waitIdle("resumed archived session", tmuxrig.StartWait)
	if reg.SessionID != kept {
		t.Fatalf("resumed registry names %q, want %s", reg.SessionID, kept)
	}
	r.WaitScreen("the earlier conversation", tmuxrig.StartWait, func(sc string) bool { return strings.Contains(sc, prompts[0]) })
	r.prompt("after the restore", "You said: after the restore")
	r.exit()
	now, err := os.ReadFile(paths[kept])
	if err != nil {
		t.Fatalf("the resumed transcript: %v", err)
	}
	if !bytes.HasPrefix(now, original) {
		t.Errorf("the restored transcript does not start with the archived conversation (%d bytes before, %d now)", len(original), len(now))
	}
	if got := userPrompts(t, paths[kept], kept); len(got) != 2 || got[0] != prompts[0] || got[1] != "after the restore" {
		t.Errorf("prompts in the resumed transcript: %q", got)
	}

	// A second sweep, its throttle removed, leaves the restored session.
	os.Remove(filepath.Join(h.claude, ".last-cleanup"))
	h.sweep("another slow reply for the second sweep")
	if _, err := os.Stat(paths[kept]); err != nil {
		t.Errorf("the second sweep deleted the restored session: %v", err)
	}
}

// sweep runs claude -p with a prompt the stand-in answers slowly, so the
// process is alive when the retention sweep starts (5 s in), and checks
// the sweep ran: it writes .last-cleanup.
func (h *home) sweep(prompt string) {
	h.t.Helper()
	repo := filepath.Join(h.dir, "src", "sweep-repo")
	if _, errs, code := h.Run(repo, "", h.s.claude[h.s.current], "-p", prompt); code != 0 {
		h.t.Fatalf("claude -p: exit %d\n%s", code, errs)
	}
	tmuxrig.Poll.Until(h.t, 30*time.Second, "the sweep to write .last-cleanup", func() (bool, string) {
		_, err := os.Stat(filepath.Join(h.claude, ".last-cleanup"))
		return err == nil, ""
	})
}

func (h *home) lsArchived() []string {
	h.t.Helper()
	out, errs, code := h.forgectl("resume", "ls", "--archived", "--json")
	if code != 0 {
		h.t.Fatalf("ls --archived: exit %d\n%s", code, errs)
	}
	var rows []struct {
		ID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		h.t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}
