package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"forgectl.dev/forgectl/internal/settings"
)

const userSettings = `{
    "permissions": {
        "allow": ["Bash(npm test)"],
        "defaultMode": "acceptEdits"
    },
    "env": {"LANG_HINT": "ça va — 日本語"},
    "statusLine": {"type": "command", "command": "~/.claude/line.sh"},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "lint"}]}
        ]
    }
}
`

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInitStopHookThroughASymlink(t *testing.T) {
	h := newHome(t)
	dotfiles := filepath.Join(h.home, "dotfiles", "claude")
	os.MkdirAll(dotfiles, 0o755)
	real := filepath.Join(dotfiles, "settings.json")
	os.WriteFile(real, []byte(userSettings), 0o640)
	os.Chmod(real, 0o640)
	os.MkdirAll(h.claude, 0o700)
	link := filepath.Join(h.claude, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(h.home, "bin", "forgectl")
	os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755)

	// The dry run prints a diff that patch(1) applies, and writes nothing.
	r := h.run("init", "--stop-hook", "--dry-run")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "--- "+link+"\n+++ "+link+"\n@@ ") {
		t.Fatalf("dry run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if readFile(t, real) != userSettings {
		t.Fatal("the dry run wrote")
	}
	copyF := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(copyF, []byte(userSettings), 0o600)
	patch := exec.Command("patch", "-s", copyF)
	patch.Stdin = strings.NewReader(r.stdout)
	if out, err := patch.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v %s", err, out)
	}

	// forgectl on PATH is this one: the hook names it bare.
	r = h.run("init", "--stop-hook")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := readFile(t, real)
	if got != readFile(t, copyF) {
		t.Errorf("the write differs from the dry run's diff:\n%s", got)
	}
	if !strings.Contains(got, `"command": "forgectl resume snapshot --quiet"`) {
		t.Errorf("%s", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if readFile(t, real+settings.BackupSuffix) != userSettings {
		t.Error("no backup of the previous content beside the real file")
	}
	if !strings.Contains(r.stderr, "into "+real) {
		t.Errorf("stderr does not name the real file: %s", r.stderr)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatal(err)
	}
	if len(v) != 4 || v["env"].(map[string]any)["LANG_HINT"] != "ça va — 日本語" {
		t.Errorf("%v", v)
	}

	// A second run changes no byte.
	r = h.run("init", "--stop-hook")
	if r.code != 0 || readFile(t, real) != got || !strings.Contains(r.stderr, "already wired") {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	// Removal gives the original back, byte for byte.
	r = h.run("init", "--remove-stop-hook")
	if r.code != 0 || readFile(t, real) != userSettings {
		t.Fatalf("%d %s\n%s", r.code, r.stderr, readFile(t, real))
	}
	r = h.run("init", "--remove-stop-hook")
	if r.code != 0 || !strings.Contains(r.stderr, "nothing to remove") {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
}

func TestInitStopHookAbsolutePathWhenPathHasAnother(t *testing.T) {
	h := newHome(t)
	// PATH has another forgectl (an older install, say); this one lives in
	// a folder with a space.
	os.WriteFile(filepath.Join(h.home, "bin", "forgectl"), []byte("#!/bin/sh\necho old\n"), 0o755)
	a, rec := h.newTestApp(false, nil, nil)
	a.self = filepath.Join(h.home, "my tools", "forgectl")
	os.MkdirAll(filepath.Dir(a.self), 0o755)
	os.WriteFile(a.self, []byte("#!/bin/sh\n"), 0o755)
	if code := a.run(t.Context(), []string{"init", "--stop-hook"}); code != 0 {
		t.Fatalf("%d %s", code, rec.errb.String())
	}
	got := readFile(t, filepath.Join(h.claude, "settings.json"))
	want := "'" + a.self + "' resume snapshot --quiet"
	var v struct {
		Hooks struct {
			Stop []struct {
				Hooks []struct{ Type, Command string }
			}
		}
	}
	if err := json.Unmarshal([]byte(got), &v); err != nil || v.Hooks.Stop[0].Hooks[0].Command != want {
		t.Fatalf("%v\n%s", err, got)
	}
	if fi, _ := os.Stat(filepath.Join(h.claude, "settings.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("a new file is %v", fi.Mode().Perm())
	}
	if !addedByInit(want) {
		t.Error("removal would not recognise it")
	}
}

func TestInitStopHookRefusals(t *testing.T) {
	h := newHome(t)
	os.MkdirAll(h.claude, 0o700)
	p := filepath.Join(h.claude, "settings.json")
	bad := "{\n  \"env\": {\"A\": \"1\"},\n  \"model\": opus\n}\n"
	os.WriteFile(p, []byte(bad), 0o600)
	r := h.run("init", "--stop-hook")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "forgectl: error: "+p+":3:12: ") || !strings.Contains(r.stderr, "forgectl: hint: ") {
		t.Fatalf("%d %q", r.code, r.stderr)
	}
	if readFile(t, p) != bad {
		t.Fatal("touched")
	}
	if _, err := os.Stat(p + settings.BackupSuffix); err == nil {
		t.Fatal("a backup was written for a refused file")
	}

	// A read-only file is left alone with a clear error, even for root.
	os.WriteFile(p, []byte("{}\n"), 0o600)
	os.Chmod(p, 0o444)
	r = h.run("init", "--stop-hook")
	if r.code != 1 || !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, "chmod u+w") || readFile(t, p) != "{}\n" {
		t.Fatalf("%d %s", r.code, r.stderr)
	}

	r = h.run("init", "--stop-hook", "--remove-stop-hook")
	if r.code != 2 || strings.Count(r.stderr, "\n") != 2 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
}

func TestAddedByInit(t *testing.T) {
	for cmd, want := range map[string]bool{
		"forgectl resume snapshot --quiet":                true,
		"/usr/local/bin/forgectl resume snapshot --quiet": true,
		"'/a b/forgectl' resume snapshot --quiet":         true,
		"resume-snapshot --quiet":                         false,
		"forgectl resume snapshot":                        false,
		"cd x && forgectl resume snapshot --quiet":        false,
		"/bin/notforgectl resume snapshot --quiet":        false,
	} {
		if addedByInit(cmd) != want {
			t.Errorf("%q: want %v", cmd, want)
		}
	}
}

// A Stop hook already running the snapshotter from a path that is gone (an
// old install) is reported, not covered up with a second hook.
func TestInitStopHookReportsABrokenExistingHook(t *testing.T) {
	h := newHome(t)
	os.MkdirAll(h.claude, 0o700)
	p := filepath.Join(h.claude, "settings.json")
	doc := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/opt/old/forgectl resume snapshot --quiet"}]}]}}`
	os.WriteFile(p, []byte(doc), 0o600)
	r := h.run("init", "--stop-hook")
	if r.code != 1 || !strings.Contains(r.stderr, "/opt/old/forgectl, which is not an executable file") || !strings.Contains(r.stderr, "forgectl: hint: remove that entry") {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	if readFile(t, p) != doc {
		t.Fatal("touched")
	}
}

// A Stop hook whose program starts with ~ or $HOME is checked as sh runs
// it, against forgectl's home: doctor warns that it is gone, and init
// reports it rather than calling it wired. A program sh expands otherwise
// is a warning that doctor cannot check it.
func TestDoctorAndInitExpandTheHomeInTheHook(t *testing.T) {
	for _, c := range []struct {
		command, doctor string
		initCode        int
		init            string
	}{
		{`~/nope/forgectl resume snapshot --quiet`, "runs HOME/nope/forgectl, which is not an executable file", 1, "runs HOME/nope/forgectl, which is not an executable file"},
		{`"$HOME/nope/forgectl" resume snapshot --quiet`, "runs HOME/nope/forgectl, which is not an executable file", 1, "runs HOME/nope/forgectl, which is not an executable file"},
		{`$TOOLS/forgectl resume snapshot --quiet`, "the shell expands at run time, so doctor cannot check that it exists", 0, "already wired"},
	} {
		t.Run(c.command, func(t *testing.T) {
			h := newHome(t)
			os.MkdirAll(h.claude, 0o700)
			p := filepath.Join(h.claude, "settings.json")
			cmd, _ := json.Marshal(c.command)
			doc := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ` + string(cmd) + `}]}]}}`
			os.WriteFile(p, []byte(doc), 0o600)
			row := hookRow(t, h.run("doctor", "--json"))
			if want := strings.ReplaceAll(c.doctor, "HOME", h.home); row.Status != "warn" || !strings.Contains(row.Message, want) || row.Hint == "" {
				t.Fatalf("doctor: %+v; want a warning with %q", row, want)
			}
			r := h.run("init", "--stop-hook")
			if want := strings.ReplaceAll(c.init, "HOME", h.home); r.code != c.initCode || !strings.Contains(r.stderr, want) {
				t.Fatalf("init: %d %s; want %d %q", r.code, r.stderr, c.initCode, want)
			}
			if readFile(t, p) != doc {
				t.Fatal("touched")
			}
		})
	}
}

// The install path holds what shells treat specially: init quotes it, a
// real sh runs exactly that file, doctor reads the same file back, and a
// second init sees its own hook.
func TestInitStopHookQuotedInstallPaths(t *testing.T) {
	for _, dir := range []string{"it's", `say "hi"`, "my tools", "$HOME", `back\slash`, `all '"$\ of them`} {
		t.Run(dir, func(t *testing.T) {
			h := newHome(t)
			self := filepath.Join(h.home, dir, "forgectl")
			ran := filepath.Join(h.home, "ran")
			os.MkdirAll(filepath.Dir(self), 0o755)
			os.WriteFile(self, []byte("#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > \"$RAN\"\n"), 0o755)
			run := func(args ...string) result {
				a, rec := h.newTestApp(false, nil, nil)
				a.self = self
				code := a.run(t.Context(), args)
				return result{code: code, stdout: rec.out.String(), stderr: rec.errb.String()}
			}
			settingsPath := filepath.Join(h.claude, "settings.json")

			if r := run("init", "--stop-hook"); r.code != 0 {
				t.Fatalf("init: %d %s", r.code, r.stderr)
			}
			written := readFile(t, settingsPath)
			var v struct {
				Hooks struct {
					Stop []struct {
						Hooks []struct{ Command string }
					}
				}
			}
			if err := json.Unmarshal([]byte(written), &v); err != nil {
				t.Fatal(err)
			}
			cmd := v.Hooks.Stop[0].Hooks[0].Command
			// The hook runs as Claude Code runs it: /bin/sh -c.
			sh := exec.Command("/bin/sh", "-c", cmd)
			sh.Env = append(os.Environ(), "RAN="+ran)
			if out, err := sh.CombinedOutput(); err != nil {
				t.Fatalf("sh -c %s: %v %s", cmd, err, out)
			}
			if got, want := readFile(t, ran), self+"\nresume\nsnapshot\n--quiet\n"; got != want {
				t.Fatalf("sh -c %s ran %q, want %q", cmd, got, want)
			}

			r := run("doctor", "--json")
			var rows []checkRow
			if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
				t.Fatal(err)
			}
			if rows[3].Check != "resume tasks" || rows[3].Status != "ok" || !strings.HasSuffix(rows[3].Message, "runs `"+cmd+"`, whose program is "+self) {
				t.Fatalf("doctor: %+v", rows[3])
			}

			r = run("init", "--stop-hook")
			if r.code != 0 || !strings.Contains(r.stderr, "already wired") || readFile(t, settingsPath) != written {
				t.Fatalf("second init: %d %s", r.code, r.stderr)
			}
			// And removal recognises it as init's.
			if r := run("init", "--remove-stop-hook"); r.code != 0 || !strings.Contains(r.stderr, "removed") {
				t.Fatalf("remove: %d %s", r.code, r.stderr)
			}
		})
	}
}

// init rewrites settings.json by rename, which would hand the file to
// whoever runs init (root, under sudo): it keeps the owner instead.
func TestInitStopHookKeepsTheOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	h := newHome(t)
	os.MkdirAll(h.claude, 0o755)
	p := filepath.Join(h.claude, "settings.json")
	os.WriteFile(p, []byte(userSettings), 0o640)
	if err := os.Chown(p, 12345, 12346); err != nil {
		t.Fatal(err)
	}
	owner := func(p string) (int, int, os.FileMode) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		return int(st.Uid), int(st.Gid), fi.Mode().Perm()
	}
	for _, args := range [][]string{{"init", "--stop-hook"}, {"init", "--remove-stop-hook"}} {
		if r := h.run(args...); r.code != 0 {
			t.Fatalf("%v: %d %s", args, r.code, r.stderr)
		}
		for _, f := range []string{p, p + settings.BackupSuffix} {
			if uid, gid, mode := owner(f); uid != 12345 || gid != 12346 || mode != 0o640 {
				t.Errorf("%v: %s is %d:%d %v, want 12345:12346 0640", args, f, uid, gid, mode)
			}
		}
	}
	if readFile(t, p) != userSettings {
		t.Fatal("add then remove is not the original")
	}
}

// Where the owner cannot be kept (init runs as a user who may not chown),
// it refuses, names the owner, and changes nothing. The child runs as uid
// 12345 against a file owned by uid 12346.
func TestInitStopHookRefusesToChangeTheOwner(t *testing.T) {
	if childRun(t) {
		return
	}
	home := sharedHome(t)
	claude := filepath.Join(home, ".claude")
	p := filepath.Join(claude, "settings.json")
	os.WriteFile(p, []byte(userSettings), 0o666)
	os.Chmod(p, 0o666)
	os.Chown(p, 12346, 12346)

	out := asAnotherUser(t, home, "init", "--stop-hook")
	if !strings.Contains(out, "code=1\n") ||
		!strings.Contains(out, "forgectl: error: cannot write "+p+": it is owned by uid 12346, gid 12346, and replacing it would hand it to uid 12345, gid 12345") ||
		!strings.Contains(out, "forgectl: hint: run it as the file's owner (sudo -u '#12346' forgectl init --stop-hook)") {
		t.Fatalf("child:\n%s", out)
	}
	if readFile(t, p) != userSettings {
		t.Fatal("the file changed")
	}
	ents, _ := os.ReadDir(claude)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

// sharedHome is a home a child running as uid 12345 can use: under a
// world-searchable folder (t.TempDir's is root's alone), owned by 12345.
func sharedHome(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a child as another user")
	}
	base, err := os.MkdirTemp("", "forgectl-owner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	home := filepath.Join(base, "home")
	claude := filepath.Join(home, ".claude")
	os.MkdirAll(claude, 0o755)
	for _, d := range []string{home, claude} {
		os.Chown(d, 12345, 12345)
	}
	return home
}

// asAnotherUser runs forgectl with args in home as uid 12345: this test
// binary, copied where that user can run it, re-running the calling test,
// whose childRun does the run. It returns "code=N\n", stderr, stdout.
func asAnotherUser(t *testing.T, home string, args ...string) string {
	t.Helper()
	self, _ := os.Executable()
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(filepath.Dir(home), "forgectl.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), "FORGECTL_TEST_CHILD_HOME="+home, "FORGECTL_TEST_CHILD_ARGS="+strings.Join(args, "\x1f"))
	cmd.Dir = filepath.Dir(home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 12345, Gid: 12345}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return string(out)
}

// childRun is the child's half of asAnotherUser: in a child it runs
// forgectl in the parent's home, prints the outcome, and reports true.
func childRun(t *testing.T) bool {
	home := os.Getenv("FORGECTL_TEST_CHILD_HOME")
	if home == "" {
		return false
	}
	h := &testHome{t: t, home: home, claude: filepath.Join(home, ".claude"), fc: filepath.Join(home, ".config", "forgectl"), bin: filepath.Join(home, "bin", "claude")}
	r := h.run(strings.Split(os.Getenv("FORGECTL_TEST_CHILD_ARGS"), "\x1f")...)
	fmt.Printf("code=%d\n%s%s", r.code, r.stderr, r.stdout)
	return true
}
