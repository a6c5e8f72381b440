// Package paths locates Claude Code's files and forgectl's own stores.
//
// Every lookup takes its environment as arguments (a getenv function, the
// home directory, the operating system) so that tests can point a whole run
// at a temporary home without touching the process environment.
package paths

import (
	"path/filepath"
	"strings"
)

// Getenv looks up one environment variable; os.Getenv satisfies it.
type Getenv func(key string) string

// Claude is the root of Claude Code's tree: ~/.claude or $CLAUDE_CONFIG_DIR.
type Claude struct{ Root string }

// ClaudeFrom honours CLAUDE_CONFIG_DIR the way Claude Code itself does: it
// relocates the whole tree, including the global .claude.json.
func ClaudeFrom(getenv Getenv, home string) Claude {
	if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return Claude{Root: ExpandHome(dir, home)}
	}
	return Claude{Root: filepath.Join(home, ".claude")}
}

// Projects holds one folder per encoded cwd, each with <sessionId>.jsonl transcripts.
func (c Claude) Projects() string { return filepath.Join(c.Root, "projects") }

// History is the prompt history, one JSON line per submitted prompt.
func (c Claude) History() string { return filepath.Join(c.Root, "history.jsonl") }

// Registry is the live-process registry: one <pid>.json per running claude.
func (c Claude) Registry() string { return filepath.Join(c.Root, "sessions") }

// Tasks holds one folder per task list (named after the session id by default).
func (c Claude) Tasks() string { return filepath.Join(c.Root, "tasks") }

// TaskList is the folder of one task list.
func (c Claude) TaskList(listID string) string {
	return filepath.Join(c.Root, "tasks", SanitizeListID(listID))
}

// Settings is the user-scope settings.json, where the Stop hook belongs.
func (c Claude) Settings() string { return filepath.Join(c.Root, "settings.json") }

// SanitizeListID applies Claude Code's own rule for task list folder names:
// every character outside [a-zA-Z0-9_-] becomes '-'.
func SanitizeListID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	return string(b)
}

// Forgectl is forgectl's config directory, which holds every forgectl store.
type Forgectl struct{ Root string }

// ForgectlFrom resolves FORGECTL_CONFIG_DIR, else the platform's user config
// directory (as os.UserConfigDir defines it) joined with "forgectl".
func ForgectlFrom(getenv Getenv, home, goos string) Forgectl {
	if dir := getenv("FORGECTL_CONFIG_DIR"); dir != "" {
		return Forgectl{Root: ExpandHome(dir, home)}
	}
	var base string
	switch goos {
	case "darwin", "ios":
		base = filepath.Join(home, "Library", "Application Support")
	default:
		base = getenv("XDG_CONFIG_HOME")
		if base == "" || !filepath.IsAbs(base) {
			base = filepath.Join(home, ".config")
		}
	}
	return Forgectl{Root: filepath.Join(base, "forgectl")}
}

// Config is config.toml.
func (f Forgectl) Config() string { return filepath.Join(f.Root, "config.toml") }

// Snapshots is the snapshot store: one JSON file per session.
func (f Forgectl) Snapshots() string { return filepath.Join(f.Root, "resume-sessions") }

// Archive is the store of archived sessions (forgectl resume archive).
func (f Forgectl) Archive() string { return filepath.Join(f.Root, "resume-archive") }

// Trash is the store of removed sessions (forgectl resume rm).
func (f Forgectl) Trash() string { return filepath.Join(f.Root, "resume-trash") }

// MovesLock serialises every run that moves sessions into or out of the
// archive and the trash.
func (f Forgectl) MovesLock() string { return filepath.Join(f.Root, "resume-moves.lock") }

// RestartLock sits beside the snapshot store and serialises restart runs.
func (f Forgectl) RestartLock() string { return filepath.Join(f.Root, "restart.lock") }

// Hooks holds the update-hooks state, audit trail, watcher log and locks.
func (f Forgectl) Hooks() string { return filepath.Join(f.Root, "resume-hooks") }

// Cache holds rebuildable data such as the transcript index.
func (f Forgectl) Cache() string { return filepath.Join(f.Root, "cache") }

// ExpandHome expands a leading "~" or "~/" against home; other paths are
// returned cleaned but otherwise unchanged.
func ExpandHome(p, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	case p == "":
		return ""
	}
	return filepath.Clean(p)
}

// ProjectDirName is Claude Code's project folder name for a cwd of up to 200
// characters (longer ones get a hash suffix that differs between builds, so
// callers must fall back to scanning projects/ and matching the cwd inside
// the transcripts): every byte outside [a-zA-Z0-9] becomes '-'. It works on the
// string's UTF-16 code units in Claude Code; a non-ASCII rune here becomes
// one '-' per UTF-16 unit to match.
func ProjectDirName(cwd string) string {
	var b strings.Builder
	b.Grow(len(cwd))
	for _, r := range cwd {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}
