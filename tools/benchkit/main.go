package benchkit

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main runs a driver's run with the process's arguments and standard
// streams, under a context that Ctrl-C or SIGTERM cancels (so a stopped
// bench still cleans up), and exits with its code.
func Main(run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Home is the flags every driver over a generated home takes.
type Home struct {
	Bin, Work string
	Sessions  int
	Runs      int
}

// Flags registers -bin, -work, -sessions and -runs on fs; kept says what
// becomes of the generated homes, runs is the default number of runs.
func (h *Home) Flags(fs *flag.FlagSet, kept string, runs int) {
	fs.StringVar(&h.Bin, "bin", "", "directory holding forgectl and gencc")
	fs.StringVar(&h.Work, "work", "", "scratch directory ("+kept+")")
	fs.IntVar(&h.Sessions, "sessions", 10000, "sessions in the generated home")
	fs.IntVar(&h.Runs, "runs", runs, "timed runs per measurement (the median is reported)")
}

// Check says on stderr, as name, when -bin or -work is missing; false
// means the driver exits 2.
func (h *Home) Check(name string, stderr io.Writer) bool {
	if h.Bin == "" || h.Work == "" {
		fmt.Fprintln(stderr, name+": -bin and -work are required")
		return false
	}
	return true
}
