package main

import (
	"fmt"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	claudeh "forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/shared/paths"
)

// preview is the picker's preview of a session: what it is, where it runs,
// whether it is live, its tasks, its first and last prompt, and (given its
// kin) its parent and children.
func preview(s *harness.Session, now time.Time, claude paths.Claude, width int, k kin) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-8s %s\n", k, clean(v))
		}
	}
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	} else if s.NameSource != "" {
		name += "  (" + s.NameSource + ")"
	}
	fmt.Fprintf(&b, "%s\n\n", clean(name))
	line("id", s.ID)
	cwd := s.Cwd
	if !s.CwdExists {
		cwd += "   [directory no longer exists]"
	}
	line("cwd", cwd)
	line("repo", s.Repo+" @ "+orDash(s.Branch))
	line("active", age(now, s.LastActivity)+" ("+s.LastActivity.UTC().Format("2006-01-02 15:04 UTC")+")")
	if s.Live {
		st := fmt.Sprintf("running, pid %d", s.Pid)
		if s.Tmux != "" {
			st += ", tmux " + s.Tmux
		}
		line("status", st+" — resume refuses it; --fork branches off")
	} else {
		line("status", "not running")
	}
	counts, source := s.Tasks, s.TasksSource
	if source == "" {
		counts, source = claudeh.TaskCounts(claude, s.ID, s.Snapshot)
	}
	if counts.Total > 0 {
		line("tasks", fmt.Sprintf("%d pending, %d in progress, %d completed (%s)", counts.Pending, counts.InProgress, counts.Completed, source))
	}
	line("first", s.FirstPrompt)
	line("last", s.LastPrompt)
	lineageLines(k, s, now, line)
	return wrap(b.String(), width)
}

func wrap(s string, width int) string {
	if width < 20 {
		return s
	}
	var out strings.Builder
	for _, l := range strings.Split(s, "\n") {
		r := []rune(l)
		for len(r) > width {
			out.WriteString(string(r[:width]) + "\n")
			r = append([]rune("         "), r[width:]...)
		}
		out.WriteString(string(r) + "\n")
	}
	return strings.TrimRight(out.String(), "\n")
}
