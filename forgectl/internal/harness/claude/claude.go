// Package claude is the Claude Code harness: its transcripts under
// projects/ (CLAUDE_CONFIG_DIR, else ~/.claude) and how `claude --resume`
// takes a session back (facts/claude-code.md).
package claude

import (
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/paths"
)

// Name is the harness's name in ls --json and the config.
const Name = "claude"

// Harness is Claude Code as forgectl reads it.
type Harness struct {
	paths paths.Claude
}

// New is Claude Code with its files at p.
func New(p paths.Claude) *Harness { return &Harness{paths: p} }

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
