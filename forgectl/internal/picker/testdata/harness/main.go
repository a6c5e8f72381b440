// Command harness runs the real picker for the package's tmux tests. It is
// a program of its own, not the test binary: go-fuzzyfinder changes how it
// draws when it finds the testing package's flags.
//
// It shows five cached rows, replaces them with three fresh ones 300 ms
// after they are drawn (with "shift": with the same five and a new one
// second from the top; with "same": with the same five again), and writes
// what Pick returned to the file named by its first argument.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"forgectl.dev/forgectl/internal/picker"
)

type item string

func (i item) Row() string        { return string(i) }
func (i item) Preview(int) string { return "preview of " + string(i) }
func (i item) Key() string        { return string(i) }

func rows(prefix string, n int) []picker.Item {
	out := make([]picker.Item, n)
	for i := range out {
		out[i] = item(fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: harness RESULT-FILE SETTLE [shift]")
		os.Exit(2)
	}
	cached, fresh := rows("cached", 5), rows("fresh", 3)
	switch {
	case len(os.Args) > 3 && os.Args[3] == "shift":
		cached = rows("s", 5)
		fresh = append([]picker.Item{cached[0], item("new")}, cached[1:]...)
	case len(os.Args) > 3 && os.Args[3] == "same":
		cached, fresh = rows("s", 5), rows("s", 5)
	}
	settle, err := time.ParseDuration(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	src := picker.NewSource()
	src.Set(cached)
	go func() {
		<-src.Drawn()
		time.Sleep(300 * time.Millisecond)
		src.Set(fresh)
	}()
	it, err := picker.Fuzzy{Settle: settle}.Pick(context.Background(), "harness", src)
	var u *picker.Unsettled
	result := fmt.Sprint("error: ", err)
	switch {
	case errors.As(err, &u):
		result = "unsettled: " + u.Item.Row()
	case err == nil:
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
