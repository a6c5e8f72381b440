// Command harness runs the real picker for the package's tmux tests. It is
// a program of its own, not the test binary: go-fuzzyfinder changes how it
// draws when it finds the testing package's flags.
//
// It streams 400 rows into the picker as a listing would, ten at a time,
// as far as the test lets it: RESULT-FILE.release holds how many batches of
// ten may be in (the first comes without it). The test, not a clock, says
// when rows arrive, so a busy machine cannot end the fill before the test
// has looked. Row k reads "row<k> alpha" when k%50 == 7 and "row<k> beta"
// otherwise. It writes what Pick returned to RESULT-FILE.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
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
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: harness RESULT-FILE")
		os.Exit(2)
	}
	src := picker.NewSource()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for k := 0; k < 400; k += 10 {
			for released(os.Args[1]+".release") <= k/10 {
				select {
				case <-time.After(5 * time.Millisecond):
				case <-ctx.Done():
					return
				}
			}
			for j := k; j < k+10; j++ {
				src.Append(row(j))
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

// released is how many batches the test lets in: at least one.
func released(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 1
	}
	return max(n, 1)
}
