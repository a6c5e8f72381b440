package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// rosterEntry is a command as the test finds it: its words after
// forgectl, and whether a sibling binary runs it.
type rosterEntry struct {
	path    []string
	sibling bool
	decl    *command
}

// rosterEntries walks the ffcli tree forgectl runs, and adds the siblings'
// commands, which the tree hands on before it is built.
func rosterEntries(t *testing.T) []rosterEntry {
	t.Helper()
	h := newHome(t)
	a, _ := h.newTestApp(false, nil, nil)
	cs := roster()
	var out []rosterEntry
	var walk func(prefix []string, n *ffcli.Command, decl []*command)
	walk = func(prefix []string, n *ffcli.Command, decl []*command) {
		for _, sub := range n.Subcommands {
			d := declared(decl, sub.Name)
			if d == nil {
				t.Fatalf("forgectl %s: a command the roster does not declare", strings.Join(append(prefix, sub.Name), " "))
			}
			path := append(append([]string(nil), prefix...), sub.Name)
			out = append(out, rosterEntry{path: path, decl: d})
			walk(path, sub, d.subs)
		}
		for _, d := range decl {
			if d.sibling != nil {
				out = append(out, rosterEntry{path: append(append([]string(nil), prefix...), d.name), sibling: true, decl: d})
			}
		}
	}
	walk(nil, a.rootCommand(cs), cs)
	if len(out) < 12 {
		t.Fatalf("the walk found %d commands", len(out))
	}
	return out
}

// TestRoster: every command is in every list made of the roster — the
// root help, completion (with a description), the manual (doc.go and the
// man page), the usage hint, the flag ordering — and in the README's
// command table.
func TestRoster(t *testing.T) {
	h := newHome(t)
	rootHelp := h.run("--help").stdout
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile("forgectl.1")
	if err != nil {
		t.Fatal(err)
	}
	readme := readmeCommands(t)
	for _, e := range rosterEntries(t) {
		name := "forgectl " + strings.Join(e.path, " ")
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + `( |$)`).MatchString(rootHelp) {
			t.Errorf("%s: not in the root help's USAGE", name)
		}
		parent := e.path[:len(e.path)-1]
		leaf := e.path[len(e.path)-1]
		r := h.run(append(append([]string{"__complete"}, parent...), "")...)
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(leaf) + `\t\S`).MatchString(r.stdout) {
			t.Errorf("%s: completion does not offer it with a description:\n%s", name, r.stdout)
		}
		if !readme[strings.Join(e.path, " ")] {
			t.Errorf("%s: not in the README's command table", name)
		}
		if e.sibling {
			continue
		}
		if !strings.Contains(string(doc), "// # "+name+" --help\n") {
			t.Errorf("%s: no section in doc.go", name)
		}
		if !strings.Contains(string(man), `.SH "`+strings.ToUpper(name)+`"`) {
			t.Errorf("%s: no section in forgectl.1", name)
		}
		if r := h.run(append(append([]string{}, e.path...), "--no-such-flag")...); r.code != 2 ||
			!strings.Contains(r.stderr, "forgectl: hint: run '"+name+" --help' for usage\n") {
			t.Errorf("%s --no-such-flag: exit %d, the hint does not name the command:\n%s", name, r.code, r.stderr)
		}
		if e.decl.interspersed {
			// A flag after a word is still the command's flag.
			if r := h.run(append(append([]string{}, e.path...), "someword", "--help")...); r.code != 0 || !strings.HasPrefix(r.stdout, name+" —") {
				t.Errorf("%s WORD --help: exit %d, not its manual:\n%.200s", name, r.code, r.stdout)
			}
		}
	}
}

// readmeCommands are the commands the README's command table names: the
// words of each row's first cell up to the first that is not a command
// word ("forgectl resume ls [--json]" names resume ls).
func readmeCommands(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	word := regexp.MustCompile(`^[a-z][a-z-]*$`)
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		cell, ok := strings.CutPrefix(l, "| `forgectl ")
		if !ok {
			continue
		}
		cell, _, _ = strings.Cut(cell, "`")
		var words []string
		for _, w := range strings.Fields(cell) {
			if !word.MatchString(w) {
				break
			}
			words = append(words, w)
		}
		out[strings.Join(words, " ")] = true
	}
	if len(out) == 0 {
		t.Fatal("the README has no command table (rows starting | `forgectl ...`)")
	}
	return out
}
