package main

import (
	"strings"
	"testing"

	"forgectl.dev/shared/manual/manualtest"
)

// TestDocs: the tables README.md and docs/ repeat from forgectl's --help,
// and the config template docs/config.md shows, are what forgectl prints
// (FORGECTL_UPDATE_MANUAL=1 rewrites them).
func TestDocs(t *testing.T) {
	h := newHome(t)
	help := func(path ...string) string {
		r := h.run(append(path, "--help")...)
		if r.code != 0 || r.stdout == "" {
			t.Fatalf("forgectl %s --help: exit %d, stderr %q", strings.Join(path, " "), r.code, r.stderr)
		}
		return r.stdout
	}
	root, resume, ls, search := help(), help("resume"), help("resume", "ls"), help("resume", "search")
	template := h.run("init", "--print")
	if template.code != 0 || template.stdout == "" {
		t.Fatalf("forgectl init --print: exit %d, stderr %q", template.code, template.stderr)
	}
	manualtest.CheckDocs(t, "forgectl", []string{"../README.md", "../docs/json.md", "../docs/search.md", "../docs/lineage.md", "../docs/config.md"}, []manualtest.Part{
		{Key: "forgectl init --print", Text: template.stdout},
		{Key: "forgectl --help, EXIT STATUS", Text: manualtest.Cut(t, root, "EXIT STATUS", "")},
		{Key: "forgectl resume ls --help, JSON", Text: manualtest.Cut(t, ls, "JSON (--json)", "")},
		{Key: "forgectl resume ls --help, --tree", Text: manualtest.Cut(t, ls, "  --tree", "  --roots")},
		{Key: "forgectl resume ls --help, LINEAGE", Text: manualtest.Cut(t, ls, "LINEAGE", "JSON (--json)")},
		{Key: "forgectl resume search --help, hits", Text: manualtest.Cut(t, search, "and one more:", "")},
		{Key: "forgectl resume search --help, WHAT IS SEARCHED", Text: manualtest.Cut(t, search, "WHAT IS SEARCHED", "")},
		{Key: "forgectl resume search --help, QUERY", Text: manualtest.Cut(t, search, "QUERY", "")},
		{Key: "forgectl resume search --help, EXIT STATUS", Text: manualtest.Cut(t, search, "EXIT STATUS", "")},
		{Key: "forgectl resume --help, VERDICT", Text: manualtest.Cut(t, resume, "VERDICT", "")},
	})
}
