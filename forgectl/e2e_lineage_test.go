package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/poll"
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

// lineageHome writes transcripts made out of one another, as the real CLI
// writes them (facts/claude-code.md §i): a branch's copied rows carry
// forkedFrom, a fork's copied reply requestSessionId, a /clear
// continuation opens with the /clear command and the history logs the
// /clear under the session it cleared 10 ms before.
type lineageHome struct {
	e       *e2e
	repo    string
	history []string
}

// session writes id, made out of parent by rel ("" for an original), last
// written at mtime; a /clear continuation's first row is stamped then.
func (h *lineageHome) session(id, parent, rel string, mtime time.Time) {
	h.e.t.Helper()
	at := mtime.UTC().Format("2006-01-02T15:04:05.000Z")
	row := func(typ, content, extra string) string {
		msg := fmt.Sprintf(`{"role":"user","content":%q}`, content)
		if typ == "assistant" {
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%q}]}`, content)
		}
		return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":%q,"message":%s,"uuid":"u-%s","timestamp":%q,"entrypoint":"cli","cwd":%q,"sessionId":%q,"version":"2.1.333","gitBranch":"main"%s}`+"\n",
			typ, msg, id, at, h.repo, id, extra)
	}
	var lines []string
	switch rel {
	case "branch":
		lines = append(lines, row("user", "the work so far", fmt.Sprintf(`,"forkedFrom":{"sessionId":%q,"messageUuid":"u"}`, parent)))
	case "fork":
		lines = append(lines, row("user", "the work so far", ""), row("assistant", "ok", fmt.Sprintf(`,"requestSessionId":%q`, parent)))
	case "clear":
		lines = append(lines, row("user", "<local-command-caveat>Caveat</local-command-caveat>", `,"isMeta":true`),
			row("user", "<command-name>/clear</command-name>\n<command-args></command-args>", ""))
		h.history = append(h.history, fmt.Sprintf(`{"display":"/clear","pastedContents":{},"timestamp":%d,"project":%q,"sessionId":%q}`+"\n",
			mtime.Add(-10*time.Millisecond).UnixMilli(), h.repo, parent))
	}
	lines = append(lines, row("user", "work on "+id, ""), row("assistant", "done", ""))
	h.e.cc.Transcript(h.repo, id, mtime, lines...)
}

func (h *lineageHome) writeHistory() {
	if err := os.WriteFile(h.e.cc.Claude.History(), []byte(strings.Join(h.history, "")), 0o600); err != nil {
		h.e.t.Fatal(err)
	}
}

// runFor runs forgectl with a deadline: a walk that loops must fail the
// test, not hang it.
func runFor(t *testing.T, e *e2e, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), poll.Long)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.forgectl, args...)
	cmd.Env, cmd.Dir = e.env, e.home
	var o, er strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &er
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish in %v", args, poll.Long)
	}
	if code := exitCode(err); code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, er.String())
	}
	return o.String(), 0
}

// needJQ is jq's path. make test installs it first (tools/testdeps), so
// a missing jq is a broken set-up, not a reason to skip.
func needJQ(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("jq")
	if err != nil {
		t.Fatalf("jq is needed (apt-get install jq, or run make test, which installs it): %v", err)
	}
	return p
}

// jqOut runs a jq program over data.
func jqOut(t *testing.T, jq, prog, data string) string {
	t.Helper()
	cmd := exec.Command(jq, "-c", prog)
	cmd.Stdin = strings.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("jq %s: %v\n%s", prog, err, out)
	}
	return strings.TrimSpace(string(out))
}

// treeDepth reads a --tree row's depth from its lead: the glyph columns,
// then a glyph or, past the indentation cap, the "…(N) " mark. It returns
// the lead's width in columns too.
func treeDepth(t *testing.T, line string) (depth, cols int, rest string) {
	t.Helper()
	rest = line
	for {
		if r, ok := strings.CutPrefix(rest, "│  "); ok {
			rest, depth = r, depth+1
		} else if r, ok := strings.CutPrefix(rest, "   "); ok {
			rest, depth = r, depth+1
		} else {
			break
		}
	}
	cols = depth * 3
	if r, ok := strings.CutPrefix(rest, "├─ "); ok {
		return depth + 1, cols + 3, r
	} else if r, ok := strings.CutPrefix(rest, "└─ "); ok {
		return depth + 1, cols + 3, r
	}
	if r, ok := strings.CutPrefix(rest, "…("); ok {
		n, after, _ := strings.Cut(r, ") ")
		d, err := strconv.Atoi(n)
		if err != nil || depth != render.TreeIndent {
			t.Fatalf("a depth mark after %d columns: %q", depth, line)
		}
		return d, cols + len([]rune("…("+n+") ")), after
	}
	return depth, cols, rest
}

// TestE2EDeepLineage lists a home holding one chain of 5,000 sessions, each
// made out of the one before (a branch, a fork and a /clear in turn), with
// the built forgectl: --roots lists its first session alone, --tree stops
// indenting at 8 levels and marks the deeper rows with their depth, and
// --tree --json reads with real jq and encoding/json, nested no deeper than
// the documented 64.
func TestE2EDeepLineage(t *testing.T) {
	jq := needJQ(t)
	e := newE2E(t)
	const n = 5000
	h := &lineageHome{e: e, repo: e.repo("deep")}
	rel := []string{"clear", "branch", "fork"}
	base := time.Now().Add(-n * time.Minute).Truncate(time.Second)
	id := func(d int) string { return fmt.Sprintf("d%07d-0000-4000-8000-%012d", d, d) }
	for d := 0; d < n; d++ {
		parent, r := "", ""
		if d > 0 {
			parent, r = id(d-1), rel[d%3]
		}
		h.session(id(d), parent, r, base.Add(time.Duration(d)*time.Minute))
	}
	h.writeHistory()

	out, _ := runFor(t, e, "resume", "ls", "--json")
	var rows []lineageRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("ls lists %d sessions, want %d", len(rows), n)
	}
	for _, r := range rows {
		var d int
		fmt.Sscanf(r.SessionID, "d%07d", &d)
		if d > 0 && (r.ParentID != id(d-1) || r.Relation != rel[d%3] || !r.ParentExists) {
			t.Fatalf("%s: parent %s (%s), want %s (%s)", r.SessionID, r.ParentID, r.Relation, id(d-1), rel[d%3])
		}
	}

	out, _ = runFor(t, e, "resume", "ls", "--roots", "--json")
	if got := jqOut(t, jq, "map(.session_id)", out); got != `["`+id(0)+`"]` {
		t.Errorf("--roots: %s, want the chain's first session alone", got)
	}

	out, _ = runFor(t, e, "resume", "ls", "--tree")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")[1:]
	if len(lines) != n {
		t.Fatalf("--tree prints %d rows, want %d", len(lines), n)
	}
	for d, l := range lines {
		depth, cols, rest := treeDepth(t, l)
		if depth != d || !strings.HasPrefix(rest, id(d)+" ") {
			t.Fatalf("--tree row %d reads as depth %d: %q", d, depth, l)
		}
		if limit := render.TreeIndent*3 + len("…(5000) "); cols > limit {
			t.Fatalf("--tree row %d is indented %d columns, past %d: %q", d, cols, limit, l)
		}
	}

	out, _ = runFor(t, e, "resume", "ls", "--tree", "--json")
	if got := jqOut(t, jq, `[.. | objects | select(has("children"))] | length`, out); got != strconv.Itoa(n) {
		t.Errorf("jq counts %s sessions in --tree --json, want %d", got, n)
	}
	if got := jqOut(t, jq, `def depth: if .children == [] then 0 else 1 + ([.children[] | depth] | max) end; map(depth) | max`, out); got != strconv.Itoa(render.TreeJSONDepth) {
		t.Errorf("jq finds objects %s sessions below their root, want the cap, %d", got, render.TreeJSONDepth)
	}
	var forest []lineageRow
	if err := json.Unmarshal([]byte(out), &forest); err != nil {
		t.Fatalf("--tree --json: %v", err)
	}
	// Past the cap the chain is listed flat, in order, each naming the
	// one before it.
	k := 0
	for ns := forest; len(ns) > 0; k++ {
		if ns[0].SessionID != id(k) {
			t.Fatalf("depth %d holds %s, want %s", k, ns[0].SessionID, id(k))
		}
		if k == render.TreeJSONDepth-1 {
			flat := ns[0].Children
			for j, r := range flat {
				if r.SessionID != id(k+1+j) || r.ParentID != id(k+j) || len(r.Children) != 0 {
					t.Fatalf("flat row %d: %s under %s with %d children", j, r.SessionID, r.ParentID, len(r.Children))
				}
			}
			k += len(flat)
			break
		}
		ns = ns[0].Children
	}
	if k != n-1 {
		t.Errorf("--tree --json reaches depth %d, want %d", k, n-1)
	}
}

// TestE2ELineageCycles: parents that name each other (only damaged or
// hand-made files can say so) in each of the three relations, a ring of
// three forks with a session below it, and a session naming itself. Every
// listing finishes and shows each session once; the ring's members are
// roots.
func TestE2ELineageCycles(t *testing.T) {
	jq := needJQ(t)
	e := newE2E(t)
	h := &lineageHome{e: e, repo: e.repo("loops")}
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	at := func(min int) time.Time { return base.Add(time.Duration(min) * time.Minute) }
	sess := []struct{ id, parent, rel string }{
		{"b1000000-0000-4000-8000-000000000001", "b2000000-0000-4000-8000-000000000002", "branch"},
		{"b2000000-0000-4000-8000-000000000002", "b1000000-0000-4000-8000-000000000001", "branch"},
		{"c1000000-0000-4000-8000-000000000001", "c2000000-0000-4000-8000-000000000002", "clear"},
		{"c2000000-0000-4000-8000-000000000002", "c1000000-0000-4000-8000-000000000001", "clear"},
		{"f1000000-0000-4000-8000-000000000001", "f3000000-0000-4000-8000-000000000003", "fork"},
		{"f2000000-0000-4000-8000-000000000002", "f1000000-0000-4000-8000-000000000001", "fork"},
		{"f3000000-0000-4000-8000-000000000003", "f2000000-0000-4000-8000-000000000002", "fork"},
		{"fa000000-0000-4000-8000-00000000000a", "f2000000-0000-4000-8000-000000000002", "fork"},
		{"5e1f0000-0000-4000-8000-000000000000", "5e1f0000-0000-4000-8000-000000000000", "fork"},
	}
	for k, s := range sess {
		h.session(s.id, s.parent, s.rel, at(k))
	}
	h.writeHistory()

	out, _ := runFor(t, e, "resume", "ls", "--json")
	var rows []lineageRow
	json.Unmarshal([]byte(out), &rows)
	want := map[string]string{}
	for _, s := range sess {
		want[s.id] = s.parent
	}
	want["5e1f0000-0000-4000-8000-000000000000"] = "" // a session never names itself
	got := map[string]string{}
	for _, r := range rows {
		got[r.SessionID] = r.ParentID
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ls: parents (-want +got):\n%s", d)
	}
	runFor(t, e, "resume", "ls")

	out, _ = runFor(t, e, "resume", "ls", "--tree", "--json")
	if got := jqOut(t, jq, `[.. | objects | select(has("children")) | .session_id] | sort | length`, out); got != strconv.Itoa(len(sess)) {
		t.Errorf("--tree --json holds %s sessions, want %d:\n%s", got, len(sess), out)
	}
	out, _ = runFor(t, e, "resume", "ls", "--tree")
	if rowsOut := strings.Count(out, "\n") - 1; rowsOut != len(sess) {
		t.Errorf("--tree prints %d rows, want %d:\n%s", rowsOut, len(sess), out)
	}
	if !strings.Contains(out, "\n└─ fa000000") && !strings.Contains(out, "\n├─ fa000000") {
		t.Errorf("--tree does not put the ring's child under its parent:\n%s", out)
	}
	out, _ = runFor(t, e, "resume", "ls", "--roots", "--json")
	wantRoots := `["5e1f0000-0000-4000-8000-000000000000","f3000000-0000-4000-8000-000000000003","f2000000-0000-4000-8000-000000000002","f1000000-0000-4000-8000-000000000001","c2000000-0000-4000-8000-000000000002","c1000000-0000-4000-8000-000000000001","b2000000-0000-4000-8000-000000000002","b1000000-0000-4000-8000-000000000001"]`
	if got := jqOut(t, jq, "map(.session_id)", out); got != wantRoots {
		t.Errorf("--roots: %s\nwant %s", got, wantRoots)
	}
}
