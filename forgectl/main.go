// Command forgectl is the front door of forgectl resume: it lists Claude
// Code sessions across every repo, lets a person pick one, and execs
// `claude --resume` in that session's directory with its launch profile.
// See `forgectl --help` and `forgectl resume --help` for the manual.
package main

import (
	"context"
	"os"
)

func main() {
	// run makes the context signal-aware itself, after the dispatch to a
	// sibling binary: `forgectl resume snapshot` runs on every Claude Code
	// turn, and the signal set-up alone costs a third of its budget.
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
