package config

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeLook answers like exec.LookPath over a fixed set of executables: paths
// are looked up as given, bare names under /usr/bin.
func fakeLook(executables ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		p := name
		if !strings.Contains(name, "/") {
			p = "/usr/bin/" + name
		}
		for _, e := range executables {
			if e == p {
				return p, nil
			}
		}
		return "", &exec.Error{Name: name, Err: fs.ErrNotExist}
	}
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestClaudeBinary(t *testing.T) {
	withPath := &Config{Path: "/c/config.toml", Launch: Launch{Defaults: Profile{BinaryPath: "~/bin/claude"}}}
	tests := []struct {
		name  string
		env   map[string]string
		cfg   *Config
		exes  []string
		want  string
		from  string // BinaryError.From, when an error is expected
		value string
	}{
		{
			name: "environment first",
			env:  map[string]string{"FORGECTL_CLAUDE_BIN": "/opt/claude", "HOME": "/home/u"},
			cfg:  withPath,
			exes: []string{"/opt/claude", "/home/u/bin/claude", "/usr/bin/claude"},
			want: "/opt/claude",
		},
		{
			name: "environment set but missing does not fall through",
			env:  map[string]string{"FORGECTL_CLAUDE_BIN": "/opt/claude", "HOME": "/home/u"},
			cfg:  withPath,
			exes: []string{"/home/u/bin/claude", "/usr/bin/claude"},
			from: "FORGECTL_CLAUDE_BIN", value: "/opt/claude",
		},
		{
			name: "environment may name a program on PATH",
			env:  map[string]string{"FORGECTL_CLAUDE_BIN": "claude-beta"},
			exes: []string{"/usr/bin/claude-beta", "/usr/bin/claude"},
			want: "/usr/bin/claude-beta",
		},
		{
			name: "binary_path second, tilde expanded",
			env:  map[string]string{"HOME": "/home/u"},
			cfg:  withPath,
			exes: []string{"/home/u/bin/claude", "/usr/bin/claude"},
			want: "/home/u/bin/claude",
		},
		{
			name: "binary_path set but missing does not fall through",
			env:  map[string]string{"HOME": "/home/u"},
			cfg:  withPath,
			exes: []string{"/usr/bin/claude"},
			from: "[launch] binary_path", value: "/home/u/bin/claude",
		},
		{
			name: "PATH last",
			env:  map[string]string{"HOME": "/home/u"},
			cfg:  &Config{},
			exes: []string{"/usr/bin/claude"},
			want: "/usr/bin/claude",
		},
		{
			name: "nil config",
			exes: []string{"/usr/bin/claude"},
			want: "/usr/bin/claude",
		},
		{
			name: "nowhere",
			cfg:  &Config{},
			from: "PATH", value: "claude",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ClaudeBinary(envOf(tt.env), tt.cfg, fakeLook(tt.exes...))
			if tt.from == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ClaudeBinary = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var be *BinaryError
			if !errors.As(err, &be) {
				t.Fatalf("ClaudeBinary = %q, %v; want a *BinaryError", got, err)
			}
			if be.Program != "claude" || be.From != tt.from || be.Value != tt.value || be.Hint == "" || got != "" {
				t.Errorf("got %q, %+v", got, be)
			}
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the lookup's error is not wrapped: %v", err)
			}
		})
	}
}

func TestBinaryErrorMessages(t *testing.T) {
	tests := []struct {
		env  map[string]string
		cfg  *Config
		want string
		hint string
	}{
		{
			env:  map[string]string{"FORGECTL_CLAUDE_BIN": "/opt/claude"},
			want: `claude from FORGECTL_CLAUDE_BIN ("/opt/claude") cannot be run: file does not exist`,
			hint: "point FORGECTL_CLAUDE_BIN at the claude executable, or unset it",
		},
		{
			cfg:  &Config{Path: "/c/config.toml", Launch: Launch{Defaults: Profile{BinaryPath: "/x/claude"}}},
			want: `claude from [launch] binary_path ("/x/claude") cannot be run: file does not exist`,
			hint: "fix binary_path in /c/config.toml, or remove it to use claude on PATH",
		},
		{
			want: "claude not found on PATH",
			hint: "install Claude Code, or set FORGECTL_CLAUDE_BIN or [launch.defaults] binary_path to its path",
		},
	}
	for _, tt := range tests {
		_, err := ClaudeBinary(envOf(tt.env), tt.cfg, fakeLook())
		var be *BinaryError
		if !errors.As(err, &be) {
			t.Fatalf("err = %v", err)
		}
		if err.Error() != tt.want || be.Hint != tt.hint {
			t.Errorf("got %q / %q\nwant %q / %q", err.Error(), be.Hint, tt.want, tt.hint)
		}
	}
}

func TestResolvedClaudeBinary(t *testing.T) {
	cfg := &Config{Launch: Launch{
		Defaults: Profile{BinaryPath: "/default/claude"},
		Projects: []ProjectProfile{{Match: "/p", Profile: Profile{BinaryPath: "~/beta/claude"}}},
	}}
	look := fakeLook("/default/claude", "/home/u/beta/claude")
	got, err := Resolve(cfg, "/p", home).ClaudeBinary(envOf(nil), "", look)
	if err != nil || got != "/home/u/beta/claude" {
		t.Errorf("project binary = %q, %v", got, err)
	}
	got, err = Resolve(cfg, "/q", home).ClaudeBinary(envOf(nil), "", look)
	if err != nil || got != "/default/claude" {
		t.Errorf("default binary = %q, %v", got, err)
	}
	got, err = Resolve(cfg, "/p", home).ClaudeBinary(envOf(map[string]string{"FORGECTL_CLAUDE_BIN": "/default/claude"}), "", look)
	if err != nil || got != "/default/claude" {
		t.Errorf("environment did not win: %q, %v", got, err)
	}
}

func TestHerdrBinary(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		exes []string
		want string
		from string
	}{
		{"environment first", map[string]string{"FORGECTL_HERDR_BIN": "/opt/herdr"}, []string{"/opt/herdr", "/usr/bin/herdr"}, "/opt/herdr", ""},
		{"environment missing", map[string]string{"FORGECTL_HERDR_BIN": "/opt/herdr"}, []string{"/usr/bin/herdr"}, "", "FORGECTL_HERDR_BIN"},
		{"PATH", nil, []string{"/usr/bin/herdr"}, "/usr/bin/herdr", ""},
		{"nowhere", nil, nil, "", "PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HerdrBinary(envOf(tt.env), fakeLook(tt.exes...))
			if tt.from == "" {
				if err != nil || got != tt.want {
					t.Fatalf("HerdrBinary = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var be *BinaryError
			if !errors.As(err, &be) || be.Program != "herdr" || be.From != tt.from || be.Hint == "" {
				t.Fatalf("HerdrBinary = %q, %#v", got, err)
			}
		})
	}
}

// TestClaudeBinaryRealFiles runs the lookup with exec.LookPath over real
// files: an executable, a file that is not executable, and a PATH entry.
func TestClaudeBinaryRealFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho 2.1.0\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe := write("claude", 0o755)
	notExe := write("claude-plain", 0o644)
	t.Setenv("PATH", dir)

	tests := []struct {
		name    string
		env     map[string]string
		cfg     *Config
		want    string
		wantErr bool
	}{
		{"env executable", map[string]string{"FORGECTL_CLAUDE_BIN": exe}, nil, exe, false},
		{"env not executable", map[string]string{"FORGECTL_CLAUDE_BIN": notExe}, nil, "", true},
		{"config with tilde", map[string]string{"HOME": dir}, &Config{Launch: Launch{Defaults: Profile{BinaryPath: "~/claude"}}}, exe, false},
		{"config not executable", nil, &Config{Launch: Launch{Defaults: Profile{BinaryPath: notExe}}}, "", true},
		{"PATH", nil, nil, exe, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ClaudeBinary(envOf(tt.env), tt.cfg, exec.LookPath)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ClaudeBinary = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "permission denied") {
				t.Errorf("message %q does not say why", err)
			}
		})
	}
}
