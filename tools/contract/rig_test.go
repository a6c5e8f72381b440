//go:build contract

package contract

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

// Waits are generous because the real CLI is slow to start (it maps a
// binary of a few hundred megabytes) and the machine is shared; each is
// still bounded so that a broken run fails instead of hanging.
const (
	startWait  = 60 * time.Second
	turnWait   = 60 * time.Second
	exitWait   = 30 * time.Second
	screenPoll = poll.Every(200 * time.Millisecond)
)

// apiKey is a dummy: the stand-in never checks it, but the CLI wants one
// and asks, once per key, whether to use it. The approval is keyed by the
// key's last 20 characters.
const apiKey = "sk-ant-api03-contract-test-not-a-real-key-0123456789abcdefghij"

// home is one throwaway HOME with its own tmux server.
type home struct {
	t      *testing.T
	s      *suite
	dir    string
	claude string // ~/.claude
	bin    string // holds the "claude" that PATH finds
	env    []string
	sock   string
	tmux   bool // server started
	pids   []int
}

func newHome(t *testing.T) *home {
	t.Helper()
	s := theSuite
	// Under the suite's work dir rather than t.TempDir: it is kept when a
	// test fails, for a look at what the real CLI wrote.
	dir, err := os.MkdirTemp(s.work, strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	// A short TMPDIR: the CLI puts a unix socket under it, and t.TempDir
	// paths can run long.
	tmp, err := os.MkdirTemp("", "cc")
	if err != nil {
		t.Fatal(err)
	}
	h := &home{t: t, s: s, dir: dir, claude: filepath.Join(dir, ".claude"), bin: filepath.Join(dir, "bin")}
	// An explicit socket path in the scratch TMPDIR, removed with it (-L
	// would leave a socket file behind in the shared /tmp/tmux-<uid>).
	h.sock = filepath.Join(tmp, "tmux")
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Cleanup(h.cleanup)

	mustMkdir(t, h.bin)
	mustMkdir(t, h.claude)
	if err := os.Symlink(s.claude[s.current], filepath.Join(h.bin, "claude")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".gitconfig"), "[user]\n\tname = Contract Test\n\temail = contract@example.invalid\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
	h.env = []string{
		"HOME=" + dir,
		"PATH=" + s.bin + ":" + h.bin + ":/usr/local/bin:/usr/bin:/bin",
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"TMPDIR=" + tmp,
		"SHELL=/bin/bash",
		"GIT_CONFIG_NOSYSTEM=1",
		"ANTHROPIC_API_KEY=" + apiKey,
		"ANTHROPIC_BASE_URL=" + s.api.URL(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
	}
	h.trust() // onboarding, even before any project is trusted
	return h
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// trust pre-seeds ~/.claude.json so that the input box appears with no
// dialog: onboarding done, the dummy key approved, and each directory
// trusted. Trust is per exact directory (a trusted parent does not count),
// so every cwd a session will use must be listed. Call it only while no
// claude runs: the CLI rewrites this file.
func (h *home) trust(dirs ...string) {
	h.t.Helper()
	path := filepath.Join(h.dir, ".claude.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &cfg); err != nil {
			h.t.Fatalf("%s: %v", path, err)
		}
	}
	cfg["hasCompletedOnboarding"] = true
	cfg["theme"] = "dark"
	cfg["customApiKeyResponses"] = map[string]any{"approved": []string{apiKey[len(apiKey)-20:]}, "rejected": []string{}}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	for _, d := range dirs {
		p, _ := projects[d].(map[string]any)
		if p == nil {
			p = map[string]any{}
		}
		p["hasTrustDialogAccepted"] = true
		p["hasCompletedProjectOnboarding"] = true
		projects[d] = p
	}
	cfg["projects"] = projects
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	writeFile(h.t, path, string(b))
}

// run runs a program with the home's environment, bounded.
func (h *home) run(dir string, stdin string, name string, args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = h.env
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
		h.t.Fatalf("%s %v: %v", name, args, err)
	}
	if ctx.Err() != nil {
		h.t.Fatalf("%s %v: did not finish in time; stderr: %s", name, args, e.String())
	}
	return o.String(), e.String(), code
}

// forgectl runs the built forgectl from HOME.
func (h *home) forgectl(args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	return h.run(h.dir, "", filepath.Join(h.s.bin, "forgectl"), args...)
}

// git runs git in dir and fails the test on error.
func (h *home) git(dir string, args ...string) string {
	h.t.Helper()
	out, errOut, code := h.run(dir, "", "git", args...)
	if code != 0 {
		h.t.Fatalf("git %v: exit %d: %s", args, code, errOut)
	}
	return strings.TrimSpace(out)
}

// repo makes a real git repository at ~/src/<name> with one commit, checked
// out on branch.
func (h *home) repo(name, branch string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, "src", name)
	mustMkdir(h.t, dir)
	h.git(dir, "init", "-q")
	writeFile(h.t, filepath.Join(dir, "README.md"), "# "+name+"\n")
	h.git(dir, "add", "README.md")
	h.git(dir, "commit", "-q", "-m", "initial commit")
	if branch != "main" {
		h.git(dir, "checkout", "-q", "-b", branch)
	}
	return dir
}

// worktree adds a linked worktree of repo at ~/src/<name> on a new branch.
func (h *home) worktree(repo, name, branch string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, "src", name)
	h.git(repo, "worktree", "add", "-q", "-b", branch, dir)
	return dir
}

// tmuxCmd runs one command against the home's private tmux server.
func (h *home) tmuxCmd(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", h.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = h.env
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %v: %v: %s", args, err, out)
	}
	return string(out), nil
}

func (h *home) mustTmux(args ...string) string {
	h.t.Helper()
	out, err := h.tmuxCmd(args...)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// startTmux starts the server with a placeholder session that keeps it up
// (new windows take its 160x50 size), and keeps dead panes so that what a
// program printed on exit can be read. (window-size manual would crash
// tmux 3.3a on the next new-window when no client is attached.)
func (h *home) startTmux() {
	h.t.Helper()
	if h.tmux {
		return
	}
	h.mustTmux("new-session", "-d", "-s", "keep", "-x", "160", "-y", "50", "sleep", "3600")
	h.tmux = true
	h.mustTmux("set-option", "-g", "remain-on-exit", "on")
}

// pane is one tmux pane running a program started directly (exec'd by sh,
// so the pane's pid is the program's).
type pane struct {
	h   *home
	id  string
	pid int
}

// newPane starts argv in dir in a new window.
func (h *home) newPane(dir string, argv ...string) *pane {
	h.t.Helper()
	h.startTmux()
	args := []string{"new-window", "-d", "-t", "keep", "-P", "-F", "#{pane_id} #{pane_pid}", "-c", dir,
		"/bin/sh", "-c", `exec "$0" "$@"`}
	out := h.mustTmux(append(args, argv...)...)
	f := strings.Fields(out)
	if len(f) != 2 {
		h.t.Fatalf("new-window said %q", out)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		h.t.Fatalf("new-window said %q", out)
	}
	h.pids = append(h.pids, pid)
	return &pane{h: h, id: f[0], pid: pid}
}

// screen is the visible pane as text; ansi keeps the SGR styling.
func (p *pane) screen() string {
	out, _ := p.h.tmuxCmd("capture-pane", "-p", "-t", p.id)
	return out
}

func (p *pane) ansi() string {
	out, _ := p.h.tmuxCmd("capture-pane", "-p", "-e", "-t", p.id)
	return out
}

func (p *pane) dead() bool {
	out, err := p.h.tmuxCmd("display-message", "-p", "-t", p.id, "#{pane_dead}")
	return err != nil || strings.TrimSpace(out) == "1"
}

// waitScreen polls the screen until ok says yes.
func (p *pane) waitScreen(what string, timeout time.Duration, ok func(string) bool) string {
	p.h.t.Helper()
	var s string
	screenPoll.Until(p.h.t, timeout, fmt.Sprintf("pane %s: %s", p.id, what), func() (bool, string) {
		s = p.screen()
		return ok(s), s
	})
	return s
}

// inputLine is the text of the ❯ line between the last two rules, "" when
// no input box shows.
func inputLine(screen string) (string, bool) {
	lines := strings.Split(screen, "\n")
	var rules []int
	for i, l := range lines {
		if strings.Count(l, "─") >= 20 && !strings.Contains(l, "│") {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return "", false
	}
	top, bottom := rules[len(rules)-2], rules[len(rules)-1]
	var box []string
	for _, l := range lines[top+1 : bottom] {
		box = append(box, strings.TrimSpace(l))
	}
	first := strings.Join(box, " ")
	rest, ok := strings.CutPrefix(first, "❯")
	if !ok {
		return "", false
	}
	return strings.TrimSpace(strings.ReplaceAll(rest, "\u00a0", " ")), true
}

// typeText types s into the pane and waits until the input box shows it.
func (p *pane) typeText(s string) {
	p.h.t.Helper()
	p.h.mustTmux("send-keys", "-t", p.id, "-l", s)
	p.waitScreen("typed text "+strconv.Quote(s), 20*time.Second, func(sc string) bool {
		line, ok := inputLine(sc)
		return ok && strings.Contains(strings.ReplaceAll(line, " ", ""), strings.ReplaceAll(s, " ", ""))
	})
}

func (p *pane) keys(keys ...string) {
	p.h.t.Helper()
	p.h.mustTmux(append([]string{"send-keys", "-t", p.id}, keys...)...)
}

// registry is the part of ~/.claude/sessions/<pid>.json the tests use.
type registry struct {
	Pid       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Version   string `json:"version"`
	Status    string `json:"status"`
	Name      string `json:"name"`
	Tmux      string `json:"tmux"`
	ProcStart string `json:"procStart"`
}

func (p *pane) registryPath() string {
	return filepath.Join(p.h.claude, "sessions", strconv.Itoa(p.pid)+".json")
}

// registry reads the pane's claude's registry file.
func (p *pane) registry() (registry, bool) {
	b, err := os.ReadFile(p.registryPath())
	if err != nil {
		return registry{}, false
	}
	var r registry
	if json.Unmarshal(b, &r) != nil {
		return registry{}, false
	}
	return r, true
}

// waitIdle waits for the pane's claude to be registered idle with its input
// box on screen.
func (p *pane) waitIdle(what string, timeout time.Duration) registry {
	p.h.t.Helper()
	var r registry
	var ok bool
	if !screenPoll.Wait(timeout, func() bool {
		r, ok = p.registry()
		if ok && r.Status == "idle" {
			if _, box := inputLine(p.screen()); box {
				return true
			}
		}
		if p.dead() {
			p.h.t.Fatalf("pane %s: claude exited while waiting for %s; screen:\n%s", p.id, what, p.screen())
		}
		return false
	}) {
		p.h.t.Fatalf("pane %s: %s: claude not idle within %v (registry %+v, found %v); screen:\n%s", p.id, what, timeout, r, ok, p.screen())
	}
	return r
}

// startClaude runs the given claude binary in dir and waits for its input
// box.
func (h *home) startClaude(dir, binary string, args ...string) *pane {
	h.t.Helper()
	p := h.newPane(dir, append([]string{binary}, args...)...)
	p.waitIdle("start", startWait)
	return p
}

// prompt submits text and waits for the reply that contains want.
func (p *pane) prompt(text, want string) registry {
	p.h.t.Helper()
	p.typeText(text)
	p.keys("Enter")
	p.waitScreen("reply "+strconv.Quote(want), turnWait, func(s string) bool { return strings.Contains(s, want) })
	r := p.waitIdle("end of turn after "+strconv.Quote(text), turnWait)
	p.h.waitPromptRow(r.SessionID, text)
	return r
}

// waitPromptRow waits for the transcript to hold the prompt's user row.
// The CLI writes the transcript behind the screen and the registry: right
// after it says idle, the file may not exist yet. (Its last-prompt row can
// come later still: after a resume or a fork it was seen only at exit.)
func (h *home) waitPromptRow(id, text string) {
	h.t.Helper()
	screenPoll.Until(h.t, turnWait, fmt.Sprintf("the transcript of %s to record the prompt %q", id, text), func() (bool, string) {
		paths, _ := filepath.Glob(filepath.Join(h.claude, "projects", "*", id+".jsonl"))
		if len(paths) == 1 {
			if b, err := os.ReadFile(paths[0]); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					var row struct {
						Type    string `json:"type"`
						Message struct {
							Content any `json:"content"`
						} `json:"message"`
					}
					if json.Unmarshal([]byte(l), &row) == nil && row.Type == "user" && row.Message.Content == text {
						return true, ""
					}
				}
			}
		}
		return false, fmt.Sprintf("files %v", paths)
	})
}

// slash runs a slash command, waiting for what it prints.
func (p *pane) slash(cmd, want string) {
	p.h.t.Helper()
	p.typeText(cmd)
	p.keys("Enter")
	p.waitScreen(cmd, turnWait, func(s string) bool { return strings.Contains(s, want) })
}

// exit quits claude with /exit and waits for the process and its registry
// file to go.
func (p *pane) exit() {
	p.h.t.Helper()
	p.typeText("/exit")
	p.keys("Enter")
	if !screenPoll.Wait(exitWait, func() bool { return p.dead() && !alive(p.pid) }) {
		p.h.t.Fatalf("pane %s: claude did not exit; screen:\n%s", p.id, p.screen())
	}
	if _, err := os.Stat(p.registryPath()); err == nil {
		p.h.t.Errorf("registry file %s left behind by a clean exit", p.registryPath())
	}
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is gone for every purpose here.
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

// cleanup ends the tmux server (its panes get SIGHUP) and then kills, by
// pid, any process this home started that is still there.
func (h *home) cleanup() {
	if h.tmux {
		h.tmuxCmd("kill-server")
	}
	pids := append([]int(nil), h.pids...)
	if entries, err := os.ReadDir(filepath.Join(h.claude, "sessions")); err == nil {
		for _, e := range entries {
			if n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json")); err == nil && strings.HasSuffix(e.Name(), ".json") {
				if started(h, n) {
					pids = append(pids, n)
				}
			}
		}
	}
	// One bound for them all: they were all told to go at once.
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		if !poll.Every(100*time.Millisecond).Wait(time.Until(deadline), func() bool { return !alive(pid) }) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// started reports whether pid's environment is this home's, so that
// cleanup never signals a process some other test or user started.
func started(h *home, pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if kv == "HOME="+h.dir {
			return true
		}
	}
	return false
}
