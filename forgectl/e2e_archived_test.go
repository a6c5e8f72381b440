package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lsJSON runs the built forgectl's ls --json with args and decodes it.
func (e *e2e) lsJSON(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := e.command(append([]string{"resume", "ls", "--json"}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ls: %v\n%s", err, stderr.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, stdout.String())
	}
	return rows
}

func rowByID(rows []map[string]any, id string) map[string]any {
	for _, r := range rows {
		if r["session_id"] == id {
			return r
		}
	}
	return nil
}

// Claude Code's own archive mark, <id>/archived.json, hides a session with
// hidden_reason archived-in-claude; --all shows it. A mark that says false,
// does not parse as Claude Code parses it, or is older than the session's
// last prompt hides nothing. The warm listing (from the index) says the
// same, and a mark written or removed later is seen.
func TestE2EArchivedInClaudeIsHidden(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	const (
		idArch   = "a0000000-0000-4000-8000-000000000001"
		idFalse  = "a0000000-0000-4000-8000-000000000002"
		idBad    = "a0000000-0000-4000-8000-000000000003"
		idPlain  = "a0000000-0000-4000-8000-000000000004"
		idLater  = "a0000000-0000-4000-8000-000000000005"
		idCase   = "a0000000-0000-4000-8000-000000000006"
		idNoTime = "a0000000-0000-4000-8000-000000000007"
	)
	for _, id := range []string{idArch, idFalse, idBad, idPlain, idLater, idCase, idNoTime} {
		e.session(id, api, "main", "work "+id[len(id)-1:], "", time.Hour)
	}
	mark := func(id, body string) {
		t.Helper()
		dir := filepath.Join(e.cc.ProjectDir(api), id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "archived.json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mark(idArch, `{"archived":true,"at":"2026-11-30T10:00:00.000+01:00"}`)
	mark(idFalse, `{"archived":false,"at":"2026-11-30T10:00:00.000Z"}`)
	mark(idBad, `{"archived":true,"at":"yesterday"}`)
	mark(idCase, `{"Archived":true,"at":"2026-11-30T10:00:00Z"}`)
	mark(idNoTime, `{"archived":true}`)
	// A prompt after the mark un-archives it, in Claude Code's picker too.
	mark(idLater, `{"archived":true,"at":"2026-11-30T10:00:00Z"}`)
	hist := `{"display":"again","timestamp":` + jsonInt(time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC).UnixMilli()) + `,"project":"` + api + `","sessionId":"` + idLater + `"}` + "\n"
	if err := os.WriteFile(filepath.Join(e.claude, "history.jsonl"), []byte(hist), 0o600); err != nil {
		t.Fatal(err)
	}

	check := func(pass string) {
		t.Helper()
		shown := e.lsJSON(t)
		if rowByID(shown, idArch) != nil {
			t.Fatalf("%s: the archived session is listed by default", pass)
		}
		for _, id := range []string{idFalse, idBad, idPlain, idLater, idCase, idNoTime} {
			if rowByID(shown, id) == nil {
				t.Fatalf("%s: %s is hidden", pass, id)
			}
		}
		all := e.lsJSON(t, "--all")
		r := rowByID(all, idArch)
		if r == nil || r["hidden"] != true || r["hidden_reason"] != "archived-in-claude" {
			t.Fatalf("%s: --all row %v", pass, r)
		}
	}
	check("cold")
	check("warm")

	// Search hides it too, and finds it with --all.
	if code, out, _ := e.runBin(t, "resume", "search", "--json", "work"); code != 0 || strings.Contains(out, idArch) || !strings.Contains(out, idPlain) {
		t.Fatalf("search: %d %s", code, out)
	}
	if code, out, _ := e.runBin(t, "resume", "search", "--json", "--all", "work"); code != 0 || !strings.Contains(out, idArch) {
		t.Fatalf("search --all: %d %s", code, out)
	}

	// The mark goes and comes back: the stat sees it without a new prompt.
	os.Remove(filepath.Join(e.cc.ProjectDir(api), idArch, "archived.json"))
	if rowByID(e.lsJSON(t), idArch) == nil {
		t.Fatal("the session stays hidden after its mark is removed")
	}
	mark(idPlain, `{"archived":true,"at":"2026-11-30T10:00:00Z"}`)
	if rowByID(e.lsJSON(t), idPlain) != nil {
		t.Fatal("a mark written after the index was made is not seen")
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
