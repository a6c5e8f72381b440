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
