package main

import (
	"strings"
	"testing"

	"forgectl.dev/shared/manual"
	"forgectl.dev/shared/manual/manualtest"
)

// TestManual: every --help goes to stdout with exit 0, and doc.go and
// resume-hooks.1 are generated from those texts.
func TestManual(t *testing.T) {
	var secs []manual.Section
	for _, path := range [][]string{{}, {"run"}, {"status"}, {"install"}, {"uninstall"}} {
		w := newWorld(t)
		code := w.run(append(path, "--help")...)
		name := strings.Join(append([]string{"resume-hooks"}, path...), " ")
		if code != 0 || w.stderr.Len() > 0 || w.stdout.Len() == 0 {
			t.Fatalf("%s --help: exit %d, stderr %q", name, code, w.stderr.String())
		}
		secs = append(secs, manual.Section{Command: name, Text: w.stdout.String()})
	}
	manualtest.Check(t, manual.Page{
		Name:     "resume-hooks",
		Summary:  "run forgectl's update hooks when claude changes version",
		Doc:      "Command resume-hooks runs forgectl's update hooks: the [[resume.on_update]] entries of config.toml, fired when the installed claude changes version.",
		Sections: secs,
	}, "doc.go", "resume-hooks.1")
}
