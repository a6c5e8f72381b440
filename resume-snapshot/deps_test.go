package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the Stop hook's hot path light: no UI library
// (whose package init alone costs milliseconds), no TOML parser or config
// loading, no search index or SQL engine, no network or template code, and
// the standard flag package rather than ff. It lists what the main package
// really links.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["forgectl.dev/shared/capture"] || !deps["encoding/json"] {
		t.Fatalf("the dependency list looks wrong:\n%s", out)
	}
	forbidden := []string{
		"github.com/ktr0731/go-" + "fuzzyfinder", /* split: a grep for UI imports must find only real ones */
		"github.com/gdamore/" + "tcell",
		"github.com/BurntSushi/toml",
		"github.com/peterbourgon/ff",
		"forgectl.dev/shared/config",
		// Full-text search is forgectl's alone: its index (and any SQL
		// engine a later design might pick) never reaches the Stop hook.
		"forgectl.dev/forgectl/internal/search",
		"modernc.org/sqlite",
		"modernc.org/libc",
		"net/http",
		"text/template",
		"html/template",
		// The suite's test helpers (shared/poll, shared/manual/manualtest)
		// are for tests only.
		"testing",
	}
	for p := range deps {
		for _, f := range forbidden {
			if p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("resume-snapshot links %s (forbidden: %s)", p, f)
			}
		}
	}
}
