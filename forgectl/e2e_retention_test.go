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

// doctorRow runs the built forgectl's doctor --json in dir with extra
// environment and returns its retention row.
func (e *e2e) doctorRow(t *testing.T, dir string, env ...string) checkRow {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := e.command("doctor", "--json")
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), e.env...), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run() // other rows may fail in a temp home; the row is what counts
	var rows []checkRow
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	for _, r := range rows {
		if r.Check == "retention" {
			return r
		}
	}
	t.Fatalf("no retention row in\n%s", stdout.String())
	return checkRow{}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func ageDir(t *testing.T, path string, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	os.Chtimes(path, at, at)
}

const day = 24 * time.Hour

// The retention row reads cleanupPeriodDays with Claude Code's precedence
// (managed, then local, then project, then user), counts what its sweep
// deletes from the transcripts' mtimes (past the cutoff, and within 7
// days of it), the task lists and file-history folders by their own, and
// when the last sweep ran; it names the command that keeps them.
func TestE2EDoctorRetention(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	e.session("d0000000-0000-4000-8000-000000000001", api, "main", "old one", "", 40*day)
	e.session("d0000000-0000-4000-8000-000000000002", api, "main", "nearly old", "", 25*day)
	e.session("d0000000-0000-4000-8000-000000000003", api, "main", "fresh one", "", day)
	ageDir(t, filepath.Join(e.claude, "tasks", "d0000000-0000-4000-8000-000000000003"), 35*day)
	ageDir(t, filepath.Join(e.claude, "file-history", "d0000000-0000-4000-8000-000000000001"), 45*day)
	managed := filepath.Join(e.home, "managed")
	menv := "FORGECTL_CLAUDE_MANAGED_DIR=" + managed
	user := filepath.Join(e.claude, "settings.json")
	project := filepath.Join(api, ".claude", "settings.json")
	local := filepath.Join(api, ".claude", "settings.local.json")

	r := e.doctorRow(t, e.home, menv)
	if r.Status != "warn" || !strings.Contains(r.Message, "cleanupPeriodDays 30 (the default)") ||
		!strings.Contains(r.Message, "1 session(s) past the cutoff, 1 more within 7 days") ||
		!strings.Contains(r.Message, "by their own mtime, also 1 task list(s) and 1 file-history folder(s)") ||
		!strings.Contains(r.Message, "no sweep recorded") ||
		!strings.Contains(r.Hint, "forgectl resume archive --older-than 23d") {
		t.Fatalf("default: %+v", r)
	}

	// A large value in user settings: quiet.
	writeFile(t, user, `{"cleanupPeriodDays": 3650}`)
	if r := e.doctorRow(t, e.home, menv); r.Status != "ok" || !strings.Contains(r.Message, "cleanupPeriodDays 3650 ("+user+")") {
		t.Fatalf("user 3650: %+v", r)
	}
	// Project settings beat user settings, in the directory doctor runs in.
	writeFile(t, project, `{"cleanupPeriodDays": 20}`)
	if r := e.doctorRow(t, api, menv); r.Status != "warn" || !strings.Contains(r.Message, "cleanupPeriodDays 20 ("+project+")") ||
		!strings.Contains(r.Message, "2 session(s) past the cutoff, 0 more") {
		t.Fatalf("project 20: %+v", r)
	}
	if r := e.doctorRow(t, e.home, menv); r.Status != "ok" {
		t.Fatalf("elsewhere the project's value does not apply: %+v", r)
	}
	// Local beats project.
	writeFile(t, local, `{"cleanupPeriodDays": 100}`)
	if r := e.doctorRow(t, api, menv); r.Status != "ok" || !strings.Contains(r.Message, "cleanupPeriodDays 100 ("+local+")") {
		t.Fatalf("local 100: %+v", r)
	}
	// Managed beats local; a drop-in later in name order beats the file.
	writeFile(t, filepath.Join(managed, "managed-settings.json"), `{"cleanupPeriodDays": 3}`)
	if r := e.doctorRow(t, api, menv); !strings.Contains(r.Message, "cleanupPeriodDays 3 ("+filepath.Join(managed, "managed-settings.json")+")") {
		t.Fatalf("managed 3: %+v", r)
	}
	writeFile(t, filepath.Join(managed, "managed-settings.d", "10-keep.json"), `{"cleanupPeriodDays": 365}`)
	writeFile(t, filepath.Join(managed, "managed-settings.d", ".hidden.json"), `{"cleanupPeriodDays": 1}`)
	if r := e.doctorRow(t, api, menv); r.Status != "ok" || !strings.Contains(r.Message, "cleanupPeriodDays 365") {
		t.Fatalf("drop-in 365: %+v", r)
	}
	// A managed value runs the sweep even while a user file is broken.
	writeFile(t, user, `{"cleanupPeriodDays": 3650,}`)
	if r := e.doctorRow(t, api, menv); r.Status != "ok" || strings.Contains(r.Message, "skips") {
		t.Fatalf("managed over a broken user file: %+v", r)
	}
	os.RemoveAll(managed)
	os.RemoveAll(filepath.Join(api, ".claude"))

	// A user file that does not parse, and values Claude Code's schema
	// refuses, pause the sweep: a warning that says so and what is due once fixed.
	for _, doc := range []string{`{"cleanupPeriodDays": 3650,}`, `{"cleanupPeriodDays": 0}`, `{"cleanupPeriodDays": -1}`, `{"cleanupPeriodDays": "90"}`, `{"cleanupPeriodDays": 2.5}`} {
		writeFile(t, user, doc)
		r := e.doctorRow(t, e.home, menv)
		if r.Status != "warn" || !strings.Contains(r.Message, "Claude Code skips its retention sweep while") ||
			!strings.Contains(r.Message, "1 session(s) past the cutoff") || !strings.Contains(r.Hint, "fix "+user) {
			t.Fatalf("%s: %+v", doc, r)
		}
	}

	// An empty user settings.json written lately may be half-written:
	// Claude Code waits for it.
	writeFile(t, user, "")
	if r := e.doctorRow(t, e.home, menv); r.Status != "warn" || !strings.Contains(r.Message, "is empty and was written in the last 30 days") {
		t.Fatalf("empty user settings: %+v", r)
	}

	// A sweep ran two hours ago: the next waits a day.
	writeFile(t, user, `{}`)
	lc := filepath.Join(e.claude, ".last-cleanup")
	writeFile(t, lc, time.Now().Add(-2*time.Hour).UTC().Format(time.RFC3339))
	at := time.Now().Add(-2 * time.Hour)
	os.Chtimes(lc, at, at)
	if r := e.doctorRow(t, e.home, menv); !strings.Contains(r.Message, "last sweep "+at.UTC().Format("2006-01-02 15:04 UTC")+" (2h ago)") ||
		!strings.Contains(r.Message, "the next not before") {
		t.Fatalf("last cleanup: %+v", r)
	}

	// Once the old sessions are archived by the command the hint names
	// (their transcripts and file-history go with them), no session is
	// due; the fresh session's old task list still is, and the row says so.
	code, stdout, stderr := e.runCmd(t, nil, "resume", "archive", "--yes", "--older-than", "20d")
	if code != 0 || stdout != "d0000000-0000-4000-8000-000000000001\nd0000000-0000-4000-8000-000000000002\n" &&
		stdout != "d0000000-0000-4000-8000-000000000002\nd0000000-0000-4000-8000-000000000001\n" {
		t.Fatalf("archive --older-than 20d: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, p := range []string{filepath.Join(e.cc.ProjectDir(api), "d0000000-0000-4000-8000-000000000001.jsonl"),
		filepath.Join(e.cc.ProjectDir(api), "d0000000-0000-4000-8000-000000000002.jsonl"),
		filepath.Join(e.claude, "file-history", "d0000000-0000-4000-8000-000000000001")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still in Claude Code's tree after the archive", p)
		}
	}
	if r := e.doctorRow(t, e.home, menv); r.Status != "warn" || !strings.Contains(r.Message, "no session is within 7 days") ||
		!strings.Contains(r.Message, "deletes by their own mtime 1 task list(s)") {
		t.Fatalf("after the archive: %+v", r)
	}
}

// CLAUDE_CONFIG_DIR moves the user settings, the transcripts and
// .last-cleanup together: the row reads all three there. Run from HOME,
// ~/.claude/settings.json is then the project's settings, and wins: the
// real 2.1.333 kept a 40-day-old transcript with 3650 there and 1 in
// $CLAUDE_CONFIG_DIR/settings.json (docs/retention.md).
// No session near the cutoff, but a fresh session's task list whose own
// folder is old: the sweep deletes it all the same, so doctor warns.
func TestE2EDoctorRetentionWarnsOfAnOldTaskListAlone(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	id := "d0000000-0000-4000-8000-000000000005"
	e.session(id, api, "main", "used yesterday", "", day)
	ageDir(t, filepath.Join(e.claude, "tasks", id), 35*day)
	menv := "FORGECTL_CLAUDE_MANAGED_DIR=" + filepath.Join(e.home, "none")
	r := e.doctorRow(t, e.home, menv)
	if r.Status != "warn" || !strings.Contains(r.Message, "no session is within 7 days") ||
		!strings.Contains(r.Message, "deletes by their own mtime 1 task list(s)") ||
		!strings.Contains(r.Hint, "larger cleanupPeriodDays") || !strings.Contains(r.Hint, filepath.Join("~/.claude", "settings.json")) {
		t.Fatalf("%+v", r)
	}
	// With nothing old at all, quiet.
	ageDir(t, filepath.Join(e.claude, "tasks", id), day)
	if r := e.doctorRow(t, e.home, menv); r.Status != "ok" {
		t.Fatalf("nothing due: %+v", r)
	}
}

func TestE2EDoctorRetentionUnderClaudeConfigDir(t *testing.T) {
	e := newE2E(t)
	moved := filepath.Join(e.home, "elsewhere")
	id := "d0000000-0000-4000-8000-000000000009"
	proj := filepath.Join(moved, "projects", "-src-moved")
	writeFile(t, filepath.Join(proj, id+".jsonl"), `{"type":"user","message":{"role":"user","content":"moved"},"uuid":"u1","timestamp":"2026-10-01T10:00:00Z","cwd":"/src/moved","sessionId":"`+id+`","version":"2.1.333","entrypoint":"cli"}`+"\n")
	old := time.Now().Add(-12 * day)
	os.Chtimes(filepath.Join(proj, id+".jsonl"), old, old)
	writeFile(t, filepath.Join(moved, "settings.json"), `{"cleanupPeriodDays": 10}`)
	writeFile(t, filepath.Join(e.claude, "settings.json"), `{"cleanupPeriodDays": 3650}`) // the project's, from HOME
	lc := filepath.Join(moved, ".last-cleanup")
	writeFile(t, lc, "")
	at := time.Now().Add(-3 * day)
	os.Chtimes(lc, at, at)
	env := []string{"CLAUDE_CONFIG_DIR=" + moved, "FORGECTL_CLAUDE_MANAGED_DIR=" + filepath.Join(e.home, "none")}
	if r := e.doctorRow(t, e.home, env...); r.Status != "ok" || !strings.Contains(r.Message, "cleanupPeriodDays 3650 ("+filepath.Join(e.claude, "settings.json")+")") {
		t.Fatalf("from HOME: %+v", r)
	}
	r := e.doctorRow(t, moved, env...)
	if r.Status != "warn" || !strings.Contains(r.Message, "cleanupPeriodDays 10 ("+filepath.Join(moved, "settings.json")+")") ||
		!strings.Contains(r.Message, "1 session(s) past the cutoff") || !strings.Contains(r.Message, "last sweep "+at.UTC().Format("2006-01-02 15:04 UTC")+" (3d ago)") ||
		!strings.Contains(r.Hint, filepath.Join(moved, "settings.json")) || !strings.Contains(r.Hint, "--older-than 3d") ||
		strings.Contains(r.Message, "task list") || strings.Contains(r.Message, "file-history") {
		t.Fatalf("%+v", r)
	}
}
