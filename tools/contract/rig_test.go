//go:build contract

package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/poll"

	"forgectl.dev/tools/contract/tmuxrig"
)

// apiKey is a dummy: the stand-in never checks it, but the CLI wants one
// and asks, once per key, whether to use it. The approval is keyed by the
// key's last 20 characters.
const apiKey = "sk-ant-api03-contract-test-not-a-real-key-0123456789abcdefghij"

// home is one throwaway HOME with its own tmux server.
type home struct {
	*tmuxrig.Rig
	t      *testing.T
	s      *suite
	dir    string
	claude string // ~/.claude
	bin    string // holds the "claude" that PATH finds
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
	h := &home{Rig: &tmuxrig.Rig{T: t, Home: dir, Sock: filepath.Join(tmp, "tmux")},
		t: t, s: s, dir: dir, claude: filepath.Join(dir, ".claude"), bin: filepath.Join(dir, "bin")}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Cleanup(h.cleanup)

	tmuxrig.MustMkdir(t, h.bin)
	tmuxrig.MustMkdir(t, h.claude)
	if err := os.Symlink(s.claude[s.current], filepath.Join(h.bin, "claude")); err != nil {
		t.Fatal(err)
	}
	tmuxrig.WriteFile(t, filepath.Join(dir, ".gitconfig"), "[user]\n\tname = Contract Test\n\temail = contract@example.invalid\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
	h.Env = []string{
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
	tmuxrig.WriteFile(h.t, path, string(b))
}

// forgectl runs the built forgectl from HOME.
func (h *home) forgectl(args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	return h.Run(h.dir, "", filepath.Join(h.s.bin, "forgectl"), args...)
}

// repo makes a real git repository at ~/src/<name> with one commit, checked
// out on branch.
func (h *home) repo(name, branch string) string {
	h.t.Helper()
	dir := h.Repo(name)
	if branch != "main" {
		h.Git(dir, "checkout", "-q", "-b", branch)
	}
	return dir
}

// worktree adds a linked worktree of repo at ~/src/<name> on a new branch.
func (h *home) worktree(repo, name, branch string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, "src", name)
	h.Git(repo, "worktree", "add", "-q", "-b", branch, dir)
	return dir
}

// pane is one tmux pane of the home running claude, forgectl or a helper.
type pane struct {
	*tmuxrig.Pane
	h *home
}

// newPane starts argv in dir in a new window.
func (h *home) newPane(dir string, argv ...string) *pane {
	h.t.Helper()
	return &pane{Pane: h.NewPane(dir, argv...), h: h}
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
	p.Literal(s)
	p.WaitScreen("typed text "+strconv.Quote(s), 20*time.Second, func(sc string) bool {
		line, ok := inputLine(sc)
		return ok && strings.Contains(strings.ReplaceAll(line, " ", ""), strings.ReplaceAll(s, " ", ""))
	})
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
	return filepath.Join(p.h.claude, "sessions", strconv.Itoa(p.Pid)+".json")
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
	if !tmuxrig.Poll.Wait(timeout, func() bool {
		r, ok = p.registry()
		if ok && r.Status == "idle" {
			if _, box := inputLine(p.Screen()); box {
				return true
			}
		}
		if p.Dead() {
			p.h.t.Fatalf("pane %s: claude exited while waiting for %s; screen:\n%s", p.ID, what, p.Screen())
		}
		return false
	}) {
		p.h.t.Fatalf("pane %s: %s: claude not idle within %v (registry %+v, found %v); screen:\n%s", p.ID, what, timeout, r, ok, p.Screen())
	}
	return r
}

// startClaude runs the given claude binary in dir and waits for its input
// box.
func (h *home) startClaude(dir, binary string, args ...string) *pane {
	h.t.Helper()
	p := h.newPane(dir, append([]string{binary}, args...)...)
	p.waitIdle("start", tmuxrig.StartWait)
	return p
}

// prompt submits text and waits for the reply that contains want.
func (p *pane) prompt(text, want string) registry {
	p.h.t.Helper()
	p.typeText(text)
	p.Keys("Enter")
	p.WaitScreen("reply "+strconv.Quote(want), tmuxrig.TurnWait, func(s string) bool { return strings.Contains(s, want) })
	r := p.waitIdle("end of turn after "+strconv.Quote(text), tmuxrig.TurnWait)
	p.h.waitPromptRow(r.SessionID, text)
	return r
}

// waitPromptRow waits for the transcript to hold the prompt's user row.
// The CLI writes the transcript behind the screen and the registry: right
// after it says idle, the file may not exist yet. (Its last-prompt row can
// come later still: after a resume or a fork it was seen only at exit.)
func (h *home) waitPromptRow(id, text string) {
	h.t.Helper()
	tmuxrig.Poll.Until(h.t, tmuxrig.TurnWait, fmt.Sprintf("the transcript of %s to record the prompt %q", id, text), func() (bool, string) {
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
	p.Keys("Enter")
	p.WaitScreen(cmd, tmuxrig.TurnWait, func(s string) bool { return strings.Contains(s, want) })
}

// exit quits claude with /exit and waits for the process and its registry
// file to go.
func (p *pane) exit() {
	p.h.t.Helper()
	p.typeText("/exit")
	p.Keys("Enter")
	if !tmuxrig.Poll.Wait(tmuxrig.ExitWait, func() bool { return p.Dead() && !tmuxrig.Alive(p.Pid) }) {
		p.h.t.Fatalf("pane %s: claude did not exit; screen:\n%s", p.ID, p.Screen())
	}
	if _, err := os.Stat(p.registryPath()); err == nil {
		p.h.t.Errorf("registry file %s left behind by a clean exit", p.registryPath())
	}
}

// cleanup ends the tmux server (its panes get SIGHUP) and then kills, by
// pid, any process this home started that is still there.
func (h *home) cleanup() {
	h.KillServer()
	pids := append([]int(nil), h.Pids...)
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
		if !poll.Every(100*time.Millisecond).Wait(time.Until(deadline), func() bool { return !tmuxrig.Alive(pid) }) {
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
