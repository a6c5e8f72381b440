package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/version"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/resume-restart/internal/outdated"
	"forgectl.dev/resume-restart/internal/restart"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/poll"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
)

// testApp builds an app over a temporary home with the given environment.
func testApp(t *testing.T, home string, env map[string]string) (*app, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if env == nil {
		env = map[string]string{}
	}
	if _, ok := env["PATH"]; !ok {
		env["PATH"] = filepath.Join(home, "empty-path")
	}
	env["HOME"] = home
	a := &app{
		stdout: &stdout, stderr: &stderr,
		getenv:   func(k string) string { return env[k] },
		home:     func() (string, error) { return home, nil },
		lookPath: func(p string) (string, error) { return lookPathIn(env["PATH"], p) },
		executable: func() (string, error) {
			return filepath.Join(home, "bin", "resume-restart"), nil
		},
		goos: "linux", pid: os.Getpid(), now: time.Now,
	}
	return a, &stdout, &stderr
}

// lookPathIn is exec.LookPath over a given PATH, without touching the
// process environment.
func lookPathIn(path, file string) (string, error) {
	if strings.Contains(file, "/") {
		if fi, err := os.Stat(file); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return file, nil
		}
		return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
}

// installClaude makes ~/.local/bin/claude a symlink into versions/<v>.
func installClaude(t *testing.T, home, version string) {
	t.Helper()
	versions := filepath.Join(home, ".local", "share", "claude", "versions")
	bin := filepath.Join(home, ".local", "bin")
	for _, d := range []string{versions, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(versions, version), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(bin, "claude")
	os.Remove(link)
	if err := os.Symlink(filepath.Join("..", "share", "claude", "versions", version), link); err != nil {
		t.Fatal(err)
	}
}

// register writes a registry file for pid with the given start time and
// fields over cchome's 2.1.332 defaults.
func register(t *testing.T, home string, pid int, procStart string, fields map[string]any) {
	t.Helper()
	fields["procStart"] = procStart
	id, _ := fields["sessionId"].(string)
	cchome.New(t, filepath.Join(home, ".claude")).Register(pid, id, fields)
}

func TestVersionHelpAndUsage(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   string // a substring; "" means stdout must be empty
		stderr   string
		noStderr bool
	}{
		{"version", []string{"--version"}, 0, "resume-restart " + version.String() + "\n", "", true},
		{"root help", []string{"--help"}, 0, "COMMANDS", "", true},
		{"outdated help", []string{"outdated", "--help"}, 0, "herdr_pane_id        string", "", true},
		{"outdated -h", []string{"outdated", "-h"}, 0, "version_unparseable", "", true},
		{"restart help", []string{"restart", "--help"}, 0, "delivery_unknown", "", true},
		{"no command", nil, 2, "", "forgectl: error: missing command", false},
		{"unknown command", []string{"frobnicate"}, 2, "", `forgectl: error: unknown command "frobnicate"`, false},
		{"bad flag", []string{"outdated", "--bogus"}, 2, "", "forgectl: error: flag provided but not defined: -bogus", false},
		{"outdated positional", []string{"outdated", "x"}, 2, "", `forgectl: error: unexpected argument "x"`, false},
		{"restart without --outdated", []string{"restart"}, 2, "", "forgectl: error: restart needs --outdated", false},
		{"restart bad timeout", []string{"restart", "--outdated", "--timeout", "0s"}, 2, "", "--timeout must be positive", false},
		{"restart unparseable timeout", []string{"restart", "--outdated", "--timeout", "soon"}, 2, "", "forgectl: error: invalid value \"soon\" for flag -timeout", false},
		{"restart empty session", []string{"restart", "--outdated", "--session", " "}, 2, "", "empty session id", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, stdout, stderr := testApp(t, t.TempDir(), nil)
			code := a.main(context.Background(), c.args)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if c.stdout == "" && stdout.Len() > 0 {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout lacks %q:\n%s", c.stdout, stdout)
			}
			if c.noStderr && stderr.Len() > 0 {
				t.Errorf("stderr = %q, want nothing", stderr)
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr)
			}
			if c.code == 0 && strings.Contains(c.name, "config does not load") {
				// Loaded only when needed: reported then, and only then.
				reported := strings.Contains(stderr.String(), "config.toml")
				if want := strings.Contains(c.name, "PATH"); reported != want {
					t.Errorf("config error reported = %v, want %v; stderr:\n%s", reported, want, stderr)
				}
			}
			if c.code == 2 && !strings.Contains(stderr.String(), "forgectl: hint: run 'forgectl resume ") {
				t.Errorf("usage error without a hint:\n%s", stderr)
			}
		})
	}
}

// TestFlagValueMissing: a flag of restart that takes a value and has none
// is bad usage naming it, with the suite's one message; "--" and the next
// flag are never its value. Before, "--session --dry-run" narrowed to a
// session called "--dry-run" and ran for real, not as a dry run.
func TestFlagValueMissing(t *testing.T) {
	hint := func(name string) string {
		return "forgectl: hint: give it one: --" + name + " VALUE, or --" + name + `=VALUE for a value that starts with "-"` + "\n"
	}
	missing := func(name string) string { return "forgectl: error: flag --" + name + " needs a value\n" + hint(name) }
	notValue := func(name, next string) string {
		return "forgectl: error: flag --" + name + " needs a value, and \"" + next + `" starts with "-" so it is not taken as one` + "\n" + hint(name)
	}
	home := t.TempDir()
	installClaude(t, home, "2.1.100")
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"restart", "--outdated", "--session", "--dry-run"}, notValue("session", "--dry-run")},
		{[]string{"restart", "--outdated", "-session", "--json", "--dry-run"}, notValue("session", "--json")},
		{[]string{"restart", "--outdated", "--session", "--"}, missing("session")},
		{[]string{"restart", "--outdated", "--session", "--", "abc"}, missing("session")},
		{[]string{"restart", "--outdated", "--dry-run", "--session"}, missing("session")},
		{[]string{"restart", "--outdated", "--dry-run", "--timeout"}, missing("timeout")},
		{[]string{"restart", "--timeout", "--outdated", "--dry-run"}, notValue("timeout", "--outdated")},
		{[]string{"--version", "restart", "--outdated", "--session"}, missing("session")},
	} {
		a, stdout, stderr := testApp(t, home, nil)
		if code := a.main(context.Background(), c.args); code != 2 || stdout.Len() > 0 || stderr.String() != c.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.args, code, stdout, stderr, c.stderr)
		}
	}
	// A value starting with "-" is written with "=": it is the value,
	// and the dry run is one (it takes no lock, so a held one is no bar).
	os.MkdirAll(filepath.Join(home, ".config", "forgectl"), 0o700)
	l, err := fsutil.TryLock(filepath.Join(home, ".config", "forgectl", "restart.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	a, stdout, stderr := testApp(t, home, nil)
	if code := a.main(context.Background(), []string{"restart", "--outdated", "--session=--dry-run", "--dry-run"}); code != 0 || strings.Contains(stderr.String(), "needs a value") {
		t.Errorf("--session=--dry-run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestHelpDocumentsEveryJSONField(t *testing.T) {
	for _, c := range []struct {
		cmd string
		v   any
	}{{"outdated", outdated.Row{}}, {"restart", restart.Outcome{}}} {
		a, stdout, _ := testApp(t, t.TempDir(), nil)
		a.main(context.Background(), []string{c.cmd, "--help"})
		b, _ := json.Marshal(c.v)
		var fields map[string]any
		json.Unmarshal(b, &fields)
		for k := range fields {
			if !strings.Contains(stdout.String(), "  "+k+" ") {
				t.Errorf("%s --help does not document %s", c.cmd, k)
			}
		}
	}
}

// TestOutdated runs against real processes: this test process and a child
// are live; a registry file naming a dead pid and one naming a live pid
// with the wrong start time are not.
func TestOutdated(t *testing.T) {
	home := t.TempDir()
	installClaude(t, home, "2.1.100")

	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	dead := exec.Command("true")
	dead.Run()

	self := os.Getpid()
	selfStart, err := proc.StartTime(self)
	if err != nil {
		t.Fatal(err)
	}
	var childStart string
	poll.Wait(poll.Long, func() bool {
		childStart, err = proc.StartTime(child.Process.Pid)
		return err == nil
	})
	register(t, home, self, selfStart, map[string]any{"sessionId": "s-self", "version": "2.1.99", "status": "idle", "cwd": "/src/a", "name": "a-1"})
	register(t, home, child.Process.Pid, childStart, map[string]any{"sessionId": "s-child", "version": "", "status": "busy", "cwd": nil, "name": nil})
	register(t, home, dead.Process.Pid, "1", map[string]any{"sessionId": "s-dead", "version": "2.0.1", "status": "idle"})
	register(t, home, 1, "999999999", map[string]any{"sessionId": "s-reused", "version": "2.0.1", "status": "idle"})

	// s-self has taken a prompt: its transcript exists; s-child has none.
	tdir := filepath.Join(home, ".claude", "projects", "-src-a")
	os.MkdirAll(tdir, 0o700)
	os.WriteFile(filepath.Join(tdir, "s-self.jsonl"), []byte("{}\n"), 0o600)

	a, stdout, stderr := testApp(t, home, nil)
	if code := a.main(context.Background(), []string{"outdated", "--json"}); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var got []outdated.Row
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	want := []outdated.Row{
		{SessionID: "s-self", Pid: self, Version: "2.1.99", InstalledVersion: "2.1.100", Status: "idle", Cwd: "/src/a", Name: "a-1"},
		{SessionID: "s-child", Pid: child.Process.Pid, InstalledVersion: "2.1.100", VersionUnparseable: true, Status: "busy", Busy: true, NoTranscript: true},
	}
	if self > child.Process.Pid {
		want[0], want[1] = want[1], want[0]
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	a, stdout, _ = testApp(t, home, nil)
	a.main(context.Background(), []string{"outdated"})
	if !strings.Contains(stdout.String(), "SESSION") || !strings.Contains(stdout.String(), "s-self") {
		t.Errorf("table:\n%s", stdout)
	}
}

func TestOutdatedEmptyAndInstalledVersion(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, home string, env map[string]string)
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no registry, json", func(t *testing.T, home string, env map[string]string) { installClaude(t, home, "2.1.100") },
			[]string{"outdated", "--json"}, 0, "[]\n", ""},
		{"no registry, table", func(t *testing.T, home string, env map[string]string) { installClaude(t, home, "2.1.100") },
			[]string{"outdated"}, 0, "", "no live session runs a claude older than the installed 2.1.100"},
		{"claude --version when not a versions symlink", func(t *testing.T, home string, env map[string]string) {
			bin := filepath.Join(home, "tools")
			os.MkdirAll(bin, 0o755)
			os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\necho '2.1.332 (Claude Code)'\n"), 0o755)
			env["PATH"] = bin
		}, []string{"outdated"}, 0, "", "installed 2.1.332"},
		{"not installed", nil, []string{"outdated", "--json"}, 1, "",
			"forgectl: error: cannot determine the installed claude version"},
		{"version does not parse", func(t *testing.T, home string, env map[string]string) {
			p := filepath.Join(home, "claude")
			os.WriteFile(p, []byte("#!/bin/sh\necho 'garbage'\n"), 0o755)
			env["FORGECTL_CLAUDE_BIN"] = p
		}, []string{"outdated"}, 1, "", "cannot determine the installed claude version"},
		// The config only says where claude is; a broken one costs the
		// version only when nothing else names a claude.
		{"config does not load, versions symlink", func(t *testing.T, home string, env map[string]string) {
			installClaude(t, home, "2.1.100")
			brokenConfig(home)
		}, []string{"outdated"}, 0, "", "no live session runs a claude older than the installed 2.1.100"},
		{"config does not load, FORGECTL_CLAUDE_BIN", func(t *testing.T, home string, env map[string]string) {
			brokenConfig(home)
			p := filepath.Join(home, "claude")
			os.WriteFile(p, []byte("#!/bin/sh\necho '2.1.332 (Claude Code)'\n"), 0o755)
			env["FORGECTL_CLAUDE_BIN"] = p
		}, []string{"outdated", "--json"}, 0, "[]\n", ""},
		{"config does not load, claude on PATH", func(t *testing.T, home string, env map[string]string) {
			brokenConfig(home)
			bin := filepath.Join(home, "tools")
			os.MkdirAll(bin, 0o755)
			os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\necho '2.1.332 (Claude Code)'\n"), 0o755)
			env["PATH"] = bin
		}, []string{"outdated"}, 0, "", "claude is looked up on PATH, ignoring its binary_path"},
		{"config does not load, no claude anywhere", func(t *testing.T, home string, env map[string]string) { brokenConfig(home) },
			[]string{"outdated"}, 1, "", "forgectl: error: cannot determine the installed claude version"},
		{"restart, config does not load, versions symlink", func(t *testing.T, home string, env map[string]string) {
			installClaude(t, home, "2.1.100")
			brokenConfig(home)
		}, []string{"restart", "--outdated", "--json"}, 0, "[]\n", ""},
		{"restart with nothing outdated", func(t *testing.T, home string, env map[string]string) { installClaude(t, home, "2.1.100") },
			[]string{"restart", "--outdated", "--json"}, 0, "[]\n", ""},
		{"restart narrowed to an unknown session", func(t *testing.T, home string, env map[string]string) { installClaude(t, home, "2.1.100") },
			[]string{"restart", "--outdated", "--session", "abc"}, 0, "skipped          abc  not_outdated", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{}
			if c.setup != nil {
				c.setup(t, home, env)
			}
			a, stdout, stderr := testApp(t, home, env)
			if code := a.main(context.Background(), c.args); code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if c.stdout == "" && stdout.Len() > 0 || !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout = %q, want %q", stdout, c.stdout)
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr)
			}
			if c.code == 0 && strings.Contains(c.name, "config does not load") {
				// Loaded only when needed: reported then, and only then.
				reported := strings.Contains(stderr.String(), "config.toml")
				if want := strings.Contains(c.name, "PATH"); reported != want {
					t.Errorf("config error reported = %v, want %v; stderr:\n%s", reported, want, stderr)
				}
			}
		})
	}
}

// brokenConfig writes a config.toml that does not parse.
func brokenConfig(home string) {
	dir := filepath.Join(home, ".config", "forgectl")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[launch\n"), 0o600)
}

func TestRestartLockHeld(t *testing.T) {
	home := t.TempDir()
	installClaude(t, home, "2.1.100")
	dir := filepath.Join(home, ".config", "forgectl")
	os.MkdirAll(dir, 0o700)
	l, err := fsutil.TryLock(filepath.Join(dir, "restart.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	a, stdout, stderr := testApp(t, home, nil)
	if code := a.main(context.Background(), []string{"restart", "--outdated"}); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if stdout.Len() > 0 || !strings.Contains(stderr.String(), "forgectl: error: another restart is already running") {
		t.Errorf("stdout %q, stderr:\n%s", stdout, stderr)
	}
	// A dry run reads only and takes no lock.
	a, _, stderr = testApp(t, home, nil)
	if code := a.main(context.Background(), []string{"restart", "--outdated", "--dry-run"}); code != 0 {
		t.Errorf("dry run exit %d; stderr:\n%s", code, stderr)
	}
}

func TestForgectlPath(t *testing.T) {
	home := t.TempDir()
	mk := func(p string) string {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
		return p
	}
	beside := mk(filepath.Join(home, "bin", "forgectl"))
	onPath := mk(filepath.Join(home, "path", "forgectl"))
	self := mk(filepath.Join(home, "self", "forgectl"))
	goRun := mk(filepath.Join(home, "go-build123", "b001", "exe", "forgectl"))
	cases := []struct {
		name string
		env  map[string]string
		exe  string
		want string
		err  string
	}{
		{"FORGECTL_SELF wins", map[string]string{"FORGECTL_SELF": self, "PATH": filepath.Dir(onPath)}, "", self, ""},
		{"beside this executable", map[string]string{"PATH": filepath.Dir(onPath)}, "", beside, ""},
		{"go run: the one on PATH", map[string]string{"FORGECTL_SELF": goRun, "PATH": filepath.Dir(onPath)}, goRun, onPath, ""},
		{"FORGECTL_SELF broken", map[string]string{"FORGECTL_SELF": filepath.Join(home, "nope")}, "", "", "FORGECTL_SELF"},
		{"nowhere", map[string]string{}, filepath.Join(home, "elsewhere", "resume-restart"), "", "neither beside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _, _ := testApp(t, home, c.env)
			if c.exe != "" {
				a.executable = func() (string, error) { return c.exe, nil }
			}
			got, err := a.forgectlPath()
			if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Errorf("got %q, %v; want %q, error containing %q", got, err, c.want, c.err)
			}
		})
	}
}

// A capture's notes (a torn task file) are warnings once the record is
// stored; only a record that did not reach the store holds the session.
func TestCaptureNotesAreWarnings(t *testing.T) {
	const sid = "0b8e5e0e-3a1d-4f57-9d9f-6a4a3c1d2e7f"
	cases := []struct {
		name    string
		setup   func(t *testing.T, home, store string)
		wantErr bool
		stderr  string
	}{
		{"torn task file: stored, warned", func(t *testing.T, home, store string) {
			dir := filepath.Join(home, ".claude", "tasks", sid)
			os.MkdirAll(dir, 0o700)
			os.WriteFile(filepath.Join(dir, "1.json"), []byte(`{"id":"1","subject":"half`), 0o600)
		}, false, "forgectl: note: snapshot of " + sid + " stored, with a warning"},
		{"clean: stored, silent", nil, false, ""},
		{"store cannot be written: an error", func(t *testing.T, home, store string) {
			os.MkdirAll(filepath.Dir(store), 0o700)
			os.WriteFile(store, []byte("not a directory"), 0o600)
		}, true, ""},
		{"store cannot be written, and a torn task file: an error", func(t *testing.T, home, store string) {
			dir := filepath.Join(home, ".claude", "tasks", sid)
			os.MkdirAll(dir, 0o700)
			os.WriteFile(filepath.Join(dir, "1.json"), []byte(`{"id":"1"`), 0o600)
			os.MkdirAll(filepath.Dir(store), 0o700)
			os.WriteFile(store, []byte("not a directory"), 0o600)
		}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			store := filepath.Join(home, ".config", "forgectl", "resume-sessions")
			if c.setup != nil {
				c.setup(t, home, store)
			}
			a, _, stderr := testApp(t, home, nil)
			_, claude, _, err := a.locations()
			if err != nil {
				t.Fatal(err)
			}
			st, err := proc.StartTime(os.Getpid())
			if err != nil {
				t.Fatal(err)
			}
			e := registry.Entry{Pid: os.Getpid(), SessionID: sid, ProcStart: st, Cwd: home, Version: "2.1.99",
				File: filepath.Join(claude.Registry(), fmt.Sprintf("%d.json", os.Getpid()))}
			err = a.captureFunc(claude, snapstore.Store{Dir: store})(context.Background(), e)
			if (err != nil) != c.wantErr {
				t.Errorf("capture error %v, want error %v; stderr:\n%s", err, c.wantErr, stderr)
			}
			if c.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %q, want %q", stderr, c.stderr)
			}
		})
	}
}
