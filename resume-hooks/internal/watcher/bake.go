// Package watcher writes, loads and removes the watcher that runs
// `forgectl resume hooks run` when claude changes: a launchd agent on macOS,
// systemd user units on Linux (a cron line where systemd does not run).
package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/paths"
)

// SystemPath follows the baked directories in the watcher's PATH.
const SystemPath = "/usr/bin:/bin:/usr/sbin:/sbin"

// Interval is how often the watcher runs with nothing changed, in seconds.
const Interval = 1800

// Bake is every absolute path and value the watcher carries, since launchd
// and systemd start it with no shell environment.
type Bake struct {
	Forgectl string // the program: `<Forgectl> resume hooks run`
	Claude   string // the claude watched, also FORGECTL_CLAUDE_BIN
	Herdr    string // FORGECTL_HERDR_BIN; empty when herdr was not found
	// HerdrSocket is HERDR_SOCKET_PATH, copied when set.
	HerdrSocket string
	// ConfigDir is FORGECTL_CONFIG_DIR: forgectl's config directory as
	// install resolved it, baked always, since the job's environment has
	// no XDG_CONFIG_HOME to resolve it the same way.
	ConfigDir string
	// ClaudeConfigDir is CLAUDE_CONFIG_DIR, resolved and baked when it was
	// set at install: without it the restart would look in ~/.claude.
	ClaudeConfigDir string
	// WorkDir is resume-hooks/ under the config directory; Log is
	// watcher.log in it.
	WorkDir string
	Log     string
	// Trigger is FORGECTL_HOOKS_TRIGGER: launchd, systemd or cron.
	Trigger string
}

// PathVar is PATH: the directories of claude, herdr and forgectl, then the
// system ones, without repeats.
func (b Bake) PathVar() string {
	var dirs []string
	seen := map[string]bool{}
	for _, p := range []string{b.Claude, b.Herdr, b.Forgectl} {
		if p == "" {
			continue
		}
		d := filepath.Dir(p)
		if !seen[d] && !strings.Contains(d, ":") {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return strings.Join(append(dirs, SystemPath), ":")
}

// Env is the watcher's environment, sorted by name.
func (b Bake) Env() [][2]string {
	var env [][2]string
	if b.ClaudeConfigDir != "" {
		env = append(env, [2]string{"CLAUDE_CONFIG_DIR", b.ClaudeConfigDir})
	}
	env = append(env, [2]string{"FORGECTL_CLAUDE_BIN", b.Claude}, [2]string{"FORGECTL_CONFIG_DIR", b.ConfigDir})
	if b.Herdr != "" {
		env = append(env, [2]string{"FORGECTL_HERDR_BIN", b.Herdr})
	}
	env = append(env, [2]string{"FORGECTL_HOOKS_TRIGGER", b.Trigger})
	if b.HerdrSocket != "" {
		env = append(env, [2]string{"HERDR_SOCKET_PATH", b.HerdrSocket})
	}
	return append(env, [2]string{"PATH", b.PathVar()})
}

// WatchPaths are the claude path and its directory: launchd watches a path
// through the file it opens, and opening a symlink opens its target, so an
// update that replaces the link may touch only the directory.
func (b Bake) WatchPaths() []string {
	return []string{b.Claude, filepath.Dir(b.Claude)}
}

// Validate refuses values no service file can carry faithfully, and a bake
// missing a path the watcher cannot run without.
func (b Bake) Validate() error {
	for _, v := range []struct {
		name, val string
		required  bool
	}{
		{"forgectl", b.Forgectl, true}, {"claude", b.Claude, true}, {"herdr", b.Herdr, false},
		{"HERDR_SOCKET_PATH", b.HerdrSocket, false}, {"CLAUDE_CONFIG_DIR", b.ClaudeConfigDir, false},
		{"the config directory", b.ConfigDir, true}, {"the config directory", b.WorkDir, true}, {"the config directory", b.Log, true},
	} {
		if v.required && v.val == "" {
			return fmt.Errorf("the watcher needs the path of %s", v.name)
		}
		if strings.ContainsFunc(v.val, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return fmt.Errorf("the path of %s holds a control character: %q", v.name, v.val)
		}
		if v.val != "" && v.name != "HERDR_SOCKET_PATH" && !filepath.IsAbs(v.val) {
			return fmt.Errorf("the path of %s is not absolute: %s", v.name, v.val)
		}
	}
	return nil
}

// ErrGoRun refuses a forgectl built by `go run`, which is deleted when it exits.
var ErrGoRun = paths.ErrGoRun

// FindForgectl is forgectl's absolute path: $FORGECTL_SELF (set by forgectl
// when it dispatches here), else a forgectl beside this executable, else
// forgectl on PATH. A `go run` build is refused: the watcher would run a
// deleted file.
func FindForgectl(getenv func(string) string, self string, lookPath func(string) (string, error)) (string, error) {
	return paths.Program{Name: "forgectl", EnvVar: "FORGECTL_SELF", Self: self}.Find(getenv, lookPath)
}

// Warnings are the loud warnings of an install: a watched claude that is not
// a symlink into a versions directory, and any baked binary or directory
// that another user could change.
func (b Bake) Warnings(uid int) []string {
	var w []string
	if _, ok := claudever.VersionFromLink(b.Claude); !ok {
		w = append(w, fmt.Sprintf("the claude it watches (%s) is not a symlink into a versions directory: "+
			"an update never touches such a file, so only the load-time and 30-minute runs will notice one", b.Claude))
	}
	seen := map[string]bool{}
	check := func(p string, follow bool) {
		if p == "" || seen[p] {
			return
		}
		seen[p] = true
		stat := os.Lstat
		if follow {
			stat = os.Stat
		}
		st, err := stat(p)
		if err != nil {
			return
		}
		if st.Mode()&os.ModeSymlink == 0 && st.Mode().Perm()&0o022 != 0 {
			w = append(w, fmt.Sprintf("%s is group- or other-writable (%s): another user could change what the watcher runs unattended", p, st.Mode().Perm()))
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != uid && sys.Uid != 0 {
			w = append(w, fmt.Sprintf("%s is owned by uid %d, not you: its owner could change what the watcher runs unattended", p, sys.Uid))
		}
	}
	for _, p := range []string{b.Forgectl, b.Claude, b.Herdr} {
		if p == "" {
			continue
		}
		check(p, false)
		check(filepath.Dir(p), true)
		if target, err := filepath.EvalSymlinks(p); err == nil && target != p {
			check(target, true)
			check(filepath.Dir(target), true)
		}
	}
	return w
}
