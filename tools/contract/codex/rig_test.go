//go:build contract

package codex

import (
	"bytes"
	"context"
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

	"forgectl.dev/tools/contract/tmuxrig"
)

// keyVar is the provider's env_key: any non-empty value does.
const keyVar = "FORGECTL_CONTRACT_CODEX_KEY"

// triple is the platform folder of Codex's package.
const triple = "x86_64-unknown-linux-musl"

// home is one throwaway HOME (and CODEX_HOME) with its own tmux server.
type home struct {
	*tmuxrig.Rig
	t       *testing.T
	s       *suite
	version string
	dir     string
	codex   string // $CODEX_HOME
	binary  string // the codex binary of version
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
	h := &home{Rig: &tmuxrig.Rig{T: t, Home: dir, Sock: filepath.Join(tmp, "tmux")},
		t: t, s: s, version: version, dir: dir, codex: filepath.Join(dir, ".codex"), binary: s.codex[version]}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Cleanup(h.cleanup)
	bin := filepath.Join(dir, "bin")
	tmuxrig.MustMkdir(t, bin)
	tmuxrig.MustMkdir(t, h.codex)
	// PATH finds this version as "codex": forgectl resume execs it.
	if err := os.Symlink(h.binary, filepath.Join(bin, "codex")); err != nil {
		t.Fatal(err)
	}
	tmuxrig.WriteFile(t, filepath.Join(dir, ".gitconfig"), "[user]\n\tname = Contract Test\n\temail = contract@example.invalid\n[init]\n\tdefaultBranch = main\n")
	h.Env = []string{
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
	tmuxrig.WriteFile(h.t, filepath.Join(h.codex, "config.toml"), b.String())
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

// codexCmd runs this home's codex in dir.
func (h *home) codexCmd(dir string, args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	return h.Run(dir, "", h.binary, args...)
}

// forgectl runs the built forgectl from HOME.
func (h *home) forgectl(args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	return h.Run(h.dir, "", filepath.Join(h.s.bin, "forgectl"), args...)
}

// repo makes a trusted git repository at ~/src/<name> with one commit on
// main.
func (h *home) repo(name string) string {
	h.t.Helper()
	dir := h.Repo(name)
	h.trusted = append(h.trusted, dir)
	h.writeConfig()
	return dir
}

// pane is one tmux pane of the home running codex or forgectl.
type pane struct {
	*tmuxrig.Pane
	h *home
}

func (h *home) newPane(dir string, argv ...string) *pane {
	h.t.Helper()
	return &pane{Pane: h.NewPane(dir, argv...), h: h}
}

// waitComposer waits for the composer, failing if the program exits.
func (p *pane) waitComposer(what string, timeout time.Duration) string {
	p.h.t.Helper()
	return p.WaitScreenLive("the composer ("+what+")", timeout, func(s string) bool { _, ok := composer(s); return ok })
}

// typeText types s into the composer, which must be showing, and waits
// until the input line shows s. (A slash command's menu hides the footer,
// so the input line is looked for as "› s".)
func (p *pane) typeText(s string) {
	p.h.t.Helper()
	if _, ok := composer(p.Screen()); !ok {
		p.h.t.Fatalf("pane %s: refusing to type %q: no composer on screen:\n%s", p.ID, s, p.Screen())
	}
	p.Literal(s)
	p.WaitScreenLive("typed text "+strconv.Quote(s), 20*time.Second, func(sc string) bool {
		line, ok := composer(sc)
		return ok && strings.Contains(line, s) || strings.Contains(sc, "› "+s)
	})
}

// prompt submits text and waits for the stand-in's reply to show and the
// composer to come back.
func (p *pane) prompt(text string) {
	p.h.t.Helper()
	p.typeText(text)
	p.Keys("Enter")
	want := "You said: " + text
	p.WaitScreenLive("reply to "+strconv.Quote(text), tmuxrig.TurnWait, func(s string) bool {
		_, ok := composer(s)
		return ok && strings.Contains(strings.Join(strings.Fields(s), " "), want)
	})
}

// slash runs a slash command, waiting for what it shows.
func (p *pane) slash(cmd, want string) {
	p.h.t.Helper()
	p.typeText(cmd)
	p.Keys("Enter")
	p.WaitScreenLive(cmd, tmuxrig.TurnWait, func(s string) bool { return strings.Contains(s, want) })
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
	p.WaitScreenLive("the rename box with its suggestion", tmuxrig.TurnWait, func(s string) bool { _, ready, ok := renameBox(s); return ok && ready })
	p.Keys("C-u")
	p.Literal(name)
	p.WaitScreenLive("the new name typed in the rename box", 20*time.Second, func(s string) bool {
		field, ready, ok := renameBox(s)
		return ok && ready && field == name
	})
	p.Keys("Enter")
	last := time.Now()
	presses := 1
	tmuxrig.Poll.Until(p.h.t, tmuxrig.TurnWait, fmt.Sprintf("pane %s: the rename to %q accepted", p.ID, name), func() (bool, string) {
		s := p.Screen()
		field, _, open := renameBox(s)
		if !open {
			_, ok := composer(s)
			return ok && strings.Contains(footer(s), name), s
		}
		if field == name && time.Since(last) > time.Second {
			p.Keys("Enter")
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
	p.Keys("Enter")
	if !tmuxrig.Poll.Wait(tmuxrig.ExitWait, func() bool { return p.Dead() && !tmuxrig.Alive(p.Pid) }) {
		p.h.t.Fatalf("pane %s: codex did not exit; screen:\n%s", p.ID, p.Screen())
	}
}

// startTUI runs this home's codex with args in dir and waits for its
// composer.
func (h *home) startTUI(dir string, args ...string) *pane {
	h.t.Helper()
	p := h.newPane(dir, append([]string{h.binary}, args...)...)
	p.waitComposer("start", tmuxrig.StartWait)
	return p
}

func (h *home) daemonPid() int {
	return tmuxrig.PidFile(filepath.Join(h.codex, "app-server-daemon", "daemon.pid"))
}

func (h *home) updaterPid() int {
	return tmuxrig.PidFile(filepath.Join(h.codex, "app-server-daemon", "daemon-updater.pid"))
}

// ours reports whether pid is a process of this home: its command line or
// environment names the home. A pid file can outlive its process and the
// pid be reused: never signal a stranger.
func (h *home) ours(pid int) bool {
	if pid <= 1 || !tmuxrig.Alive(pid) {
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
		cmd.Env, cmd.Dir = h.Env, h.dir
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
	if !poll.Every(100*time.Millisecond).Wait(5*time.Second, func() bool { return !tmuxrig.Alive(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		poll.Every(100*time.Millisecond).Wait(5*time.Second, func() bool { return !tmuxrig.Alive(pid) })
	}
}

// cleanup ends the tmux server, Codex's daemon and updater, and any pane
// process still there, each by pid; then the home goes unless the test
// failed (the hard-linked daemon package costs no space).
func (h *home) cleanup() {
	h.KillServer()
	h.stopDaemon()
	for _, pid := range h.Pids {
		h.killPid(pid)
	}
	if h.daemonPid() != 0 && h.ours(h.daemonPid()) {
		h.t.Errorf("codex's daemon %d survived the cleanup", h.daemonPid())
	}
	if !h.t.Failed() && os.Getenv("FORGECTL_CONTRACT_KEEP") == "" {
		os.RemoveAll(h.dir)
	}
}
