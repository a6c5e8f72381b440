// Package msg prints the suite's messages on stderr, one line each:
//
//	forgectl: error: <lowercase, no period>
//	forgectl: hint: <the next step>
//	forgectl: warning: <something is wrong, and the command goes on>
//	forgectl: note: <a remark on what resume-restart skipped or stored>
//	forgectl: <information: counts, progress, what was written>
//
// Errors and hints are the spec's (shared/spec/resume.md, architecture.md);
// the others say what each binary prints today: forgectl's own remarks
// (counts, restored tasks) are information lines, and only resume-restart
// prints notes. Every binary prints as "forgectl", since people reach
// them through it; Name is the one place that name is written.
//
// A hint that names a command puts it in single quotes: "run 'forgectl
// doctor' for a full report". A command that carries words already quoted
// for the shell (a path with a space in it) is written as it is to be
// pasted, without quotes of its own around it, which would garble those.
package msg

import (
	"fmt"
	"io"
	"strings"
)

// Name starts every message line.
const Name = "forgectl"

// Kind is what a message line says it is.
type Kind string

// The kinds of message, each its own word after the name (Info none).
const (
	Error   Kind = "error"
	Hint    Kind = "hint"
	Warning Kind = "warning"
	Note    Kind = "note"
	Info    Kind = ""
)

// Recorder is a writer that wants to know the messages written to it:
// each line written through this package is also handed to Record, its
// text without the prefix, up to its first newline. forgectl's dry-run
// verdict keeps its first error and hint so, rather than by reading its
// own stderr back.
type Recorder interface {
	Record(k Kind, text string)
}

// Errorf prints an error line.
func Errorf(w io.Writer, format string, args ...any) { Print(w, Error, format, args...) }

// Hintf prints the next step after an error.
func Hintf(w io.Writer, format string, args ...any) { Print(w, Hint, format, args...) }

// Warnf prints a problem the command carries on past.
func Warnf(w io.Writer, format string, args ...any) { Print(w, Warning, format, args...) }

// Notef prints a remark (resume-restart's).
func Notef(w io.Writer, format string, args ...any) { Print(w, Note, format, args...) }

// Infof prints information that is neither a result nor an error.
func Infof(w io.Writer, format string, args ...any) { Print(w, Info, format, args...) }

// Print prints one message line of kind k.
func Print(w io.Writer, k Kind, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	io.WriteString(w, Prefix(k)+text+"\n")
	if r, ok := w.(Recorder); ok {
		first, _, _ := strings.Cut(text, "\n")
		r.Record(k, first)
	}
}

// Line is a message line without its newline, for a caller that writes
// it with more around it (a log line's time stamp).
func Line(k Kind, format string, args ...any) string {
	return Prefix(k) + fmt.Sprintf(format, args...)
}

// Prefix is what starts a line of kind k: "forgectl: error: ", or
// "forgectl: " for information. A reader of another forgectl's stderr
// finds its messages by it.
func Prefix(k Kind) string {
	if k == Info {
		return Name + ": "
	}
	return Name + ": " + string(k) + ": "
}
