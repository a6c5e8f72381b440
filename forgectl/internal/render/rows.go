package render

import (
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/msg"
)

// PickRow is a session's row in the picker: age, repo, branch, title with
// its lineage mark, and a live mark, in columns.
func PickRow(now time.Time, s *harness.Session) string {
	b := make([]byte, 0, 160)
	b = appendAgeColumn(b, now, s.LastActivity)
	b = append(b, "  "...)
	b = Pad(b, Clean(msg.Cut(OrDash(s.Repo), 20)), 20)
	b = append(b, "  "...)
	b = Pad(b, Clean(msg.Cut(OrDash(s.Branch), 20)), 20)
	b = append(b, "  "...)
	b = append(b, Clean(msg.Cut(Title(s), 70))...)
	b = AppendMark(b, s)
	if s.Live {
		b = append(b, "  ● live"...)
	}
	return string(b)
}

// appendAgeColumn appends the age, padded to its column.
func appendAgeColumn(b []byte, now, at time.Time) []byte {
	n := len(b)
	b = AppendAge(b, now, at)
	for k := len(b) - n; k < 8; k++ {
		b = append(b, ' ')
	}
	return b
}

// HarnessMark is a short mark of a row's harness ("cc" Claude Code, "cx"
// Codex), which a list of more than one harness puts before each title:
// a person who uses one harness never sees it, and it costs no column.
func HarnessMark(s *harness.Session) string {
	switch s.Harness {
	case "claude", "":
		return "cc"
	case "codex":
		return "cx"
	}
	if len(s.Harness) > 2 {
		return s.Harness[:2]
	}
	return s.Harness
}
