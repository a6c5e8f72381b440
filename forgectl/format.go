package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/pickcache"
	"forgectl.dev/shared/paths"
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
	LastPromptAt string       `json:"last_prompt_at"`
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
	ParentID     string       `json:"parent_session_id"`
	Relation     string       `json:"relation"`
	ParentExists bool         `json:"parent_exists"`
}

func toJSON(s *sessions.Session) sessionJSON {
	j := sessionJSON{
		SessionID: s.ID, Name: s.Name, NameSource: s.NameSource, Repo: s.Repo, Branch: s.Branch,
		Cwd: s.Cwd, CwdExists: s.CwdExists, LastActivity: s.LastActivity.UTC().Format(time.RFC3339),
		FirstPrompt: s.FirstPrompt, LastPrompt: s.LastPrompt, Live: s.Live, Status: s.Status, Tmux: s.Tmux,
		Tasks: s.Tasks, TasksSource: s.TasksSource, Entrypoint: s.Entrypoint, Version: s.Version,
		Hidden: s.Hidden, HiddenReason: s.HiddenReason, SizeBytes: s.Size, Messages: s.Messages,
		Transcript: s.Transcript, ParentID: s.ParentID, Relation: s.Relation, ParentExists: s.ParentExists,
	}
	if s.Live {
		pid := s.Pid
		j.Pid = &pid
	}
	if !s.LastPromptAt.IsZero() {
		j.LastPromptAt = s.LastPromptAt.UTC().Format(time.RFC3339)
	}
	return j
}

// writeJSON prints the array with one compact object per line. It is
// hand-encoded because reflection-based encoding (and its indent pass) cost
// more than the whole warm listing of 10,000 sessions; a test holds every
// row byte-identical to encoding/json's output.
func writeJSON(w io.Writer, list []sessions.Session, idx []int) error {
	if len(idx) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	buf := make([]byte, 0, 64<<10)
	buf = append(buf, "[\n"...)
	for k, i := range idx {
		buf = append(buf, "  "...)
		buf = appendSession(buf, toJSON(&list[i]))
		if k < len(idx)-1 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
		if len(buf) > 48<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "]\n"...)
	_, err := w.Write(buf)
	return err
}

func appendSession(b []byte, j sessionJSON) []byte {
	b = append(b, `{"session_id":`...)
	b = appendString(b, j.SessionID)
	b = appendField(b, "name", j.Name)
	b = appendField(b, "name_source", j.NameSource)
	b = appendField(b, "repo", j.Repo)
	b = appendField(b, "branch", j.Branch)
	b = appendField(b, "cwd", j.Cwd)
	b = append(b, `,"cwd_exists":`...)
	b = strconv.AppendBool(b, j.CwdExists)
	b = appendField(b, "last_activity", j.LastActivity)
	b = appendField(b, "first_prompt", j.FirstPrompt)
	b = appendField(b, "last_prompt", j.LastPrompt)
	b = appendField(b, "last_prompt_at", j.LastPromptAt)
	b = append(b, `,"live":`...)
	b = strconv.AppendBool(b, j.Live)
	b = append(b, `,"pid":`...)
	if j.Pid == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*j.Pid), 10)
	}
	b = appendField(b, "status", j.Status)
	b = appendField(b, "tmux", j.Tmux)
	b = append(b, `,"tasks":{"pending":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.Pending), 10)
	b = append(b, `,"in_progress":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.InProgress), 10)
	b = append(b, `,"completed":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.Completed), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.Total), 10)
	b = append(b, '}')
	b = appendField(b, "tasks_source", j.TasksSource)
	b = appendField(b, "entrypoint", j.Entrypoint)
	b = appendField(b, "version", j.Version)
	b = append(b, `,"hidden":`...)
	b = strconv.AppendBool(b, j.Hidden)
	b = appendField(b, "hidden_reason", j.HiddenReason)
	b = append(b, `,"size_bytes":`...)
	b = strconv.AppendInt(b, j.SizeBytes, 10)
	b = append(b, `,"messages":`...)
	b = strconv.AppendInt(b, int64(j.Messages), 10)
	b = appendField(b, "transcript_path", j.Transcript)
	b = appendField(b, "parent_session_id", j.ParentID)
	b = appendField(b, "relation", j.Relation)
	b = append(b, `,"parent_exists":`...)
	b = strconv.AppendBool(b, j.ParentExists)
	return append(b, '}')
}

func appendField(b []byte, key, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

const hexDigits = "0123456789abcdef"

// appendString encodes s exactly as encoding/json does with HTML escaping
// off: short escapes for \b \f \n \r \t, \u00XX for other control bytes,
// U+FFFD for invalid UTF-8, and \u2028/\u2029 escaped for JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// age renders a time as "5m ago", compact enough for a table column.
func age(now, t time.Time) string { return string(appendAge(nil, now, t)) }

func appendAge(b []byte, now, t time.Time) []byte {
	d := now.Sub(t)
	var n int64
	var unit string
	switch {
	case d < 0:
		return append(b, "just now"...)
	case d < time.Minute:
		n, unit = int64(d/time.Second), "s ago"
	case d < time.Hour:
		n, unit = int64(d/time.Minute), "m ago"
	case d < 48*time.Hour:
		n, unit = int64(d/time.Hour), "h ago"
	default:
		n, unit = int64(d/(24*time.Hour)), "d ago"
	}
	return append(strconv.AppendInt(b, n, 10), unit...)
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
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	// Cut at the byte offset of rune n-1 without converting to []rune.
	i, k := 0, 0
	for k < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i] + "…"
}

// clean keeps control characters from a transcript out of the terminal.
func clean(s string) string {
	if !hasControl(s) {
		return s // the common case, without an allocation
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
		if c >= 0x80 {
			// C1 controls are U+0080–U+009F, encoded as 0xC2 0x80–0x9F.
			if c == 0xc2 && i+1 < len(s) && s[i+1] < 0xa0 {
				return true
			}
		}
	}
	return false
}

// pad right-pads s with spaces to n runes.
func pad(b []byte, s string, n int) []byte {
	b = append(b, s...)
	for k := utf8.RuneCountInString(s); k < n; k++ {
		b = append(b, ' ')
	}
	return b
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
		fmt.Fprintln(tw, tableHeader)
	}
	for _, i := range idx {
		io.WriteString(tw, tableRow(now, &list[i]))
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
	s      *sessions.Session
	now    time.Time
	row    string
	claude paths.Claude // to count tasks for the preview when the listing skipped them
	fam    *family      // the listing's lineage, for the preview
}

func (p pickItem) Row() string { return p.row }

func (p pickItem) Key() string { return p.s.ID }

func (p pickItem) Preview(width int) string { return preview(p.s, p.now, p.claude, width, p.fam) }

// cachedItem is a row from the picker's cache, shown until the fresh
// listing's rows replace it.
type cachedItem struct {
	e   *pickcache.Entry
	row string
	env *itemEnv
}

// itemEnv is what every cached row's preview shares.
type itemEnv struct {
	now    time.Time
	claude paths.Claude
}

func (c *cachedItem) Row() string { return c.row }

func (c *cachedItem) Key() string {
	s, err := c.e.Session()
	if err != nil {
		return ""
	}
	return s.ID
}

func (c *cachedItem) Preview(width int) string {
	s, err := c.e.Session()
	if err != nil {
		return "(the picker's cache is damaged here; the fresh listing replaces it in a moment)"
	}
	return preview(&s, c.env.now, c.env.claude, width, nil)
}

// preview is the picker's preview of a session: what it is, where it runs,
// whether it is live, its tasks, its first and last prompt, and (given the
// listing's family) its parent and children.
func preview(s *sessions.Session, now time.Time, claude paths.Claude, width int, fam *family) string {
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
		counts, source = sessions.TaskCounts(claude, s.ID, s.Snapshot)
	}
	if counts.Total > 0 {
		line("tasks", fmt.Sprintf("%d pending, %d in progress, %d completed (%s)", counts.Pending, counts.InProgress, counts.Completed, source))
	}
	line("first", s.FirstPrompt)
	line("last", s.LastPrompt)
	fam.lineageLines(s, now, line)
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

// pickRow is a session's row in the picker: its age column, then rowTail.
func pickRow(now time.Time, s *sessions.Session) string {
	return joinRow(now, s.LastActivity, rowTail(s))
}

func joinRow(now, at time.Time, tail string) string {
	b := make([]byte, 0, 10+len(tail))
	return string(append(appendAgeColumn(b, now, at), tail...))
}

// appendAgeColumn appends the age, padded to its column.
func appendAgeColumn(b []byte, now, at time.Time) []byte {
	n := len(b)
	b = appendAge(b, now, at)
	for k := len(b) - n; k < 8; k++ {
		b = append(b, ' ')
	}
	return b
}

// rowTail is the part of a picker row that does not depend on the clock,
// which the picker's cache keeps drawn.
func rowTail(s *sessions.Session) string {
	b := make([]byte, 0, 150)
	b = append(b, "  "...)
	b = pad(b, clean(cut(orDash(s.Repo), 20)), 20)
	b = append(b, "  "...)
	b = pad(b, clean(cut(orDash(s.Branch), 20)), 20)
	b = append(b, "  "...)
	b = append(b, clean(cut(title(s), 70))...)
	b = appendMark(b, s)
	if s.Live {
		b = append(b, "  ● live"...)
	}
	return string(b)
}
