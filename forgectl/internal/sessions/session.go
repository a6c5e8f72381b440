// Package sessions lists the Claude Code sessions on this machine: every
// transcript under projects/, summarised (through an index that reads only
// appended bytes), joined with the live registry, the prompt history (when
// each session was last prompted), the task lists and forgectl's snapshot
// store. A session is a transcript: one that exists only in the history
// cannot be resumed, so it is not listed.
//
// The listing streams: List stats every transcript, orders them newest
// first, and hands each session on as soon as it is known, parsing the
// newest first when they are not in the index. So the first screen of a
// picker never waits for the oldest transcript, and a listing holds no
// more than a window of sessions at a time.
//
// Claude Code stays the source of truth: everything here is re-derived from
// its files on every listing, except what only the snapshot store still
// holds once a session has exited (its /rename name and tasks).
package sessions

import (
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
)

// build makes the row of a transcript from its record.
func build(f *harness.File, path string, ent *indexEntry) harness.Session {
	sum := &ent.Sum
	s := harness.Session{
		ID:           strings.TrimSuffix(f.Name, ".jsonl"),
		FirstPrompt:  sum.FirstPrompt,
		LastPrompt:   sum.Latest(),
		Cwd:          sum.ProjectCwd(),
		Branch:       sum.GitBranch,
		LastActivity: time.Unix(0, f.MtimeNs).UTC(),
		Entrypoint:   sum.Entrypoint,
		Version:      sum.Version,
		Size:         f.Size,
		Transcript:   path,
		Messages:     sum.Messages,
		BrokenLines:  sum.BrokenLines,
	}
	s.Name, s.NameSource = sum.Name()
	// Claude Code's precedence: an agent name, then the custom title from
	// the transcript, else from the sidecar file, then the AI title.
	if ent.Side.Title != "" && sum.AgentName == "" && sum.CustomTitle == "" {
		s.Name, s.NameSource = ent.Side.Title, "custom-title-file"
	}
	if s.LastPrompt == "" {
		s.LastPrompt = s.FirstPrompt
	}
	switch {
	case sum.Sidechain:
		s.Hidden, s.HiddenReason = true, "sidechain"
	case strings.HasPrefix(sum.Entrypoint, "sdk-"):
		s.Hidden, s.HiddenReason = true, "print-mode"
	case sum.TeamName != "":
		s.Hidden, s.HiddenReason = true, "team"
	case sum.ContinuedIn != "":
		s.Hidden, s.HiddenReason = true, "continued"
	case sum.Messages == 0 && s.Name == "":
		s.Hidden, s.HiddenReason = true, "empty"
	}
	return s
}

// derivedName reports a name no person gave (or none at all): a name the
// user gave, kept by the registry or the snapshot store, takes its place.
func derivedName(source string) bool {
	return source == "" || source == "ai-title" || source == "summary"
}
