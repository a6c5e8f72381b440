// Command gencodex writes a synthetic OpenAI Codex CLI home (see package
// forgectl.dev/tools/gencodex) and prints a one-line summary.
//
// Usage:
//
//	gencodex -home DIR [-codex-home DIR] [-threads N] [-repos N] [-seed N] [-now RFC3339]
//	gencodex -home DIR -append-percent P [-seed N]
//
// -append-percent adds one turn to P% of an existing generated home's
// threads (their live plain segments), as resumed threads grow.
//
// The Codex home is DIR/.codex unless -codex-home names another; it must
// not hold rollouts already (files are created, never overwritten).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"forgectl.dev/tools/gencodex"
)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gencodex", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o gencodex.Options
	fs.StringVar(&o.Home, "home", "", "write into this HOME (required)")
	fs.StringVar(&o.CodexHome, "codex-home", "", "the Codex home (default HOME/.codex)")
	fs.IntVar(&o.Threads, "threads", 0, "threads to write (default 24)")
	fs.IntVar(&o.Repos, "repos", 0, "working directories (default 4)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed: the same seed and options give the same files")
	now := fs.String("now", "", "anchor time, RFC 3339 (default now)")
	appendPct := fs.Float64("append-percent", 0, "append a turn to this percent of an existing home's threads")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || o.Home == "" {
		fmt.Fprintln(stderr, "gencodex: error: -home is required and takes no arguments")
		return 2
	}
	if *now != "" {
		t, err := time.Parse(time.RFC3339, *now)
		if err != nil {
			fmt.Fprintf(stderr, "gencodex: error: -now: %v\n", err)
			return 2
		}
		o.Now = t
	}
	if *appendPct > 0 {
		n, err := gencodex.Append(o.Home, *appendPct, o.Seed)
		if err != nil {
			fmt.Fprintf(stderr, "gencodex: error: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "gencodex: appended a turn to %d threads\n", n)
		return 0
	}
	o.Progress = stderr
	m, err := gencodex.Generate(o)
	if err != nil {
		fmt.Fprintf(stderr, "gencodex: error: %v\n", err)
		return 1
	}
	kinds := map[string]int{}
	files := 0
	for _, t := range m.Threads {
		kinds[t.Kind]++
		files += len(t.Files)
	}
	fmt.Fprintf(stdout, "gencodex: %d threads in %d files under %s %v\n", len(m.Threads), files, m.CodexHome, kinds)
	return 0
}
