package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"forgectl.dev/shared/manual"
	"forgectl.dev/shared/manual/manualtest"
)

// TestManual: every --help goes to stdout with exit 0, and doc.go and
// resume-restart.1 are generated from those texts.
func TestManual(t *testing.T) {
	var secs []manual.Section
	for _, path := range [][]string{{}, {"outdated"}, {"restart"}} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append(path, "--help"), strings.NewReader(""), &out, &errb)
		name := strings.Join(append([]string{"resume-restart"}, path...), " ")
		if code != 0 || errb.Len() > 0 || out.Len() == 0 {
			t.Fatalf("%s --help: exit %d, stderr %q", name, code, errb.String())
		}
		secs = append(secs, manual.Section{Command: name, Text: out.String()})
	}
	manualtest.Check(t, manual.Page{
		Name:     "resume-restart",
		Summary:  "list and restart Claude Code sessions running an older claude",
		Doc:      "Command resume-restart is `forgectl resume outdated` and `forgectl resume restart`: forgectl runs it as `resume-restart outdated|restart ARGS`. It is standalone so that the update watcher can run it without a terminal.",
		Sections: secs,
	}, "doc.go", "resume-restart.1")
}
