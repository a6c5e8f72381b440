package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"forgectl.dev/shared/sessions"
	"forgectl.dev/shared/tasks"
)

// sessionJSON is the stable `resume ls --json` record; its field table is
// in lsHelp and the README, and fields are only ever added.
type sessionJSON struct {
	SessionID    string       `json:"session_id"`
	Name         string       `json:"name"`
	NameSource   string       `json:"name_source"`
	Repo         string       `json:"repo"`
	Branch       string       `json:"branch"`
	Cwd          string       `json:"cwd"`
	CwdExists    bool         `json:"cwd_exists"`
	LastActivity string       `json:"last_activity"`
	FirstPrompt  string       `json:"first_prompt"`
	LastPrompt   string       `json:"last_prompt"`
	Live         bool         `json:"live"`
	Pid          *int         `json:"pid"`
	Status       string       `json:"status"`
	Tmux         string       `json:"tmux"`
	Tasks        tasks.Counts `json:"tasks"`
	TasksSource  string       `json:"tasks_source"`
	Entrypoint   string       `json:"entrypoint"`
	Version      string       `json:"version"`
	Hidden       bool         `json:"hidden"`
	HiddenReason string       `json:"hidden_reason"`
	SizeBytes    int64        `json:"size_bytes"`
	Messages     int          `json:"messages"`
	Transcript   string       `json:"transcript_path"`
}

func toJSON(s *sessions.Session) sessionJSON {
	j := sessionJSON{
		SessionID: s.ID, Name: s.Name, NameSource: s.NameSource, Repo: s.Repo, Branch: s.Branch,
		Cwd: s.Cwd, CwdExists: s.CwdExists, LastActivity: s.LastActivity.UTC().Format(time.RFC3339),
		FirstPrompt: s.FirstPrompt, LastPrompt: s.LastPrompt, Live: s.Live, Status: s.Status, Tmux: s.Tmux,
		Tasks: s.Tasks, TasksSource: s.TasksSource, Entrypoint: s.Entrypoint, Version: s.Version,
		Hidden: s.Hidden, HiddenReason: s.HiddenReason, SizeBytes: s.Size, Messages: s.Messages,
		Transcript: s.Transcript,
	}
	if s.Live {
		pid := s.Pid
		j.Pid = &pid
	}
	return j
}

func writeJSON(w io.Writer, list []sessions.Session, idx []int) error {
	out := make([]sessionJSON, 0, len(idx))
	for _, i := range idx {
		out = append(out, toJSON(&list[i]))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// age renders a time as "5m ago", compact enough for a table column.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func title(s *sessions.Session) string {
	if s.Name != "" {
		return s.Name
	}
	if s.LastPrompt != "" {
		return "“" + s.LastPrompt + "”"
	}
	return "(no prompt)"
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clean keeps control characters from a transcript out of the terminal.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

func taskCell(s *sessions.Session) string {
	if s.Tasks.Total == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", s.Tasks.Completed, s.Tasks.Total)
}

func liveCell(s *sessions.Session) string {
	if s.Live {
		return fmt.Sprintf("live:%d", s.Pid)
	}
	return "-"
}

// writeTable prints sessions as aligned columns. Candidate lists (an
// ambiguous filter) use the same rows with the full id first and no header,
// so `awk '{print $1}'` yields ids.
func writeTable(w io.Writer, now time.Time, list []sessions.Session, idx []int, header bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if header {
		fmt.Fprintln(tw, "SESSION\tACTIVITY\tREPO\tBRANCH\tTASKS\tLIVE\tNAME / LAST PROMPT")
	}
	for _, i := range idx {
		s := &list[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, age(now, s.LastActivity),
			clean(cut(orDash(s.Repo), 24)), clean(cut(orDash(s.Branch), 24)), taskCell(s), liveCell(s), clean(cut(title(s), 60)))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// pickItem adapts a session to the picker.
type pickItem struct {
	s   *sessions.Session
	now time.Time
	row string
}

func (p pickItem) Row() string { return p.row }

func (p pickItem) Preview(width int) string {
	s := p.s
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
	line("active", age(p.now, s.LastActivity)+" ("+s.LastActivity.UTC().Format("2006-01-02 15:04 UTC")+")")
	if s.Live {
		st := fmt.Sprintf("running, pid %d", s.Pid)
		if s.Tmux != "" {
			st += ", tmux " + s.Tmux
		}
		line("status", st+" — resume refuses it; --fork branches off")
	} else {
		line("status", "not running")
	}
	if s.Tasks.Total > 0 {
		line("tasks", fmt.Sprintf("%d pending, %d in progress, %d completed (%s)", s.Tasks.Pending, s.Tasks.InProgress, s.Tasks.Completed, s.TasksSource))
	}
	line("first", s.FirstPrompt)
	line("last", s.LastPrompt)
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

func pickRow(now time.Time, s *sessions.Session) string {
	live := ""
	if s.Live {
		live = "  ● live"
	}
	return fmt.Sprintf("%-8s  %-20s  %-20s  %s%s", age(now, s.LastActivity), clean(cut(orDash(s.Repo), 20)), clean(cut(orDash(s.Branch), 20)), clean(cut(title(s), 70)), live)
}
