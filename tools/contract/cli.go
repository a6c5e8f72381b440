package contract

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
)

// Main is the install-claude and install-codex commands: it installs the
// product at the suite's pinned versions (or the ones named) into the cache
// and prints one "<version> <path>" line per binary. With -latest it
// installs the version the registry's "latest" dist-tag names and prints
// that line alone. When the registry refuses or the network fails it prints
// "SKIPPED: <reason>" and still exits 0, so a CI run without the registry
// goes on; any other failure exits 1.
func Main(ctx context.Context, p *Product, args []string, stdout, stderr io.Writer) int {
	getenv := os.Getenv
	name := "install-" + p.Name
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	home, _ := os.UserHomeDir()
	cache := fs.String("cache", CacheDir(getenv, home), "install into this folder")
	latest := fs.Bool("latest", false, "install the registry's latest release")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	in := Installer{Cache: *cache, Log: stderr, Product: p}
	versions := fs.Args()
	if *latest && len(versions) > 0 {
		fmt.Fprintf(stderr, "%s: error: -latest takes no versions\n", name)
		return 2
	}
	if *latest {
		v, err := in.Latest(ctx)
		if reason, ok := IsSkip(err); ok {
			fmt.Fprintf(stdout, "SKIPPED: cannot ask the registry for the latest %s: %s\n", p.Name, reason)
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: error: %v\n", name, err)
			return 1
		}
		versions = []string{v}
	}
	if len(versions) == 0 {
		a, b := p.Pinned(getenv)
		versions = []string{a, b}
	}
	bins, skip, err := in.InstallAll(ctx, versions...)
	if skip != "" {
		fmt.Fprintf(stdout, "SKIPPED: %s\n", skip)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", name, err)
		return 1
	}
	for _, v := range versions {
		fmt.Fprintln(stdout, v+" "+bins[v])
	}
	return 0
}
