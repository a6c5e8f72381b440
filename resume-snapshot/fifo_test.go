//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestStopHookNeverOpensAFIFO: FIFOs in sessions/, resume-sessions/ (the
// hook session's own snapshot, its lock, the capture cache, the prune
// stamp), a task list and the hook's transcript folder are skipped, never
// opened: the hook still captures what it can and exits 0, where a plain
// open(2) would have blocked the turn for good.
func TestStopHookNeverOpensAFIFO(t *testing.T) {
	w := newWorld(t)
	hookPid := w.session(idHook, nil)
	w.session(idNamed, map[string]any{"name": "Login bugfix work", "nameSource": "user"})
	w.tasks(idHook, "1")
	w.tasks(idNamed, "1", "2")
	transcript := w.transcript(idHook)
	store := filepath.Join(w.forgectl, "resume-sessions")
	fifos := []string{
		filepath.Join(w.claude, "sessions", "4242.json"),
		filepath.Join(store, idNamed+".json"),
		filepath.Join(store, ".capture-cache"),
		filepath.Join(store, ".prune-stamp"),
		filepath.Join(w.claude, "tasks", idNamed, "3.json"),
		filepath.Join(w.claude, "tasks", idHook, ".highwatermark"),
		filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "custom-title.json"),
	}
	for _, f := range fifos {
		os.MkdirAll(filepath.Dir(f), 0o700)
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{"CLAUDE_PID=" + strconv.Itoa(hookPid)}

	r := w.run(hookStdin(idHook, transcript)) // fails the test if it hangs
	if r.code != 0 || !strings.Contains(r.stdout, "captured "+idHook+" (no name): 1 task") {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{fifos[0], fifos[1], fifos[4]} {
		if !strings.Contains(r.stderr, f+": is a FIFO, not a regular file") {
			t.Errorf("stderr does not name %s:\n%s", f, r.stderr)
		}
	}
	// A FIFO at the hook session's snapshot lock: no lock is ever taken on
	// what is not a regular file, so that capture is refused, naming it.
	lock := filepath.Join(store, idHook+".lock")
	os.Remove(lock)
	if err := syscall.Mkfifo(lock, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := w.run(hookStdin(idHook, transcript)); r.code != 0 || !strings.Contains(r.stderr, lock+": is a FIFO, not a regular file") {
		t.Errorf("a FIFO lock: exit %d, stderr %s", r.code, r.stderr)
	}
	if q := w.run(hookStdin(idHook, transcript), "--quiet"); q.code != 0 || q.stdout != "" || q.stderr != "" {
		t.Errorf("--quiet: exit %d, stdout %q, stderr %q", q.code, q.stdout, q.stderr)
	}
}
