package render

import (
	"strings"

	"github.com/mattn/go-runewidth"

	"forgectl.dev/forgectl/internal/harness"
)

// Style is how text is coloured on a terminal: the one place that knows
// the escape sequences. The zero Style writes none, which is what a pipe
// gets unless --color=always asks.
type Style struct{ On bool }

// The SGR codes of each kind of text.
const (
	sgrBold  = "1"
	sgrDim   = "2"
	sgrMatch = "1;33" // bold yellow
	sgrMark  = "36"   // cyan: the lineage mark
	sgrBusy  = "31"   // red: a live session that is working
	sgrIdle  = "33"   // yellow: a live session waiting at its prompt
)

func (st Style) wrap(code, s string) string {
	if !st.On || s == "" || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Bold is a session's name.
func (st Style) Bold(s string) string { return st.wrap(sgrBold, s) }

// Dim is a time or a path.
func (st Style) Dim(s string) string { return st.wrap(sgrDim, s) }

// Mark is a lineage mark.
func (st Style) Mark(s string) string { return st.wrap(sgrMark, s) }

// Live is a live mark: red while the session works, yellow when it is
// idle at its prompt.
func (st Style) Live(s *harness.Session, text string) string { return st.wrap(liveCode(s), text) }

func liveCode(s *harness.Session) string {
	if !s.Live {
		return ""
	}
	if s.Status == "idle" {
		return sgrIdle
	}
	return sgrBusy
}

// Marked is s with the byte ranges marks (in order, not overlapping)
// highlighted as matches.
func (st Style) Marked(s string, marks [][2]int) string {
	if !st.On || len(marks) == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+len(marks)*12)
	at := 0
	for _, m := range marks {
		if m[0] < at || m[1] > len(s) || m[0] >= m[1] {
			continue
		}
		b = append(b, s[at:m[0]]...)
		b = append(b, st.wrap(sgrMatch, s[m[0]:m[1]])...)
		at = m[1]
	}
	return string(append(b, s[at:]...))
}

// Width is the columns s takes on a terminal: wide runes count two,
// combining marks and other zero-width runes nothing.
func Width(s string) int { return runewidth.StringWidth(s) }

// CutWidth cuts s to at most n columns, ending a cut value in "…".
func CutWidth(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if Width(s) <= n {
		return s
	}
	return runewidth.Truncate(s, n, "…")
}

// Preview colours a preview drawn by Preview, after it is wrapped, line by
// line and by the keys its lines start with, so that the preview's text
// stays whatever Preview makes it and no escape is counted by Wrap: the
// first line (the name) bold, the cwd and the activity dim, a running
// status red or yellow as the live mark, the lineage mark cyan.
func (st Style) Preview(text string, s *harness.Session) string {
	if !st.On {
		return text
	}
	lines := strings.Split(text, "\n")
	for k, l := range lines {
		key, value, ok := previewKey(l)
		switch {
		case k == 0:
			name, source, _ := strings.Cut(l, "  (")
			if source != "" {
				source = "  (" + source
			}
			lines[k] = st.Bold(name) + st.Dim(source)
		case !ok:
		case key == "cwd" || key == "active":
			lines[k] = l[:len(l)-len(value)] + st.Dim(value)
		case key == "status" && s.Live:
			lines[k] = l[:len(l)-len(value)] + st.Live(s, value)
		case key == "from":
			if m := LineageMark(s); m != "" && strings.HasPrefix(value, m) {
				lines[k] = l[:len(l)-len(value)] + st.Mark(m) + value[len(m):]
			}
		}
	}
	return strings.Join(lines, "\n")
}

// previewKey splits a preview line "key      value" (Preview's %-8s).
func previewKey(l string) (key, value string, ok bool) {
	if len(l) < 10 || l[0] == ' ' {
		return "", "", false
	}
	key = strings.TrimRight(l[:9], " ")
	if strings.Contains(key, " ") || len(key) == 9 {
		return "", "", false
	}
	return key, l[9:], true
}
