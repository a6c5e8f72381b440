// Package claudever parses and compares Claude Code versions and finds the
// installed one.
//
// Versions compare numerically per dot-separated component, so 2.1.100 is
// newer than 2.1.99. A version that does not parse is never guessed at:
// callers report it as unparseable.
package claudever

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Version is a parsed dotted version.
type Version struct {
	Parts []int
	Raw   string
}

// Parse accepts "2.1.332", "v2.1.332", "2.1.332 (Claude Code)" and a
// pre-release or build suffix ("2.1.332-beta.1", compared on its numeric
// core). Anything else is an error.
func Parse(s string) (Version, error) {
	raw := strings.TrimSpace(s)
	core := raw
	if i := strings.IndexByte(core, ' '); i >= 0 {
		core = core[:i]
	}
	core = strings.TrimPrefix(core, "v")
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	if core == "" {
		return Version{}, fmt.Errorf("unparseable version %q", s)
	}
	fields := strings.Split(core, ".")
	if len(fields) < 2 {
		return Version{}, fmt.Errorf("unparseable version %q", s)
	}
	v := Version{Raw: raw, Parts: make([]int, len(fields))}
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 || f == "" || (len(f) > 1 && f[0] == '+') {
			return Version{}, fmt.Errorf("unparseable version %q", s)
		}
		v.Parts[i] = n
	}
	return v, nil
}

// String is the numeric core, e.g. "2.1.332".
func (v Version) String() string {
	s := make([]string, len(v.Parts))
	for i, p := range v.Parts {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ".")
}

// Compare returns -1, 0 or 1; missing components count as zero (2.1 == 2.1.0).
func Compare(a, b Version) int {
	n := max(len(a.Parts), len(b.Parts))
	for i := range n {
		var x, y int
		if i < len(a.Parts) {
			x = a.Parts[i]
		}
		if i < len(b.Parts) {
			y = b.Parts[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Installed says which claude version is installed and how that was learnt.
type Installed struct {
	Version Version
	Binary  string // the path examined
	Source  string // "symlink" (a versions/<v> target) or "--version"
}

// Finder locates the installed claude.
type Finder struct {
	Getenv func(string) string
	Home   string
	// Binary is claude as launch finds it (FORGECTL_CLAUDE_BIN, then
	// [launch] binary_path, then PATH); "" when not found.
	Binary string
	// Timeout bounds `claude --version`; default 10s.
	Timeout time.Duration
}

// VersionFromLink returns the version a launcher symlink points at when its
// target sits in a directory named "versions" (the native installer's
// layout: ~/.local/bin/claude -> ~/.local/share/claude/versions/<v>).
func VersionFromLink(path string) (Version, bool) {
	target, err := os.Readlink(path)
	if err != nil {
		return Version{}, false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	if filepath.Base(filepath.Dir(target)) != "versions" {
		return Version{}, false
	}
	v, err := Parse(filepath.Base(target))
	return v, err == nil
}

// Find determines the installed version. FORGECTL_CLAUDE_BIN, when set, is
// the only binary examined, so a watcher reads the same file it watches.
func (f Finder) Find(ctx context.Context) (Installed, error) {
	candidates := []string{}
	if env := f.Getenv("FORGECTL_CLAUDE_BIN"); env != "" {
		candidates = append(candidates, env)
	} else {
		candidates = append(candidates, filepath.Join(f.Home, ".local", "bin", "claude"))
		if f.Binary != "" {
			candidates = append(candidates, f.Binary)
		}
	}
	for _, c := range candidates {
		if v, ok := VersionFromLink(c); ok {
			return Installed{Version: v, Binary: c, Source: "symlink"}, nil
		}
	}
	bin := candidates[len(candidates)-1]
	if f.Getenv("FORGECTL_CLAUDE_BIN") == "" && f.Binary == "" {
		if _, err := os.Stat(bin); err != nil {
			return Installed{}, errors.New("claude not found (not on PATH, no [launch] binary_path, no FORGECTL_CLAUDE_BIN)")
		}
	}
	out, err := f.runVersion(ctx, bin)
	if err != nil {
		return Installed{}, err
	}
	v, err := Parse(out)
	if err != nil {
		return Installed{}, fmt.Errorf("%s --version printed %q: %w", bin, firstLine(out), err)
	}
	return Installed{Version: v, Binary: bin, Source: "--version"}, nil
}

func (f Finder) runVersion(ctx context.Context, bin string) (string, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s --version did not answer within %s", bin, timeout)
		}
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return firstLine(stdout.String()), nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
