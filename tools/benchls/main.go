// Command benchls measures `forgectl resume ls` and the picker on a
// generated Claude Code home (10,000 sessions by default), against
// baselines measured in the same run on the same files, and prints ratios:
//
//	ls --json and ls warm   vs find -printf '%s %T@\n' (a stat walk)  ≤ 2×
//	ls --json cold          vs LC_ALL=C grep -c -F custom-title -r    ≤ 1.0×
//	after 1% grew           vs the stat walk                           ≤ 3×
//	peak RSS of ls          ≤ 64 MB (≤ 96 MB at 100,000 sessions)
//	picker first rows in tmux, from forgectl's exec:
//	  with the index        vs the warm stat walk                      ≤ 2×
//	  no index              vs the warm stat walk                      ≤ 3×
//	  no index, cold cache  vs the stat walk with a cold page cache    ≤ 3×
//
// With -codex-threads N it measures the same targets again on the same
// home plus a generated Codex home of N threads (CODEX_HOME), against
// baselines over both trees (a stat walk of projects/ and the Codex
// sessions/ and archived_sessions/, a byte scan of both); the figures above
// stay Claude-only.
//
// Targets are reported, never asserted: these machines are shared and noisy.
//
// Usage: benchls -bin DIR -work DIR [-sessions N] [-codex-threads N [-only-mixed]] [-runs N] [-no-picker | -only-picker] [-remove-home]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"forgectl.dev/tools/benchkit"
)

func main() { benchkit.Main(run) }

func run(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchls", flag.ContinueOnError)
	fs.SetOutput(stderr)
	b := bench{out: stdout, log: stderr}
	b.Flags(fs, "the generated home is kept and reused", 5)
	fs.BoolVar(&b.skipPicker, "no-picker", false, "skip the tmux picker measurement")
	fs.BoolVar(&b.onlyPicker, "only-picker", false, "measure the picker only")
	fs.BoolVar(&b.removeHome, "remove-home", false, "delete the generated home afterwards (the 100,000-session one takes about 8 GB)")
	fs.BoolVar(&b.onlyComplete, "only-complete", false, "measure shell completion only")
	fs.IntVar(&b.codexThreads, "codex-threads", 0, "also measure the home plus a Codex home of this many threads")
	onlyMixed := fs.Bool("only-mixed", false, "with -codex-threads, measure the mixed home only")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !b.Check("benchls", stderr) {
		return 2
	}
	var err error
	if *onlyMixed && b.codexThreads > 0 {
		b.home = filepath.Join(b.Work, fmt.Sprintf("home-%d", b.Sessions))
		if err = b.generate(ctx); err == nil {
			err = b.mixed(ctx)
		}
	} else {
		err = b.all(ctx)
		if err == nil && b.codexThreads > 0 && !b.onlyPicker && !b.onlyComplete {
			err = b.mixed(ctx)
		}
	}
	if b.removeHome && b.home != "" {
		if rerr := os.RemoveAll(b.home); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchls: %v\n", err)
		return 1
	}
	return 0
}
