// Package tmuxrig is what the two contract suites (tools/contract for the
// real Claude Code, tools/contract/codex for the real Codex CLI) share to
// drive a real CLI: a throwaway home's private tmux server and its panes,
// bounded processes run with the home's environment, git repositories, and
// the suites' common TestMain. Each suite keeps what is its own (Claude's
// trust file and worktrees; Codex's daemon, composer and rename box).
package tmuxrig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

// Waits are generous because the real CLIs are slow to start (each maps a
// binary of a few hundred megabytes) and the machine is shared; each is
// still bounded so that a broken run fails instead of hanging.
const (
	StartWait = 60 * time.Second
	TurnWait  = 60 * time.Second
	ExitWait  = 30 * time.Second
	Poll      = poll.Every(200 * time.Millisecond)
)

// Rig is one throwaway home's runner: its environment (the one copy, which
// tests may swap for a while) and its private tmux server.
type Rig struct {
	T    testing.TB
	Home string // HOME
	Env  []string
	// Sock is an explicit socket path in the scratch TMPDIR, removed with
	// it (-L would leave a socket file behind in the shared /tmp/tmux-<uid>).
	Sock string
	// Pids are the processes the home started, for its cleanup to end.
	Pids []int
	tmux bool // server started
}

// MustMkdir makes dir and its parents, failing the test on error.
func MustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes content at path, making its folder.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	MustMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Run runs a program with the home's environment, bounded.
func (r *Rig) Run(dir, stdin, name string, args ...string) (stdout, stderr string, code int) {
	r.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = r.Env
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		r.T.Fatalf("%s %v: %v", name, args, err)
	}
	if ctx.Err() != nil {
		r.T.Fatalf("%s %v: did not finish in time; stderr: %s", name, args, e.String())
	}
	return o.String(), e.String(), code
}

// Git runs git in dir and fails the test on error.
func (r *Rig) Git(dir string, args ...string) string {
	r.T.Helper()
	out, errOut, code := r.Run(dir, "", "git", args...)
	if code != 0 {
		r.T.Fatalf("git %v: exit %d: %s", args, code, errOut)
	}
	return strings.TrimSpace(out)
}

// Repo makes a real git repository at ~/src/<name> with one commit on the
// default branch the home's .gitconfig names.
func (r *Rig) Repo(name string) string {
	r.T.Helper()
	dir := filepath.Join(r.Home, "src", name)
	MustMkdir(r.T, dir)
	r.Git(dir, "init", "-q")
	WriteFile(r.T, filepath.Join(dir, "README.md"), "# "+name+"\n")
	r.Git(dir, "add", "README.md")
	r.Git(dir, "commit", "-q", "-m", "initial commit")
	return dir
}

// TmuxCmd runs one command against the home's private tmux server.
func (r *Rig) TmuxCmd(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", r.Sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = r.Env
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %v: %v: %s", args, err, out)
	}
	return string(out), nil
}

// MustTmux is TmuxCmd failing the test on error.
func (r *Rig) MustTmux(args ...string) string {
	r.T.Helper()
	out, err := r.TmuxCmd(args...)
	if err != nil {
		r.T.Fatal(err)
	}
	return out
}

// StartTmux starts the server with a placeholder session that keeps it up
// (new windows take its 160x50 size), and keeps dead panes so that what a
// program printed on exit can be read. (window-size manual would crash
// tmux 3.3a on the next new-window when no client is attached.)
func (r *Rig) StartTmux() {
	r.T.Helper()
	if r.tmux {
		return
	}
	r.MustTmux("new-session", "-d", "-s", "keep", "-x", "160", "-y", "50", "sleep", "3600")
	r.tmux = true
	r.MustTmux("set-option", "-g", "remain-on-exit", "on")
}

// KillServer ends the tmux server, if it was started (its panes get
// SIGHUP).
func (r *Rig) KillServer() {
	if r.tmux {
		r.TmuxCmd("kill-server")
	}
}

// Pane is one tmux pane running a program started directly (exec'd by sh,
// so the pane's pid is the program's).
type Pane struct {
	Rig *Rig
	ID  string
	Pid int
}

// NewPane starts argv in dir in a new window.
func (r *Rig) NewPane(dir string, argv ...string) *Pane {
	r.T.Helper()
	r.StartTmux()
	args := []string{"new-window", "-d", "-t", "keep", "-P", "-F", "#{pane_id} #{pane_pid}", "-c", dir,
		"/bin/sh", "-c", `exec "$0" "$@"`}
	out := r.MustTmux(append(args, argv...)...)
	f := strings.Fields(out)
	if len(f) != 2 {
		r.T.Fatalf("new-window said %q", out)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		r.T.Fatalf("new-window said %q", out)
	}
	r.Pids = append(r.Pids, pid)
	return &Pane{Rig: r, ID: f[0], Pid: pid}
}

// Screen is the visible pane as text.
func (p *Pane) Screen() string {
	out, _ := p.Rig.TmuxCmd("capture-pane", "-p", "-t", p.ID)
	return out
}

// Dead reports whether the pane's program has exited.
func (p *Pane) Dead() bool {
	out, err := p.Rig.TmuxCmd("display-message", "-p", "-t", p.ID, "#{pane_dead}")
	return err != nil || strings.TrimSpace(out) == "1"
}

func (p *Pane) Kill() { p.Rig.TmuxCmd("kill-pane", "-t", p.ID) }

// Keys sends tmux key names to the pane.
func (p *Pane) Keys(keys ...string) {
	p.Rig.T.Helper()
	p.Rig.MustTmux(append([]string{"send-keys", "-t", p.ID}, keys...)...)
}

// Literal types s into the pane as it is.
func (p *Pane) Literal(s string) {
	p.Rig.T.Helper()
	p.Rig.MustTmux("send-keys", "-t", p.ID, "-l", s)
}

// WaitScreen polls the screen until ok says yes.
func (p *Pane) WaitScreen(what string, timeout time.Duration, ok func(string) bool) string {
	p.Rig.T.Helper()
	var s string
	Poll.Until(p.Rig.T, timeout, fmt.Sprintf("pane %s: %s", p.ID, what), func() (bool, string) {
		s = p.Screen()
		return ok(s), s
	})
	return s
}

// WaitScreenLive is WaitScreen whose failure says so when the pane's
// program has exited.
func (p *Pane) WaitScreenLive(what string, timeout time.Duration, ok func(string) bool) string {
	p.Rig.T.Helper()
	var s string
	Poll.Until(p.Rig.T, timeout, fmt.Sprintf("pane %s: %s", p.ID, what), func() (bool, string) {
		s = p.Screen()
		if !ok(s) && p.Dead() {
			return false, "the pane's program exited; screen:\n" + s
		}
		return ok(s), s
	})
	return s
}

// Alive reports whether pid is a live process; a zombie is gone for every
// purpose here.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// PidFile reads a pid file ({"pid":N,…}); 0 when there is none.
func PidFile(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var v struct {
		Pid int `json:"pid"`
	}
	if json.Unmarshal(b, &v) != nil {
		return 0
	}
	return v.Pid
}

// Run is the body of a contract suite's TestMain, which exits with what it
// returns: tmux must be installed; setup has ten minutes to install the
// CLIs and build what the suite needs; it returns the suite's work folder,
// or a reason to skip (printed as "SKIPPED: ...", a success). After the
// tests, teardown runs, and the work folder is kept when a test failed or
// FORGECTL_CONTRACT_KEEP is set. name prefixes the messages. It returns
// rather than exits, so that whatever the caller deferred still runs.
func Run(m *testing.M, name string, setup func(context.Context) (work, skip string, err error), teardown func()) int {
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Fprintln(os.Stderr, name+": error: tmux is needed: "+err.Error())
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	work, skip, err := setup(ctx)
	cancel()
	if skip != "" {
		fmt.Println("SKIPPED: " + skip)
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+": error: "+err.Error())
		return 1
	}
	code := m.Run()
	teardown()
	if code != 0 || os.Getenv("FORGECTL_CONTRACT_KEEP") != "" {
		fmt.Printf("%s: kept %s (requests.jsonl holds every API request)\n", name, work)
	} else {
		os.RemoveAll(work)
	}
	return code
}

// WorkDir makes the suite's work folder under the system's temporary one
// (short paths, kept on failure), with symlinks resolved.
func WorkDir(prefix string) (string, error) {
	work, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(work)
}
