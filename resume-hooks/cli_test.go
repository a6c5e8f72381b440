package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"forgectl.dev/shared/version"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/resume-hooks/internal/watcher"
	"forgectl.dev/shared/hookstate"
)

// world is a temporary HOME with forgectl's config directory, real claude
// executables behind a link, and an app wired to them.
type world struct {
	t      *testing.T
	home   string
	cfgDir string
	env    map[string]string
	calls  []string
	stdout bytes.Buffer
	stderr bytes.Buffer
	goos   string
}

func newWorld(t *testing.T) *world {
	home := t.TempDir()
	w := &world{t: t, home: home, cfgDir: filepath.Join(home, "cfg"), goos: "linux"}
	w.env = map[string]string{
		"HOME":                  home,
		"FORGECTL_CONFIG_DIR":   w.cfgDir,
		"FORGECTL_CLAUDE_BIN":   filepath.Join(home, "bin", "claude"),
		"FORGECTL_HOOKS_SETTLE": "20ms",
		"PATH":                  "/usr/bin:/bin",
	}
	os.MkdirAll(w.cfgDir, 0o700)
	os.MkdirAll(filepath.Join(home, "bin"), 0o755)
	return w
}

func (w *world) claude(v string) {
	exe := filepath.Join(w.home, "bin", "claude-"+v)
	os.WriteFile(exe, []byte("#!/bin/sh\necho '"+v+" (Claude Code)'\n"), 0o755)
	link := filepath.Join(w.home, "bin", "claude")
	os.Remove(link)
	if err := os.Symlink(exe, link); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) config(toml string) {
	if err := os.WriteFile(filepath.Join(w.cfgDir, "config.toml"), []byte(toml), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) app() *app {
	var environ []string
	for k, v := range w.env {
		environ = append(environ, k+"="+v)
	}
	return &app{
		getenv:  func(k string) string { return w.env[k] },
		environ: environ,
		home:    w.home,
		goos:    w.goos,
		uid:     501,
		pid:     os.Getpid(),
		self:    filepath.Join(w.home, "libexec", "resume-hooks"),
		lookPath: func(name string) (string, error) {
			p := name
			if !strings.Contains(name, "/") {
				p = filepath.Join(w.home, "bin", name)
			}
			if _, err := os.Stat(p); err != nil {
				return "", errors.New("not found")
			}
			return p, nil
		},
		now: func() time.Time { return time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC) },
		runner: func(_ context.Context, name string, args ...string) hookstate.Result {
			w.calls = append(w.calls, strings.Join(append([]string{name}, args...), " "))
			if name == "systemctl" {
				return hookstate.Result{Code: 1, Stderr: []byte("Failed to connect to bus: No medium found")}
			}
			return hookstate.Result{Code: 113}
		},
		sleep:  func(context.Context, time.Duration) error { return nil },
		stdout: &w.stdout,
		stderr: &w.stderr,
	}
}

func (w *world) run(args ...string) int {
	w.stdout.Reset()
	w.stderr.Reset()
	return w.app().main(context.Background(), args)
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{nil, 2, "forgectl: error: name a subcommand: run, status, install or uninstall"},
		{[]string{"frobnicate"}, 2, `forgectl: error: unknown subcommand "frobnicate" (run, status, install, uninstall)`},
		{[]string{"run", "extra"}, 2, `forgectl: error: unexpected argument "extra"`},
		{[]string{"status", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--version"}, 0, ""},
		{[]string{"--help"}, 0, ""},
		{[]string{"status", "--help"}, 0, ""},
	}
	stdout := map[string]string{
		"--version":     "resume-hooks " + version.String() + "\n",
		"--help":        "forgectl resume hooks <run|status|install|uninstall>",
		"status --help": "run_in_progress",
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			w := newWorld(t)
			if code := w.run(tc.args...); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, w.stderr.String())
			}
			if !strings.Contains(w.stderr.String(), tc.err) {
				t.Fatalf("stderr lacks %q:\n%s", tc.err, w.stderr.String())
			}
			// One dialect: bad usage is one error line and a hint; --help
			// and --version print on stdout only.
			if tc.code == 2 && (strings.Count(w.stderr.String(), "\n") != 2 || !strings.Contains(w.stderr.String(), "\nforgectl: hint: run 'forgectl resume hooks ")) {
				t.Errorf("bad usage is not one error line and a hint:\n%s", w.stderr.String())
			}
			if want, ok := stdout[strings.Join(tc.args, " ")]; ok && (!strings.Contains(w.stdout.String(), want) || w.stderr.Len() > 0) {
				t.Errorf("stdout %q lacks %q (stderr %q)", w.stdout.String(), want, w.stderr.String())
			}
		})
	}
}

func TestConfigErrorsExit2(t *testing.T) {
	w := newWorld(t)
	w.claude("2.1.1")
	w.config("[[on_update]]\nharness = \"claude\"\naction = \"restart\"\n")
	for _, sub := range []string{"run", "install"} {
		if code := w.run(sub); code != 2 {
			t.Fatalf("%s exit %d, want 2", sub, code)
		}
		if !strings.Contains(w.stderr.String(), "[[resume.on_update]]") || !strings.Contains(w.stderr.String(), "config.toml:1") {
			t.Fatalf("%s stderr:\n%s", sub, w.stderr.String())
		}
	}
	// status still runs, and reports it.
	if code := w.run("status", "--json"); code != 0 {
		t.Fatalf("status exit %d", code)
	}
	var st statusJSON
	json.Unmarshal(w.stdout.Bytes(), &st)
	if !strings.Contains(st.ConfigError, "[[resume.on_update]]") {
		t.Fatalf("config_error %q", st.ConfigError)
	}
}

// Codex has no update hooks yet: an entry for it is a config error that
// stops run and install before anything is recorded or installed.
func TestOnUpdateForCodexIsRefused(t *testing.T) {
	w := newWorld(t)
	w.claude("2.1.1")
	w.config("[[resume.on_update]]\nharness = \"codex\"\naction = \"restart\"\n")
	for _, sub := range []string{"run", "install"} {
		if code := w.run(sub); code != 2 {
			t.Fatalf("%s exit %d, want 2", sub, code)
		}
		if !strings.Contains(w.stderr.String(), `harness "codex" is not supported yet`) {
			t.Fatalf("%s stderr:\n%s", sub, w.stderr.String())
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(w.cfgDir, "resume-hooks")); len(entries) != 0 || len(w.calls) != 0 {
		t.Errorf("a refused run left %v and ran %v", entries, w.calls)
	}
}

func TestStatusJSON(t *testing.T) {
	w := newWorld(t)
	w.claude("2.1.1")
	if code := w.run("status", "--json"); code != 0 {
		t.Fatal(code)
	}
	want := `{
  "watcher": {
    "kind": "systemd",
    "files": [
      "HOME/.config/systemd/user/forgectl-resume-hooks.service",
      "HOME/.config/systemd/user/forgectl-resume-hooks.path",
      "HOME/.config/systemd/user/forgectl-resume-hooks.timer"
    ],
    "installed": false,
    "loaded": false,
    "running": false,
    "pid": 0,
    "unreachable": "no systemd user instance answers"
  },
  "hooks_configured": 0,
  "config_error": "",
  "harnesses": [],
  "run_in_progress": null,
  "records": []
}
`
	if d := cmp.Diff(want, strings.ReplaceAll(w.stdout.String(), w.home, "HOME")); d != "" {
		t.Fatalf("empty status (-want +got):\n%s", d)
	}

	fail := filepath.Join(w.home, "bin", "fail")
	os.WriteFile(fail, []byte("#!/bin/sh\necho \"broke on $1\" >&2\nexit 3\n"), 0o755)
	w.config(`[[resume.on_update]]
harness = "claude"
command = ["` + fail + `", "hunter2-token"]
`)
	w.run("run")
	w.claude("2.1.2")
	if code := w.run("run"); code != 1 {
		t.Fatalf("run exit %d\n%s", code, w.stderr.String())
	}
	w.run("status", "--json")
	var st statusJSON
	if err := json.Unmarshal(w.stdout.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st.HooksConfigured != 1 || len(st.Harnesses) != 1 || st.Harnesses[0].Version != "2.1.2" || len(st.Records) != 1 {
		t.Fatalf("status %+v", st)
	}
	r := st.Records[0]
	want2 := hookstate.Record{
		Time: time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC), Event: "hook", Trigger: "manual", Harness: "claude",
		OldVersion: "2.1.1", NewVersion: "2.1.2", Hook: &hookstate.HookRef{Position: 1, Kind: "command", Program: "fail"},
		Outcome: "failed", ExitStatus: 3, StderrTail: "broke on [arg 1]",
	}
	r.DurationMS = 0
	if d := cmp.Diff(want2, r); d != "" {
		t.Fatalf("record (-want +got):\n%s", d)
	}

	w.run("status")
	for _, line := range []string{
		"recorded: claude 2.1.2 at 2026-04-05T06:07:08Z",
		"2026-04-05T06:07:08Z  claude 2.1.1 -> 2.1.2  hook 1: command fail  failed exit 3",
		"      stderr: broke on [arg 1]",
	} {
		if !strings.Contains(w.stdout.String(), line) {
			t.Fatalf("status lacks %q:\n%s", line, w.stdout.String())
		}
	}
}

func TestInstallDryRunOnMacOS(t *testing.T) {
	w := newWorld(t)
	w.goos = "darwin"
	w.claude("2.1.1")
	forgectl := filepath.Join(w.home, "bin", "forgectl")
	os.WriteFile(forgectl, []byte("#!/bin/sh\n"), 0o755)
	w.env["FORGECTL_SELF"] = forgectl
	w.env["HERDR_SOCKET_PATH"] = "/tmp/herdr & co/herdr.sock"
	if code := w.run("install", "--dry-run"); code != 0 {
		t.Fatalf("exit %d\n%s", code, w.stderr.String())
	}
	want := watcher.Plist(watcher.Bake{
		Forgectl: forgectl, Claude: w.env["FORGECTL_CLAUDE_BIN"], HerdrSocket: "/tmp/herdr & co/herdr.sock",
		ConfigDir: w.cfgDir, WorkDir: filepath.Join(w.cfgDir, "resume-hooks"),
		Log: filepath.Join(w.cfgDir, "resume-hooks", "watcher.log"), Trigger: "launchd",
	})
	if d := cmp.Diff(want, w.stdout.String()); d != "" {
		t.Fatalf("plist (-want +got):\n%s", d)
	}
	for _, warn := range []string{
		"is not a symlink into a versions directory",
		"herdr was not found",
		"no [[resume.on_update]] hooks are configured",
	} {
		if !strings.Contains(w.stderr.String(), warn) {
			t.Errorf("stderr lacks %q:\n%s", warn, w.stderr.String())
		}
	}
	if len(w.calls) != 0 {
		t.Fatalf("a dry run ran %q", w.calls)
	}
}

// The job's environment has neither FORGECTL_CONFIG_DIR nor XDG_CONFIG_HOME
// nor CLAUDE_CONFIG_DIR: install bakes forgectl's config directory as it
// resolved it, always, and Claude Code's when it was set.
func TestInstallBakesTheConfigDirectories(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		configDir string // under HOME
		claudeDir string // under HOME; "" when not baked
	}{
		{"FORGECTL_CONFIG_DIR", map[string]string{"FORGECTL_CONFIG_DIR": "~/cfg"}, "cfg", ""},
		{"XDG_CONFIG_HOME", map[string]string{"XDG_CONFIG_HOME": "HOME/xdg"}, "xdg/forgectl", ""},
		{"neither", map[string]string{}, ".config/forgectl", ""},
		{"CLAUDE_CONFIG_DIR with a tilde", map[string]string{"XDG_CONFIG_HOME": "HOME/xdg", "CLAUDE_CONFIG_DIR": "~/claude-work"}, "xdg/forgectl", "claude-work"},
		{"CLAUDE_CONFIG_DIR absolute", map[string]string{"CLAUDE_CONFIG_DIR": "HOME/elsewhere/claude/"}, ".config/forgectl", "elsewhere/claude"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.claude("2.1.1")
			forgectl := filepath.Join(w.home, "bin", "forgectl")
			os.WriteFile(forgectl, []byte("#!/bin/sh\n"), 0o755)
			w.env["FORGECTL_SELF"] = forgectl
			delete(w.env, "FORGECTL_CONFIG_DIR")
			for k, v := range tc.env {
				w.env[k] = strings.ReplaceAll(v, "HOME", w.home)
			}
			if code := w.run("install", "--dry-run"); code != 0 {
				t.Fatalf("exit %d\n%s", code, w.stderr.String())
			}
			cfg := filepath.Join(w.home, tc.configDir)
			b := watcher.Bake{
				Forgectl: forgectl, Claude: w.env["FORGECTL_CLAUDE_BIN"], ConfigDir: cfg,
				WorkDir: filepath.Join(cfg, "resume-hooks"), Log: filepath.Join(cfg, "resume-hooks", "watcher.log"),
				Trigger: "systemd",
			}
			if tc.claudeDir != "" {
				b.ClaudeConfigDir = filepath.Join(w.home, tc.claudeDir)
			}
			service := watcher.Units(b)[0]
			if !strings.Contains(w.stdout.String(), service) {
				t.Fatalf("stdout lacks\n%s\nin\n%s", service, w.stdout.String())
			}
			if !strings.Contains(service, `Environment="FORGECTL_CONFIG_DIR=`+cfg+`"`) {
				t.Fatalf("the service does not bake the config directory:\n%s", service)
			}
			if got := strings.Contains(w.stdout.String(), "CLAUDE_CONFIG_DIR"); got != (tc.claudeDir != "") {
				t.Fatalf("CLAUDE_CONFIG_DIR baked: %v, want %v\n%s", got, tc.claudeDir != "", w.stdout.String())
			}
		})
	}
}

func TestInstallRefusesAGoRunBuild(t *testing.T) {
	w := newWorld(t)
	w.goos = "darwin"
	w.claude("2.1.1")
	w.env["FORGECTL_SELF"] = "/tmp/go-build2871/b001/exe/forgectl"
	if code := w.run("install"); code != 2 {
		t.Fatalf("exit %d\n%s", code, w.stderr.String())
	}
	if !strings.Contains(w.stderr.String(), "forgectl: error: this forgectl is a go run build") ||
		!strings.Contains(w.stderr.String(), "forgectl: hint: build forgectl with 'go install'") {
		t.Fatalf("stderr:\n%s", w.stderr.String())
	}
	if _, err := os.Stat(hookstate.PlistPath(w.home)); err == nil {
		t.Fatal("a plist was written")
	}
}

func TestWatchedClaudePrefersTheNativeLink(t *testing.T) {
	w := newWorld(t)
	delete(w.env, "FORGECTL_CLAUDE_BIN")
	native := filepath.Join(w.home, ".local", "bin", "claude")
	versions := filepath.Join(w.home, ".local", "share", "claude", "versions")
	os.MkdirAll(versions, 0o755)
	os.MkdirAll(filepath.Dir(native), 0o755)
	os.WriteFile(filepath.Join(versions, "2.1.9"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink(filepath.Join(versions, "2.1.9"), native)
	w.claude("2.1.1") // also a claude on "PATH"
	got, err := w.app().watchedClaude(nil)
	if err != nil || got != native {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestNotifyPassesTextsAsArguments(t *testing.T) {
	w := newWorld(t)
	a := w.app()
	a.runner = func(_ context.Context, name string, args ...string) hookstate.Result {
		w.calls = append(w.calls, name+"|"+strings.Join(args, "|"))
		return hookstate.Result{}
	}
	msg := `resume with: '/opt/x"y/forgectl' resume abc`
	if err := a.notify(context.Background(), "forgectl resume hooks", msg); err != nil {
		t.Fatal(err)
	}
	want := []string{"osascript|-e|on run argv|-e|display notification (item 2 of argv) with title (item 1 of argv)|-e|end run|forgectl resume hooks|" + msg}
	if d := cmp.Diff(want, w.calls); d != "" {
		t.Fatalf("osascript (-want +got):\n%s", d)
	}
}

func TestTrigger(t *testing.T) {
	for v, want := range map[string]string{"launchd": "launchd", "systemd": "systemd", "cron": "cron", "": "manual", "bogus": "manual"} {
		w := newWorld(t)
		w.env["FORGECTL_HOOKS_TRIGGER"] = v
		if got := w.app().trigger(); got != want {
			t.Errorf("FORGECTL_HOOKS_TRIGGER=%q: %q, want %q", v, got, want)
		}
	}
}
