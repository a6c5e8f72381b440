// Package redact turns a failed hook's stderr into the short tail the audit
// trail keeps: the hook's own argument values scrubbed, lines that could
// hold a credential withheld, control characters escaped.
//
// It works line by line, so a bare token printed on its own line survives;
// the audit trail is owner-only for that reason.
package redact

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// TailChars is how many characters of a failed command's stderr are kept.
const TailChars = 240

// Withheld replaces a line that could hold a credential.
const Withheld = "[line withheld: may hold a credential]"

// MinArgLen is the shortest argument value that is scrubbed. Shorter values
// ("-v", "1") carry no secret and scrubbing them would shred ordinary text.
const MinArgLen = 3

// quoted is what may sit between a key and its ":" or "=": a closing
// quote, bare or escaped once or more (JSON inside a JSON string).
const quoted = `(\\*["'])?\s*[:=]`

var (
	// userinfo in a URL: scheme://user:pass@host, or a token as the user.
	urlCredential = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^\s/?#@]+@`)
	// a query parameter that carries a credential: ?key=, &sig=,
	// access_token=, X-Amz-Signature=, X-Amz-Credential=, client_secret=.
	queryCredential = regexp.MustCompile(`(?i)[?&;][a-z0-9_.-]*(key|sig|token|secret|passw|pwd|auth|credential)[a-z0-9_.-]*=`)
	// headers, keys and schemes that carry credentials, however quoted.
	authHeader = regexp.MustCompile(`(?i)` + strings.Join([]string{
		`(proxy-)?authori[sz]ation` + quoted,
		`(^|[^a-z])(set-)?cookie` + quoted,
		`x-[a-z0-9-]*(api|auth|access)[-_]?(key|token)`,
		`api[-_]?key` + quoted,
		`(secret|private|access|signing|client|account|master|encryption)[-_]?key` + quoted,
		`token` + quoted,
		`\bbearer\s+[a-z0-9._~+/=-]{6,}`,
		`\bbasic\s+[a-z0-9+/]{8,}`,
		`passw(or)?d` + quoted,
		`secret` + quoted,
		`credentials?` + quoted,
	}, "|"))
)

// Tail returns the redacted last TailChars characters of stderr. args are
// the hook's arguments (argv without the program), whose values are
// scrubbed wherever they appear.
func Tail(stderr []byte, args []string) string {
	text := strings.ToValidUTF8(string(stderr), "\uFFFD")
	text = scrubArgs(text, args)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, line := range lines {
		if urlCredential.MatchString(line) || queryCredential.MatchString(line) || authHeader.MatchString(line) {
			lines[i] = Withheld
			continue
		}
		lines[i] = escape(line)
	}
	out := strings.Join(lines, "\n")
	if n := utf8.RuneCountInString(out); n > TailChars {
		r := []rune(out)
		out = string(r[n-TailChars:])
	}
	return out
}

// scrubArgs replaces every argument value, and the value part of a
// --flag=value argument, with a placeholder naming its position. Longer
// values go first so a value containing a shorter one is replaced whole.
func scrubArgs(text string, args []string) string {
	type value struct {
		s   string
		pos int
	}
	var values []value
	for i, a := range args {
		values = append(values, value{a, i + 1})
		if _, v, ok := strings.Cut(a, "="); ok {
			values = append(values, value{v, i + 1})
		}
	}
	sort.SliceStable(values, func(i, j int) bool { return len(values[i].s) > len(values[j].s) })
	for _, v := range values {
		if utf8.RuneCountInString(v.s) < MinArgLen || strings.TrimSpace(v.s) == "" {
			continue
		}
		text = strings.ReplaceAll(text, v.s, fmt.Sprintf("[arg %d]", v.pos))
	}
	return text
}

// escape makes control characters visible: C0 (tab included), DEL, C1, the
// line and paragraph separators (U+2028, U+2029: a new line to some
// readers, and not valid raw in a JavaScript string), and the bidi and
// invisible formatting characters that can make a line read as something
// else in a terminal.
func escape(line string) string {
	var b strings.Builder
	for _, r := range line {
		switch {
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f,
			r == 0x061c, r >= 0x200b && r <= 0x200f, r == 0x2028, r == 0x2029,
			r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069, r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
