// Command install-claude installs the real Claude Code CLI at the contract
// suite's pinned versions (or the ones named) into a cache outside the
// repository, and prints one "<version> <path>" line per binary.
//
// Usage:
//
//	install-claude [-cache DIR] [VERSION...]
//	install-claude [-cache DIR] -latest
//
// -latest installs the version the registry's "latest" dist-tag names and
// prints its "<version> <path>" line alone.
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
	latest := fs.Bool("latest", false, "install the registry's latest release")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	in := contract.Installer{Cache: *cache, Log: stderr}
	versions := fs.Args()
	if *latest && len(versions) > 0 {
		fmt.Fprintln(stderr, "install-claude: error: -latest takes no versions")
		return 2
	}
	if *latest {
		v, err := in.Latest(ctx)
		if reason, ok := contract.IsSkip(err); ok {
			fmt.Fprintf(stdout, "SKIPPED: cannot ask the registry for the latest claude: %s\n", reason)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "install-claude: error: %v\n", err)
			return 1
		}
		versions = []string{v}
	}
	if len(versions) == 0 {
		cur, old := contract.Versions(getenv)
		versions = []string{cur, old}
	}
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
