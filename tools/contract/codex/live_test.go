//go:build contract

package codex

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestCodexLiveHeldByDaemon: the TUI's background server holds the
// thread's write lock, not the TUI, and keeps holding it after /quit; a
// second codex resume attaches (no client, then beside another client), and
// so does forgectl resume beside an attached client.
func TestCodexLiveHeldByDaemon(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("live")
	const prompt = "hold this thread open"
	p := h.startTUI(repo)
	p.prompt(prompt)
	id, paths := h.thread(prompt)
	daemon := h.daemonPid()
	if daemon == 0 || !h.ours(daemon) {
		t.Fatalf("no background server running (daemon.pid says %d)", daemon)
	}
	h.waitHolder(id, daemon, "a TUI with the daemon")
	p.quit()
	// No client attached: the daemon still has the thread loaded.
	h.waitHolder(id, daemon, "after /quit")
	checkForgectlLive(h, id, daemon, "daemon")

	// Case 1: the daemon holds it, no client is attached.
	a := h.startTUI(repo, "resume", id)
	if s := a.Screen(); strings.Contains(s, "another app") {
		t.Fatalf("a resume with no client attached met the lock screen:\n%s", s)
	}
	a.prompt("first client continues")
	h.waitHolder(id, daemon, "one client attached")
	want := []string{prompt, "first client continues"}
	// The safe case through forgectl: a resume beside the attached client
	// is not refused and attaches a second view on the daemon's thread.
	checkForgectlResumeAttaches(h, id, repo, prompt, paths[0], daemon)
	if theSuite.forgectl {
		want = append(want, "resumed through forgectl "+id[:8])
	}
	// Case 2: the daemon holds it and a client is attached elsewhere.
	b := h.startTUI(repo, "resume", id)
	if s := b.Screen(); strings.Contains(s, "another app") {
		t.Fatalf("a resume beside an attached client met the lock screen:\n%s", s)
	}
	b.prompt("second client continues")
	h.waitHolder(id, daemon, "two clients attached")
	checkForgectlLive(h, id, daemon, "daemon")
	// Does the first view show the second one's turn?
	seen := a.Screen()
	t.Logf("FACT: with two clients on one daemon thread, the first view shows the second's turn: %v", strings.Contains(seen, "second client continues"))
	a.quit()
	b.quit()
	_, after := h.thread("second client continues")
	if len(after) != len(paths) || after[0] != paths[0] {
		t.Errorf("two clients made files %v, want the one %v", after, paths)
	}
	r := readRollout(t, paths[0])
	pg, _ := r.prompts()
	if want := append(want, "second client continues"); strings.Join(pg, "|") != strings.Join(want, "|") {
		t.Errorf("prompts %q, want %q appended in order", pg, want)
	}
	h.stopDaemon()
	// SIGKILL/stop of the holder: the lock goes; whether the file stays is
	// no evidence either way.
	h.waitUnlocked(id, 30*time.Second, "after the daemon stopped")
}

// TestCodexLiveHeldByTUIWithoutDaemon: under --disable daemon_auto_start the
// TUI itself holds the lock, and a second codex resume meets the lock
// screen (where letters are commands: no keys are sent to it).
func TestCodexLiveHeldByTUIWithoutDaemon(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("solo")
	const prompt = "no daemon for this one"
	p := h.startTUI(repo, "--disable", "daemon_auto_start")
	p.prompt(prompt)
	id, _ := h.thread(prompt)
	h.waitHolder(id, p.Pid, "a TUI without the daemon")
	if d := h.daemonPid(); d != 0 && h.ours(d) {
		t.Errorf("a background server %d runs under --disable daemon_auto_start", d)
	}
	checkForgectlLive(h, id, p.Pid, "tui")
	checkForgectlRefusesSecondWriter(h, id, p.Pid, "no-daemon TUI")

	// Case 3: a second resume of a thread a no-daemon TUI holds.
	q := h.newPane(repo, h.binary, "--disable", "daemon_auto_start", "resume", id)
	s := q.WaitScreenLive("the lock screen", tmuxrig.StartWait, func(s string) bool {
		_, c := composer(s)
		return strings.Contains(s, "another app") || c
	})
	if !strings.Contains(s, "another app") {
		t.Errorf("a second resume of a thread held by a no-daemon TUI opened a composer:\n%s", s)
	}
	for _, want := range []string{"retry", "fork", "exit"} {
		if !strings.Contains(s, want) {
			t.Errorf("the lock screen does not offer %q:\n%s", want, s)
		}
	}
	q.Kill()
	h.waitHolder(id, p.Pid, "after the second resume gave up")
	p.quit()
	h.waitUnlocked(id, 30*time.Second, "after a clean /quit")
}

// TestCodexSecondResumeOfARunningExec: case 4, a running codex exec holds
// its thread's lock for the whole turn; what a TUI resume of it does.
func TestCodexSecondResumeOfARunningExec(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("batch")
	const prompt = "a slow exec turn"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.binary, "exec", prompt)
	cmd.Env, cmd.Dir = h.Env, repo
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.Pids = append(h.Pids, cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	id, _ := h.thread(prompt)
	h.waitHolder(id, cmd.Process.Pid, "a running codex exec")
	checkForgectlLive(h, id, cmd.Process.Pid, "exec")
	checkForgectlRefusesSecondWriter(h, id, cmd.Process.Pid, "running exec")

	q := h.newPane(repo, h.binary, "resume", id)
	s := q.WaitScreenLive("the resume's first screen", tmuxrig.StartWait, func(s string) bool {
		_, c := composer(s)
		return strings.Contains(s, "another app") || c || strings.Contains(strings.ToLower(s), "error")
	})
	_, c := composer(s)
	t.Logf("FACT: codex resume of a thread a running exec holds: lock screen %v, composer %v; screen:\n%s", strings.Contains(s, "another app"), c, s)
	if c {
		t.Errorf("codex resume opened a composer on a thread a running exec writes (two writers)")
	}
	q.Kill()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("codex exec: %v\n%s", err, out.String())
		}
	case <-time.After(tmuxrig.TurnWait):
		t.Fatalf("codex exec did not finish:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "slow on purpose") {
		t.Errorf("codex exec printed:\n%s", out.String())
	}
	h.waitUnlocked(id, 30*time.Second, "after codex exec exited")
	h.stopDaemon()
}
