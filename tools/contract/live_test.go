//go:build contract

package contract

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/poll"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestLiveSessionIsRefusedAndForkable holds a real idle session open: ls
// marks it live with its pid (and busy while a slow reply streams), resume
// refuses it with exit 2 naming that pid, and --fork --dry-run plans a fork.
func TestLiveSessionIsRefusedAndForkable(t *testing.T) {
	h := newHome(t)
	s := h.s
	repo := h.repo("live-repo", "feature/live")
	h.trust(repo)
	p := h.startClaude(repo, s.claude[s.current])
	reg := p.prompt("hello live session", "You said: hello live session")
	id := reg.SessionID
	if reg.Pid != p.Pid {
		t.Fatalf("registry pid %d, pane pid %d", reg.Pid, p.Pid)
	}

	row, ok := h.ls()[id]
	switch {
	case !ok:
		t.Fatalf("ls does not list the live session %s", id)
	case !row.Live || row.Pid == nil || *row.Pid != p.Pid:
		t.Errorf("ls: live=%v pid=%v, want live with pid %d", row.Live, row.Pid, p.Pid)
	case row.Status != "idle":
		t.Errorf("ls: status %q, want idle", row.Status)
	case row.Tmux != reg.Tmux || reg.Tmux == "":
		t.Errorf("ls: tmux %q, registry says %q (the CLI runs inside tmux)", row.Tmux, reg.Tmux)
	}

	out, errOut, code := h.forgectl("resume", id)
	if code != 2 || out != "" || !strings.Contains(errOut, fmt.Sprintf("pid %d", p.Pid)) {
		t.Errorf("resume of a live session: exit %d, stdout %q, stderr %q; want exit 2 naming pid %d", code, out, errOut, p.Pid)
	}
	out, errOut, code = h.forgectl("resume", "--fork", "--dry-run", id)
	if code != 0 || !strings.Contains(out, "--resume "+id+" --fork-session") || !strings.Contains(out, "cwd: "+repo) {
		t.Errorf("resume --fork --dry-run: exit %d, stdout %q, stderr %q; want a fork of %s in %s", code, out, errOut, id, repo)
	}
	if _, ok := p.registry(); !ok {
		t.Errorf("the live session lost its registry file to a dry run")
	}

	// A slow reply keeps the CLI busy for a few seconds; ls must say so.
	p.typeText("this reply will be slow")
	p.Keys("Enter")
	if !poll.Every(300*time.Millisecond).Wait(tmuxrig.TurnWait, func() bool { return h.ls()[id].Status == "busy" }) {
		t.Fatalf("ls never reported the session busy during a slow reply; screen:\n%s", p.Screen())
	}
	p.WaitScreen("slow reply", tmuxrig.TurnWait, func(s string) bool { return strings.Contains(s, "This reply was slow on purpose") })
	p.waitIdle("after the slow reply", tmuxrig.TurnWait)
	if r := h.ls()[id]; r.Status != "idle" || !r.Live {
		t.Errorf("after the slow reply: live=%v status=%q, want live and idle", r.Live, r.Status)
	}

	p.exit()
	row = h.ls()[id]
	if row.Live || row.Pid != nil || row.Status != "" {
		t.Errorf("after exit: live=%v pid=%v status=%q, want not live", row.Live, row.Pid, row.Status)
	}
	out, errOut, code = h.forgectl("resume", "--dry-run", id)
	if code != 0 || !strings.Contains(out, "--resume "+id) || strings.Contains(out, "--fork-session") {
		t.Errorf("resume --dry-run after exit: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
