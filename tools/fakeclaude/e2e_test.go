package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/poll"
)

// claudeBin is fakeclaude built as "claude" by TestMain.
var claudeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeclaude-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		claudeBin = filepath.Join(dir, "claude")
		if out, err := exec.Command("go", "build", "-o", claudeBin, ".").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

const testSession = "3782e0dd-6827-4e38-b0fd-126403109db9"

// baseEnv is the test's environment without anything that would steer
// fakeclaude, plus a temporary HOME.
func baseEnv(home string, extra ...string) []string {
	override := map[string]bool{}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		override[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "FAKECLAUDE_") || strings.HasPrefix(k, "CLAUDE_") || strings.HasPrefix(k, "TMUX") || k == "HOME" || override[k] {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "HOME="+home), extra...)
}

type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	home string
	done chan struct{}
	err  error
}

// start runs fakeclaude without a terminal.
func start(t *testing.T, home string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(claudeBin, args...)
	cmd.Env = baseEnv(home, env...)
	cmd.Dir = home
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, home: home, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
		if errb.Len() > 0 {
			t.Logf("fakeclaude stderr: %s", errb.String())
		}
	})
	return p
}

func (p *proc) regPath() string {
	return filepath.Join(p.home, ".claude", "sessions", strconv.Itoa(p.cmd.Process.Pid)+".json")
}

func (p *proc) registry() (map[string]any, bool) {
	b, err := os.ReadFile(p.regPath())
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		p.t.Fatalf("registry is not JSON: %q", b)
	}
	return m, true
}

func (p *proc) waitStatus(want string) map[string]any {
	p.t.Helper()
	var m map[string]any
	settlePoll.Until(p.t, settleWait, "registry status "+want, func() (bool, string) {
		var ok bool
		m, ok = p.registry()
		return ok && m["status"] == want, fmt.Sprint(m)
	})
	return m
}

func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(poll.Long):
		p.t.Fatal("fakeclaude did not exit")
	}
	if p.err == nil {
		return 0
	}
	return p.err.(*exec.ExitError).ExitCode()
}

// settleWait bounds every wait on fakeclaude; settlePoll is how often
// each wait asks.
const (
	settleWait = poll.Long
	settlePoll = poll.Every(20 * time.Millisecond)
)

func readRecord(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("record line %q: %v", l, err)
		}
		delete(m, "time")
		out = append(out, m)
	}
	return out
}

func statField22(t *testing.T, pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[19]
}

func TestVersion(t *testing.T) {
	home := t.TempDir()
	versions := filepath.Join(home, ".local", "share", "claude", "versions")
	os.MkdirAll(versions, 0o700)
	os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o700)
	b, _ := os.ReadFile(claudeBin)
	os.WriteFile(filepath.Join(versions, "2.1.123"), b, 0o700)
	link := filepath.Join(home, ".local", "bin", "claude")
	os.Symlink(filepath.Join(versions, "2.1.123"), link)
	tests := []struct {
		bin  string
		env  []string
		args []string
		want string
	}{
		{claudeBin, nil, []string{"--version"}, defaultVersion + " (Claude Code)\n"},
		{claudeBin, []string{"FAKECLAUDE_VERSION=2.1.332"}, []string{"-v"}, "2.1.332 (Claude Code)\n"},
		{link, nil, []string{"--version"}, "2.1.123 (Claude Code)\n"},
		{link, []string{"FAKECLAUDE_VERSION=3.0.0"}, []string{"--version"}, "3.0.0 (Claude Code)\n"},
	}
	for _, tc := range tests {
		cmd := exec.Command(tc.bin, tc.args...)
		cmd.Env = baseEnv(home, tc.env...)
		out, err := cmd.Output()
		if err != nil || string(out) != tc.want {
			t.Errorf("%s %v with %v: %q, %v; want %q", tc.bin, tc.args, tc.env, out, err, tc.want)
		}
	}
}

func TestRegistryLifecycle(t *testing.T) {
	home := t.TempDir()
	record := filepath.Join(t.TempDir(), "record.jsonl")
	statusFile := filepath.Join(t.TempDir(), "status")
	p := start(t, home, []string{"FAKECLAUDE_VERSION=2.1.197", "FAKECLAUDE_RECORD=" + record,
		"FAKECLAUDE_STATUS_FILE=" + statusFile, "HTTP_PROXY=http://proxy:3128", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
		"ANTHROPIC_API_KEY=sk-secret"},
		"--model", "sonnet", "--resume", testSession, "--permission-mode", "acceptEdits")
	reg := p.waitStatus("idle")
	pid := p.cmd.Process.Pid

	b, _ := os.ReadFile(p.regPath())
	if bytes.Count(b, []byte("\n")) != 0 || !bytes.HasPrefix(b, []byte(`{"pid":`)) {
		t.Errorf("registry is not one JSON line starting with pid: %q", b)
	}
	for _, k := range []string{"startedAt", "updatedAt", "statusUpdatedAt"} {
		if ms, ok := reg[k].(float64); !ok || ms < 1e12 {
			t.Errorf("%s = %v, want epoch milliseconds", k, reg[k])
		}
		delete(reg, k)
	}
	if name, _ := reg["name"].(string); !regexp.MustCompile(`^[a-z0-9-]+-[0-9a-f]{2}$`).MatchString(name) {
		t.Errorf("name %q is not a derived name", name)
	}
	delete(reg, "name")
	want := map[string]any{
		"pid": float64(pid), "sessionId": testSession, "cwd": home, "procStart": statField22(t, pid),
		"version": "2.1.197", "peerProtocol": 1.0, "kind": "interactive", "entrypoint": "cli",
		"nameSource": "derived", "status": "idle",
	}
	if diff := cmp.Diff(want, reg); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
	fi, _ := os.Stat(p.regPath())
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("registry mode %v", fi.Mode().Perm())
	}

	syscall.Kill(pid, syscall.SIGUSR1)
	p.waitStatus("busy")
	syscall.Kill(pid, syscall.SIGUSR1)
	p.waitStatus("idle")
	os.WriteFile(statusFile, []byte("waiting\n"), 0o600)
	p.waitStatus("waiting")
	os.WriteFile(statusFile, nil, 0o600)
	p.waitStatus("idle")

	syscall.Kill(pid, syscall.SIGTERM)
	if code := p.wait(); code != 143 {
		t.Errorf("exit %d after SIGTERM, want 143", code)
	}
	if _, err := os.Stat(p.regPath()); !os.IsNotExist(err) {
		t.Errorf("registry left after SIGTERM: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(home, ".claude", "sessions", "*")); len(left) != 0 {
		t.Errorf("files left in sessions/: %v", left)
	}

	rec := readRecord(t, record)
	wantRec := []map[string]any{
		{"event": "start", "argv": []any{claudeBin, "--model", "sonnet", "--resume", testSession, "--permission-mode", "acceptEdits"},
			"args": []any{"--model", "sonnet", "--resume", testSession, "--permission-mode", "acceptEdits"},
			"cwd":  home, "pid": float64(pid), "session_id": testSession, "version": "2.1.197",
			"env": map[string]any{"HTTP_PROXY": "http://proxy:3128", "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}},
		{"event": "status", "status": "busy", "pid": float64(pid), "session_id": testSession},
		{"event": "status", "status": "idle", "pid": float64(pid), "session_id": testSession},
		{"event": "status", "status": "waiting", "pid": float64(pid), "session_id": testSession},
		{"event": "status", "status": "idle", "pid": float64(pid), "session_id": testSession},
		{"event": "exit", "reason": "SIGTERM", "pid": float64(pid), "session_id": testSession},
	}
	if diff := cmp.Diff(wantRec, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

func TestSessionIDs(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tests := []struct {
		name  string
		args  []string
		check func(string) bool
	}{
		{"fresh", nil, uuid.MatchString},
		{"resume", []string{"-r", testSession}, func(s string) bool { return s == testSession }},
		{"fork", []string{"--resume", testSession, "--fork-session"}, func(s string) bool { return s != testSession && uuid.MatchString(s) }},
		{"session-id", []string{"--session-id", "11111111-2222-4333-8444-555555555555"}, func(s string) bool { return s == "11111111-2222-4333-8444-555555555555" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, t.TempDir(), nil, tc.args...)
			reg := p.waitStatus("idle")
			if sid, _ := reg["sessionId"].(string); !tc.check(sid) {
				t.Errorf("sessionId %q", sid)
			}
		})
	}
}

func TestConfigDirAndName(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	p := start(t, home, []string{"CLAUDE_CONFIG_DIR=" + cfg}, "--name", "Login work")
	path := filepath.Join(cfg, "sessions", strconv.Itoa(p.cmd.Process.Pid)+".json")
	settlePoll.Until(t, settleWait, "registry under CLAUDE_CONFIG_DIR", func() (bool, string) {
		_, err := os.Stat(path)
		return err == nil, fmt.Sprint(err)
	})
	b, _ := os.ReadFile(path)
	if !bytes.Contains(b, []byte(`"name":"Login work","nameSource":"user"`)) {
		t.Errorf("registry %s", b)
	}
}

func TestExitsAndSignals(t *testing.T) {
	t.Run("SIGHUP", func(t *testing.T) {
		p := start(t, t.TempDir(), nil)
		p.waitStatus("idle")
		syscall.Kill(p.cmd.Process.Pid, syscall.SIGHUP)
		if code := p.wait(); code != 129 {
			t.Errorf("exit %d", code)
		}
		if _, ok := p.registry(); ok {
			t.Error("registry left after SIGHUP")
		}
	})
	t.Run("SIGINT twice", func(t *testing.T) {
		record := filepath.Join(t.TempDir(), "rec")
		p := start(t, t.TempDir(), []string{"FAKECLAUDE_RECORD=" + record})
		p.waitStatus("idle")
		// Two signals sent back to back can merge into one delivery, so keep
		// interrupting until the second one within two seconds lands.
		for exited := false; !exited; {
			syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-p.done:
				exited = true
			case <-time.After(100 * time.Millisecond):
			}
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit %d", code)
		}
		if _, ok := p.registry(); ok {
			t.Error("registry left after SIGINT twice")
		}
		rec := readRecord(t, record)
		if last := rec[len(rec)-1]; last["event"] != "exit" || last["reason"] != "interrupt" {
			t.Errorf("last record %v", last)
		}
	})
	t.Run("SIGKILL leaves the registry", func(t *testing.T) {
		p := start(t, t.TempDir(), nil)
		p.waitStatus("idle")
		p.cmd.Process.Kill()
		p.wait()
		if _, ok := p.registry(); !ok {
			t.Error("registry removed although the process was SIGKILLed")
		}
	})
	t.Run("no registry", func(t *testing.T) {
		home := t.TempDir()
		record := filepath.Join(t.TempDir(), "rec")
		p := start(t, home, []string{"FAKECLAUDE_NO_REGISTRY=1", "FAKECLAUDE_RECORD=" + record})
		settlePoll.Until(t, settleWait, "the start record", func() (bool, string) { return len(readRecord(t, record)) == 1, "" })
		if _, err := os.Stat(filepath.Join(home, ".claude")); !os.IsNotExist(err) {
			t.Errorf("~/.claude created with FAKECLAUDE_NO_REGISTRY=1: %v", err)
		}
		syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
		p.wait()
	})
	for _, args := range [][]string{{"--session-id", "nope"}, {"-p", "hello"}} {
		cmd := exec.Command(claudeBin, args...)
		cmd.Env = baseEnv(t.TempDir())
		if err := cmd.Run(); err == nil || err.(*exec.ExitError).ExitCode() != 1 {
			t.Errorf("%v: %v, want exit 1", args, err)
		}
	}
}

// tmuxTerm is a private tmux server running fakeclaude under a real shell.
type tmuxTerm struct {
	t    *testing.T
	sock string
}

func newTerm(t *testing.T, home string, env ...string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it); skipping the real-terminal test")
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	tm := &tmuxTerm{t: t, sock: "fct-" + hex.EncodeToString(rnd[:])}
	t.Cleanup(func() {
		exec.Command("tmux", "-L", tm.sock, "kill-server").Run()
		dir := os.Getenv("TMUX_TMPDIR")
		if dir == "" {
			dir = "/tmp"
		}
		os.Remove(filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), tm.sock))
	})
	args := []string{"-L", tm.sock, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "80", "-y", "30", "-c", home}
	full := baseEnv(home, append([]string{"PATH=" + filepath.Dir(claudeBin) + ":" + os.Getenv("PATH"), "PS1=$ ", "HISTFILE=/dev/null"}, env...)...)
	for _, kv := range full {
		args = append(args, "-e", kv)
	}
	// tmux gives a new pane the PATH of the client that asked for it,
	// whatever -e says, so the client itself runs with the pane's PATH.
	cmd := exec.Command("tmux", append(args, "--", "bash", "--noprofile", "--norc")...)
	cmd.Env = full
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	return tm
}

func (tm *tmuxTerm) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (tm *tmuxTerm) screen() string { return tm.tmux("capture-pane", "-p", "-t", "t") }

func (tm *tmuxTerm) typeText(s string) { tm.tmux("send-keys", "-t", "t", "-l", s) }
func (tm *tmuxTerm) keys(k ...string)  { tm.tmux(append([]string{"send-keys", "-t", "t"}, k...)...) }

func (tm *tmuxTerm) waitScreen(what string, cond func(string) bool) string {
	tm.t.Helper()
	var scr string
	settlePoll.Until(tm.t, settleWait, what, func() (bool, string) { scr = tm.screen(); return cond(scr), scr })
	return scr
}

// box returns the rows between the last two full rules.
func box(screen string) []string {
	lines := strings.Split(screen, "\n")
	var rules []int
	for i, l := range lines {
		if l != "" && strings.Trim(l, "─") == "" && strings.Count(l, "─") >= 40 {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return nil
	}
	return lines[rules[len(rules)-2]+1 : rules[len(rules)-1]]
}

func TestInteractiveScreen(t *testing.T) {
	home := t.TempDir()
	record := filepath.Join(t.TempDir(), "record.jsonl")
	tm := newTerm(t, home, "FAKECLAUDE_RECORD="+record, "FAKECLAUDE_BUSY_MS=300", "FAKECLAUDE_VERSION=2.1.300")
	tm.waitScreen("the shell prompt", func(s string) bool { return strings.HasPrefix(s, "$") })
	tm.typeText("stty -g > before; claude --resume " + testSession + "; stty -g > after")
	tm.keys("Enter")

	scr := tm.waitScreen("the input box", func(s string) bool { return len(box(s)) == 1 })
	lines := strings.Split(scr, "\n")
	wantTop := []string{" ✻ Claude Code v2.1.300 (fakeclaude)", "   default · session " + testSession, "   " + home}
	if diff := cmp.Diff(wantTop, lines[:3]); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	i := strings.Index(scr, "❯")
	tail := strings.Split(scr[i:], "\n")
	wantBox := []string{"❯\u00a0", strings.Repeat("─", 80), "  ? for shortcuts", strings.Repeat("─", 20) + " 0/200k (0%)"}
	if diff := cmp.Diff(wantBox, tail[:4]); diff != "" {
		t.Errorf("box and status area (-want +got):\n%s", diff)
	}

	tm.typeText("hello wörld")
	tm.waitScreen("a draft", func(s string) bool { return cmp.Equal(box(s), []string{"❯\u00a0hello wörld"}) })
	tm.keys("BSpace", "BSpace")
	tm.waitScreen("backspace", func(s string) bool { return cmp.Equal(box(s), []string{"❯\u00a0hello wör"}) })
	tm.keys("C-u")
	tm.waitScreen("Ctrl-U", func(s string) bool { return cmp.Equal(box(s), []string{"❯\u00a0"}) })

	long := strings.Repeat("a", 78) + strings.Repeat("b", 78) + "ccc"
	tm.typeText(long)
	tm.waitScreen("a wrapped draft", func(s string) bool {
		return cmp.Equal(box(s), []string{"❯\u00a0" + strings.Repeat("a", 78), "  " + strings.Repeat("b", 78), "  ccc"})
	})
	tm.keys("C-u")
	tm.typeText("say hi")
	tm.keys("Enter")
	tm.waitScreen("the prompt in the history", func(s string) bool {
		return strings.Contains(s, "> say hi\n● (fakeclaude) ok\n") && cmp.Equal(box(s), []string{"❯\u00a0"})
	})
	settlePoll.Until(t, settleWait, "busy then idle", func() (bool, string) {
		var seen []string
		for _, ev := range readRecord(t, record) {
			if ev["event"] == "submit" {
				seen = append(seen, "submit:"+ev["text"].(string))
			}
			if ev["event"] == "status" {
				seen = append(seen, ev["status"].(string))
			}
		}
		return cmp.Equal(seen, []string{"submit:say hi", "busy", "idle"}), fmt.Sprint(seen)
	})
	transcript := filepath.Join(home, ".claude", "projects", projectDirName(home), testSession+".jsonl")
	rows := readRecord(t, transcript)
	if len(rows) != 3 || rows[0]["type"] != "user" || rows[1]["type"] != "assistant" || rows[2]["type"] != "last-prompt" ||
		rows[0]["sessionId"] != testSession || rows[0]["cwd"] != home || rows[2]["lastPrompt"] != "say hi" || rows[1]["parentUuid"] != rows[0]["uuid"] {
		t.Errorf("transcript rows: %v", rows)
	}
	hist := readRecord(t, filepath.Join(home, ".claude", "history.jsonl"))
	if len(hist) != 1 || hist[0]["display"] != "say hi" || hist[0]["project"] != home || hist[0]["sessionId"] != testSession {
		t.Errorf("history.jsonl: %v", hist)
	}

	tm.typeText("/exit")
	tm.keys("Enter")
	scr = tm.waitScreen("the shell again", func(s string) bool {
		return strings.HasPrefix(s, "Resume this session with:\nclaude --resume "+testSession+"\n$")
	})
	if strings.Contains(scr, "❯") {
		t.Errorf("box left on the screen after exit:\n%s", scr)
	}
	if left, _ := filepath.Glob(filepath.Join(home, ".claude", "sessions", "*")); len(left) != 0 {
		t.Errorf("registry left after /exit: %v", left)
	}
	settlePoll.Until(t, settleWait, "stty after", func() (bool, string) {
		_, err := os.Stat(filepath.Join(home, "after"))
		return err == nil, ""
	})
	before, _ := os.ReadFile(filepath.Join(home, "before"))
	after, _ := os.ReadFile(filepath.Join(home, "after"))
	if len(before) == 0 || !bytes.Equal(before, after) {
		t.Errorf("terminal modes not restored: before %q after %q", before, after)
	}
}

func TestInteractiveCtrlCAndSuggestion(t *testing.T) {
	home := t.TempDir()
	tm := newTerm(t, home, "FAKECLAUDE_SUGGESTION=write a test")
	tm.waitScreen("the shell prompt", func(s string) bool { return strings.HasPrefix(s, "$") })
	tm.typeText("claude")
	tm.keys("Enter")
	tm.waitScreen("the ghost text", func(s string) bool { return cmp.Equal(box(s), []string{"❯\u00a0write a test"}) })
	ansi := tm.tmux("capture-pane", "-p", "-e", "-t", "t")
	if !strings.Contains(ansi, "\x1b[2mwrite a test") {
		t.Errorf("ghost text is not dim:\n%q", ansi)
	}
	tm.typeText("x")
	tm.waitScreen("the draft replacing the ghost text", func(s string) bool { return cmp.Equal(box(s), []string{"❯\u00a0x"}) })
	tm.keys("C-c")
	tm.waitScreen("Ctrl-C clearing the draft", func(s string) bool { return cmp.Equal(box(s), []string{"❯\u00a0write a test"}) })
	tm.keys("C-c")
	tm.waitScreen("the exit notice", func(s string) bool { return strings.Contains(s, "  Press Ctrl-C again to exit") })
	tm.keys("C-c")
	tm.waitScreen("the shell again", func(s string) bool { return strings.Contains(s, "Resume this session with:") })
}
