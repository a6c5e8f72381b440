// Command install-codex installs the real OpenAI Codex CLI (the static
// linux-x64 binary of @openai/codex@<version>-linux-x64) at the contract
// suite's pinned versions, 0.171.0 and the legacy 0.142.3, or the ones
// named, into <cache>/codex/<version>/ (bin/codex and the files beside it)
// outside the repository, and
// prints one "<version> <path>" line per binary.
//
// Usage:
//
//	install-codex [-cache DIR] [VERSION...]
//	install-codex [-cache DIR] -latest
//
// -latest installs the version the registry's "latest" dist-tag of
// @openai/codex names and prints its line alone. A registry that cannot be
// reached prints "SKIPPED: <reason>" and exits 0; any other failure exits 1.
package main

import (
	"context"
	"io"

	"forgectl.dev/tools/contract"
)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return contract.Main(ctx, &contract.Codex, args, stdout, stderr)
}
