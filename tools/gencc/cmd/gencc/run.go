// Command gencc writes a synthetic but realistic Claude Code home for demos,
// end-to-end tests and benchmarks.
//
// Usage:
//
//	gencc -home DIR [-demo | -scale] [-sessions N] [-repos M] [-seed S] [flags]
//	gencc -home DIR -append-percent P [-seed S]
//
// The first form writes DIR/.claude/ (projects/, history.jsonl, tasks/,
// sessions/, settings.json), DIR/.claude.json, working copies under DIR/src/
// with a minimal .git, and DIR/gencc-manifest.json, the ground truth of what
// was written. The second form appends realistic turns to P% of the intact,
// visible transcripts of a home written by the first, bumps their mtimes and
// updates the manifest.
//
// Flags:
//
//	-home DIR           home to write (required)
//	-config-dir DIR     write Claude Code's files here instead of DIR/.claude, as
//	                    CLAUDE_CONFIG_DIR does (.claude.json then goes inside it)
//	-demo               a small fixed home: api-server, web-app, infra, notes, and
//	                    one of every awkward case; -sessions and -repos are ignored
//	-scale              a benchmark home: 10,000 sessions over 40 repos unless told
//	                    otherwise, mostly 40 KB-2 MB, a few of 50 MB+, capped at 1.5 GB
//	-sessions N         sessions to write (default 12; 10000 with -scale)
//	-repos M            repos to spread them over (default 4; 40 with -scale)
//	-seed S             seed; the same seed and -now give the same files (default 1)
//	-now TIME           RFC 3339 time the home is generated "at" (default: now)
//	-max-bytes SIZE     cap on the total transcript size (1.5G with -scale);
//	                    SIZE takes K, M, G (powers of 1000) or KiB, MiB, GiB
//	-huge-files N       50 MB+ transcripts with -scale (default 1 per 2,000
//	                    sessions; -1 for none)
//	-huge-bytes SIZE    minimum size of a huge transcript (default 50MiB)
//	-prompt-bytes SIZE  a text-heavy home: paste about SIZE bytes of prose after
//	                    each typed prompt (0.5-1.5x SIZE; default none)
//	-reply-bytes SIZE   a text-heavy home: closing replies of about SIZE bytes
//	                    (0.5-1.5x SIZE), taken from the tool payload (default
//	                    0.2-1.7 KB)
//	-workers N          parallel writers (default: number of CPUs)
//	-append-percent P   append to P% of an existing generated home's transcripts
//
// On success it prints one summary line on stdout. Progress goes to stderr.
//
// Exit status: 0 done, 1 failed, 2 bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"forgectl.dev/tools/gencc"
)

const usageText = `usage: gencc -home DIR [-demo | -scale] [-sessions N] [-repos M] [-seed S] [flags]
       gencc -home DIR -append-percent P [-seed S]

Writes a synthetic Claude Code home (DIR/.claude, DIR/.claude.json, DIR/src/<repo>)
and DIR/gencc-manifest.json, the ground truth of what it wrote.

flags:
`

type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	v, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
		{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"B", 1},
	}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return int64(v * mult), nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gencc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	var (
		home, configDir, now string
		demo, scale          bool
		sessions, repos      int
		hugeFiles, workers   int
		seed                 uint64
		maxBytes, hugeBytes  byteSize
		promptBytes          byteSize
		replyBytes           byteSize
		appendPercent        float64
	)
	fs.StringVar(&home, "home", "", "home `DIR` to write (required)")
	fs.StringVar(&configDir, "config-dir", "", "write Claude Code's files to `DIR` instead of HOME/.claude (as CLAUDE_CONFIG_DIR)")
	fs.BoolVar(&demo, "demo", false, "small fixed human-friendly home")
	fs.BoolVar(&scale, "scale", false, "benchmark home (10,000 sessions, about 1.5 GB)")
	fs.IntVar(&sessions, "sessions", 0, "`N` sessions (default 12; 10000 with -scale)")
	fs.IntVar(&repos, "repos", 0, "`M` repos (default 4; 40 with -scale)")
	fs.Uint64Var(&seed, "seed", 1, "random seed")
	fs.StringVar(&now, "now", "", "RFC 3339 `TIME` to generate at (default: now)")
	fs.Var(&maxBytes, "max-bytes", "cap on total transcript `SIZE` (1.5G with -scale)")
	fs.IntVar(&hugeFiles, "huge-files", 0, "`N` transcripts of 50 MB+ with -scale (default 1 per 2,000 sessions; -1 for none)")
	fs.Var(&hugeBytes, "huge-bytes", "minimum `SIZE` of a huge transcript (default 50MiB)")
	fs.Var(&promptBytes, "prompt-bytes", "paste about `SIZE` bytes of prose after each typed prompt (a text-heavy home)")
	fs.Var(&replyBytes, "reply-bytes", "closing replies of about `SIZE` bytes (a text-heavy home)")
	fs.IntVar(&workers, "workers", 0, "parallel writers (default: CPUs)")
	fs.Float64Var(&appendPercent, "append-percent", 0, "append turns to `P` percent of an existing home's transcripts")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usageErr := func(msg, hint string) int {
		fmt.Fprintf(stderr, "gencc: error: %s\n", msg)
		if hint != "" {
			fmt.Fprintf(stderr, "gencc: hint: %s\n", hint)
		}
		return 2
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument "+strconv.Quote(fs.Arg(0)), "run gencc -help")
	}
	if home == "" {
		return usageErr("-home is required", "gencc -home /tmp/cc-home -demo")
	}
	if demo && scale {
		return usageErr("-demo and -scale exclude each other", "")
	}
	var at time.Time
	if now != "" {
		t, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return usageErr("-now: not an RFC 3339 time: "+strconv.Quote(now), "for example -now 2026-11-29T12:00:00Z")
		}
		at = t
	}

	if appendPercent != 0 {
		if demo || scale {
			return usageErr("-append-percent works on an existing home and takes no -demo or -scale", "")
		}
		m, err := gencc.Append(ctx, gencc.AppendOptions{Home: home, Percent: appendPercent, Seed: seed, Now: at})
		if err != nil {
			fmt.Fprintf(stderr, "gencc: error: %s\n", lower(err.Error()))
			fmt.Fprintf(stderr, "gencc: hint: generate the home first: gencc -home %s\n", home)
			return 1
		}
		last := m.Appends[len(m.Appends)-1]
		fmt.Fprintf(stdout, "appended %d bytes to %d of %d transcripts under %s\n", last.Bytes, len(last.Sessions), len(m.Sessions), m.ConfigDir)
		return 0
	}

	mode := gencc.ModeDefault
	switch {
	case demo:
		mode = gencc.ModeDemo
	case scale:
		mode = gencc.ModeScale
	}
	o := gencc.Options{
		Home: home, ConfigDir: configDir, Mode: mode, Sessions: sessions, Repos: repos, Seed: seed, Now: at,
		MaxBytes: int64(maxBytes), HugeFiles: hugeFiles, HugeBytes: int64(hugeBytes), Workers: workers,
		PromptBytes: int(promptBytes), ReplyBytes: int(replyBytes),
	}
	if scale {
		o.Progress = stderr
	}
	m, err := gencc.Generate(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "gencc: error: %s\n", lower(err.Error()))
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d sessions (%d bytes of transcripts) over %d repos under %s; manifest %s\n",
		len(m.Sessions), m.TotalBytes, len(m.Repos), m.ConfigDir, gencc.ManifestPath(m.Home))
	return 0
}

// lower keeps messages in the house style: lowercase, no final period.
func lower(s string) string {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
