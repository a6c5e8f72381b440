package main

import (
	"flag"
	"os"
	"strconv"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/exitcode"
	"golang.org/x/sys/unix"
)

// output is how a command's tables and previews are drawn: the terminal's
// width (0: not a terminal, so values are kept whole) and its colours.
type output struct {
	width int
	style render.Style
}

// colorFlag declares --color on fs; the function it returns decides the
// output, or refuses a bad value (exit 2).
func colorFlag(a *app, fs *flag.FlagSet, cmd string) func() (output, error) {
	mode := fs.String("color", "auto", "colour the output: auto (on a terminal, unless NO_COLOR), always or never")
	return func() (output, error) {
		on, ok := a.colorOn(*mode)
		if !ok {
			a.errorf("--color %s: not auto, always or never", strconv.Quote(*mode))
			a.hintf("give --color=auto (a terminal only), always or never (run 'forgectl %s--help')", cmd)
			return output{}, exit(exitcode.Refused)
		}
		o := output{style: render.Style{On: on}}
		if a.stdoutTTY {
			o.width = a.termWidth()
		}
		return o, nil
	}
}

// colorOn is --color's answer. auto colours a terminal only; NO_COLOR (any
// value) turns that off and CLICOLOR_FORCE (any value but 0) on, NO_COLOR
// winning; always and never overrule both.
func (a *app) colorOn(mode string) (on, ok bool) {
	switch mode {
	case "always":
		return true, true
	case "never":
		return false, true
	case "auto", "":
	default:
		return false, false
	}
	if a.getenv("NO_COLOR") != "" {
		return false, true
	}
	if f := a.getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true, true
	}
	return a.stdoutTTY, true
}

// termWidth is stdout's terminal width: the kernel's, else COLUMNS, else 0
// (no limit).
func (a *app) termWidth() int {
	if f, ok := a.stdout.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	if n, err := strconv.Atoi(a.getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// table is a table for stdout, fitted to o.
func (a *app) table(o output, header bool, l render.Layout) *render.Table {
	t := render.NewTable(a.stdout, a.now(), header, l)
	t.Fit(o.width, o.style, nil)
	return t
}

const colorHelp = `  --color WHEN
              colour the table: auto (the default: on a terminal only),
              always or never. NO_COLOR (any value) turns auto off,
              CLICOLOR_FORCE (any value but 0) turns it on. Names are bold,
              times dim, lineage marks cyan, a live mark red (yellow when
              the session is idle), the match in a snippet bold yellow; the
              picker's preview likewise (its rows stay plain).
`
