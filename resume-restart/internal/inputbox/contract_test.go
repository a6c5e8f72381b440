//go:build contract

package inputbox

// The contract test reads the real Claude Code CLI's screen, captured with
// its styling (tmux capture-pane -e, as herdr pane read --ansi gives it),
// in the states a restart meets: idle, a typed draft, a task list above the
// box and hints below it, a renamed box, a busy reply, a narrow terminal.
// The CLI is installed by tools/contract/cmd/install-claude (cached outside
// the repository) and talks to tools/fakeapi on loopback.
//
//	go test -tags contract -run Contract ./internal/inputbox/

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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

const (
	contractWait = 60 * time.Second
	contractPoll = poll.Every(200 * time.Millisecond)
	// The CLI asks once per key whether to use it; the approval is keyed by
	// the last 20 characters.
	contractKey = "sk-ant-api03-contract-test-not-a-real-key-0123456789abcdefghij"
)

func TestContractInputBoxOnRealScreens(t *testing.T) {
	tools, err := filepath.Abs(filepath.Join("..", "..", "..", "tools"))
	if err != nil {
		t.Fatal(err)
	}
	versions := installClaude(t, tools)
	api := startFakeAPI(t, tools)
	for _, v := range versions {
		t.Run(v.version, func(t *testing.T) { checkScreens(t, v.binary, api) })
	}
	// A user's status line drawn below the box, shaped like a context meter
	// of rule characters: it must not be taken for the box's bottom rule.
	t.Run(versions[0].version+"-statusline", func(t *testing.T) {
		b := startBox(t, versions[0].binary, api, `{"statusLine":{"type":"command","command":"printf '%s 12k/200k (6%%)' ────────────────────────"}}`)
		b.waitScreen("the status line", func(s string) bool { return strings.Contains(s, "12k/200k") })
		if got := Read(b.capture("-e")); got.Verdict != Empty {
			t.Errorf("idle with a meter status line: %v (%s); screen:\n%s", got.Verdict, got.Reason, b.capture())
		}
		b.tmux("send-keys", "-t", b.pane, "-l", "draft above a meter")
		b.waitScreen("the typed text", func(s string) bool { return strings.Contains(s, "draft above a meter") })
		if got := Read(b.capture("-e")); got.Verdict != Draft {
			t.Errorf("a draft above a meter status line: %v (%s); screen:\n%s", got.Verdict, got.Reason, b.capture())
		}
	})
}

type installed struct{ version, binary string }

// installClaude runs the suite's installer (idempotent, cached) and reads
// its "<version> <path>" lines.
func installClaude(t *testing.T, tools string) []installed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./contract/cmd/install-claude")
	cmd.Dir = tools
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("install-claude: %v\n%s", err, stderr.String())
	}
	var vs []installed
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "SKIPPED:") {
			// The registry or the network is unavailable: the only skip.
			t.Skip(line)
		}
		if v, p, ok := strings.Cut(line, " "); ok {
			vs = append(vs, installed{v, p})
		}
	}
	if len(vs) == 0 {
		t.Fatalf("install-claude printed no binary:\n%s", out)
	}
	return vs
}

// startFakeAPI builds and runs the loopback stand-in, returning its URL.
func startFakeAPI(t *testing.T, tools string) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakeapi")
	build := exec.Command("go", "build", "-o", bin, "./fakeapi/cmd/fakeapi")
	build.Dir = tools
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build fakeapi: %v\n%s", err, out)
	}
	urlFile := filepath.Join(dir, "url")
	cmd := exec.Command(bin, "-url-file", urlFile, "-record", filepath.Join(dir, "requests.jsonl"), "-slow", "8s", "-lifetime", "10m")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	var url string
	poll.Every(50*time.Millisecond).Until(t, 20*time.Second, "fakeapi to start", func() (bool, string) {
		b, err := os.ReadFile(urlFile)
		url = strings.TrimSpace(string(b))
		return err == nil, ""
	})
	return url
}

// box is one real claude in a private tmux server.
type box struct {
	t    *testing.T
	sock string
	env  []string
	home string
	pane string
	pid  int
}

func checkScreens(t *testing.T, claude, api string) {
	b := startBox(t, claude, api, "")

	// FORGECTL_CONTRACT_SCREENS=<dir> keeps every screen read, to refresh
	// the testdata corpus from the real CLI.
	keep := os.Getenv("FORGECTL_CONTRACT_SCREENS")
	n := 0
	step := func(what string, want Verdict) {
		t.Helper()
		screen := b.capture("-e")
		if keep != "" {
			n++
			name := fmt.Sprintf("%s-%02d-%s.ansi", filepath.Base(t.Name()), n, strings.ReplaceAll(what, " ", "-"))
			if err := os.MkdirAll(keep, 0o700); err == nil {
				os.WriteFile(filepath.Join(keep, name), []byte(screen), 0o600)
			}
		}
		if got := Read(screen); got.Verdict != want {
			t.Errorf("%s: %v (%s), want %v; screen:\n%s", what, got.Verdict, got.Reason, want, b.capture())
		}
	}
	draft := func(text string) {
		t.Helper()
		b.tmux("send-keys", "-t", b.pane, "-l", text)
		b.waitScreen("the typed text", func(s string) bool { return strings.Contains(flat(s), flat(text)) })
	}
	clear := func(text string) {
		t.Helper()
		for range []rune(text) {
			b.tmux("send-keys", "-t", b.pane, "BSpace")
		}
		b.waitScreen("the draft erased", func(s string) bool { return lastPromptLine(s) == "" })
	}

	step("the idle screen after start", Empty)
	const d1 = "a draft that must survive"
	draft(d1)
	step("a typed draft", Draft)
	clear(d1)
	step("the draft erased", Empty)

	// A task list drawn above the box and "ctrl+t to hide tasks" below it.
	b.submit("tasks: Check the box; Read the status")
	b.waitScreen("the task list", func(s string) bool { return strings.Contains(s, "Created 2 tasks") })
	b.waitStatus("idle")
	step("idle with a task list", Empty)

	// A renamed session draws its name into the box's top rule.
	b.submit("/rename Box reader")
	b.waitScreen("the rename", func(s string) bool { return strings.Contains(s, "Session renamed to: Box reader") })
	step("a renamed box", Empty)
	const d2 = "draft under a named box"
	draft(d2)
	step("a draft in a renamed box", Draft)
	clear(d2)

	// Busy: a spinner and interrupt hint around the box.
	b.submit("this reply will be slow")
	b.waitStatus("busy")
	step("busy with an empty box", Empty)
	const d3 = "typed while it was busy"
	draft(d3)
	step("a draft typed while busy", Draft)
	clear(d3)
	b.waitScreen("the slow reply", func(s string) bool { return strings.Contains(s, "slow on purpose") })
	b.waitStatus("idle")
	step("idle after the slow reply", Empty)

	// A narrow terminal wraps the status line and the draft.
	b.tmux("resize-window", "-t", b.pane, "-x", "80", "-y", "30")
	// tmux reflows the old screen at once and the CLI redraws after: wait
	// for the screen to hold still.
	prev, same := "", 0
	b.waitScreen("the narrow redraw", func(s string) bool {
		if s == prev {
			same++
		} else {
			prev, same = s, 0
		}
		return same >= 5 && strings.Contains(s, "❯")
	})
	b.waitStatus("idle")
	step("idle at 80 columns", Empty)
	const d4 = "a long draft that wraps across more than one line of the input box at eighty columns wide"
	draft(d4)
	step("a wrapped draft at 80 columns", Draft)
	clear(d4)
	step("the wrapped draft erased", Empty)
}

// lastPromptLine is what follows the last ❯ on the plain screen; a wrapped
// draft's later lines do not start with ❯, so only the empty box reads "".
func lastPromptLine(s string) string {
	last := "?"
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "❯"); ok {
			last = strings.TrimSpace(strings.ReplaceAll(rest, "\u00a0", " "))
			if last == "" && i+1 < len(lines) && !strings.Contains(lines[i+1], "─") {
				last = strings.TrimSpace(lines[i+1]) // a wrapped draft continues below
			}
		}
	}
	return last
}

// flat drops spaces and line breaks, so wrapped text still matches.
func flat(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\u00a0' {
			return -1
		}
		return r
	}, s)
}

// startBox starts claude in a fresh HOME; settings, when not empty, is
// written as ~/.claude/settings.json.
func startBox(t *testing.T, claude, api, settings string) *box {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "cc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	repo := filepath.Join(home, "src", "box-repo")
	if err := os.MkdirAll(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{contractKey[len(contractKey)-20:]}, "rejected": []string{}},
		"projects":               map[string]any{repo: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	}
	js, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), js, 0o600); err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// An explicit socket in the scratch TMPDIR, removed with it.
	b := &box{t: t, sock: filepath.Join(tmp, "tmux"), home: home}
	b.env = []string{
		"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "TERM=xterm-256color", "LANG=C.UTF-8", "TMPDIR=" + tmp,
		"SHELL=/bin/bash", "ANTHROPIC_API_KEY=" + contractKey, "ANTHROPIC_BASE_URL=" + api,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
	}
	out := b.tmux("new-session", "-d", "-s", "box", "-x", "160", "-y", "50", "-P", "-F", "#{pane_id} #{pane_pid}",
		"-c", repo, "/bin/sh", "-c", `exec "$0" "$@"`, claude)
	f := strings.Fields(out)
	if len(f) != 2 {
		t.Fatalf("new-session said %q", out)
	}
	b.pane = f[0]
	if b.pid, err = strconv.Atoi(f[1]); err != nil {
		t.Fatalf("new-session said %q", out)
	}
	t.Cleanup(b.stop)
	b.waitStatus("idle")
	b.waitScreen("the input box", func(s string) bool { return strings.Contains(s, "❯") })
	return b
}

// stop ends the tmux server (SIGHUP to claude), then kills claude by pid if
// it is somehow still there.
func (b *box) stop() {
	exec.Command("tmux", "-S", b.sock, "kill-server").Run()
	if !poll.Every(100*time.Millisecond).Wait(10*time.Second, func() bool { return syscall.Kill(b.pid, 0) != nil }) {
		syscall.Kill(b.pid, syscall.SIGKILL)
	}
}

func (b *box) tmux(args ...string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", b.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = b.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (b *box) capture(flags ...string) string {
	b.t.Helper()
	return b.tmux(append([]string{"capture-pane", "-p", "-t", b.pane}, flags...)...)
}

func (b *box) waitScreen(what string, ok func(string) bool) {
	b.t.Helper()
	contractPoll.Until(b.t, contractWait, what+" on screen", func() (bool, string) {
		s := b.capture()
		return ok(s), s
	})
}

// waitStatus waits for the CLI's own registry file to report status.
func (b *box) waitStatus(status string) {
	b.t.Helper()
	path := filepath.Join(b.home, ".claude", "sessions", fmt.Sprintf("%d.json", b.pid))
	if !contractPoll.Wait(contractWait, func() bool {
		var r struct {
			Status string `json:"status"`
		}
		data, err := os.ReadFile(path)
		return err == nil && json.Unmarshal(data, &r) == nil && r.Status == status
	}) {
		b.t.Fatalf("claude not %s within %v; screen:\n%s", status, contractWait, b.capture())
	}
}

// submit types a line and sends it once the box shows it.
func (b *box) submit(text string) {
	b.t.Helper()
	b.tmux("send-keys", "-t", b.pane, "-l", text)
	b.waitScreen("the typed line", func(s string) bool { return strings.Contains(flat(s), flat(text)) })
	b.tmux("send-keys", "-t", b.pane, "Enter")
}
