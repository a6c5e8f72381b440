//go:build contract

package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestCodexHandArchiveBreaksResume: moving a rollout into
// archived_sessions/ by hand, as `codex archive` moves it but without the
// state database's mark, leaves a thread 0.171.0 can neither resume nor
// unarchive (asserted as observed). So forgectl's archive of a Codex
// thread runs `codex archive` (TestCodexArchiveByForgectl), never a bare
// move.
func TestCodexHandArchiveBreaksResume(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("arch")
	const prompt = "archive me by hand"
	p := h.startTUI(repo)
	p.prompt(prompt)
	id, paths := h.thread(prompt)
	p.quit()
	h.stopDaemon()
	dst := filepath.Join(h.codex, "archived_sessions", filepath.Base(paths[0]))
	tmuxrig.MustMkdir(t, filepath.Dir(dst))
	if err := os.Rename(paths[0], dst); err != nil {
		t.Fatal(err)
	}
	q := h.newPane(repo, h.binary, "resume", id)
	s := q.WaitScreen("resume of a hand-archived thread to fail", tmuxrig.StartWait, func(s string) bool {
		return strings.Contains(s, "no rollout found for thread id") || strings.Contains(s, "gpt-fake default") || strings.Contains(s, "Unarchive")
	})
	// The message wraps at the pane's width, inside the id.
	if !strings.Contains(strings.ReplaceAll(s, "\n", ""), "no rollout found for thread id "+id) {
		t.Errorf("codex resume of a hand-moved rollout showed:\n%s\n0.171.0 failed with \"no rollout found for thread id\"", s)
	} else {
		t.Log("FACT: after a bare move into archived_sessions/, codex resume <id> fails: \"thread/resume failed: no rollout found for thread id … (code -32600)\"")
	}
	q.Kill()
	h.stopDaemon()
	out, errOut, code := h.codexCmd(repo, "unarchive", id)
	live, archived := h.files()
	if code != 1 || !strings.Contains(errOut, "failed to unarchive session") || len(live) != 0 || len(archived) != 1 {
		t.Errorf("codex unarchive of a hand-moved rollout: exit %d, %s%s; sessions/ %v, archived_sessions/ %v; 0.171.0 failed (exit 1, \"failed to unarchive session\") and left the file where it was", code, out, errOut, live, archived)
	} else {
		t.Log("FACT: codex unarchive of it fails too (exit 1, \"Error: failed to unarchive session\"), the file left in archived_sessions/")
	}
	h.stopDaemon()
}
