package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"forgectl.dev/shared/manual/manualtest"
)

// TestDocs: the tables docs/ repeats from resume-restart's --help are
// what --help prints (FORGECTL_UPDATE_MANUAL=1 rewrites them).
func TestDocs(t *testing.T) {
	help := func(cmd string) string {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{cmd, "--help"}, strings.NewReader(""), &out, &errb); code != 0 || out.Len() == 0 {
			t.Fatalf("resume-restart %s --help: exit %d, stderr %q", cmd, code, errb.String())
		}
		return out.String()
	}
	outdated, restart := help("outdated"), help("restart")
	manualtest.CheckDocs(t, "resume-restart", []string{"../docs/json.md", "../docs/restart.md"}, []manualtest.Part{
		{Key: "resume-restart outdated --help, JSON FIELDS", Text: manualtest.Cut(t, outdated, "JSON FIELDS", "")},
		{Key: "resume-restart restart --help, JSON FIELDS", Text: manualtest.Cut(t, restart, "JSON FIELDS", "")},
		{Key: "resume-restart restart --help, REASONS", Text: manualtest.Cut(t, restart, "REASONS", "")},
		{Key: "resume-restart restart --help, EXIT STATUS", Text: manualtest.Cut(t, restart, "EXIT STATUS", "")},
	})
}
