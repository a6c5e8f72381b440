// Command install-claude installs the real Claude Code CLI at the contract
// suite's pinned versions (or the ones named) into a cache outside the
// repository, and prints one "<version> <path>" line per binary.
//
// Usage:
//
//	install-claude [-cache DIR] [VERSION...]
//
// When the npm registry refuses or the network fails it prints
// "SKIPPED: <reason>" instead and still exits 0, so a CI run without the
// registry goes on; any other failure exits 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"forgectl.dev/tools/contract"
)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	getenv := os.Getenv
	fs := flag.NewFlagSet("install-claude", flag.ContinueOnError)
	fs.SetOutput(stderr)
	home, _ := os.UserHomeDir()
	cache := fs.String("cache", contract.CacheDir(getenv, home), "install into this folder")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	versions := fs.Args()
	if len(versions) == 0 {
		cur, old := contract.Versions(getenv)
		versions = []string{cur, old}
	}
	in := contract.Installer{Cache: *cache, Log: stderr}
	var lines []string
	for _, v := range versions {
		bin, err := in.Install(ctx, v)
		if reason, ok := contract.IsSkip(err); ok {
			fmt.Fprintf(stdout, "SKIPPED: cannot install claude %s: %s\n", v, reason)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "install-claude: error: %v\n", err)
			return 1
		}
		lines = append(lines, v+" "+bin)
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	return 0
}
