// Package codex is the OpenAI Codex CLI harness: its rollouts under
// sessions/ and archived_sessions/ ($CODEX_HOME, else ~/.codex), how the
// segments of a thread become one row of the listing, and how `codex
// resume` takes a thread back (facts/codex.md).
//
// A thread can own several rollout files (a segment per rewind), so the
// identity of a file is what its first line, session_meta, says, never
// its name: the listing's Lister groups files by that id (see
// harness.Grouper), the newest segment being the live one and the oldest
// giving the creation time. Names live in session_index.jsonl, the time of
// the last prompt in history.jsonl, and liveness in the write locks Codex
// holds on thread-writer-locks/<id>.lock.
//
// Codex stays the source of truth: its state database (state_5.sqlite) is
// a cache Codex rebuilds from the rollouts, and is never read.
package codex

import (
	"path/filepath"
	"sync"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/tasks"
)

// Name is the harness's name in ls --json and the config.
const Name = "codex"

// Paths is where Codex keeps its files.
type Paths struct{ Root string }

// PathsFrom is $CODEX_HOME, else ~/.codex.
func PathsFrom(getenv func(string) string, home string) Paths {
	if d := getenv("CODEX_HOME"); d != "" {
		return Paths{Root: d}
	}
	return Paths{Root: filepath.Join(home, ".codex")}
}

// Sessions holds the rollouts, in YYYY/MM/DD folders.
func (p Paths) Sessions() string { return filepath.Join(p.Root, "sessions") }

// Archived holds archived rollouts, flat.
func (p Paths) Archived() string { return filepath.Join(p.Root, "archived_sessions") }

// Index is session_index.jsonl, where thread names live.
func (p Paths) Index() string { return filepath.Join(p.Root, "session_index.jsonl") }

// History is history.jsonl, the prompts typed in the TUI.
func (p Paths) History() string { return filepath.Join(p.Root, "history.jsonl") }

// Locks holds a thread's write lock while some process has it loaded.
func (p Paths) Locks() string { return filepath.Join(p.Root, "thread-writer-locks") }

// DaemonPid is the background daemon's pid file.
func (p Paths) DaemonPid() string { return filepath.Join(p.Root, "app-server-daemon", "daemon.pid") }

// Harness is the Codex CLI as forgectl reads it.
type Harness struct {
	paths Paths
	// archivedDir is paths.Archived(), cleaned once: every thread's row
	// asks whether its newest segment is there.
	archivedDir string
	// procLocks is /proc/locks; a test points it elsewhere.
	procLocks string
	// names is session_index.jsonl for search, read once.
	namesOnce sync.Once
	names     map[string]string
	// zstd keeps idle *zstd.Decoder for the next compressed segment.
	zstd sync.Pool
	// heads keeps idle buffers for Group's read of first lines' ids,
	// and parents idle *jsonl.Scanner for legacy forks' parents: a cold
	// listing opens thousands of files, and a buffer for each was a
	// tenth of its CPU, in allocating and collecting it.
	heads, parents sync.Pool
}

// New is Codex with its files at p.
func New(p Paths) *Harness {
	return &Harness{paths: p, archivedDir: filepath.Clean(p.Archived()), procLocks: "/proc/locks"}
}

// Name is "codex".
func (h *Harness) Name() string { return Name }

// ResumeArgs are `resume ID`, or `fork ID` for a new thread off it. They
// run in the thread's recorded cwd, so Codex never asks which directory
// to use.
func (h *Harness) ResumeArgs(s *harness.Session, fork bool) []string {
	if fork {
		return []string{"fork", s.ID}
	}
	return []string{"resume", s.ID}
}

// Tasks: Codex keeps no task lists.
func (h *Harness) Tasks(s *harness.Session) (tasks.Counts, string) { return tasks.Counts{}, "none" }
