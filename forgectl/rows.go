package main

import (
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/paths"
)

// pickItem adapts a session to the picker.
type pickItem struct {
	s      *harness.Session
	now    time.Time
	row    string
	claude paths.Claude // to count tasks for the preview when the listing skipped them
	kin    kin          // the rows so far, for the preview's parent and children
}

func (p pickItem) Row() string { return p.row }

func (p pickItem) Preview(width int) string { return preview(p.s, p.now, p.claude, width, p.kin) }

// pickRow is a session's row in the picker: age, repo, branch, title and a
// live mark, in columns.
func pickRow(now time.Time, s *harness.Session) string {
	b := make([]byte, 0, 160)
	b = appendAgeColumn(b, now, s.LastActivity)
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

// appendAgeColumn appends the age, padded to its column.
func appendAgeColumn(b []byte, now, at time.Time) []byte {
	n := len(b)
	b = appendAge(b, now, at)
	for k := len(b) - n; k < 8; k++ {
		b = append(b, ' ')
	}
	return b
}
