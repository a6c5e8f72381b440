package main

import (
	"testing"

	"forgectl.dev/shared/manual/manualtest"
)

// TestDocs: the table docs/ repeats from resume-hooks' --help is what
// --help prints (FORGECTL_UPDATE_MANUAL=1 rewrites it).
func TestDocs(t *testing.T) {
	w := newWorld(t)
	if code := w.run("status", "--help"); code != 0 || w.stdout.Len() == 0 {
		t.Fatalf("resume-hooks status --help: exit %d, stderr %q", code, w.stderr.String())
	}
	manualtest.CheckDocs(t, "resume-hooks", []string{"../docs/json.md"}, []manualtest.Part{
		{Key: "resume-hooks status --help, --json", Text: manualtest.Cut(t, w.stdout.String(), "--json prints one object", "")},
	})
}
