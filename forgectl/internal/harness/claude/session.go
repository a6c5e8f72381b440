package claude

import (
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
)

// build makes the row of a transcript from its record; archived says
// Claude Code's own archive mark hides it (see archEntry.archivedNow).
func build(f *harness.File, path string, ent *indexEntry, archived bool) harness.Session {
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
	setCost(&s, &sum.Usage)
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
	case archived:
		// A choice someone made, in Claude Code: it says more than
		// what the session is made of, so it is the reason given.
		s.Hidden, s.HiddenReason = true, "archived-in-claude"
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
