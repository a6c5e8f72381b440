// Command samecheck proves that a change of structure changed nothing a
// user sees: it runs two builds of forgectl (before and after) on the same
// generated homes and compares what each prints, byte for byte.
//
//	samecheck -old DIR -new DIR -work DIR [-scale N] [-keep-homes] [-ignore-field NAME]... [-ignore-line RE]...
//
// DIR for -old and -new holds a forgectl binary (make build BIN=DIR); -work
// is scratch space, where the homes are generated with the new build's
// gencc (-new DIR/gencc): the demo home, the default home with its
// lineage cast, and, with -scale N (default 10000; 0 for none), a
// benchmark home of N sessions, kept in -work as WORK/home-N (the one make
// bench keeps in .bench, which it reuses).
//
// Each home gets the same commands from both builds, each build with its
// own forgectl config directory (so neither reads the other's index), run
// twice (a cold run that builds the indexes, then a warm one):
//
//	resume ls [--json] [--all] [--tree|--roots]
//	resume search [--json] Q   for at least 20 queries taken from the home
//	resume --dry-run --json FILTER   for ids, id prefixes, names, repos, none
//	__complete ...             the words shell completion asks for
//	completion bash|zsh|fish, and every command's --help
//
// stdout, stderr and the exit code must be identical, once each JSON key
// named by -ignore-field (default "harness": the field the structure
// issue adds) is taken out, and every line matching an -ignore-line
// regular expression (default: the help's line documenting that field). A
// mismatch is run once more before it counts
// (a table's age column can tick between two runs). It prints one line per
// mismatch with a diff of the first lines that differ, then a summary; it
// exits 0 when everything matched, 1 when something differed, 2 on bad
// usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type fieldList []string

func (f *fieldList) String() string     { return strings.Join(*f, ",") }
func (f *fieldList) Set(s string) error { *f = append(*f, s); return nil }

func run(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("samecheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := check{out: stdout, log: stderr}
	var ignore, ignoreLines fieldList
	fs.StringVar(&c.oldBin, "old", "", "directory holding the build before the change")
	fs.StringVar(&c.newBin, "new", "", "directory holding the build after the change (and gencc)")
	fs.StringVar(&c.work, "work", "", "scratch directory (a -scale home is kept there)")
	fs.IntVar(&c.scale, "scale", 10000, "sessions in the benchmark home (0: none)")
	fs.BoolVar(&c.keepHomes, "keep-homes", false, "keep the demo and lineage homes")
	fs.Var(&ignore, "ignore-field", "a JSON key only the new build prints (repeatable; default harness)")
	fs.Var(&ignoreLines, "ignore-line", "a regular expression for output lines only the new build prints (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.oldBin == "" || c.newBin == "" || c.work == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "samecheck: -old, -new and -work are required, and nothing else")
		return 2
	}
	// The commands run in each home's directory: relative paths would
	// name nothing there.
	for _, p := range []*string{&c.oldBin, &c.newBin, &c.work} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			fmt.Fprintf(stderr, "samecheck: %v\n", err)
			return 2
		}
		*p = abs
	}
	if len(ignore) == 0 {
		ignore = fieldList{"harness"}
	}
	c.ignore = ignore
	if len(ignoreLines) == 0 {
		ignoreLines = fieldList{`^  harness +string +the agent the session belongs to`}
	}
	for _, l := range ignoreLines {
		re, err := regexp.Compile(l)
		if err != nil {
			fmt.Fprintf(stderr, "samecheck: -ignore-line: %v\n", err)
			return 2
		}
		c.ignoreLines = append(c.ignoreLines, re)
	}
	same, err := c.all(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "samecheck: %v\n", err)
		return 1
	}
	if !same {
		return 1
	}
	return 0
}
