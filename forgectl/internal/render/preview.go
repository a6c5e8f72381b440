package render

import (
	"fmt"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/tasks"
)

// Preview is the picker's preview of a session: what it is, where it runs,
// whether it is live, its tasks, its first and last prompt, and (given its
// kin) its parent and children, and what resuming it would cost (with a
// dollar estimate when prices has one for its model; nil: none). counts
// gives the task counts of a session the listing did not count (nil: none
// shown); width wraps the lines (under 20: not wrapped).
func Preview(s *harness.Session, now time.Time, width int, k *Kin, counts func(*harness.Session) (tasks.Counts, string), prices Prices) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-8s %s\n", k, Clean(v))
		}
	}
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	} else if s.NameSource != "" {
		name += "  (" + s.NameSource + ")"
	}
	fmt.Fprintf(&b, "%s\n\n", Clean(name))
	b.WriteString(idLine(Clean(s.ID), width))
	cwd := s.Cwd
	if !s.CwdExists {
		cwd += "   [directory no longer exists]"
	}
	line("cwd", cwd)
	line("repo", s.Repo+" @ "+OrDash(s.Branch))
	line("active", Age(now, s.LastActivity)+" ("+s.LastActivity.UTC().Format("2006-01-02 15:04 UTC")+")")
	if s.Live {
		st := fmt.Sprintf("running, pid %d", s.Pid)
		if s.Tmux != "" {
			st += ", tmux " + s.Tmux
		}
		line("status", st+" — resume refuses it; --fork branches off")
	} else {
		line("status", "not running")
	}
	c, source := s.Tasks, s.TasksSource
	if source == "" && counts != nil {
		c, source = counts(s)
	}
	if c.Total > 0 {
		line("tasks", fmt.Sprintf("%d pending, %d in progress, %d completed (%s)", c.Pending, c.InProgress, c.Completed, source))
	}
	line("first", s.FirstPrompt)
	line("last", s.LastPrompt)
	line("context", CostLine(s, now, prices))
	if s.TokensUsed > 0 {
		line("used", Tokens(s.TokensUsed)+" tokens so far")
	}
	lineageLines(k, s, now, line)
	return Wrap(b.String(), width)
}

// idLine is the preview's id line, never wrapped: an id split across two
// lines reads as two values and cannot be copied. Where the pane is too
// narrow for the usual label, the label shortens ("id "), then goes (the
// line under the name is the id); only a pane narrower than the id cuts
// it, with "…", keeping the prefix that lineage marks name.
func idLine(id string, width int) string {
	switch {
	case id == "":
		return ""
	case width < 20 || 9+Width(id) <= width:
		return fmt.Sprintf("%-8s %s\n", "id", id)
	case 3+Width(id) <= width:
		return "id " + id + "\n"
	}
	return CutWidth(id, width) + "\n"
}

// lineageLines are the preview's lines about where a session came from and
// what came from it.
func lineageLines(k *Kin, s *harness.Session, now time.Time, line func(k, v string)) {
	if k == nil {
		return
	}
	if s.ParentID != "" {
		v := LineageMark(s)
		if ps := k.Parent(s); ps != nil {
			v += ": " + msg.Cut(Title(ps), 50) + ", " + Age(now, ps.LastActivity)
		} else {
			v += ": its transcript is no longer on disk"
		}
		line("from", v)
	}
	for n, cs := range k.Children(s) {
		key := ""
		if n == 0 {
			key = "children"
		}
		word := cs.Relation
		if word == lineage.Clear {
			word = "after /clear"
		}
		line(key, fmt.Sprintf("%s %s: %s, %s", word, ShortID(cs.ID), msg.Cut(Title(cs), 50), Age(now, cs.LastActivity)))
	}
}

// Wrap cuts the lines of s at width display columns, indenting what
// follows under the values; a width under 20 leaves s as it is.
func Wrap(s string, width int) string {
	if width < 20 {
		return s
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, wrapHanging("", "         ", l, width)...)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}
