package config

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Resolved is the launch profile of one directory.
type Resolved struct {
	Harness        string // "claude" when the config names none
	Model          string
	Effort         string
	PermissionMode string
	AllowDanger    bool
	BinaryPath     string   // "~" expanded; empty when unset
	AddDir         []string // absolute, "~" expanded, in config order
	Env            map[string]string
	// Match is the match of the [[launch.project]] that applied, as written
	// in the file; empty when only [launch.defaults] did.
	Match string
}

// Resolve merges [launch.defaults] with the [[launch.project]] whose match is
// the longest path-segment prefix of dir; see the package documentation for
// the rules. dir should be absolute and clean, and home non-empty: a "~" is
// left as written when home is empty. cfg may be nil.
func Resolve(cfg *Config, dir, home string) Resolved {
	if dir != "" {
		dir = filepath.Clean(dir)
	}
	var p Profile
	var match string
	if cfg != nil {
		p = cfg.Launch.Defaults
		if best := longestMatch(cfg.Launch.Projects, dir, home); best >= 0 {
			proj := cfg.Launch.Projects[best]
			p = merge(p, proj.Profile)
			match = proj.Match
		}
	}
	r := Resolved{
		Harness:        p.Harness,
		Model:          p.Model,
		Effort:         p.Effort,
		PermissionMode: p.PermissionMode,
		AllowDanger:    p.AllowDanger != nil && *p.AllowDanger,
		Match:          match,
	}
	if r.Harness == "" {
		r.Harness = "claude"
	}
	if p.BinaryPath != "" {
		r.BinaryPath = expandHome(p.BinaryPath, home)
	}
	for _, d := range p.AddDir {
		d = expandHome(d, home)
		if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") && filepath.IsAbs(dir) {
			d = filepath.Join(dir, d)
		}
		r.AddDir = append(r.AddDir, filepath.Clean(d))
	}
	if len(p.Env) > 0 {
		r.Env = maps.Clone(p.Env)
	}
	return r
}

// longestMatch returns the index of the project that covers dir with the
// longest match, the first one on a tie, or -1.
func longestMatch(projects []ProjectProfile, dir, home string) int {
	best, bestLen := -1, -1
	if !filepath.IsAbs(dir) {
		return best
	}
	for i, proj := range projects {
		m := expandHome(proj.Match, home)
		if !filepath.IsAbs(m) {
			continue
		}
		m = filepath.Clean(m)
		if covers(m, dir) && len(m) > bestLen {
			best, bestLen = i, len(m)
		}
	}
	return best
}

// covers reports whether dir is root or below it, on segment boundaries.
func covers(root, dir string) bool {
	if root == string(filepath.Separator) {
		return true
	}
	return dir == root || strings.HasPrefix(dir, root+string(filepath.Separator))
}

// merge lays a project's settings over the defaults.
func merge(base, over Profile) Profile {
	out := base
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&out.Harness, over.Harness},
		{&out.Model, over.Model},
		{&out.Effort, over.Effort},
		{&out.PermissionMode, over.PermissionMode},
		{&out.BinaryPath, over.BinaryPath},
	} {
		if f.src != "" {
			*f.dst = f.src
		}
	}
	if over.AllowDanger != nil {
		out.AllowDanger = over.AllowDanger
	}
	// A non-nil list, even an empty one, is the project's whole list.
	if over.AddDir != nil {
		out.AddDir = over.AddDir
	}
	if len(over.Env) > 0 {
		env := maps.Clone(base.Env)
		if env == nil {
			env = make(map[string]string, len(over.Env))
		}
		maps.Copy(env, over.Env)
		out.Env = env
	}
	return out
}

// expandHome expands "~" and "~/…" against home; an empty home leaves the
// path as written rather than turning it into a relative one.
func expandHome(p, home string) string {
	switch {
	case home == "":
		return p
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	}
	return p
}

// Args returns claude's flags for the profile in a stable order: --model,
// --effort, --permission-mode, one --add-dir per directory, and
// --allow-dangerously-skip-permissions, which is withheld unless stdout is a
// terminal so that a piped --dry-run never shows a dangerous argv to a
// script. A resume appends "--resume <id>" (and "--fork-session").
func (r Resolved) Args(stdoutIsTerminal bool) []string {
	args := []string{}
	for _, f := range [...]struct{ flag, value string }{
		{"--model", r.Model},
		{"--effort", r.Effort},
		{"--permission-mode", r.PermissionMode},
	} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	for _, d := range r.AddDir {
		args = append(args, "--add-dir", d)
	}
	if r.AllowDanger && stdoutIsTerminal {
		args = append(args, "--allow-dangerously-skip-permissions")
	}
	return args
}

// Environ returns the variables a launch or resume adds to claude's environment,
// as sorted KEY=VALUE pairs: proxyEnv (from Config.ProxyEnv) overlaid with the
// profile's env, which wins on a shared key. It is never nil.
func (r Resolved) Environ(proxyEnv []string) []string {
	vars := make(map[string]string, len(proxyEnv)+len(r.Env))
	for _, kv := range proxyEnv {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	maps.Copy(vars, r.Env)
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
