package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// main takes no signal-aware context, unlike forgectl's other binaries:
// signal.NotifyContext costs about 0.4 ms at start-up (measured with
// tools/benchsnap), a third of this hook's whole budget on every turn, and
// buys nothing here. Every write is a rename and every lock dies with the
// process, so being killed by SIGINT or SIGTERM is as safe as stopping
// (TestKilledSnapshotsLeaveAParseableStore kills runs with SIGKILL).
// SIGPIPE is ignored so that a closed stdout is a write error, not a death
// by signal: the exit status must stay 0.
func main() {
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
