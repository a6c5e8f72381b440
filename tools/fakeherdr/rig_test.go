package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
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

// binDir holds fakeherdr and fakeclaude (as "claude"), built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeherdr-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := func() int {
		defer os.RemoveAll(dir)
		for _, b := range [][2]string{{"fakeherdr", "."}, {"claude", "../fakeclaude"}} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b[0]), b[1])
			if out, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", b[1], err, out)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it); skipping the real-terminal test")
	}
}

// rig is one private fake herdr: its own state dir, tmux server, HOME and
// listening herdr socket.
type rig struct {
	t     *testing.T
	state string
	home  string
	work  string
	sock  string
	tmux  string
	env   []string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	needTmux(t)
	r := &rig{t: t, state: filepath.Join(t.TempDir(), "state"), home: t.TempDir(), work: t.TempDir()}
	// Unix socket paths are limited to ~108 bytes; t.TempDir() can be longer.
	sockDir, err := os.MkdirTemp("", "fh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	r.sock = filepath.Join(sockDir, "herdr.sock")
	ln, err := net.Listen("unix", r.sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	var rnd [4]byte
	rand.Read(rnd[:])
	r.tmux = "fht-" + hex.EncodeToString(rnd[:])
	t.Cleanup(func() {
		// Kill what runs in the panes first and wait for it to be gone: a
		// fakeclaude ended by the server's SIGHUP writes its exit record
		// while the temp dirs are being removed.
		out, _ := exec.Command("tmux", "-L", r.tmux, "list-panes", "-a", "-F", "#{pane_pid}").Output()
		var pids []int
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
				syscall.Kill(-pid, syscall.SIGKILL) // the pane's own process group
				for _, child := range childrenOf(pid) {
					syscall.Kill(-child, syscall.SIGKILL) // a foreground job's group
					pids = append(pids, child)
				}
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		exec.Command("tmux", "-L", r.tmux, "kill-server").Run()
		poll.Every(20*time.Millisecond).Wait(poll.Long, func() bool {
			for _, pid := range pids {
				if running(pid) {
					return false
				}
			}
			return true
		})
		os.Remove(tmuxSocketPath(os.Getenv("TMUX_TMPDIR"), r.tmux))
	})
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "HERDR_") || strings.HasPrefix(k, "TMUX") || strings.HasPrefix(k, "FAKEHERDR_") ||
			strings.HasPrefix(k, "FAKECLAUDE_") || strings.HasPrefix(k, "XDG_") ||
			k == "HOME" || k == "PATH" || k == "CLAUDE_CONFIG_DIR" {
			continue
		}
		r.env = append(r.env, kv)
	}
	r.env = append(r.env, "HOME="+r.home, "PATH="+binDir+":"+os.Getenv("PATH"),
		"FAKEHERDR_STATE="+r.state, "FAKEHERDR_TMUX="+r.tmux, "HERDR_SOCKET_PATH="+r.sock)
	return r
}

type result struct {
	stdout, stderr string
	code           int
}

// herdrEnv runs fakeherdr with extra environment entries (later ones win).
func (r *rig) herdrEnv(extra []string, args ...string) result {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "fakeherdr"), args...)
	cmd.Env = append(append([]string{}, r.env...), extra...)
	cmd.Dir = r.work
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("fakeherdr %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

func (r *rig) herdr(args ...string) result { r.t.Helper(); return r.herdrEnv(nil, args...) }

// admin runs an admin verb that must succeed and returns its stdout.
func (r *rig) admin(args ...string) string {
	r.t.Helper()
	res := r.herdr(append([]string{"admin"}, args...)...)
	if res.code != 0 {
		r.t.Fatalf("fakeherdr admin %v: exit %d: %s", args, res.code, res.stderr)
	}
	return res.stdout
}

type created struct {
	PaneID   string `json:"pane_id"`
	ShellPID int    `json:"shell_pid"`
	TmuxPane string `json:"tmux_pane"`
}

func (r *rig) createPane(args ...string) created {
	r.t.Helper()
	var c created
	out := r.admin(append([]string{"create-pane", "--cwd", r.work}, args...)...)
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		r.t.Fatalf("create-pane output %q: %v", out, err)
	}
	return c
}

// claudePane opens a shell pane and starts fakeclaude in it as the shell's
// foreground job, then waits for its registry file.
func (r *rig) claudePane(env ...string) (created, claudeReg) {
	r.t.Helper()
	args := []string{"--run", "claude --model opus"}
	for _, kv := range env {
		args = append(args, "--env", kv)
	}
	c := r.createPane(args...)
	var reg claudeReg
	rigPoll.Until(r.t, rigWait, "fakeclaude registers", func() (bool, string) {
		files, _ := filepath.Glob(filepath.Join(r.home, ".claude", "sessions", "*.json"))
		for _, f := range files {
			var cand claudeReg
			b, err := os.ReadFile(f)
			if err != nil || json.Unmarshal(b, &cand) != nil {
				continue
			}
			if ppid(cand.PID) == c.ShellPID {
				reg = cand
				return true, ""
			}
		}
		return false, fmt.Sprint(files)
	})
	// The screen is drawn right after the registry is written.
	rigPoll.Until(r.t, rigWait, "box drawn", func() (bool, string) {
		scr := r.herdr("pane", "read", c.PaneID, "--source", "visible").stdout
		_, ok := promptDraft(scr)
		return ok, scr
	})
	return c, reg
}

type claudeReg struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Status    string `json:"status"`
}

func (r *rig) registry(pid int) (claudeReg, bool) {
	var reg claudeReg
	b, err := os.ReadFile(filepath.Join(r.home, ".claude", "sessions", strconv.Itoa(pid)+".json"))
	if err != nil || json.Unmarshal(b, &reg) != nil {
		return reg, false
	}
	return reg, true
}

func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
	n, _ := strconv.Atoi(f[1])
	return n
}

// gone reports whether pid no longer runs; a zombie counts as gone, since
// an orphan may wait for a reaper that this container does not have.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	st, err := readStat(pid)
	return err != nil || st.state == "Z" || st.state == "X"
}

// rigWait is the generous bound of every wait on a pane, a process or
// fakeherdr's state; rigPoll is how often each wait asks.
const (
	rigWait = poll.Long
	rigPoll = poll.Every(50 * time.Millisecond)
)

// promptDraft reads Claude Code's input box off a screen with the strict
// rule test: the last two lines of at least 20 ─ making up 4/5 of their
// non-space runes enclose the ❯ line. ok is false for an unrecognised screen.
func promptDraft(screen string) (string, bool) {
	lines := strings.Split(screen, "\n")
	var rules []int
	for i, l := range lines {
		if isRule(l) {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return "", false
	}
	top, bottom := rules[len(rules)-2], rules[len(rules)-1]
	var parts []string
	for i := top + 1; i < bottom; i++ {
		l := strings.TrimSpace(lines[i])
		if i == top+1 {
			if !strings.HasPrefix(l, "❯") {
				return "", false
			}
			l = strings.TrimPrefix(l, "❯")
			l = strings.TrimLeft(l, " \u00a0")
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, ""), true
}

func isRule(l string) bool {
	rule, other := 0, 0
	for _, r := range l {
		switch {
		case r == '─':
			rule++
		case r == ' ' || r == '\u00a0':
		default:
			other++
		}
	}
	return rule >= 20 && rule*5 >= (rule+other)*4
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: bad line %q: %v", path, line, err)
		}
		out = append(out, m)
	}
	return out
}

// assertSortedKeys checks every JSON object in doc has its keys in
// alphabetical order, as herdr's serde_json output does.
func assertSortedKeys(t *testing.T, doc string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	if err := checkSorted(dec); err != nil {
		t.Errorf("%v in %s", err, doc)
	}
}

func checkSorted(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		prev := ""
		for first := true; dec.More(); first = false {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k := kt.(string)
			if !first && k <= prev {
				return fmt.Errorf("key %q follows %q", k, prev)
			}
			prev = k
			if err := checkSorted(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := checkSorted(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// childrenOf lists the pids whose parent is pid (Linux /proc).
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid(child) == pid {
			out = append(out, child)
		}
	}
	return out
}

// running reports whether pid exists and is not a zombie waiting for a
// parent (the tmux server) that is gone too.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
