package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"forgectl.dev/shared/manual"
	"forgectl.dev/shared/manual/manualtest"
	"forgectl.dev/shared/version"
)

// TestManual: --help prints the manual on stdout, exit 0; doc.go and
// resume-snapshot.1 are generated from it.
func TestManual(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("--help: exit %d, stderr %q", code, errb.String())
	}
	manualtest.Check(t, manual.Page{
		Name:     "resume-snapshot",
		Summary:  "capture what a Claude Code session's exit would destroy",
		Doc:      "Command resume-snapshot is the Stop-hook snapshotter of forgectl resume: it captures what a live Claude Code session's exit would destroy, so that `forgectl resume` can give it back.",
		Sections: []manual.Section{{Command: "resume-snapshot", Text: out.String()}},
	}, "doc.go", "resume-snapshot.1")
}

// TestDialect: --version is "<binary> <version>"; a bad flag is one error
// line and a hint, and still exit 0 (the Stop hook's rule).
func TestDialect(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "resume-snapshot "+version.String()+"\n" {
		t.Fatalf("--version: %d %q", code, out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"--bogus"}, strings.NewReader(""), &out, &errb); code != 0 || out.Len() > 0 ||
		!strings.HasPrefix(errb.String(), "forgectl: error: ") || strings.Count(errb.String(), "\n") != 2 || !strings.Contains(errb.String(), "\nforgectl: hint: ") {
		t.Fatalf("bad flag: %d %q", code, errb.String())
	}
}
