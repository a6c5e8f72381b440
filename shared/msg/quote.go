package msg

import (
	"strconv"
	"unicode/utf8"
)

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

// MaxQuoted bounds what a message quotes of what the user typed (a
// filter, a query, a word given where a flag's value belongs), in
// characters between the quotes: a pasted 5,000-character query must not
// flood stderr, and forgectl's dry-run verdict carries the same line.
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
