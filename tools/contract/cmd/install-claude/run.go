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
	"io"

	"forgectl.dev/tools/contract"
)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return contract.Main(ctx, &contract.Claude, args, stdout, stderr)
}
