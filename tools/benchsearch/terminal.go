package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"forgectl.dev/tools/benchkit"
)

// A first search on a terminal prints its hits while the index is built.
// What a person sees is measured through a real pseudo-terminal (script
// from util-linux gives the command one and copies what it draws to a
// pipe): the time to the first hit row on screen, and to the end.

// hitRow is a table row as a terminal shows it: a full session id first,
// after any colour escapes.
var hitRow = regexp.MustCompile(`^(\x1b\[[0-9;]*m)*[0-9a-f]{8}-[0-9a-f]{4}-`)

type onScreen struct {
	first, done time.Duration
	rows        int
}

// terminal runs argv n times on a 200-column pseudo-terminal, prep before
// each, and returns the median time to the first hit row and to the end.
func (b *bench) terminal(ctx context.Context, n int, prep func() error, env []string, argv ...string) (onScreen, error) {
	var firsts, dones []time.Duration
	rows := 0
	for range n {
		if err := prep(); err != nil {
			return onScreen{}, err
		}
		cmd := exec.CommandContext(ctx, "script", "-qfec", "stty cols 200 rows 50; exec "+shellJoin(argv), "/dev/null")
		cmd.Env = append(append(os.Environ(), env...), "COLUMNS=200", "TERM=xterm-256color")
		out, err := cmd.StdoutPipe()
		if err != nil {
			return onScreen{}, err
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return onScreen{}, fmt.Errorf("script: %w", err)
		}
		var first time.Duration
		rows = 0
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if hitRow.MatchString(sc.Text()) {
				if rows == 0 {
					first = time.Since(start)
				}
				rows++
			}
		}
		cmd.Wait()
		done := time.Since(start)
		if rows == 0 {
			return onScreen{}, fmt.Errorf("%s printed no hit on the terminal", strings.Join(argv, " "))
		}
		firsts, dones = append(firsts, first), append(dones, done)
	}
	return onScreen{first: benchkit.Median(firsts), done: benchkit.Median(dones), rows: rows}, nil
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
