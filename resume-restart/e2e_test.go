package main

// End-to-end tests: the built resume-restart drives tools/fakeherdr (real
// tmux panes, real shells, real foreground process groups, real screen
// reads) and tools/fakeclaude (a claude stand-in that draws the input box
// and keeps its registry file and transcript), with the real forgectl both
// resolving the relaunch before the stop and typed into the pane after it.
// Each test asserts what was signalled (the fake claude's exit records) and
// what was typed (the fake herdr's typed log). They need tmux and are
// skipped only when it is missing.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/resume-restart/internal/herdr"
	"forgectl.dev/resume-restart/internal/outdated"
	"forgectl.dev/resume-restart/internal/restart"
	"forgectl.dev/shared/poll"
	"forgectl.dev/shared/registry"
)

const (
	oldVersion = "2.1.99"
	newVersion = "2.1.332"
)

// built holds the binaries every end-to-end test shares, built once.
var built struct {
	once                  sync.Once
	dir                   string
	runner, herdr, claude string
	forgectl              string
	err                   error
}

func buildBinaries(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "rr-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		built.runner = filepath.Join(dir, "resume-restart")
		built.herdr = filepath.Join(dir, "fakeherdr")
		built.claude = filepath.Join(dir, "claude")
		built.forgectl = filepath.Join(dir, "forgectl")
		for _, b := range []struct{ out, pkg, dir string }{
			{built.runner, ".", "."},
			{built.forgectl, ".", "../forgectl"},
			{built.herdr, "./fakeherdr", "../tools"},
			{built.claude, "./fakeclaude", "../tools"},
		} {
			cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
			cmd.Dir = b.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				built.err = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// rig is one test's machine: a home with claude 2.1.99 and 2.1.332
// installed the native way, a herdr socket, a private tmux server behind
// the fake herdr, and the real forgectl.
type rig struct {
	t                        *testing.T
	dir, home, state, record string
	forgectl                 string
	env                      []string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	buildBinaries(t)
	t.Parallel()
	// Short: a Unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "rr-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	r := &rig{t: t, dir: dir, home: filepath.Join(dir, "home"), state: filepath.Join(dir, "state"),
		record: filepath.Join(dir, "record.jsonl")}

	versions := filepath.Join(r.home, ".local", "share", "claude", "versions")
	for _, d := range []string{versions, filepath.Join(r.home, ".local", "bin"), filepath.Join(dir, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{oldVersion, newVersion} {
		// A copy, not a symlink: the fake reads its version off its own
		// resolved executable name.
		copyFile(t, built.claude, filepath.Join(versions, v))
	}
	r.install(oldVersion)
	r.forgectl = built.forgectl

	sock := filepath.Join(dir, "h.sock")
	ln, err := net.Listen("unix", sock)
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

	r.env = []string{
		"HOME=" + r.home,
		"PATH=" + filepath.Join(r.home, ".local", "bin") + ":/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8", "TERM=xterm-256color",
		"FAKEHERDR_STATE=" + r.state,
		"HERDR_SOCKET_PATH=" + sock,
		"FAKECLAUDE_RECORD=" + r.record,
		"FORGECTL_HERDR_BIN=" + built.herdr,
		"FORGECTL_SELF=" + r.forgectl,
		"FORGECTL_CONFIG_DIR=" + filepath.Join(r.home, ".config", "forgectl"),
		"FORGECTL_RESTART_POLL=100ms",
		"FORGECTL_RESTART_SETTLE=50ms",
		"FORGECTL_RESTART_STOP_WAIT=15s",
		"FORGECTL_RESTART_REGISTER_WAIT=20s",
	}
	t.Cleanup(func() { exec.Command(built.herdr, "admin", "kill-server").Run() })
	t.Cleanup(func() {
		cmd := exec.Command(built.herdr, "admin", "kill-server")
		cmd.Env = r.env
		cmd.Run()
	})
	return r
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Link(from, to); err == nil {
		return
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// install points ~/.local/bin/claude at a version, as the native installer does.
func (r *rig) install(version string) {
	link := filepath.Join(r.home, ".local", "bin", "claude")
	tmp := link + ".tmp"
	os.Remove(tmp)
	if err := os.Symlink(filepath.Join("..", "share", "claude", "versions", version), tmp); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) withEnv(extra ...string) []string {
	return append(append([]string{}, r.env...), extra...)
}

// herdr runs the fake herdr (herdr verbs or admin verbs) and fails the
// test when it fails.
func (r *rig) herdr(args ...string) string {
	r.t.Helper()
	cmd := exec.Command(built.herdr, args...)
	cmd.Env = r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("fakeherdr %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// claude is one running fake claude.
type claude struct {
	pane    string
	pid     int
	session string
}

// startClaude opens a pane whose shell runs claude (the old version),
// waits until it has registered and drawn its input box, and submits one
// prompt, so that the session has a transcript to resume.
func (r *rig) startClaude(env ...string) claude {
	r.t.Helper()
	c := r.startUnprompted(env...)
	// send-text is the test's own typing, left out of typed(); a carriage
	// return is the Enter a terminal sends.
	r.herdr("pane", "send-text", c.pane, "hello\r")
	forced := false // a status file holds the status, whatever the turn does
	for _, e := range env {
		forced = forced || strings.HasPrefix(e, "FAKECLAUDE_STATUS_FILE=")
	}
	transcript := r.transcript(c.session)
	rigPoll.Until(r.t, rigWait, "the first prompt's transcript and its turn to end", func() (bool, string) {
		if _, err := os.Stat(transcript); err != nil {
			return false, "" // the submit record comes first
		}
		submitted := false
		for _, ev := range r.records() {
			if pid, _ := ev["pid"].(float64); int(pid) != c.pid {
				continue
			}
			switch {
			case ev["event"] == "submit":
				submitted = true
			case submitted && ev["event"] == "status" && ev["status"] == "idle":
				return true, ""
			}
		}
		return submitted && forced, ""
	})
	return c
}

// transcript is where Claude Code keeps a session of this rig's directory.
func (r *rig) transcript(session string) string {
	enc := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, r.dir)
	return filepath.Join(r.home, ".claude", "projects", enc, session+".jsonl")
}

// startUnprompted opens claude as startClaude does but sends nothing: the
// session has no transcript, as a claude opened and left alone has none.
func (r *rig) startUnprompted(env ...string) claude {
	r.t.Helper()
	env = append([]string{"FAKECLAUDE_BUSY_MS=50"}, env...)
	args := []string{"admin", "create-pane", "--cwd", r.dir}
	for _, e := range env {
		args = append(args, "--env", e)
	}
	var created struct {
		PaneID string `json:"pane_id"`
	}
	if err := json.Unmarshal([]byte(r.herdr(append(args, "--run", "claude")...)), &created); err != nil {
		r.t.Fatal(err)
	}
	var c claude
	rigPoll.Until(r.t, rigWait, "claude to register in "+created.PaneID, func() (bool, string) {
		for _, e := range r.live() {
			if outdated.PaneEnvOf(e.Pid) == created.PaneID {
				c = claude{pane: created.PaneID, pid: e.Pid, session: e.SessionID}
				return true, ""
			}
		}
		return false, ""
	})
	r.herdr("admin", "wait", c.pane, "--contains", "0/200k")
	return c
}

// rigWait bounds every wait on claude, herdr or the run in the background;
// rigPoll asks at most every 50 ms, since most checks read the registry
// and every fakeclaude's record.
const (
	rigWait = poll.Long
	rigPoll = poll.Every(50 * time.Millisecond)
)

func (r *rig) live() []registry.Entry {
	entries, _ := registry.Live(filepath.Join(r.home, ".claude", "sessions"))
	return entries
}

// liveSession is the live registry entry of a session, if any.
func (r *rig) liveSession(id string) (registry.Entry, bool) {
	for _, e := range r.live() {
		if e.SessionID == id {
			return e, true
		}
	}
	return registry.Entry{}, false
}

// result is one finished run of resume-restart.
type result struct {
	stdout, stderr string
	code           int
}

func (r *rig) run(env []string, args ...string) result {
	r.t.Helper()
	p := r.start(env, args...)
	return p.wait()
}

// process is a resume-restart run in progress.
type process struct {
	r              *rig
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan result
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (r *rig) start(env []string, args ...string) *process {
	r.t.Helper()
	if env == nil {
		env = r.env
	}
	cmd := exec.Command(built.runner, args...)
	cmd.Env = env
	p := &process{r: r, cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan result, 1)}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		p.done <- result{stdout: p.stdout.String(), stderr: p.stderr.String(), code: cmd.ProcessState.ExitCode()}
	}()
	r.t.Cleanup(func() { cmd.Process.Kill() })
	return p
}

func (p *process) wait() result {
	p.r.t.Helper()
	select {
	case res := <-p.done:
		return res
	case <-time.After(90 * time.Second):
		p.cmd.Process.Kill()
		p.r.t.Fatalf("resume-restart did not finish; stderr:\n%s", p.stderr.String())
	}
	return result{}
}

// waitStderr waits until the run's progress shows text.
func (p *process) waitStderr(text string) {
	p.r.t.Helper()
	rigPoll.Until(p.r.t, rigWait, fmt.Sprintf("progress %q", text), func() (bool, string) {
		s := p.stderr.String()
		return strings.Contains(s, text), s
	})
}

// outcomes runs restart with --json and decodes its outcome array.
func (r *rig) outcomes(res result) []restart.Outcome {
	r.t.Helper()
	var outs []restart.Outcome
	if err := json.Unmarshal([]byte(res.stdout), &outs); err != nil {
		r.t.Fatalf("stdout is not the outcome array (%v):\n%s\nstderr:\n%s", err, res.stdout, res.stderr)
	}
	return outs
}

// signalled lists the pids the fake claudes recorded exiting on SIGTERM.
func (r *rig) signalled() []int {
	out := []int{}
	for _, ev := range r.records() {
		if ev["event"] == "exit" && ev["reason"] == "SIGTERM" {
			out = append(out, int(ev["pid"].(float64)))
		}
	}
	return out
}

func (r *rig) records() []map[string]any {
	f, err := os.Open(r.record)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			out = append(out, ev)
		}
	}
	return out
}

// typed lists what herdr typed into panes on the runner's behalf
// ("<pane> keys ctrl+u", "<pane> run <line>"); a test's own send-text is
// left out.
func (r *rig) typed() []string {
	out := []string{}
	b, _ := os.ReadFile(filepath.Join(r.state, "typed.jsonl"))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Pane  string   `json:"pane_id"`
			Verb  string   `json:"verb"`
			Text  string   `json:"text"`
			Keys  []string `json:"keys"`
			Enter bool     `json:"enter"`
		}
		if json.Unmarshal([]byte(l), &rec) != nil {
			continue
		}
		switch rec.Verb {
		case "run":
			out = append(out, rec.Pane+" run "+rec.Text)
		case "send-keys":
			out = append(out, rec.Pane+" keys "+strings.Join(rec.Keys, " "))
		}
	}
	return out
}

// calls lists the herdr verbs called ("pane get", …), in order.
func (r *rig) calls() []string {
	var out []string
	b, _ := os.ReadFile(filepath.Join(r.state, "calls.jsonl"))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var argv []string
		if json.Unmarshal([]byte(l), &argv) == nil && len(argv) >= 2 {
			out = append(out, argv[0]+" "+argv[1])
		}
	}
	return out
}

func (r *rig) line(session string) string { return r.forgectl + " resume " + session }

func (r *rig) relaunched(pane, session string) []string {
	return []string{pane + " keys ctrl+u", pane + " run " + r.line(session)}
}

// expect compares the parts of an outcome a case pins down.
type expect struct {
	Outcome, Reason, Pane string
	Signalled             bool
}

func (r *rig) check(outs []restart.Outcome, want ...expect) {
	r.t.Helper()
	var got []expect
	for _, o := range outs {
		got = append(got, expect{o.Outcome, o.Reason, o.PaneID, o.Signalled})
	}
	if d := cmp.Diff(want, got); d != "" {
		r.t.Errorf("outcomes (-want +got):\n%s\nfull: %+v", d, outs)
	}
}

func (r *rig) assertSignalled(want ...int) {
	r.t.Helper()
	if want == nil {
		want = []int{}
	}
	if d := cmp.Diff(want, r.signalled()); d != "" {
		r.t.Errorf("signalled pids (-want +got):\n%s", d)
	}
}

func (r *rig) assertTyped(want ...string) {
	r.t.Helper()
	if want == nil {
		want = []string{}
	}
	if d := cmp.Diff(want, r.typed()); d != "" {
		r.t.Errorf("typed (-want +got):\n%s", d)
	}
}

func (r *rig) assertStillRunning(c claude) {
	r.t.Helper()
	if e, ok := r.liveSession(c.session); !ok || e.Pid != c.pid {
		r.t.Errorf("session %s is no longer running as pid %d", c.session, c.pid)
	}
}

func (r *rig) assertResumed(c claude) {
	r.t.Helper()
	var e registry.Entry
	rigPoll.Until(r.t, rigWait, "the resumed session to be idle", func() (bool, string) {
		var ok bool
		e, ok = r.liveSession(c.session)
		return ok && e.Pid != c.pid, ""
	})
	if e.Version != newVersion {
		r.t.Errorf("resumed as version %q, want %s", e.Version, newVersion)
	}
}

func TestE2EHappyPath(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion) // the update lands

	res := r.run(nil, "outdated", "--json")
	var rows []outdated.Row
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil || res.code != 0 {
		t.Fatalf("outdated: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	wantRows := []outdated.Row{{SessionID: c.session, Pid: c.pid, Version: oldVersion, InstalledVersion: newVersion,
		Status: "idle", Cwd: r.dir, Name: rows[0].Name, HerdrPaneID: c.pane}}
	if d := cmp.Diff(wantRows, rows); d != "" {
		t.Errorf("outdated rows (-want +got):\n%s", d)
	}

	res = r.run(nil, "restart", "--outdated")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.HasPrefix(res.stdout, "resumed          "+c.session+"  pane "+c.pane+": registered again as pid ") {
		t.Errorf("stdout:\n%s", res.stdout)
	}
	r.assertSignalled(c.pid)
	r.assertTyped(r.relaunched(c.pane, c.session)...)
	r.assertResumed(c)
	if _, err := os.Stat(filepath.Join(r.home, ".config", "forgectl", "resume-sessions", c.session+".json")); err != nil {
		t.Errorf("no snapshot was captured before the stop: %v", err)
	}

	res = r.run(nil, "outdated", "--json")
	if res.stdout != "[]\n" || res.code != 0 {
		t.Errorf("after the restart, outdated printed %q (exit %d)", res.stdout, res.code)
	}
}

func TestE2EBusyThenIdle(t *testing.T) {
	r := newRig(t)
	status := filepath.Join(r.dir, "status")
	os.WriteFile(status, []byte("busy"), 0o600)
	c := r.startClaude("FAKECLAUDE_STATUS_FILE=" + status)
	r.install(newVersion)

	p := r.start(nil, "restart", "--outdated", "--json", "--timeout", "60s")
	p.waitStderr("waiting: busy (status busy)")
	r.assertSignalled()
	os.WriteFile(status, nil, 0o600)
	res := p.wait()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	r.check(r.outcomes(res), expect{restart.Resumed, "", c.pane, true})
	r.assertSignalled(c.pid)
	r.assertTyped(r.relaunched(c.pane, c.session)...)
	r.assertResumed(c)
}

func TestE2EDraftNeverLost(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	r.herdr("pane", "send-text", c.pane, "half a thought")
	r.herdr("admin", "wait", c.pane, "--contains", "half a thought")

	res := r.run(nil, "restart", "--outdated", "--json", "--timeout", "1500ms")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	r.check(r.outcomes(res), expect{restart.Waiting, "draft", c.pane, false})
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)
	if screen := r.herdr("pane", "read", c.pane, "--source", "visible"); !strings.Contains(screen, "❯\u00a0half a thought") {
		t.Errorf("the draft is gone from the screen:\n%s", screen)
	}
}

// Ghost text and the idle hint sit in an empty box; both sessions restart.
func TestE2EGhostTextIsNotADraft(t *testing.T) {
	r := newRig(t)
	dim := r.startClaude("FAKECLAUDE_SUGGESTION=run the tests again")
	// The empty FAKECLAUDE_SUGGESTION works around fakeherdr: the first
	// pane's --env values become the tmux session's environment and leak
	// into later panes.
	hint := r.startClaude(`FAKECLAUDE_HINT=Try "write a test for <filepath>"`, "FAKECLAUDE_SUGGESTION=")
	r.herdr("admin", "wait", dim.pane, "--contains", "run the tests again")
	r.herdr("admin", "wait", hint.pane, "--contains", "Try \"write")
	r.install(newVersion)

	res := r.run(nil, "restart", "--outdated", "--json", "--timeout", "20s")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	want := []expect{{restart.Resumed, "", dim.pane, true}, {restart.Resumed, "", hint.pane, true}}
	if dim.pid > hint.pid {
		want[0], want[1] = want[1], want[0]
	}
	r.check(r.outcomes(res), want...)
	r.assertResumed(dim)
	r.assertResumed(hint)
}

func TestE2EScrolledBack(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	r.herdr("admin", "scroll", c.pane, "5")

	res := r.run(nil, "restart", "--outdated", "--json", "--timeout", "1s")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	r.check(r.outcomes(res), expect{restart.Waiting, "scrolled", c.pane, false})
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)
}

// While the run waits, the registry file stops describing the process
// (as after a pid reuse): the session is reported and never signalled.
func TestE2EIdentityMismatch(t *testing.T) {
	r := newRig(t)
	status := filepath.Join(r.dir, "status")
	os.WriteFile(status, []byte("busy"), 0o600)
	c := r.startClaude("FAKECLAUDE_STATUS_FILE=" + status)
	r.install(newVersion)

	p := r.start(nil, "restart", "--outdated", "--json", "--timeout", "60s")
	p.waitStderr("waiting: busy")
	file := filepath.Join(r.home, ".claude", "sessions", fmt.Sprintf("%d.json", c.pid))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	m["procStart"], m["status"] = "1", "idle"
	b, _ = json.Marshal(m)
	os.WriteFile(file+".tmp", b, 0o644)
	os.Rename(file+".tmp", file)

	res := p.wait()
	if res.code != 0 {
		t.Errorf("exit %d, want 0 (skipped with a reason)\n%s", res.code, res.stderr)
	}
	outs := r.outcomes(res)
	r.check(outs, expect{restart.Skipped, "identity_mismatch", c.pane, false})
	if outs[0].Command != r.line(c.session) {
		t.Errorf("command = %q, want %q", outs[0].Command, r.line(c.session))
	}
	r.assertSignalled()
	r.assertTyped()
	if !syscallAlive(c.pid) {
		t.Errorf("pid %d is gone", c.pid)
	}
}

func syscallAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// A herdr server restart renumbered every pane: the process's
// HERDR_PANE_ID is stale and the pane is found by session.
func TestE2EPaneRenumbered(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	var moved map[string]string
	json.Unmarshal([]byte(r.herdr("admin", "renumber")), &moved)
	pane := moved[c.pane]
	if pane == "" || pane == c.pane {
		t.Fatalf("renumber gave %v", moved)
	}

	res := r.run(nil, "restart", "--outdated")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	label := fmt.Sprintf("pane %s (found by session; env said %s)", pane, c.pane)
	if !strings.Contains(res.stderr, label) || !strings.Contains(res.stdout, label) {
		t.Errorf("progress and result do not say %q:\n%s\n%s", label, res.stderr, res.stdout)
	}
	r.assertSignalled(c.pid)
	r.assertTyped(r.relaunched(pane, c.session)...)
	r.assertResumed(c)
}

// The renumbering happens while the run waits: herdr answers
// pane_not_found, the list is read once more, and the restart continues
// in the new pane.
func TestE2ERenumberedDuringWait(t *testing.T) {
	r := newRig(t)
	status := filepath.Join(r.dir, "status")
	os.WriteFile(status, []byte("busy"), 0o600)
	c := r.startClaude("FAKECLAUDE_STATUS_FILE=" + status)
	r.install(newVersion)

	p := r.start(nil, "restart", "--outdated", "--json", "--timeout", "60s")
	p.waitStderr("waiting: busy")
	var moved map[string]string
	json.Unmarshal([]byte(r.herdr("admin", "renumber")), &moved)
	pane := moved[c.pane]
	os.WriteFile(status, nil, 0o600)

	res := p.wait()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	r.check(r.outcomes(res), expect{restart.Resumed, "", pane, true})
	if !strings.Contains(res.stderr, "after pane_not_found for "+c.pane) {
		t.Errorf("progress does not mention the re-read:\n%s", res.stderr)
	}
	lists := 0
	for _, call := range r.calls() {
		if call == "pane list" {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("pane list called %d times, want 2 (plan + one re-read)", lists)
	}
	r.assertSignalled(c.pid)
	r.assertTyped(r.relaunched(pane, c.session)...)
	r.assertResumed(c)
}

func TestE2ETwoPanesOneSession(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	var other struct {
		PaneID string `json:"pane_id"`
	}
	json.Unmarshal([]byte(r.herdr("admin", "create-pane")), &other)
	r.herdr("admin", "session", other.PaneID, "--same-as", c.pane)

	res := r.run(nil, "restart", "--outdated")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	want := fmt.Sprintf("skipped          %s  duplicate_pane: panes %s, %s are all labelled with this session", c.session, c.pane, other.PaneID)
	if !strings.HasPrefix(res.stdout, want) || !strings.Contains(res.stdout, "resume by hand: "+r.line(c.session)) {
		t.Errorf("stdout:\n%s\nwant it to start with:\n%s", res.stdout, want)
	}
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)
}

func TestE2EHerdrMissing(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	res := r.run(r.withEnv("FORGECTL_HERDR_BIN="+filepath.Join(r.dir, "no-herdr")), "restart", "--outdated", "--json")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	r.check(r.outcomes(res), expect{restart.Skipped, "no_pane", "", false})
	if !strings.Contains(res.stderr, "forgectl: note: herdr not found") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	r.assertSignalled()
	r.assertStillRunning(c)
}

// herdr misbehaves on every call: the run waits, then reports; nothing is
// signalled. A hung call is killed with its whole process group.
func TestE2EHerdrBroken(t *testing.T) {
	cases := []struct {
		name  string
		fault []string
	}{
		{"hung", []string{"--hang", "--seconds", "60"}},
		{"garbage", []string{"--stdout", "<html>502 Bad Gateway</html>"}},
		{"truncated error", []string{"--truncated"}},
		{"server not running", []string{"--error", "server_not_running"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			c := r.startClaude()
			r.install(newVersion)
			r.herdr(append([]string{"admin", "fault", "any", "--times", "0"}, tc.fault...)...)

			res := r.run(r.withEnv("FORGECTL_HERDR_TIMEOUT=400ms"), "restart", "--outdated", "--json", "--timeout", "1s")
			if res.code != 1 {
				t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
			}
			r.check(r.outcomes(res), expect{restart.Waiting, "herdr_error", c.pane, false})
			if !strings.Contains(res.stderr, "forgectl: note: herdr pane list failed") {
				t.Errorf("no fallback note:\n%s", res.stderr)
			}
			r.assertSignalled()
			r.assertTyped()
			r.assertStillRunning(c)
			r.assertHangsReaped()
		})
	}
}

// assertHangsReaped checks that every scripted hang's child died with its
// killed call.
func (r *rig) assertHangsReaped() {
	r.t.Helper()
	b, _ := os.ReadFile(filepath.Join(r.state, "hangs.jsonl"))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var h struct {
			Child int `json:"child_pid"`
		}
		if json.Unmarshal([]byte(l), &h) != nil || h.Child == 0 {
			continue
		}
		rigPoll.Until(r.t, rigWait, fmt.Sprintf("hang child %d to die", h.Child), func() (bool, string) {
			st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", h.Child))
			return err != nil || strings.Contains(string(st), ") Z "), ""
		})
	}
}

// The run is inside a session (as when an agent's shell tool runs it):
// that session's pid is an ancestor of the run. Here the ancestor is this
// test process, registered as an outdated claude.
func TestE2EInsideSession(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
	register(t, r.home, os.Getpid(), f[19], map[string]any{"sessionId": "inside-session", "version": oldVersion, "status": "idle"})

	res := r.run(nil, "restart", "--outdated", "--json", "--session", "inside-session")
	if res.code != 0 {
		t.Errorf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	outs := r.outcomes(res)
	r.check(outs, expect{restart.Skipped, "inside_session", "", false})
	if outs[0].Command != r.line("inside-session") {
		t.Errorf("command = %q", outs[0].Command)
	}
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)
}

// A second run exits at once while the first holds the lock; Ctrl-C then
// ends the first one's waiting without signalling anything.
func TestE2EConcurrentRunsAndCtrlC(t *testing.T) {
	r := newRig(t)
	status := filepath.Join(r.dir, "status")
	os.WriteFile(status, []byte("busy"), 0o600)
	c := r.startClaude("FAKECLAUDE_STATUS_FILE=" + status)
	r.install(newVersion)

	first := r.start(nil, "restart", "--outdated", "--json", "--timeout", "10m")
	first.waitStderr("waiting: busy")

	second := r.run(nil, "restart", "--outdated")
	if second.code != 1 || second.stdout != "" || !strings.Contains(second.stderr, "forgectl: error: another restart is already running") {
		t.Errorf("second run: exit %d\nstdout:\n%s\nstderr:\n%s", second.code, second.stdout, second.stderr)
	}

	first.cmd.Process.Signal(os.Interrupt)
	res := first.wait()
	if res.code != 1 {
		t.Errorf("interrupted run: exit %d, want 1\n%s", res.code, res.stderr)
	}
	outs := r.outcomes(res)
	r.check(outs, expect{restart.Waiting, "busy", c.pane, false})
	if !strings.Contains(outs[0].Detail, "interrupted") {
		t.Errorf("detail %q", outs[0].Detail)
	}
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)

	// The lock went with the run.
	os.WriteFile(status, nil, 0o600)
	third := r.run(nil, "restart", "--outdated", "--json", "--timeout", "20s")
	if third.code != 0 {
		t.Errorf("third run: exit %d\n%s", third.code, third.stderr)
	}
	r.assertSignalled(c.pid)
}

// herdr's pane run types the line and then wedges: the call is killed at
// its bound, and the run still waits for the session to register.
func TestE2EPaneRunKilledAtBound(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	r.herdr("admin", "fault", "run", "--hang", "--after", "--seconds", "60")

	p := r.start(r.withEnv("FORGECTL_HERDR_TIMEOUT=1500ms"), "restart", "--outdated", "--json")
	// Ctrl-C and a hangup while the relaunch is in flight end nothing: the
	// session was already signalled.
	p.waitStderr("typing the relaunch")
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Process.Signal(syscall.SIGHUP)
	res := p.wait()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	outs := r.outcomes(res)
	r.check(outs, expect{restart.Resumed, "", c.pane, true})
	if !strings.Contains(outs[0].Detail, "killed at its bound") {
		t.Errorf("detail %q", outs[0].Detail)
	}
	r.assertSignalled(c.pid)
	r.assertTyped(r.relaunched(c.pane, c.session)...)
	r.assertResumed(c)
	r.assertHangsReaped()
}

func TestE2EDryRun(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)

	before := len(r.calls()) // the test's own typing of the first prompt
	res := r.run(nil, "restart", "--outdated", "--dry-run")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	want := fmt.Sprintf("%s  pid %d  %s -> %s  pane %s\n"+
		"  identity  ok\n  status    ok\n  pane      ok\n  input     ok\n  relaunch  ok\n"+
		"  action    would capture, stop and type: %s\n", c.session, c.pid, oldVersion, newVersion, c.pane, r.line(c.session))
	if d := cmp.Diff(want, res.stdout); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	for _, call := range r.calls()[before:] {
		switch call {
		case "pane list", "pane get", "pane process-info", "pane read":
		default:
			t.Errorf("a dry run called %s", call)
		}
	}
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)
	// forgectl's dry run of the relaunch may refresh its listing cache;
	// nothing else is written: no lock, no snapshot.
	for _, p := range []string{"restart.lock", "resume-sessions"} {
		if _, err := os.Stat(filepath.Join(r.home, ".config", "forgectl", p)); err == nil {
			t.Errorf("a dry run wrote %s", p)
		}
	}
}

// SIGTERM and SIGHUP end the waiting as Ctrl-C does.
func TestE2ESignalsEndWaiting(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			r := newRig(t)
			status := filepath.Join(r.dir, "status")
			os.WriteFile(status, []byte("busy"), 0o600)
			c := r.startClaude("FAKECLAUDE_STATUS_FILE=" + status)
			r.install(newVersion)
			p := r.start(nil, "restart", "--outdated", "--json", "--timeout", "10m")
			p.waitStderr("waiting: busy")
			p.cmd.Process.Signal(sig)
			res := p.wait()
			if res.code != 1 {
				t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
			}
			r.check(r.outcomes(res), expect{restart.Waiting, "busy", c.pane, false})
			r.assertSignalled()
			r.assertTyped()
			r.assertStillRunning(c)
		})
	}
}

// A closed terminal or a reader that went away must not kill the run
// between the stop and the relaunch: SIGPIPE is not fatal to it.
func TestE2EClosedOutput(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	cmd := exec.Command(built.runner, "restart", "--outdated")
	cmd.Env = r.env
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR.Close()
	errR.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("killed by %v", ws.Signal())
	}
	if err != nil {
		t.Errorf("exit: %v", err)
	}
	r.assertSignalled(c.pid)
	r.assertTyped(r.relaunched(c.pane, c.session)...)
	r.assertResumed(c)
}

// herdr keeps answering pane_not_found for a pane it still lists: the run
// reads the list exactly once more, finds no other pane, and ends the
// session pane_gone, which is incomplete (exit 1) and never signals.
func TestE2EPaneGoneExitsOne(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	r.herdr("admin", "fault", "get", "--times", "0", "--error", "pane_not_found")

	res := r.run(nil, "restart", "--outdated", "--json", "--timeout", "5s")
	if res.code != 1 {
		t.Errorf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	r.check(r.outcomes(res), expect{restart.PaneGone, "pane_not_found", c.pane, false})
	lists := 0
	for _, call := range r.calls() {
		if call == "pane list" {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("pane list called %d times, want 2 (plan + one re-read)", lists)
	}
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)
}

// A claude opened and never prompted has no transcript, so the typed
// `forgectl resume <id>` would find nothing: it is outdated, idle, its box
// is empty and every identity check passes, yet it is never signalled. Its
// pane keeps its process, and the dry run, the progress lines, the summary,
// --json and outdated --json all name the reason. A session beside it with
// a transcript is restarted as usual.
func TestE2ENoTranscriptNeverSignalled(t *testing.T) {
	r := newRig(t)
	bare := r.startUnprompted()
	prompted := r.startClaude()
	r.install(newVersion)

	res := r.run(nil, "outdated", "--json")
	var rows []outdated.Row
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil || res.code != 0 || len(rows) != 2 {
		t.Fatalf("outdated: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	for _, row := range rows {
		if want := row.SessionID == bare.session; row.NoTranscript != want {
			t.Errorf("outdated row %s: no_transcript = %v, want %v", row.SessionID, row.NoTranscript, want)
		}
	}

	plan := r.run(nil, "restart", "--outdated", "--dry-run", "--session", bare.session)
	if plan.code != 0 || !strings.Contains(plan.stdout, "  relaunch  no_transcript: there is nothing to resume") ||
		!strings.Contains(plan.stdout, "  action    skipped: no_transcript: ") || strings.Contains(plan.stdout, "by hand") ||
		!strings.Contains(plan.stdout, "  hint      nothing is lost by closing it: quit it and start claude in "+r.dir) {
		t.Errorf("dry run: exit %d\n%s%s", plan.code, plan.stdout, plan.stderr)
	}

	res = r.run(nil, "restart", "--outdated")
	if res.code != 0 {
		t.Errorf("exit %d, want 0 (a skip with a reason)\n%s%s", res.code, res.stdout, res.stderr)
	}
	summary := "skipped          " + bare.session + "  pane " + bare.pane + ": no_transcript: there is nothing to resume"
	hint := "hint: nothing is lost by closing it: quit it and start claude in " + r.dir + ", or run `cd " + r.dir + " && " + r.forgectl + " launch`"
	if !strings.Contains(res.stdout, summary) || !strings.Contains(res.stdout, hint) || strings.Contains(res.stdout, "resume by hand: "+r.line(bare.session)) {
		t.Errorf("summary:\n%s", res.stdout)
	}
	if !strings.Contains(res.stderr, "forgectl: "+bare.session+": skipped: no_transcript: there is nothing to resume") ||
		!strings.Contains(res.stderr, "forgectl: "+bare.session+": "+hint) {
		t.Errorf("progress:\n%s", res.stderr)
	}
	r.assertSignalled(prompted.pid)
	r.assertTyped(r.relaunched(prompted.pane, prompted.session)...)
	r.assertStillRunning(bare)
	r.assertResumed(prompted)
	// The pane still runs the same claude in its foreground.
	pi, err := herdr.Client{Binary: built.herdr, Env: r.env}.ProcessInfo(context.Background(), bare.pane)
	if err != nil || !pi.InForeground(bare.pid) {
		t.Errorf("pane %s: %+v, want the claude %d in the foreground (%v)", bare.pane, pi, bare.pid, err)
	}

	res = r.run(nil, "restart", "--outdated", "--json")
	r.check(r.outcomes(res), expect{restart.Skipped, restart.NoTranscript, bare.pane, false})
	if o := r.outcomes(res)[0]; o.Command != "" || o.Hint == "" || o.Checks.Identity != "" {
		t.Errorf("outcome: %+v", o)
	}
	r.assertSignalled(prompted.pid)
}

// A launch profile that names the codex harness: the real forgectl
// refuses the relaunch with harness_unsupported (Codex is not restarted,
// not supported yet), so the claude is skipped with that reason, never
// signalled, and keeps running.
func TestE2ELaunchProfileHarnessCodex(t *testing.T) {
	r := newRig(t)
	c := r.startClaude()
	r.install(newVersion)
	cfgDir := filepath.Join(r.home, ".config", "forgectl")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("[launch.defaults]\nharness = \"codex\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	plan := r.run(nil, "restart", "--outdated", "--dry-run")
	if plan.code != 0 || !strings.Contains(plan.stdout, "  relaunch  harness_unsupported: the relaunch would fail: ") ||
		!strings.Contains(plan.stdout, `harness "codex" is not supported yet`) {
		t.Errorf("dry run: exit %d\n%s%s", plan.code, plan.stdout, plan.stderr)
	}

	res := r.run(nil, "restart", "--outdated", "--json")
	outs := r.outcomes(res)
	r.check(outs, expect{restart.Skipped, restart.HarnessUnsupported, c.pane, false})
	if len(outs) == 1 && !strings.Contains(outs[0].Hint, `harness = "claude"`) {
		t.Errorf("hint %q, want forgectl's", outs[0].Hint)
	}
	r.assertSignalled()
	r.assertTyped()
	r.assertStillRunning(c)
}
