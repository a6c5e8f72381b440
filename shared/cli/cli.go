// Package cli is the one parse and finish path of the suite's ffcli
// binaries (forgectl, resume-restart, resume-hooks): Program.Run, which
// parses through the one rule on flag values (Parse), the exit carrier a
// command returns, the switch that turns what a command tree returned
// into the exit code and its messages, the usage hint, and the renderer
// of the --help manuals. resume-snapshot keeps its own rule (it always exits 0,
// being a Stop hook) and does not link this package.
package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/msg"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// ExitError ends a command with Code once its messages are printed.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Exit is the error a command returns to end with code after printing its
// own messages; nil for 0.
func Exit(code int) error {
	if code == exitcode.OK {
		return nil
	}
	return &ExitError{code}
}

// Code is the exit code err carries, and whether it carries one.
func Code(err error) (int, bool) {
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// UsageError is bad usage a command found itself. Finish prints Msg as
// the error and Hint, or when empty the usage hint of the command the
// arguments reached; exit 2.
type UsageError struct{ Msg, Hint string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError with the usage hint.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// Program is one binary as its messages and manuals name it.
type Program struct {
	// Command is how people run the root command, the start of every
	// usage hint: "forgectl", "forgectl resume", "forgectl resume hooks".
	Command string
	// Stdout gets the manual on --help, Stderr the messages.
	Stdout, Stderr io.Writer
	// Help is where the commands' flag sets print (see FlagSet): the
	// manual on --help, shown on stdout; the flag package's own error and
	// usage text on a bad flag, replaced by one error line and a hint.
	Help bytes.Buffer
}

// FlagSet is a command's flags, printing into p.Help; ContinueOnError,
// since a nil or exiting flag set would end the process with 2 itself.
func (p *Program) FlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(&p.Help)
	return fs
}

// Finish is the one error-to-code switch: what root's Parse (parsing) or
// Run returned becomes the exit code, with its messages.
//
//	nil                      0
//	flag.ErrHelp             the manual on stdout, 0
//	Exit(code)               code (the command printed its messages)
//	*UsageError              its error and hint, 2
//	any other, from Parse    the flag package's error and the usage hint, 2
//	any other, from Run      its error, 1
func (p *Program) Finish(root *ffcli.Command, err error, parsing bool) int {
	var ue *UsageError
	switch {
	case err == nil:
		return exitcode.OK
	case errors.Is(err, flag.ErrHelp):
		p.Stdout.Write(p.Help.Bytes())
		return exitcode.OK
	}
	if code, ok := Code(err); ok {
		return code
	}
	switch {
	case errors.As(err, &ue):
		msg.Errorf(p.Stderr, "%s", ue.Msg)
		hint := ue.Hint
		if hint == "" {
			hint = p.UsageHint(Path(root))
		}
		msg.Hintf(p.Stderr, "%s", hint)
		return exitcode.Usage
	case parsing:
		line, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
		msg.Errorf(p.Stderr, "%s", strings.TrimPrefix(line, "error parsing commandline arguments: "))
		msg.Hintf(p.Stderr, "%s", p.UsageHint(Path(root)))
		return exitcode.Usage
	}
	msg.Errorf(p.Stderr, "%v", err)
	return exitcode.Failed
}

// UsageHint points at the manual of the command path names ("resume ls ",
// "" for the root): "run 'forgectl resume ls --help' for usage".
func (p *Program) UsageHint(path string) string {
	return fmt.Sprintf("run '%s %s--help' for usage", p.Command, path)
}

// Path is the subcommands a Parse of root reached, each followed by a
// space ("resume ls "): the deepest command whose flags were parsed, which
// is the one a bad flag or a usage error belongs to.
func Path(root *ffcli.Command) string {
	var b strings.Builder
	c := root
	for {
		var next *ffcli.Command
		for _, s := range c.Subcommands {
			if s.FlagSet != nil && s.FlagSet.Parsed() {
				next = s
				break
			}
		}
		if next == nil {
			return b.String()
		}
		b.WriteString(next.Name + " ")
		c = next
	}
}
