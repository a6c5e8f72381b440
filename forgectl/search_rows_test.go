package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/jsonl"
	"github.com/google/go-cmp/cmp"
)

// The listing and search read rows through one classifier: each row shape
// that ls shows with its prompt, search finds, and a prompt too long to be
// searched still shows in ls. Through run, on real files in a temp HOME.

// envelope is the end of a row as Claude Code writes it.
func envelope(cwd, id string) string {
	return fmt.Sprintf(`,"uuid":"u1","timestamp":"2026-11-29T10:00:00Z","entrypoint":"cli","cwd":%q,"sessionId":%q,"version":"2.1.332","gitBranch":"main"}`, cwd, id)
}

func lsPrompts(t *testing.T, h *testHome) map[string][2]string {
	t.Helper()
	r := h.run("resume", "ls", "--json", "--all")
	if r.code != 0 {
		t.Fatalf("ls: %d %s", r.code, r.stderr)
	}
	var rows []struct {
		ID    string `json:"session_id"`
		First string `json:"first_prompt"`
		Last  string `json:"last_prompt"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("ls --json: %v", err)
	}
	out := map[string][2]string{}
	for _, row := range rows {
		out[row.ID] = [2]string{row.First, row.Last}
	}
	return out
}

func searchIDs(t *testing.T, h *testHome, words ...string) []string {
	t.Helper()
	r := h.run(append([]string{"resume", "search", "--json", "--all"}, words...)...)
	if r.code == 1 && strings.TrimSpace(r.stdout) == "[]" {
		return []string{} // no hit: --json prints an empty array
	}
	if r.code != 0 {
		t.Fatalf("search %v: %d %s", words, r.code, r.stderr)
	}
	var rows []struct {
		ID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("search --json: %v", err)
	}
	ids := []string{}
	for _, row := range rows {
		ids = append(ids, row.ID)
	}
	return ids
}

func TestSearchFindsTheRowsLsShows(t *testing.T) {
	h := newHome(t)
	cwd := h.repo("api")
	rows := map[string]struct{ line, prompt, word string }{
		"11111111-0000-4000-8000-000000000001": {`{"type":"user","message":{"role":"user","content":"run git push --force please"}`, "run git push --force please", "force"},
		"11111111-0000-4000-8000-000000000002": {`{"parentUuid":null, "isSidechain":false, "type" : "user", "message" : {"role" : "user", "content" : "spaced separators alpha"}`, "spaced separators alpha", "alpha"},
		"11111111-0000-4000-8000-000000000003": {`{"parentUuid":null,"isSidechain":false,"promptId":"` + strings.Repeat("p", 500) + `","type":"user","message":{"role":"user","content":"late type bravo"}`, "late type bravo", "bravo"},
		"11111111-0000-4000-8000-000000000004": {`{"parentUuid":null,"type":"user","message":{"role":"user","content":"` + strings.Repeat("system text ", 60) + `charlie"}`, "", "charlie"},
	}
	for id, r := range rows {
		line := r.line + envelope(cwd, id) + "\n"
		if r.prompt == "" { // a system reminder: isMeta after a long message
			line = strings.TrimSuffix(line, "}\n") + `,"isMeta":true}` + "\n"
		}
		h.cc.Transcript(cwd, id, time.Now().Add(-time.Hour), line)
	}
	got := lsPrompts(t, h)
	for id, r := range rows {
		if got[id] != [2]string{r.prompt, r.prompt} {
			t.Errorf("%s: ls shows first/last prompt %q, want %q", id, got[id], r.prompt)
		}
		want := []string{id}
		if r.prompt == "" {
			want = []string{}
		}
		if d := cmp.Diff(want, searchIDs(t, h, r.word)); d != "" {
			t.Errorf("search %s (-want +got):\n%s", r.word, d)
		}
	}
	if d := cmp.Diff([]string{"11111111-0000-4000-8000-000000000002"}, searchIDs(t, h, "SPACED", `"separators ALPHA"`)); d != "" {
		t.Errorf("case-folded search (-want +got):\n%s", d)
	}
}

// A prompt of 3 MB is searched and shown; one over the decode cap is not
// searched (as search --help says) and still shows its first line in ls.
func TestSearchAndLsOnPromptsOverTheCap(t *testing.T) {
	h := newHome(t)
	cwd := h.repo("api")
	const small, big = "22222222-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002"
	body := func(n int) string {
		return "first line of a long paste\n" + strings.Repeat("lorem ipsum dolor sit amet ", n/27) + " tailword"
	}
	for id, n := range map[string]int{small: 3 << 20, big: jsonl.DecodeCap + 1<<20} {
		text, _ := json.Marshal(body(n))
		line := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":` + string(text) + `}` + envelope(cwd, id) + "\n"
		h.cc.Transcript(cwd, id, time.Now().Add(-time.Hour), line)
	}
	want := jsonl.Oneline(body(600))
	if !strings.HasPrefix(want, "first line of a long paste lorem ipsum") || !strings.HasSuffix(want, "…") {
		t.Fatalf("the expected prompt is %q", want)
	}
	got := lsPrompts(t, h)
	for _, id := range []string{small, big} {
		if got[id] != [2]string{want, want} {
			t.Errorf("%s: ls shows first/last prompt %q, want %q", id, got[id], want)
		}
	}
	if d := cmp.Diff([]string{small}, searchIDs(t, h, "tailword")); d != "" {
		t.Errorf("search tailword (-want +got):\n%s", d)
	}
	help := h.run("resume", "search", "--help").stdout
	if cap := fmt.Sprintf("A row over %d MiB", jsonl.DecodeCap>>20); !strings.Contains(help, cap) || !strings.Contains(strings.Join(strings.Fields(help), " "), "not searched; ls still shows the start of such a prompt") {
		t.Errorf("search --help does not say what happens to a row over the cap (%q):\n%s", cap, help)
	}
}

// spacedEnvelope is envelope with JSON white space around every colon and
// after every comma, as JSON allows.
func spacedEnvelope(cwd, id string) string {
	return fmt.Sprintf(`, "uuid" : "u1", "timestamp" : "2026-11-29T10:00:00Z", "entrypoint" : "cli", "cwd" : %q, "sessionId" : %q, "version" : "2.1.332", "gitBranch" : "main"}`, cwd, id)
}

// A session whose rows space their separators is listed with its cwd,
// branch and version, and resume --dry-run resolves its directory (it
// said "records no working directory").
func TestSpacedRowsKeepTheirEnvelope(t *testing.T) {
	h := newHome(t)
	cwd := h.repo("api")
	const id = "33333333-0000-4000-8000-000000000001"
	line := `{"parentUuid":null, "isSidechain":false, "type" : "user", "message" : {"role" : "user", "content" : "spaced envelope delta"}` + spacedEnvelope(cwd, id) + "\n"
	if !json.Valid([]byte(line)) {
		t.Fatalf("not JSON: %s", line)
	}
	h.cc.Transcript(cwd, id, time.Now().Add(-time.Hour), line)
	r := h.run("resume", "--dry-run", id)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "session: "+id+"\ncwd: "+cwd+"\n") {
		t.Fatalf("dry run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = h.run("resume", "ls", "--json", "--all")
	var rows []struct {
		ID      string `json:"session_id"`
		Cwd     string `json:"cwd"`
		Branch  string `json:"branch"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("ls --json: %v, %s", err, r.stdout)
	}
	if got := rows[0]; got.ID != id || got.Cwd != cwd || got.Branch != "main" || got.Version != "2.1.332" {
		t.Errorf("ls --json row %+v, want cwd %s, branch main, version 2.1.332", got, cwd)
	}
}
