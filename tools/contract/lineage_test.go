//go:build contract

package contract

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// switched waits for the pane's registry to name a session other than old
// (/branch and /clear move the same process to a new id) and returns it.
func (p *pane) switched(what, old string) string {
	p.h.t.Helper()
	var id string
	if !tmuxrig.Poll.Wait(tmuxrig.TurnWait, func() bool {
		r, ok := p.registry()
		id = r.SessionID
		return ok && id != "" && id != old
	}) {
		r, _ := p.registry()
		p.h.t.Fatalf("pane %s: %s: the registry still names %q; screen:\n%s", p.ID, what, r.SessionID, p.Screen())
	}
	return id
}

// lineageRow is the part of ls --json under contract here.
type lineageLsRow struct {
	SessionID    string         `json:"session_id"`
	ParentID     string         `json:"parent_session_id"`
	Relation     string         `json:"relation"`
	ParentExists bool           `json:"parent_exists"`
	Children     []lineageLsRow `json:"children"`
}

// TestLineageOfRealSessions makes, with the real CLI, a session P, a /branch
// inside it (B), a --fork-session of P (F), a fork of F (FF), a /branch of F
// (BF), a fork of the branch (FB), and a /clear chain C1 -> C2 -> C3 in one
// process; checks that the files carry the marks forgectl reads (naming the
// field when one is missing: a format change), then every lineage field of
// `resume ls --json`, the row marks, --tree and --roots, and last a parent
// whose transcript is deleted.
func TestLineageOfRealSessions(t *testing.T) {
	h := newHome(t)
	s := h.s
	repo := h.repo("lineage-repo", "main")
	h.trust(repo)
	cur := s.claude[s.current]

	pp := h.startClaude(repo, cur)
	idP := pp.prompt("parent work one", "You said: parent work one").SessionID
	pp.slash("/rename Parent work", "Session renamed to: Parent work")
	pp.prompt("parent work two", "You said: parent work two")
	// The /-menu entry is /branch ("/fork" is another command: a background
	// copy).
	pp.typeText("/branch")
	pp.Keys("Enter")
	idB := pp.switched("/branch", idP)
	pp.waitIdle("after /branch", tmuxrig.TurnWait)
	pp.prompt("work in the branch", "You said: work in the branch")
	pp.exit()

	fork := func(of, prompt string) string {
		p := h.startClaude(repo, cur, "--resume", of, "--fork-session")
		id := p.prompt(prompt, "You said: "+prompt).SessionID
		p.exit()
		if id == of || id == "" {
			t.Fatalf("--fork-session of %s registered %q", of, id)
		}
		return id
	}
	idF := fork(idP, "work in the fork")
	idFF := fork(idF, "work in the fork of the fork")
	idFB := fork(idB, "work in a fork of the branch")

	pbf := h.startClaude(repo, cur, "--resume", idF)
	pbf.typeText("/branch")
	pbf.Keys("Enter")
	idBF := pbf.switched("/branch of the fork", idF)
	pbf.waitIdle("after /branch", tmuxrig.TurnWait)
	pbf.prompt("work in the branch of the fork", "You said: work in the branch of the fork")
	pbf.exit()

	pc := h.startClaude(repo, cur)
	idC1 := pc.prompt("first of the chain", "You said: first of the chain").SessionID
	pc.typeText("/clear")
	pc.Keys("Enter")
	idC2 := pc.switched("/clear", idC1)
	pc.waitIdle("after /clear", tmuxrig.TurnWait)
	pc.prompt("second of the chain", "You said: second of the chain")
	pc.typeText("/clear")
	pc.Keys("Enter")
	idC3 := pc.switched("/clear", idC2)
	pc.waitIdle("after /clear", tmuxrig.TurnWait)
	pc.prompt("third of the chain", "You said: third of the chain")
	pc.exit()
	names := map[string]string{idP: "P", idB: "B", idF: "F", idFF: "FF", idFB: "FB", idBF: "BF", idC1: "C1", idC2: "C2", idC3: "C3"}
	t.Logf("claude %s: P=%s B=%s F=%s FF=%s FB=%s BF=%s C1=%s C2=%s C3=%s", s.current, idP, idB, idF, idFF, idFB, idBF, idC1, idC2, idC3)

	// What the files say, read here independently of forgectl. A missing
	// mark means Claude Code changed what it writes: the error names it.
	files := h.transcripts()
	for id, n := range names {
		if files[id] == "" {
			t.Fatalf("no transcript for %s (%s)", n, id)
		}
	}
	marks := func(id string) (forkedFrom, lastRequest, sessionIDs []string, firstUser string) {
		f, err := os.Open(files[id])
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var row struct {
				Type       string `json:"type"`
				IsMeta     bool   `json:"isMeta"`
				ForkedFrom *struct {
					SessionID string `json:"sessionId"`
				} `json:"forkedFrom"`
				RequestSessionID string `json:"requestSessionId"`
				ProcessID        string `json:"session_id"`
				Message          struct {
					Content any `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &row) != nil {
				continue
			}
			if row.ForkedFrom != nil {
				forkedFrom = append(forkedFrom, row.ForkedFrom.SessionID)
			}
			if row.RequestSessionID != "" {
				lastRequest = append(lastRequest, row.RequestSessionID)
			}
			if row.ProcessID != "" {
				sessionIDs = append(sessionIDs, row.ProcessID)
			}
			if text, ok := row.Message.Content.(string); ok && row.Type == "user" && !row.IsMeta && firstUser == "" {
				firstUser = text
			}
		}
		return
	}
	last := func(xs []string) string {
		if len(xs) == 0 {
			return ""
		}
		return xs[len(xs)-1]
	}
	for _, c := range []struct{ id, from string }{{idB, idP}, {idBF, idF}} {
		ff, _, _, _ := marks(c.id)
		if last(ff) != c.from {
			t.Errorf("format change: the branch %s (%s) names %q in its last forkedFrom.sessionId, want %s (%d rows carry forkedFrom)", names[c.id], c.id, last(ff), c.from, len(ff))
		}
	}
	for _, c := range []struct{ id, from string }{{idF, idP}, {idFF, idF}, {idFB, idB}} {
		_, req, _, _ := marks(c.id)
		if last(req) != c.from {
			t.Errorf("format change: the fork %s (%s) names %q in its last requestSessionId, want %s (%d rows carry it)", names[c.id], c.id, last(req), c.from, len(req))
		}
	}
	for _, id := range []string{idC2, idC3} {
		_, _, sids, first := marks(id)
		if !strings.Contains(first, "<command-name>/clear</command-name>") {
			t.Errorf("format change: the /clear continuation %s (%s) opens with %q, not the /clear command row", names[id], id, first)
		}
		if last(sids) != idC1 {
			t.Errorf("format change: the /clear continuation %s (%s) names %q in session_id, want the process's first session %s", names[id], id, last(sids), idC1)
		}
	}
	clears := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(h.claude, "history.jsonl")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			var hl struct {
				Display   string `json:"display"`
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal([]byte(l), &hl) == nil && hl.Display == "/clear" {
				clears[hl.SessionID] = true
			}
		}
	}
	if !clears[idC1] || !clears[idC2] {
		t.Errorf("format change: history.jsonl logs /clear (display, sessionId) under %v, want C1 %s and C2 %s", clears, idC1, idC2)
	}

	// What forgectl says, against what the test did.
	want := map[string][2]string{
		idP: {}, idC1: {},
		idB: {idP, "branch"}, idF: {idP, "fork"}, idFF: {idF, "fork"}, idFB: {idB, "fork"}, idBF: {idF, "branch"},
		idC2: {idC1, "clear"}, idC3: {idC2, "clear"},
	}
	ls := func(args ...string) []lineageLsRow {
		out, errOut, code := h.forgectl(append([]string{"resume", "ls", "--json", "--all"}, args...)...)
		if code != 0 {
			t.Fatalf("resume ls --json --all %v: exit %d: %s", args, code, errOut)
		}
		var rows []lineageLsRow
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("ls --json: %v\n%s", err, out)
		}
		return rows
	}
	rows := ls()
	if len(rows) != len(want) {
		t.Errorf("ls lists %d sessions, the test made %d", len(rows), len(want))
	}
	for _, r := range rows {
		w, ok := want[r.SessionID]
		if !ok {
			t.Errorf("ls lists %s, which the test did not make", r.SessionID)
			continue
		}
		if r.ParentID != w[0] || r.Relation != w[1] || r.ParentExists != (w[0] != "") {
			t.Errorf("%s: parent_session_id %q (%s), relation %q, parent_exists %v; want %q (%s), %q, %v",
				names[r.SessionID], r.ParentID, names[r.ParentID], r.Relation, r.ParentExists, w[0], names[w[0]], w[1], w[0] != "")
		}
	}

	out, _, _ := h.forgectl("resume", "ls")
	for id, w := range want {
		if w[0] == "" {
			continue
		}
		mark := "[" + map[string]string{"branch": "branch of ", "fork": "fork of ", "clear": "after /clear of "}[w[1]] + w[0][:8] + "]"
		if line := lineWith(out, id); !strings.Contains(line, mark) {
			t.Errorf("the ls row of %s lacks %s: %q", names[id], mark, line)
		}
	}
	// The fork copied P's name: the exact name lists both, told apart.
	out, _, code := h.forgectl("resume", "--dry-run", "Parent work")
	if code != 1 || !strings.Contains(out, "[fork of "+idP[:8]+"]") || lineWith(out, idP) == "" {
		t.Errorf("resume --dry-run \"Parent work\": exit %d, candidates:\n%s\nwant P and its fork, marked", code, out)
	}

	var walk func(rs []lineageLsRow, parent string) int
	walk = func(rs []lineageLsRow, parent string) int {
		n := 0
		for _, r := range rs {
			if parent != "" && r.ParentID != parent {
				t.Errorf("--tree nests %s under %s", names[r.SessionID], names[parent])
			}
			n += 1 + walk(r.Children, r.SessionID)
		}
		return n
	}
	forest := ls("--tree")
	if n := walk(forest, ""); n != len(want) || len(forest) != 2 {
		t.Errorf("--tree --json: %d sessions in %d trees, want %d in 2 (P's and C1's)", n, len(forest), len(want))
	}
	roots := ls("--roots")
	if len(roots) != 2 || want[roots[0].SessionID][0] != "" || want[roots[1].SessionID][0] != "" {
		t.Errorf("--roots lists %d: %+v, want P and C1", len(roots), roots)
	}

	// A parent whose transcript is deleted: its children still name it.
	if err := os.Remove(files[idF]); err != nil {
		t.Fatal(err)
	}
	for _, r := range ls() {
		if r.SessionID == idFF || r.SessionID == idBF {
			if r.ParentID != idF || r.ParentExists {
				t.Errorf("after deleting F: %s names %q, parent_exists %v; want F %s, false", names[r.SessionID], r.ParentID, r.ParentExists, idF)
			}
		}
	}
	out, _, _ = h.forgectl("resume", "ls")
	if line := lineWith(out, idFF); !strings.Contains(line, "[fork of "+idF[:8]+" (gone)]") {
		t.Errorf("after deleting F, the row of FF: %q", line)
	}
	t.Logf("lineage proven on claude %s", s.current)
}

func lineWith(out, id string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, "├└│─ "), id) {
			return l
		}
	}
	return ""
}
