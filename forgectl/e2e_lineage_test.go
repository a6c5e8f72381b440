package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// manifestLineage is the part of gencc's manifest (its ground truth) this
// test compares against.
type manifestLineage struct {
	Sessions []struct {
		SessionID       string `json:"session_id"`
		Name            string `json:"name"`
		Hidden          bool   `json:"hidden"`
		ParentSessionID string `json:"parent_session_id"`
		Relation        string `json:"relation"`
		ParentExists    bool   `json:"parent_exists"`
	} `json:"sessions"`
}

type lineageRow struct {
	SessionID    string       `json:"session_id"`
	Name         string       `json:"name"`
	ParentID     string       `json:"parent_session_id"`
	Relation     string       `json:"relation"`
	ParentExists bool         `json:"parent_exists"`
	Children     []lineageRow `json:"children"`
}

// TestE2ELineage lists a generated home holding the lineage cast (a fork of
// a fork, a branch of a fork, a /clear chain of three, a fork of a deleted
// session, a fork whose copy is cut) with the built forgectl, and checks
// parent_session_id, relation and parent_exists against the generator's
// manifest, the rows' marks, --tree (text and JSON) and --roots.
func TestE2ELineage(t *testing.T) {
	e := newE2E(t)
	gencc := filepath.Join(filepath.Dir(e.forgectl), "gencc")
	if out, err := exec.Command(gencc, "-home", e.home, "-demo", "-seed", "7").CombinedOutput(); err != nil {
		t.Fatalf("gencc: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(e.home, "gencc-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifestLineage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := e.command(args...)
		var o, er strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &er
		err := cmd.Run()
		return o.String(), er.String(), exitCode(err)
	}

	type link struct {
		Parent, Relation string
		Exists           bool
	}
	want, children := map[string]link{}, 0
	for _, s := range m.Sessions {
		want[s.SessionID] = link{s.ParentSessionID, s.Relation, s.ParentExists}
		if s.Relation != "" {
			children++
		}
	}
	if children < 7 {
		t.Fatalf("the generated home has %d sessions with a parent, want the lineage cast", children)
	}
	for _, pass := range []string{"cold", "warm"} {
		out, errOut, code := run("resume", "ls", "--json", "--all")
		if code != 0 {
			t.Fatalf("ls --json --all: %d %s", code, errOut)
		}
		var rows []lineageRow
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err)
		}
		got := map[string]link{}
		for _, r := range rows {
			got[r.SessionID] = link{r.ParentID, r.Relation, r.ParentExists}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s listing: lineage against the manifest (-manifest +ls):\n%s", pass, d)
		}
	}

	// The table's rows carry the marks.
	out, _, _ := run("resume", "ls", "--all")
	for _, s := range m.Sessions {
		if s.Relation == "" {
			continue
		}
		word := map[string]string{"fork": "fork of ", "branch": "branch of ", "clear": "after /clear of "}[s.Relation]
		mark := "[" + word + s.ParentSessionID[:8]
		if !s.ParentExists {
			mark += " (gone)"
		}
		mark += "]"
		line := lineOf(out, s.SessionID)
		if !strings.Contains(line, mark) {
			t.Errorf("row of %s lacks %q: %q", s.SessionID, mark, line)
		}
	}

	// A fork copies its parent's name: the exact name lists both, told apart.
	var named string
	for _, s := range m.Sessions {
		if s.Relation == "fork" && s.Name != "" && want[s.ParentSessionID].Relation == "" {
			named = s.Name
		}
	}
	if named == "" {
		t.Fatal("no named fork of a root in the cast")
	}
	out, _, code := run("resume", "--dry-run", named)
	if code != 1 || !strings.Contains(out, "[fork of ") {
		t.Errorf("resume %q: exit %d, candidates:\n%s\nwant them with the fork's mark", named, code, out)
	}

	// --tree: each child below its parent, one glyph level deeper.
	out, _, code = run("resume", "ls", "--tree", "--all")
	if code != 0 {
		t.Fatalf("ls --tree: exit %d", code)
	}
	var stack []string
	seen := 0
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n")[1:] {
		depth := 0
		rest := l
		for {
			if r, ok := strings.CutPrefix(rest, "│  "); ok {
				rest, depth = r, depth+1
			} else if r, ok := strings.CutPrefix(rest, "   "); ok {
				rest, depth = r, depth+1
			} else {
				break
			}
		}
		if r, ok := strings.CutPrefix(rest, "├─ "); ok {
			rest, depth = r, depth+1
		} else if r, ok := strings.CutPrefix(rest, "└─ "); ok {
			rest, depth = r, depth+1
		}
		id := strings.Fields(rest)[0]
		stack = append(stack[:depth], id)
		if depth > 0 {
			seen++
			if parent := stack[depth-1]; want[id].Parent != parent {
				t.Errorf("--tree puts %s under %s; it names %s", id, parent, want[id].Parent)
			}
		} else if w := want[id]; w.Exists {
			t.Errorf("--tree puts %s at the top; its parent %s is listed", id, w.Parent)
		}
	}
	if seen == 0 {
		t.Errorf("--tree nested nothing:\n%s", out)
	}

	out, _, _ = run("resume", "ls", "--tree", "--json", "--all")
	var forest []lineageRow
	if err := json.Unmarshal([]byte(out), &forest); err != nil {
		t.Fatalf("ls --tree --json: %v\n%s", err, out)
	}
	var walk func(ns []lineageRow, parent string) int
	walk = func(ns []lineageRow, parent string) int {
		n := 0
		for _, r := range ns {
			if parent != "" && r.ParentID != parent {
				t.Errorf("--tree --json nests %s under %s; it names %s", r.SessionID, parent, r.ParentID)
			}
			if r.Children == nil {
				t.Errorf("%s: children is null", r.SessionID)
			}
			n += 1 + walk(r.Children, r.SessionID)
		}
		return n
	}
	if n := walk(forest, ""); n != len(m.Sessions) {
		t.Errorf("--tree --json holds %d sessions, the home %d", n, len(m.Sessions))
	}

	// --roots: nobody's child among those shown.
	out, _, _ = run("resume", "ls", "--json", "--roots", "--all")
	var rootRows []lineageRow
	json.Unmarshal([]byte(out), &rootRows)
	wantRoots := 0
	for _, l := range want {
		if !l.Exists {
			wantRoots++
		}
	}
	if len(rootRows) != wantRoots || len(rootRows) != len(forest) {
		t.Errorf("--roots --all lists %d, want %d (the tree's %d roots)", len(rootRows), wantRoots, len(forest))
	}
	for _, r := range rootRows {
		if want[r.SessionID].Exists {
			t.Errorf("--roots lists %s, a child of %s", r.SessionID, r.ParentID)
		}
	}
	out, _, _ = run("resume", "ls", "--roots", named)
	if n := strings.Count(out, "\n") - 1; n != 1 || strings.Contains(out, "[fork of ") {
		t.Errorf("--roots %q: %d rows, want only the original:\n%s", named, n, out)
	}
	if _, errOut, code := run("resume", "ls", "--roots", "--tree"); code != 2 || !strings.Contains(errOut, "forgectl: error: ") {
		t.Errorf("--roots --tree: exit %d, %q; want a usage refusal", code, errOut)
	}
}

func lineOf(out, id string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, id) {
			return l
		}
	}
	return ""
}
