package main

import (
	"strings"
	"testing"

	"forgectl.dev/shared/manual"
	"forgectl.dev/shared/manual/manualtest"
)

// TestManual: each --help goes to stdout with exit 0 and nothing on
// stderr, and doc.go and forgectl.1 are generated from those texts.
func TestManual(t *testing.T) {
	h := newHome(t)
	var secs []manual.Section
	for _, path := range manualPaths() {
		r := h.run(append(path, "--help")...)
		name := strings.Join(append([]string{"forgectl"}, path...), " ")
		if r.code != 0 || r.stderr != "" || r.stdout == "" {
			t.Fatalf("%s --help: exit %d, stderr %q, stdout %d bytes", name, r.code, r.stderr, len(r.stdout))
		}
		if h := h.run(append(path, "-h")...); h.stdout != r.stdout || h.code != 0 {
			t.Errorf("%s -h differs from --help", name)
		}
		secs = append(secs, manual.Section{Command: name, Text: r.stdout})
	}
	manualtest.Check(t, manual.Page{
		Name:     "forgectl",
		Summary:  "get back into your Claude Code sessions",
		Doc:      "Command forgectl is the front door of forgectl resume: it lists Claude Code sessions across every repo, lets a person pick one, and execs `claude --resume` in that session's directory with its launch profile.",
		Sections: secs,
	}, "doc.go", "forgectl.1")
}
