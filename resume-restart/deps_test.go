package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Only forgectl may link the picker and its terminal library: they cost
// start-up time in every binary that carries them.
func TestForbiddenDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/ktr0731/go-" + "fuzzyfinder" /* split: a grep for UI imports must find only real ones */, "github.com/gdamore/" + "tcell"} {
			if strings.HasPrefix(dep, bad) {
				t.Errorf("resume-restart links %s", dep)
			}
		}
		// The suite's test helpers (shared/poll, shared/manual/manualtest)
		// are for tests only.
		if dep == "testing" || strings.HasPrefix(dep, "testing/") {
			t.Errorf("resume-restart links %s", dep)
		}
	}
}
