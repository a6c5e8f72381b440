// Command forgectl is the front door of forgectl resume: it lists Claude
// Code sessions across every repo, lets a person pick one, and execs
// `claude --resume` in that session's directory with its launch profile.
// See `forgectl --help` and `forgectl resume --help` for the manual.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
