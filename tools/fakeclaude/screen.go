package main

import "strings"

// Glyphs of Claude Code's prompt box.
const (
	ruleRune   = "─" // U+2500, the box's top and bottom rule
	promptMark = "❯"
	// promptGap follows the ❯: Claude Code draws U+00A0, not a space, and
	// readers of the box must treat it as blank.
	promptGap = "\u00a0"
	dimOn     = "\x1b[2m"
	dimOff    = "\x1b[22m"
)

// view is everything the screen shows.
type view struct {
	version    string
	model      string
	cwd        string
	sessionID  string
	draft      []rune
	busy       bool
	history    []string
	note       string
	hint       string // plain text after an empty ❯, like `Try "…"`
	suggestion string // dim ghost text after an empty ❯
	cols       int
}

// render lays the screen out top to bottom: a header, past prompts, the
// input box between two full-width rules, then the status area with a
// context meter made of ─ (which a strict rule test must not count as a
// rule). It returns the lines and the 1-based cursor position.
func render(v view) (lines []string, row, col int) {
	width := v.cols
	if width < 40 {
		width = 40
	}
	model := v.model
	if model == "" {
		model = "default"
	}
	lines = []string{
		" ✻ Claude Code v" + v.version + " (fakeclaude)",
		"   " + model + " · session " + v.sessionID,
		"   " + v.cwd,
		"",
	}
	hist := v.history
	if len(hist) > 8 {
		hist = hist[len(hist)-8:]
	}
	lines = append(lines, hist...)
	if v.busy {
		lines = append(lines, "✻ Working… (esc to interrupt)")
	} else {
		lines = append(lines, "")
	}
	rule := strings.Repeat(ruleRune, width)
	lines = append(lines, rule)

	first := promptMark + promptGap
	avail := width - 2
	switch {
	case len(v.draft) == 0 && v.suggestion != "":
		lines = append(lines, first+dimOn+v.suggestion+dimOff)
		row, col = len(lines), 3
	case len(v.draft) == 0 && v.hint != "":
		lines = append(lines, first+v.hint)
		row, col = len(lines), 3
	case len(v.draft) == 0:
		lines = append(lines, first)
		row, col = len(lines), 3
	default:
		// A long draft wraps; continuation rows are indented under the text.
		d := v.draft
		prefix := first
		for len(d) > 0 {
			n := min(avail, len(d))
			lines = append(lines, prefix+string(d[:n]))
			row, col = len(lines), 3+n
			d = d[n:]
			prefix = "  "
		}
		if col > width {
			col = width
		}
	}
	lines = append(lines, rule)
	switch {
	case v.note != "":
		lines = append(lines, "  "+v.note)
	case v.busy:
		lines = append(lines, "  esc to interrupt")
	default:
		lines = append(lines, "  ? for shortcuts")
	}
	lines = append(lines, strings.Repeat(ruleRune, 20)+" 0/200k (0%)")
	return lines, row, col
}
