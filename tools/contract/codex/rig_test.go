//go:build contract

package codex

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

// Waits are generous because the real CLI maps a binary of 300 MB and the
// machine is shared; each is still bounded so a broken run fails.
const (
	startWait  = 60 * time.Second
	turnWait   = 60 * time.Second
	exitWait   = 30 * time.Second
	screenPoll = poll.Every(200 * time.Millisecond)
)

// keyVar is the provider's env_key: any non-empty value does.
const keyVar = "FORGECTL_CONTRACT_CODEX_KEY"

// triple is the platform folder of Codex's package.
const triple = "x86_64-unknown-linux-musl"

// home is one throwaway HOME (and CODEX_HOME) with its own tmux server.
type home struct {
	t       *testing.T
	s       *suite
	version string
	dir     string
	codex   string // $CODEX_HOME
	binary  string // the codex binary of version
	env     []string
	sock    string
	tmux    bool
	pids    []int
	trusted []string
}

// newHome makes a home whose codex is version: config.toml names the
// stand-in as a custom provider and turns the update check off.
func newHome(t *testing.T, version string) *home {
	t.Helper()
	s := theSuite
	dir, err := os.MkdirTemp(s.work, strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "cx")
	if err != nil {
		t.Fatal(err)
	}
	h := &home{t: t, s: s, version: version, dir: dir, codex: filepath.Join(dir, ".codex"), binary: s.codex[version]}
	h.sock = filepath.Join(tmp, "tmux")
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Cleanup(h.cleanup)
	bin := filepath.Join(dir, "bin")
	mustMkdir(t, bin)
	mustMkdir(t, h.codex)
	// PATH finds this version as "codex": forgectl resume execs it.
	if err := os.Symlink(h.binary, filepath.Join(bin, "codex")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".gitconfig"), "[user]\n\tname = Contract Test\n\temail = contract@example.invalid\n[init]\n\tdefaultBranch = main\n")
	h.env = []string{
		"HOME=" + dir,
		"CODEX_HOME=" + h.codex,
		"PATH=" + s.bin + ":" + bin + ":/usr/local/bin:/usr/bin:/bin",
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"TMPDIR=" + tmp,
		"SHELL=/bin/bash",
		"GIT_CONFIG_NOSYSTEM=1",
		keyVar + "=contract-test-not-a-real-key",
		"FORGECTL_CONFIG_DIR=" + filepath.Join(dir, ".config", "forgectl"),
		"FORGECTL_CODEX_BIN=" + h.binary,
	}
	h.writeConfig()
	h.seedDaemonPackage()
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

// writeConfig writes config.toml: the stand-in as provider "mock" (Codex
// appends /responses to base_url), no update check, and every repo made so
// far trusted, so no folder-trust prompt shows. Call it only while no codex
// runs: the CLI rewrites this file.
func (h *home) writeConfig() {
	h.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "model_provider = \"mock\"\nmodel = \"gpt-fake\"\ncheck_for_update_on_startup = false\n\n")
	fmt.Fprintf(&b, "[model_providers.mock]\nname = \"mock\"\nbase_url = %q\nenv_key = %q\nwire_api = \"responses\"\n", h.s.api.URL()+"/v1", keyVar)
	for _, d := range h.trusted {
		fmt.Fprintf(&b, "\n[projects.%q]\ntrust_level = \"trusted\"\n", d)
	}
	writeFile(h.t, filepath.Join(h.codex, "config.toml"), b.String())
}

// seedDaemonPackage lays out $CODEX_HOME/packages/app-server-daemon as the
// TUI's first run would, with hard links into the cached install: the TUI
// otherwise copies its whole package (about 424 MB) into every new home
// before it starts the background server. A layout it does not accept is
// no failure: it installs its own copy then.
func (h *home) seedDaemonPackage() {
	src := filepath.Dir(filepath.Dir(h.binary))
	rel := h.version + "-" + triple
	pkg := filepath.Join(h.codex, "packages", "app-server-daemon")
	dst := filepath.Join(pkg, "releases", rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return
	}
	if out, err := exec.Command("cp", "-al", src, dst).CombinedOutput(); err != nil {
		h.t.Logf("could not seed the daemon package (codex will copy its own): %v: %s", err, out)
		os.RemoveAll(filepath.Join(h.codex, "packages"))
		return
	}
	os.Symlink("bin/codex", filepath.Join(dst, "codex"))
	os.Symlink(dst, filepath.Join(pkg, "current"))
	os.WriteFile(filepath.Join(pkg, "auto-update-version"), []byte(rel+"\n"), 0o600)
}

// run runs a program with the home's environment, bounded.
func (h *home) run(dir, stdin, name string, args ...string) (stdout, stderr string, code int) {
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

// codexCmd runs this home's codex in dir.
func (h *home) codexCmd(dir string, args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	return h.run(dir, "", h.binary, args...)
}

// forgectl runs the built forgectl from HOME.
func (h *home) forgectl(args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	return h.run(h.dir, "", filepath.Join(h.s.bin, "forgectl"), args...)
}

func (h *home) git(dir string, args ...string) string {
	h.t.Helper()
	out, errOut, code := h.run(dir, "", "git", args...)
	if code != 0 {
		h.t.Fatalf("git %v: exit %d: %s", args, code, errOut)
	}
	return strings.TrimSpace(out)
}

// repo makes a trusted git repository at ~/src/<name> with one commit on
// main.
func (h *home) repo(name string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, "src", name)
	mustMkdir(h.t, dir)
	h.git(dir, "init", "-q")
	writeFile(h.t, filepath.Join(dir, "README.md"), "# "+name+"\n")
	h.git(dir, "add", "README.md")
	h.git(dir, "commit", "-q", "-m", "initial commit")
	h.trusted = append(h.trusted, dir)
	h.writeConfig()
	return dir
}

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

func (h *home) startTmux() {
	h.t.Helper()
	if h.tmux {
		return
	}
	h.mustTmux("new-session", "-d", "-s", "keep", "-x", "160", "-y", "50", "sleep", "3600")
	h.tmux = true
	h.mustTmux("set-option", "-g", "remain-on-exit", "on")
}

// pane is one tmux pane running a program exec'd by sh, so the pane's pid
// is the program's.
type pane struct {
	h   *home
	id  string
	pid int
}

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

func (p *pane) screen() string {
	out, _ := p.h.tmuxCmd("capture-pane", "-p", "-t", p.id)
	return out
}

func (p *pane) dead() bool {
	out, err := p.h.tmuxCmd("display-message", "-p", "-t", p.id, "#{pane_dead}")
	return err != nil || strings.TrimSpace(out) == "1"
}

func (p *pane) kill() { p.h.tmuxCmd("kill-pane", "-t", p.id) }

func (p *pane) waitScreen(what string, timeout time.Duration, ok func(string) bool) string {
	p.h.t.Helper()
	var s string
	screenPoll.Until(p.h.t, timeout, fmt.Sprintf("pane %s: %s", p.id, what), func() (bool, string) {
		s = p.screen()
		if !ok(s) && p.dead() {
			return false, "the pane's program exited; screen:\n" + s
		}
		return ok(s), s
	})
	return s
}

// waitComposer waits for the composer, failing if the program exits.
func (p *pane) waitComposer(what string, timeout time.Duration) string {
	p.h.t.Helper()
	return p.waitScreen("the composer ("+what+")", timeout, func(s string) bool { _, ok := composer(s); return ok })
}

// typeText types s into the composer, which must be showing, and waits
// until the input line shows s. (A slash command's menu hides the footer,
// so the input line is looked for as "› s".)
func (p *pane) typeText(s string) {
	p.h.t.Helper()
	if _, ok := composer(p.screen()); !ok {
		p.h.t.Fatalf("pane %s: refusing to type %q: no composer on screen:\n%s", p.id, s, p.screen())
	}
	p.h.mustTmux("send-keys", "-t", p.id, "-l", s)
	p.waitScreen("typed text "+strconv.Quote(s), 20*time.Second, func(sc string) bool {
		line, ok := composer(sc)
		return ok && strings.Contains(line, s) || strings.Contains(sc, "› "+s)
	})
}

func (p *pane) keys(keys ...string) {
	p.h.t.Helper()
	p.h.mustTmux(append([]string{"send-keys", "-t", p.id}, keys...)...)
}

// prompt submits text and waits for the stand-in's reply to show and the
// composer to come back.
func (p *pane) prompt(text string) {
	p.h.t.Helper()
	p.typeText(text)
	p.keys("Enter")
	want := "You said: " + text
	p.waitScreen("reply to "+strconv.Quote(text), turnWait, func(s string) bool {
		_, ok := composer(s)
		return ok && strings.Contains(strings.Join(strings.Fields(s), " "), want)
	})
}

// slash runs a slash command, waiting for what it shows.
func (p *pane) slash(cmd, want string) {
	p.h.t.Helper()
	p.typeText(cmd)
	p.keys("Enter")
	p.waitScreen(cmd, turnWait, func(s string) bool { return strings.Contains(s, want) })
}

// rename types name into the /rename box, which must be open, saves it
// with Enter and waits until the box has closed and the footer names the
// thread.
//
// The box opens with the current name under "Generating a title
// suggestion…" and then puts the suggestion in its field: it is cleared
// (the box is a text field, so these keys are not commands) only once the
// suggestion is in. An Enter the TUI reads together with the typed name
// counts as part of a paste, which the one-line field drops, leaving the
// box open with the name in it: on a loaded machine that is what became of
// the Enter sent once the name showed (reproduced by sending both in one
// go). So Enter is pressed again while, and only while, the box still
// shows the name, a second after the last one.
func (p *pane) rename(name string) {
	p.h.t.Helper()
	p.waitScreen("the rename box with its suggestion", turnWait, func(s string) bool { _, ready, ok := renameBox(s); return ok && ready })
	p.keys("C-u")
	p.h.mustTmux("send-keys", "-t", p.id, "-l", name)
	p.waitScreen("the new name typed in the rename box", 20*time.Second, func(s string) bool {
		field, ready, ok := renameBox(s)
		return ok && ready && field == name
	})
	p.keys("Enter")
	last := time.Now()
	presses := 1
	screenPoll.Until(p.h.t, turnWait, fmt.Sprintf("pane %s: the rename to %q accepted", p.id, name), func() (bool, string) {
		s := p.screen()
		field, _, open := renameBox(s)
		if !open {
			_, ok := composer(s)
			return ok && strings.Contains(footer(s), name), s
		}
		if field == name && time.Since(last) > time.Second {
			p.keys("Enter")
			last = time.Now()
			presses++
		}
		return false, fmt.Sprintf("after %d Enter:\n%s", presses, s)
	})
	if presses > 1 {
		p.h.t.Logf("FACT: the rename box took %d presses of Enter (the first ones were read as part of a paste)", presses)
	}
}

// quit leaves the TUI with /quit and waits for its process to go.
func (p *pane) quit() {
	p.h.t.Helper()
	p.typeText("/quit")
	p.keys("Enter")
	if !screenPoll.Wait(exitWait, func() bool { return p.dead() && !alive(p.pid) }) {
		p.h.t.Fatalf("pane %s: codex did not exit; screen:\n%s", p.id, p.screen())
	}
}

// startTUI runs this home's codex with args in dir and waits for its
// composer.
func (h *home) startTUI(dir string, args ...string) *pane {
	h.t.Helper()
	p := h.newPane(dir, append([]string{h.binary}, args...)...)
	p.waitComposer("start", startWait)
	return p
}

func alive(pid int) bool {
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

// pidFile reads a Codex pid file ({"pid":N,…}); 0 when there is none.
func pidFile(path string) int {
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

func (h *home) daemonPid() int {
	return pidFile(filepath.Join(h.codex, "app-server-daemon", "daemon.pid"))
}

func (h *home) updaterPid() int {
	return pidFile(filepath.Join(h.codex, "app-server-daemon", "daemon-updater.pid"))
}

// ours reports whether pid is a process of this home: its command line or
// environment names the home. A pid file can outlive its process and the
// pid be reused: never signal a stranger.
func (h *home) ours(pid int) bool {
	if pid <= 1 || !alive(pid) {
		return false
	}
	for _, f := range []string{"cmdline", "environ"} {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f)); err == nil && bytes.Contains(b, []byte(h.dir)) {
			return true
		}
	}
	return false
}

// stopDaemon stops Codex's background server and its updater loop, by
// pid: `codex app-server daemon stop` leaves the updater running.
func (h *home) stopDaemon() {
	h.t.Helper()
	daemon, updater := h.daemonPid(), h.updaterPid()
	if daemon != 0 && h.ours(daemon) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, h.binary, "app-server", "daemon", "stop")
		cmd.Env, cmd.Dir = h.env, h.dir
		cmd.Run()
		cancel()
	}
	for _, pid := range []int{updater, daemon} {
		h.killPid(pid)
	}
}

// killPid ends one process of this home: SIGTERM, then SIGKILL.
func (h *home) killPid(pid int) {
	if !h.ours(pid) {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	if !poll.Every(100*time.Millisecond).Wait(5*time.Second, func() bool { return !alive(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		poll.Every(100*time.Millisecond).Wait(5*time.Second, func() bool { return !alive(pid) })
	}
}

// cleanup ends the tmux server, Codex's daemon and updater, and any pane
// process still there, each by pid; then the home goes unless the test
// failed (the hard-linked daemon package costs no space).
func (h *home) cleanup() {
	if h.tmux {
		h.tmuxCmd("kill-server")
	}
	h.stopDaemon()
	for _, pid := range h.pids {
		h.killPid(pid)
	}
	if h.daemonPid() != 0 && h.ours(h.daemonPid()) {
		h.t.Errorf("codex's daemon %d survived the cleanup", h.daemonPid())
	}
	if !h.t.Failed() && os.Getenv("FORGECTL_CONTRACT_KEEP") == "" {
		os.RemoveAll(h.dir)
	}
}

func (p *pane) ansi() string {
	out, _ := p.h.tmuxCmd("capture-pane", "-p", "-e", "-t", p.id)
	return out
}
