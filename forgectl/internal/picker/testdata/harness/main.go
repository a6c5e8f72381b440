// Command harness runs the real picker for the package's tmux tests. It is
// a program of its own, not the test binary: go-fuzzyfinder changes how it
// draws when it finds the testing package's flags.
//
// It streams 400 rows into the picker as a listing would: ten at once,
// then ten more every STEP. Row k reads "row<k> alpha" when k%50 == 7 and
// "row<k> beta" otherwise. It writes what Pick returned to RESULT-FILE.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"forgectl.dev/forgectl/internal/picker"
)

type item string

func (i item) Row() string             { return string(i) }
func (i item) Preview(int, int) string { return "preview of " + string(i) }

func row(k int) picker.Item {
	tag := "beta"
	if k%50 == 7 {
		tag = "alpha"
	}
	return item(fmt.Sprintf("row%03d %s", k, tag))
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: harness RESULT-FILE STEP")
		os.Exit(2)
	}
	step, err := time.ParseDuration(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	src := picker.NewSource()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for k := 0; k < 400; k += 10 {
			for j := k; j < k+10; j++ {
				src.Append(row(j))
			}
			select {
			case <-time.After(step):
			case <-ctx.Done():
				return
			}
		}
		src.End(nil)
	}()
	it, err := picker.Fuzzy{}.Pick(context.Background(), "harness", src)
	cancel()
	result := fmt.Sprint("error: ", err)
	if err == nil {
		result = "picked: " + it.Row()
	}
	// Written whole, then renamed: the test reads it as soon as it exists.
	if err := os.WriteFile(os.Args[1]+".tmp", []byte(result), 0o600); err != nil {
		os.Exit(1)
	}
	if err := os.Rename(os.Args[1]+".tmp", os.Args[1]); err != nil {
		os.Exit(1)
	}
}
