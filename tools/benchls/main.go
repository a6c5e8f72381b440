// Command benchls measures `forgectl resume ls --json` and the picker on a
// generated Claude Code home of 10,000 sessions, against baselines measured
// in the same run on the same files, and prints ratios:
//
//	warm ls        vs find -printf '%s %T@\n' (a stat walk)     target ≤ 2×
//	cold ls        vs LC_ALL=C grep -c -F custom-title -r      target ≤ 1.0×
//	after 1% grew  vs the stat walk                             target ≤ 3×
//	peak RSS of ls                                              target ≤ 64 MB
//	picker: first rows on screen in tmux, with and without its
//	row cache (warm index both times)                           target ≤ 100 ms
//
// Targets are reported, never asserted: these machines are shared and noisy.
//
// Usage: benchls -bin DIR -work DIR [-sessions N] [-runs N] [-no-picker | -only-picker]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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

func run(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchls", flag.ContinueOnError)
	fs.SetOutput(stderr)
	b := bench{out: stdout, log: stderr}
	fs.StringVar(&b.bin, "bin", "", "directory holding forgectl and gencc")
	fs.StringVar(&b.work, "work", "", "scratch directory (the generated home is kept and reused)")
	fs.IntVar(&b.sessions, "sessions", 10000, "sessions in the generated home")
	fs.IntVar(&b.runs, "runs", 5, "timed runs per measurement (the median is reported)")
	fs.BoolVar(&b.skipPicker, "no-picker", false, "skip the tmux picker measurement")
	fs.BoolVar(&b.onlyPicker, "only-picker", false, "measure the picker only")
	fs.BoolVar(&b.onlyComplete, "only-complete", false, "measure shell completion only")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if b.bin == "" || b.work == "" {
		fmt.Fprintln(stderr, "benchls: -bin and -work are required")
		return 2
	}
	if err := b.all(ctx); err != nil {
		fmt.Fprintf(stderr, "benchls: %v\n", err)
		return 1
	}
	return 0
}
