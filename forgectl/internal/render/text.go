// Package render draws sessions for people and programs: the streaming
// table of ls, search and the candidate lists, the JSON arrays of ls,
// search and the tree, the tree itself, the picker's rows and preview,
// and the text rules they share (ages, cutting, control characters). It
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

// Cut shortens s to n characters, the last one "…".
func Cut(s string, n int) string {
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

// MaxQuoted bounds what a message quotes of a filter or a query (in
// characters, between the quotes): a pasted 5,000-character query must not
// flood stderr, and the verdict's error field carries the same line.
const MaxQuoted = 80

// Quoted is s as %q writes it, cut with … so that at most MaxQuoted
// characters stand between the quotes. The text is cut, not its quoted
// form, so no escape is split.
func Quoted(s string) string {
	q := strconv.Quote(s)
	for n := MaxQuoted; n > 1 && utf8.RuneCountInString(q) > MaxQuoted+2; n-- {
		q = strconv.Quote(Cut(s, n))
	}
	return q
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
