package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
