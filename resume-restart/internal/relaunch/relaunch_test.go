package relaunch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/poll"
	"forgectl.dev/shared/proc"
)

// forgectlBin is the real forgectl, built once by TestMain: the verdicts
// below are its own.
var forgectlBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "relaunch-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	forgectlBin = filepath.Join(dir, "forgectl")
	cmd := exec.Command("go", "build", "-o", forgectlBin, ".")
	cmd.Dir = filepath.Join("..", "..", "..", "forgectl")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build forgectl: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const sid = "1fc9d747-58cb-4e62-b7f1-a85d62252943"

// home is a temp HOME with one session's transcript, a live claude
// stand-in registered for it, and a claude on PATH.
type home struct {
	t                    *testing.T
	dir, repo, claudeBin string
	env                  []string // this process's environment for the call
	pid                  int
}

func newHome(t *testing.T) *home {
	h := &home{t: t, dir: t.TempDir()}
	h.repo = filepath.Join(h.dir, "src", "api")
	bin := filepath.Join(h.dir, "bin")
	h.claudeBin = filepath.Join(bin, "claude")
	for _, d := range []string{filepath.Join(h.repo, ".git"), bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(h.claudeBin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"HOME=" + h.dir, "PATH=" + bin + ":/usr/bin:/bin", "FORGECTL_CONFIG_DIR=" + h.config("")}
	return h
}

// transcript writes the session's transcript as Claude Code does at the
// first prompt.
func (h *home) transcript() string {
	dir := filepath.Join(h.dir, ".claude", "projects", strings.ReplaceAll(h.repo, "/", "-"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.t.Fatal(err)
	}
	p := filepath.Join(dir, sid+".jsonl")
	row := fmt.Sprintf(`{"parentUuid":null,"type":"user","message":{"role":"user","content":"hello"},"uuid":"u1","timestamp":"2026-11-29T10:00:00Z","entrypoint":"cli","cwd":%q,"sessionId":%q,"version":"2.1.99","gitBranch":"main"}`+"\n", h.repo, sid)
	if err := os.WriteFile(p, []byte(row), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *home) config(body string) string {
	dir := filepath.Join(h.dir, ".config", "forgectl")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(body), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return dir
}

// live starts a real process with env, registered as the session's claude.
func (h *home) live(env []string) int {
	cmd := exec.Command("sleep", "60")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	st, err := proc.StartTime(cmd.Process.Pid)
	if err != nil {
		h.t.Fatal(err)
	}
	dir := filepath.Join(h.dir, ".claude", "sessions")
	os.MkdirAll(dir, 0o700)
	b, _ := json.Marshal(map[string]any{"pid": cmd.Process.Pid, "sessionId": sid, "cwd": h.repo, "procStart": st, "status": "idle", "version": "2.1.99"})
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", cmd.Process.Pid)), b, 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.pid = cmd.Process.Pid
	return h.pid
}

func (h *home) resolver() Resolver {
	return Resolver{Forgectl: forgectlBin, Environ: func() []string { return h.env }}
}

// TestResolvePlanOutcomes: what the real forgectl answers for each way a
// relaunch can fail, with the session live and its pid assumed stopped.
func TestResolvePlanOutcomes(t *testing.T) {
	type got struct {
		OK       bool
		Reason   string
		ExitCode int
	}
	for _, tc := range []struct {
		name  string
		setup func(h *home)
		want  got
		hint  string // a substring of the hint
	}{
		{"ready", func(h *home) { h.transcript() }, got{true, "", 0}, ""},
		{"no transcript yet", func(h *home) {}, got{false, "no_match", 1}, ""},
		{"deleted cwd", func(h *home) { h.transcript(); os.RemoveAll(h.repo) }, got{false, "cwd_gone", 1}, "recreate it"},
		{"bad launch profile", func(h *home) { h.transcript(); h.config("[proxy]\nlaunch_profile = \"corp\"\n") },
			got{false, "bad_launch_profile", 2}, ""},
		{"claude binary missing", func(h *home) { h.transcript(); os.Remove(h.claudeBin) }, got{false, "claude_not_found", 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			tc.setup(h)
			pid := h.live(h.env)
			v, err := h.resolver().Resolve(context.Background(), sid, pid)
			if err != nil {
				t.Fatalf("no verdict: %v", err)
			}
			if d := cmp.Diff(tc.want, got{v.OK, v.Reason, v.ExitCode}); d != "" {
				t.Errorf("verdict (-want +got):\n%s\n%+v", d, v)
			}
			if !v.OK && v.Error == "" {
				t.Errorf("a refusal without its error: %+v", v)
			}
			if !strings.Contains(v.Hint, tc.hint) {
				t.Errorf("hint %q, want it to mention %q", v.Hint, tc.hint)
			}
			if v.OK && (v.Cwd != h.repo || v.Binary != h.claudeBin || filepath.Base(v.Transcript) != sid+".jsonl") {
				t.Errorf("resolved: %+v", v)
			}
		})
	}
}

// TestLiveRefusedUnlessItsPidIsTheOneStopped: another pid than the one the
// restart stops is a live refusal.
func TestLiveRefusedUnlessItsPidIsTheOneStopped(t *testing.T) {
	h := newHome(t)
	h.transcript()
	h.live(h.env)
	v, err := h.resolver().Resolve(context.Background(), sid, h.pid+100000)
	if err != nil || v.OK || v.Reason != "live" || v.ExitCode != 2 {
		t.Fatalf("%+v %v", v, err)
	}
}

// TestResolveUsesTheSessionsEnvironment: the pane's shell, which the
// claude inherited its environment from, decides which claude is found;
// this process's PATH does not.
func TestResolveUsesTheSessionsEnvironment(t *testing.T) {
	h := newHome(t)
	h.transcript()
	sessionEnv := append([]string(nil), h.env...)
	h.env = []string{"HOME=" + h.dir, "PATH=/usr/bin:/bin", "FORGECTL_CONFIG_DIR=" + filepath.Join(h.dir, ".config", "forgectl"),
		"FORGECTL_CLAUDE_BIN=/nonexistent/claude"}
	pid := h.live(sessionEnv)
	v, err := h.resolver().Resolve(context.Background(), sid, pid)
	if err != nil || !v.OK || v.Binary != h.claudeBin {
		t.Fatalf("with the session's PATH and no FORGECTL_CLAUDE_BIN: %+v %v", v, err)
	}

	// And the other way round: a claude only this process could find is
	// one the pane's shell cannot.
	h2 := newHome(t)
	h2.transcript()
	paneEnv := []string{"HOME=" + h2.dir, "PATH=/usr/bin:/bin", "FORGECTL_CONFIG_DIR=" + filepath.Join(h2.dir, ".config", "forgectl")}
	pid = h2.live(paneEnv)
	v, err = h2.resolver().Resolve(context.Background(), sid, pid)
	if err != nil || v.OK || v.Reason != "claude_not_found" {
		t.Fatalf("claude only on this process's PATH: %+v %v", v, err)
	}

	// An unreadable environment leaves this process's values.
	r := h2.resolver()
	r.SessionEnviron = func(int) ([]string, error) { return nil, os.ErrPermission }
	if v, err = r.Resolve(context.Background(), sid, pid); err != nil || !v.OK {
		t.Fatalf("unreadable session environment: %+v %v", v, err)
	}
}

// TestNoVerdict: a forgectl that cannot answer is never read as a yes.
func TestNoVerdict(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, forgectl, want string
	}{
		{"older forgectl without --json",
			script("old", "echo 'forgectl: error: flag provided but not defined: -json' >&2\nexit 2\n"),
			"gave no verdict (exit 2: flag provided but not defined: -json)"},
		{"ok verdict with a failing exit",
			script("liar", `echo '{"ok":true,"exit_code":0,"session_id":"`+sid+`","argv":[]}'`+"\nexit 1\n"),
			"disagrees with its exit status 1"},
		{"another session resolved",
			script("other", `echo '{"ok":true,"exit_code":0,"session_id":"someone-else","argv":[]}'`+"\n"),
			`resolved session "someone-else"`},
		{"missing", filepath.Join(dir, "nope"), "cannot run"},
		// Its sleeps outlast poll.Long: a call that was not killed at its
		// bound takes longer than that, however busy the machine.
		{"hangs, with a child holding its output", script("hang", "sleep 120 &\nsleep 120\n"), "did not answer within 300ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			// Only the hang is meant to meet the bound; the others answer,
			// however long a busy machine takes to start a shell.
			timeout := poll.Long
			if strings.Contains(tc.want, "did not answer") {
				timeout = 300 * time.Millisecond
			}
			r := Resolver{Forgectl: tc.forgectl, Timeout: timeout, SessionEnviron: func(int) ([]string, error) { return nil, os.ErrNotExist }}
			_, err := r.Resolve(context.Background(), sid, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if took := time.Since(start); took > poll.Long {
				t.Errorf("the call was not killed at its bound (took %s)", took)
			}
		})
	}
}
