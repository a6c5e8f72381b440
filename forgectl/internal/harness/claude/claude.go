// Package claude is the Claude Code harness: its transcripts under
// projects/ (CLAUDE_CONFIG_DIR, else ~/.claude), how a transcript becomes
// a row of the listing and how `claude --resume` takes a session back
// (facts/claude-code.md).
//
// A session is a transcript. Its row is the transcript's summary (read
// through the listing's index, which reads only appended bytes), its
// sidecar title, joined with the live registry, the prompt history (when
// each session was last prompted, and its /clear lines for lineage), the
// task lists and forgectl's snapshot store. One that exists only in the
// history cannot be resumed, so it is not listed.
//
// Claude Code stays the source of truth: everything here is re-derived
// from its files on every listing, except what only the snapshot store
// still holds once a session has exited (its /rename name and tasks).
package claude

import (
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
)

// Name is the harness's name in ls --json and the config.
const Name = "claude"

// Harness is Claude Code as forgectl reads it.
type Harness struct {
	paths paths.Claude
	snaps snapstore.Store
}

// New is Claude Code with its files at p, and forgectl's snapshots of its
// sessions in snaps (a zero Store: none), which name a session once
// Claude Code has forgotten its /rename and keep its tasks.
func New(p paths.Claude, snaps snapstore.Store) *Harness { return &Harness{paths: p, snaps: snaps} }

// Name is "claude".
func (h *Harness) Name() string { return Name }

// ResumeArgs are `--resume ID`, with `--fork-session` to branch a new
// session off the transcript: the only way into a session that is running.
func (h *Harness) ResumeArgs(s *harness.Session, fork bool) []string {
	args := []string{"--resume", s.ID}
	if fork {
		args = append(args, "--fork-session")
	}
	return args
}
