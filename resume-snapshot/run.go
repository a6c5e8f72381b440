package main

import (
	"context"
	"io"

	"forgectl.dev/shared/snaprun"
	"forgectl.dev/shared/version"
)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return snaprun.Run(ctx, "resume-snapshot", version.String, args, stdin, stdout, stderr)
}
