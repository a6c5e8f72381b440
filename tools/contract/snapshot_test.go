//go:build contract

package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/tools/contract/tmuxrig"
)

// readmeStopHook is the fragment the README tells users to merge into the
// hooks object of ~/.claude/settings.json, verbatim.
const readmeStopHook = `"Stop": [
  { "hooks": [{ "type": "command", "command": "forgectl resume snapshot --quiet" }] }
]`

// TestStopHookSnapshotsAndResumeRestores wires the Stop hook as the README
// says, lets the real CLI run turns that rename the session and create
// tasks, and checks that the snapshot holds both; then, with the session
// gone and its tasks deleted, `forgectl resume` restores the tasks and the
// resumed CLI shows them.
func TestStopHookSnapshotsAndResumeRestores(t *testing.T) {
	h := newHome(t)
	s := h.s
	repo := h.repo("snap-repo", "feature/snap")
	h.trust(repo)
	// Merged into settings that hold something else, as a user's would.
	tmuxrig.WriteFile(t, filepath.Join(h.claude, "settings.json"),
		"{\n  \"cleanupPeriodDays\": 3650,\n  \"hooks\": {\n"+readmeStopHook+"\n  }\n}\n")

	p := h.startClaude(repo, s.claude[s.current])
	reg := p.prompt("tasks: Draft the design; Review the design", "Created 2 tasks and started the first.")
	id := reg.SessionID
	p.slash("/rename Snapshot me", "Session renamed to: Snapshot me")
	p.prompt("after the rename", "You said: after the rename")

	live := h.taskFiles(id)
	if len(live) != 2 {
		t.Fatalf("the CLI wrote %d tasks, want 2", len(live))
	}
	snapPath := filepath.Join(h.dir, ".config", "forgectl", "resume-sessions", id+".json")
	snap := waitSnapshot(t, snapPath, func(sn snapshot) bool { return sn.Name == "Snapshot me" && len(sn.Tasks) == 2 })
	if snap.SessionID != id || snap.Cwd != repo || snap.Version != s.current {
		t.Errorf("snapshot identity: id %q cwd %q version %q; want %s in %s on %s", snap.SessionID, snap.Cwd, snap.Version, id, repo, s.current)
	}
	var bodies []taskFile
	for _, st := range snap.Tasks {
		var tf taskFile
		if err := json.Unmarshal(st.Body, &tf); err != nil {
			t.Fatalf("snapshot task %s: %v", st.ID, err)
		}
		bodies = append(bodies, tf)
	}
	if diff := cmp.Diff(live, bodies); diff != "" {
		t.Errorf("snapshot task bodies against the CLI's task files (-files +snapshot):\n%s", diff)
	}

	p.exit()
	if err := os.RemoveAll(filepath.Join(h.claude, "tasks", id)); err != nil {
		t.Fatal(err)
	}
	row := h.ls()[id]
	if row.Name != "Snapshot me" || row.TasksSource != "snapshot" || row.Tasks != (counts{Pending: 1, InProgress: 1, Total: 2}) {
		t.Errorf("ls after exit with the tasks gone: name %q tasks %+v from %q; want Snapshot me, 1 pending + 1 in progress from snapshot", row.Name, row.Tasks, row.TasksSource)
	}

	// Resume from HOME: forgectl restores the tasks, then execs the CLI.
	r := h.newPane(h.dir, filepath.Join(s.bin, "forgectl"), "resume", id)
	r.waitIdle("resumed session", tmuxrig.StartWait)
	if diff := cmp.Diff(live, h.taskFiles(id)); diff != "" {
		t.Errorf("restored task files (-before exit +restored):\n%s", diff)
	}
	screen := r.WaitScreen("the restored task list", 20*time.Second, func(s string) bool {
		return strings.Contains(s, "0/2 tasks done") && strings.Contains(s, "Draft the design") && strings.Contains(s, "Review the design")
	})
	if !strings.Contains(screen, "1 in progress") {
		t.Errorf("the resumed CLI does not show a task in progress:\n%s", screen)
	}
	if got, _ := r.registry(); got.SessionID != id || got.Name != "Snapshot me" {
		t.Errorf("resumed registry: session %q name %q; want %s named Snapshot me", got.SessionID, got.Name, id)
	}
	r.exit()
}

type snapshot struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Version   string `json:"version"`
	Name      string `json:"name"`
	Tasks     []struct {
		ID     string          `json:"id"`
		Body   json.RawMessage `json:"body"`
		Status string          `json:"status"`
	} `json:"tasks"`
}

// waitSnapshot waits for the Stop hook's snapshot to satisfy ok: the hook
// runs after the turn, not before the reply shows.
func waitSnapshot(t *testing.T, path string, ok func(snapshot) bool) snapshot {
	t.Helper()
	var sn snapshot
	tmuxrig.Poll.Until(t, tmuxrig.TurnWait, "snapshot "+path+" as expected", func() (bool, string) {
		b, err := os.ReadFile(path)
		return err == nil && json.Unmarshal(b, &sn) == nil && ok(sn), fmt.Sprintf("%s (read error %v)", b, err)
	})
	return sn
}
