// Package udiff writes a unified diff of two texts, as `diff -u` does, for
// the dry runs that show a file edit before making it.
//
// The edits it shows are small splices into files of a few hundred lines,
// so the common leading and trailing lines are set aside first and only the
// changed middle goes through a longest-common-subsequence table.
package udiff

import (
	"fmt"
	"io"
	"strings"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// Write prints the diff of a (named oldName) and b (named newName) to w;
// nothing when they are equal.
func Write(w io.Writer, oldName, newName string, a, b []byte) error {
	if string(a) == string(b) {
		return nil
	}
	ops := diff(lines(string(a)), lines(string(b)))
	if _, err := fmt.Fprintf(w, "--- %s\n+++ %s\n", oldName, newName); err != nil {
		return err
	}
	for _, h := range hunks(ops) {
		if _, err := io.WriteString(w, h); err != nil {
			return err
		}
	}
	return nil
}

// lines splits s after each newline; a last line without one keeps that
// fact, printed as diff does.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func diff(a, b []string) []op {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for _, l := range a[:p] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, lcs(a[p:len(a)-s], b[p:len(b)-s])...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

// lcs diffs two blocks through the classic dynamic-programming table.
func lcs(a, b []string) []op {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, op{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, op{'+', b[j]})
	}
	return ops
}

// hunks groups the changes with Context lines around them; changes closer
// than twice that share a hunk.
func hunks(ops []op) []string {
	var out []string
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-Context)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*Context {
				end = min(len(ops), end+Context)
				break
			}
			end = run
		}
		out = append(out, hunk(ops, start, end))
		k = end
	}
	return out
}

func hunk(ops []op, start, end int) string {
	// Line numbers of the hunk's first line in each file.
	oldLine, newLine := 1, 1
	for _, o := range ops[:start] {
		if o.kind != '+' {
			oldLine++
		}
		if o.kind != '-' {
			newLine++
		}
	}
	var oldN, newN int
	var body strings.Builder
	for _, o := range ops[start:end] {
		if o.kind != '+' {
			oldN++
		}
		if o.kind != '-' {
			newN++
		}
		body.WriteByte(o.kind)
		body.WriteString(o.line)
		if !strings.HasSuffix(o.line, "\n") {
			body.WriteString("\n\\ No newline at end of file\n")
		}
	}
	return fmt.Sprintf("@@ -%s +%s @@\n%s", rangeOf(oldLine, oldN), rangeOf(newLine, newN), body.String())
}

// rangeOf renders a hunk range; an empty range names the line before it.
func rangeOf(line, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", line-1)
	case 1:
		return fmt.Sprintf("%d", line)
	}
	return fmt.Sprintf("%d,%d", line, n)
}
