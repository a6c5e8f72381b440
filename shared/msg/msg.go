// Package msg prints the suite's one message format on stderr:
//
//	forgectl: error: <lowercase, no period>
//	forgectl: hint: <the next step>
//	forgectl: note: <information>
//
// Every binary prints as "forgectl", since people reach them through it.
package msg

import (
	"fmt"
	"io"
)

// Errorf prints an error line.
func Errorf(w io.Writer, format string, args ...any) { line(w, "error: ", format, args) }

// Hintf prints the next step after an error.
func Hintf(w io.Writer, format string, args ...any) { line(w, "hint: ", format, args) }

// Notef prints information that is neither a result nor an error.
func Notef(w io.Writer, format string, args ...any) { line(w, "note: ", format, args) }

func line(w io.Writer, kind, format string, args []any) {
	fmt.Fprintf(w, "forgectl: "+kind+format+"\n", args...)
}
