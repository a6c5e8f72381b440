// Package render draws sessions for people and programs: the streaming
// table of ls, search and the candidate lists, the JSON arrays of ls,
// search and the tree, the tree itself, the picker's rows and preview,
// and the text rules they share (ages, padding, control characters; text
// is cut by shared/msg.Cut, the rule messages quote by too). It
// never touches the outside world but the writer it is given.
package render

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
)

// Age renders a time as "5m ago", compact enough for a table column.
func Age(now, t time.Time) string { return string(AppendAge(nil, now, t)) }

// AppendAge appends Age.
func AppendAge(b []byte, now, t time.Time) []byte {
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

// Title is what a row calls a session: its name, else its last prompt in
// quotes, else "(no prompt)".
func Title(s *harness.Session) string {
	if s.Name != "" {
		return s.Name
	}
	if s.LastPrompt != "" {
		return "“" + s.LastPrompt + "”"
	}
	return "(no prompt)"
}

// Clean keeps control characters from a transcript out of the terminal.
func Clean(s string) string {
	if !HasControl(s) {
		return s // the common case, without an allocation
	}
	return strings.Map(func(r rune) rune {
		if IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// IsControl: a C0 or C1 control character, or DEL.
func IsControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// HasControl says whether s holds a control character (see IsControl).
func HasControl(s string) bool {
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

// Pad right-pads s with spaces to n runes.
func Pad(b []byte, s string, n int) []byte {
	b = append(b, s...)
	for k := utf8.RuneCountInString(s); k < n; k++ {
		b = append(b, ' ')
	}
	return b
}

// OrDash is s, or "-" for an empty cell.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
