package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"forgectl.dev/shared/interrupt"
)

// main: a first signal cancels the run, which stops its hooks and winds
// down with the status its manual gives; a second ends it at once, the
// hooks' process groups killed (see shared/interrupt).
func main() {
	// Caught rather than ignored: an ignored signal stays ignored in the
	// hooks this starts, and a write to a closed pipe becomes an error.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(interrupt.Run(context.Background(), func(ctx context.Context) int {
		return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP))
}
