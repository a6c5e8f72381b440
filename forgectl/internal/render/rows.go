package render

import (
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/msg"
)

// PickRow is a session's row in the picker: age, repo, branch, title with
// its lineage mark, and a live mark, in columns.
func PickRow(now time.Time, s *harness.Session) string { return PickRowIn(now, s, 0) }

// PickList is the width go-fuzzyfinder v0.9.0 gives a row's text on a
// terminal of cols columns: the list is the left half (less a column), and
// a row starts after the cursor's two columns and is cut two before the
// end. The split is fixed in the finder; no option moves it.
func PickList(cols int) int { return cols/2 - 1 - 4 }

// PickHeader is the picker's header line for a terminal of cols columns
// (0: unknown): the whole of full when the list's half has room for it,
// else what to press, which is what a first-time user needs.
func PickHeader(cols int, full string) string {
	if cols == 0 || Width(full) <= PickList(cols) {
		return full
	}
	return "Enter resumes · Esc leaves"
}

// PickRowIn is PickRow laid out for a terminal of cols columns (0: the
// fixed layout). The finder matches what a row says, so no value is lost
// here: one cut to its column (ending in "…") is written whole after the
// row, where the finder's ".." stands for it. Repo and branch narrow, to 8
// columns each, before the title does, so the name takes what the list's
// half of the screen has; where that leaves the name
// under 24 columns (80 columns leave the list 35), the name comes first,
// after the relation alone for a lineage mark ("[fork] ", which the
// preview spells out), then "repo @ branch". Widths are display columns.
func PickRowIn(now time.Time, s *harness.Session, cols int) string {
	repoW, titleW := 20, 70
	if cols > 0 {
		rest := PickList(cols) - 8 - 3*2
		repoW = min(20, max(8, (rest-50)/2))
		titleW = max(10, rest-2*(repoW+2))
	}
	live := ""
	if s.Live {
		live = "  ● live"
	}
	b := make([]byte, 0, 160)
	b = appendAgeColumn(b, now, s.LastActivity)
	b = append(b, "  "...)
	if cols == 0 {
		b = Pad(b, Clean(msg.Cut(OrDash(s.Repo), repoW)), repoW)
		b = append(b, "  "...)
		b = Pad(b, Clean(msg.Cut(OrDash(s.Branch), repoW)), repoW)
		b = append(b, "  "...)
		b = append(b, Clean(msg.Cut(Title(s), titleW))...)
		b = AppendMark(b, s)
		return string(append(b, live...))
	}
	title := Clean(msg.Cut(Title(s), 200))
	if titleW < 24 {
		if s.ParentID != "" {
			b = append(b, "["+shortRelation(s.Relation)+"] "...)
		}
		b = append(b, title...)
		b = append(b, live...)
		b = append(b, "  "...)
		b = append(b, Clean(OrDash(s.Repo))...)
		if s.Branch != "" {
			b = append(b, " @ "+Clean(s.Branch)...)
		}
		return string(b)
	}
	// A value cut to its column is written whole after the row, past
	// what the list shows, for the finder to match.
	var whole []string
	cut := func(v string, n int) string {
		c := CutWidth(v, n)
		if c != v {
			whole = append(whole, v)
		}
		return c
	}
	b = padWidth(b, cut(Clean(OrDash(s.Repo)), repoW), repoW)
	b = append(b, "  "...)
	b = padWidth(b, cut(Clean(OrDash(s.Branch)), repoW), repoW)
	b = append(b, "  "...)
	mark := string(AppendMark(nil, s))
	b = append(b, cut(title, max(10, titleW-Width(mark)-Width(live)))...)
	b = append(b, mark...)
	b = append(b, live...)
	if len(whole) > 0 {
		b = append(b, "  "+strings.Join(whole, " ")...)
	}
	return string(b)
}

// padWidth right-pads s with spaces to n display columns.
func padWidth(b []byte, s string, n int) []byte {
	b = append(b, s...)
	for k := Width(s); k < n; k++ {
		b = append(b, ' ')
	}
	return b
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

// shortRelation is a lineage mark's relation in a word, for a row with no
// room for "fork of b3b98d6c".
func shortRelation(r string) string {
	switch r {
	case lineage.Clear:
		return "/clear"
	case lineage.Branch:
		return "branch"
	}
	return "fork"
}
