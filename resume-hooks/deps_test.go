package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the watcher's binary free of the picker's UI stack, which
// only forgectl may link.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/ktr0731/go-" + "fuzzyfinder" /* split: a grep for UI imports must find only real ones */, "github.com/gdamore/" + "tcell"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("resume-hooks links %s", pkg)
			}
		}
		// The suite's test helpers (shared/poll, shared/manual/manualtest)
		// are for tests only.
		if pkg == "testing" || strings.HasPrefix(pkg, "testing/") {
			t.Errorf("resume-hooks links %s", pkg)
		}
	}
}
