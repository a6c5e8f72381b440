// Command fakeapi serves a loopback stand-in for the Anthropic Messages API
// (see package forgectl.dev/tools/fakeapi) until it is signalled, its
// lifetime ends or its request cap is reached.
//
// Usage:
//
//	fakeapi [-record FILE] [-url-file FILE] [-slow 5s] [-lifetime 20m] [-max-requests N]
//
// It prints the base URL (http://127.0.0.1:<port>) on stdout, and writes it
// to -url-file too when given, for ANTHROPIC_BASE_URL.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"forgectl.dev/tools/fakeapi"
)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakeapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts fakeapi.Options
	urlFile := fs.String("url-file", "", "also write the base URL to this file")
	fs.StringVar(&opts.Record, "record", "", "append every request as a JSON line to this file")
	fs.DurationVar(&opts.Slow, "slow", 0, "how long a \"slow\" reply takes (default 5s)")
	fs.DurationVar(&opts.Lifetime, "lifetime", 0, "stop after this long (default 20m)")
	fs.IntVar(&opts.MaxRequests, "max-requests", 0, "stop after this many requests (default 5000)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakeapi: error: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	srv, err := fakeapi.Start(opts)
	if err != nil {
		fmt.Fprintf(stderr, "fakeapi: error: %v\n", err)
		return 1
	}
	defer srv.Close()
	if *urlFile != "" {
		tmp := filepath.Join(filepath.Dir(*urlFile), "."+filepath.Base(*urlFile)+".tmp")
		if err := os.WriteFile(tmp, []byte(srv.URL()+"\n"), 0o600); err == nil {
			err = os.Rename(tmp, *urlFile)
		}
		if err != nil {
			fmt.Fprintf(stderr, "fakeapi: error: %v\n", err)
			return 1
		}
	}
	fmt.Fprintln(stdout, srv.URL())
	select {
	case <-ctx.Done():
	case <-srv.Done():
	}
	return 0
}
