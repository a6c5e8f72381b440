package claudever

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestParseCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"2.1.100", "2.1.99", 1},
		{"2.1.99", "2.1.100", -1},
		{"2.1.332 (Claude Code)", "2.1.332", 0},
		{"v2.1", "2.1.0", 0},
		{"2.1.332-beta.1", "2.1.331", 1},
		{"10.0.0", "9.9.9", 1},
	} {
		a, err := Parse(tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := Compare(a, b); got != tc.want {
			t.Errorf("Compare(%s,%s)=%d want %d", tc.a, tc.b, got, tc.want)
		}
	}
	for _, bad := range []string{"", "abc", "2", "2.x.1", "2..1", "-1.2", "unknown"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func writeExe(t *testing.T, path, script string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()

	// A native install: ~/.local/bin/claude -> versions/2.1.332; never executed.
	vdir := filepath.Join(home, ".local", "share", "claude", "versions")
	writeExe(t, filepath.Join(vdir, "2.1.332"), "exit 99")
	os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755)
	os.Symlink(filepath.Join(vdir, "2.1.332"), filepath.Join(home, ".local", "bin", "claude"))
	got, err := Finder{Getenv: getenv, Home: home}.Find(ctx)
	if err != nil || got.Version.String() != "2.1.332" || got.Source != "symlink" {
		t.Fatalf("native: %+v %v", got, err)
	}

	// FORGECTL_CLAUDE_BIN wins and is run with --version.
	npm := filepath.Join(home, "npm", "claude")
	writeExe(t, npm, `[ "$1" = --version ] && echo "2.1.197 (Claude Code)"`)
	env["FORGECTL_CLAUDE_BIN"] = npm
	got, err = Finder{Getenv: getenv, Home: home}.Find(ctx)
	if err != nil || got.Version.String() != "2.1.197" || got.Source != "--version" {
		t.Fatalf("env: %+v %v", got, err)
	}

	// Garbage and failure are errors, never a guessed version.
	writeExe(t, npm, `echo "not a version"`)
	if _, err := (Finder{Getenv: getenv, Home: home}).Find(ctx); err == nil {
		t.Fatal("garbage accepted")
	}
	writeExe(t, npm, `exit 3`)
	if _, err := (Finder{Getenv: getenv, Home: home}).Find(ctx); err == nil {
		t.Fatal("failure accepted")
	}
	delete(env, "FORGECTL_CLAUDE_BIN")
	if _, err := (Finder{Getenv: getenv, Home: t.TempDir()}).Find(ctx); err == nil {
		t.Fatal("no claude at all must be an error")
	}
}
