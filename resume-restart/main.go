package main

import (
	"context"
	"os"
	"syscall"

	"forgectl.dev/shared/interrupt"
)

// main: a first signal cancels the run, which winds down with the status
// its manual gives; a second ends it at once (see shared/interrupt).
func main() {
	os.Exit(interrupt.Run(context.Background(), func(ctx context.Context) int {
		return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP))
}
