// Package inputbox reads Claude Code's input line off a pane's screen and
// says whether it is empty, so that a restart never stops a session holding
// an unsent draft.
//
// The box is located by its rules, not by the ❯ glyph (a shell prompt may
// use ❯ too): it is the text between the last two horizontal rules on the
// screen. A rule is a line with at least 20 '─' (U+2500) whose '─' make up
// at least four fifths of its non-space runes. The strictness matters: a
// status line below the box may draw a context meter such as
// "──────────────────── 0/200k (0%)", and a looser test would take the
// status area for the box.
//
// The box is empty when its first line is ❯ followed by nothing but
// spaces (Claude Code draws a no-break space there) and every other line in
// it is blank. Anything else is not empty: a screen with fewer than two
// rules, or whose box does not open with ❯, is Unrecognized, and callers
// must treat that as a draft, since stopping loses one and waiting only
// delays.
//
// Claude Code also draws text into an empty box that nobody typed. The
// screen is read with its SGR styling (herdr pane read --ansi) so that these
// are told apart:
//
//   - Autosuggestions ("ghost text") are drawn dim (SGR 2) or grey (SGR 90,
//     256-colour 8 or a mid grey of the 232–255 ramp (238–250), or a truecolour grey with
//     equal red, green and blue between 64 and 192). Text whose every
//     non-space rune is styled so is not a draft. The cell of the drawn
//     cursor (inverse video, SGR 7) may sit on the first rune, as it does
//     over a placeholder's first letter. Any rune in the ordinary style (a
//     typed character, or a cursor cell anywhere else) makes it a draft.
//   - The idle hint, Try "…", is matched by its shape: the whole text after
//     ❯ is `Try "` then at least one rune then a closing `"`, on the box's
//     first line alone. This is accepted even when drawn in the ordinary
//     style, because Claude Code has been seen drawing it so. The residual
//     risk is a typed draft that is itself exactly of that shape, which is
//     then taken for the hint; any other text, or any text on a second line
//     of the box, stays a draft.
package inputbox

import (
	"strconv"
	"strings"
	"unicode"
)

// Verdict classifies the input line.
type Verdict int

const (
	// Unrecognized: no box could be found. Treat as a draft.
	Unrecognized Verdict = iota
	// Draft: the box holds text someone typed.
	Draft
	// Empty: the box holds nothing typed; ghost text and the idle hint may show.
	Empty
)

func (v Verdict) String() string {
	switch v {
	case Empty:
		return "empty"
	case Draft:
		return "draft"
	}
	return "unrecognized"
}

// Result is the verdict and why, phrased without quoting the screen (which
// may hold secrets).
type Result struct {
	Verdict Verdict
	Reason  string
}

// Empty reports whether the input line is verifiably empty.
func (r Result) Empty() bool { return r.Verdict == Empty }

// Read classifies a screen read with SGR styling kept. A screen without any
// escape sequences reads the same way, with no text counting as ghost text.
func Read(screen string) Result {
	lines := parseScreen(screen)
	var rules []int
	for i, l := range lines {
		if isRule(l.text()) {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return Result{Unrecognized, "no input box on screen (fewer than two horizontal rules)"}
	}
	top, bottom := rules[len(rules)-2], rules[len(rules)-1]
	box := lines[top+1 : bottom]
	if len(box) == 0 {
		return Result{Unrecognized, "no input line between the last two rules"}
	}
	first := box[0]
	i := 0
	for i < len(first) && isSpace(first[i].r) {
		i++
	}
	if i == len(first) || first[i].r != '❯' {
		return Result{Unrecognized, "the line below the input box's top rule does not start with ❯"}
	}
	rest := first[i+1:]
	for n, l := range box[1:] {
		if !blank(l) && !ghost(l, false) {
			return Result{Draft, "the input box holds text on line " + strconv.Itoa(n+2)}
		}
	}
	switch {
	case blank(rest):
		return Result{Empty, "the input line is empty"}
	case ghost(rest, true):
		return Result{Empty, "the input line shows only a dim suggestion"}
	case idleHint(rest):
		return Result{Empty, "the input line shows only the idle hint"}
	}
	return Result{Draft, "the input line holds a draft"}
}

// isRule is the strict rule test: at least 20 '─', and at least 4/5 of the
// non-space runes.
func isRule(s string) bool {
	var rule, other int
	for _, r := range s {
		switch {
		case r == '─':
			rule++
		case isSpace(r):
		default:
			other++
		}
	}
	return rule >= 20 && rule*5 >= (rule+other)*4
}

func isSpace(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) }

func blank(cs []cell) bool {
	for _, c := range cs {
		if !isSpace(c.r) {
			return false
		}
	}
	return true
}

// ghost reports whether cs holds text and all of it is drawn dim or grey.
// cursorFirst allows the drawn cursor (inverse) on the first non-space rune.
func ghost(cs []cell, cursorFirst bool) bool {
	seen, ghostSeen := false, false
	for _, c := range cs {
		if isSpace(c.r) {
			continue
		}
		first := !seen
		seen = true
		switch {
		case c.faint():
			ghostSeen = true
		case first && cursorFirst && c.inverse:
		default:
			return false
		}
	}
	return ghostSeen
}

// idleHint matches Claude Code's idle placeholder: Try "…".
func idleHint(cs []cell) bool {
	var b strings.Builder
	for _, c := range cs {
		b.WriteRune(c.r)
	}
	s := strings.TrimFunc(b.String(), isSpace)
	inner, ok := strings.CutPrefix(s, `Try "`)
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, `"`)
	return ok && strings.TrimFunc(inner, isSpace) != ""
}
