package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/version"

	"forgectl.dev/shared/snapstore"
	"github.com/google/go-cmp/cmp"
)

func TestLsJSON(t *testing.T) {
	h, api, web := demo(t)
	pid := h.live(idWeb)
	store := snapstore.Store{Dir: filepath.Join(h.fc, "resume-sessions")}
	store.Update(snapstore.Observation{SessionID: idWeb, Name: "Dark mode", NameSource: "user", At: time.Now()})

	r := h.run("resume", "ls", "--json")
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	keys := make([]string, 0)
	for k := range rows[0] {
		keys = append(keys, k)
	}
	wantKeys := []string{"branch", "cache_likely_expired", "context_tokens", "cwd", "cwd_exists", "entrypoint", "first_prompt", "harness", "hidden", "hidden_reason", "last_activity", "last_prompt", "last_prompt_at", "live", "messages", "model", "name", "name_source", "parent_exists", "parent_session_id", "pid", "relation", "repo", "session_id", "size_bytes", "status", "tasks", "tasks_source", "tmux", "tokens_used", "transcript_path", "version"}
	if d := cmp.Diff(wantKeys, sorted(keys)); d != "" {
		t.Fatalf("field table changed (-want +got):\n%s", d)
	}
	first := rows[0]
	if first["session_id"] != idLogin || first["harness"] != "claude" || first["name"] != "Login bugfix work" || first["name_source"] != "custom-title" ||
		first["repo"] != "api-server" || first["branch"] != "feature/login" || first["cwd"] != api || first["live"] != false || first["pid"] != nil {
		t.Fatalf("first row: %v", first)
	}
	if _, err := time.Parse(time.RFC3339, first["last_activity"].(string)); err != nil || !strings.HasSuffix(first["last_activity"].(string), "Z") {
		t.Fatalf("last_activity not RFC 3339 UTC: %v", first["last_activity"])
	}
	w := rows[2]
	if w["live"] != true || w["pid"] != float64(pid) || w["name"] != "Dark mode" || w["name_source"] != "snapshot" || w["cwd"] != web {
		t.Fatalf("live row: %v", w)
	}
	if !strings.Contains(r.stderr, "3 shown of 3 sessions (0 hidden, 1 live)") {
		t.Fatalf("counts: %q", r.stderr)
	}

	// Empty is [] (never null), and a filter narrows.
	r = h.run("resume", "ls", "--json", "nothing-matches")
	if strings.TrimSpace(r.stdout) != "[]" || r.code != 0 {
		t.Fatalf("empty: %q", r.stdout)
	}
	empty := newHome(t)
	r = empty.run("resume", "ls", "--json")
	if strings.TrimSpace(r.stdout) != "[]" || r.code != 0 {
		t.Fatalf("no claude dir: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestLsTableAndBrokenFiles(t *testing.T) {
	h, api, _ := demo(t)
	// A transcript that is garbage, one cut mid-line, and one with a 3 MB line.
	dir := filepath.Join(h.claude, "projects", "-junk")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "00000000-0000-0000-0000-000000000001.jsonl"), []byte("\x00\x01garbage\n{not json}\n"), 0o600)
	h.session("00000000-0000-0000-0000-000000000002", api, "main", "cut here", "", 5*time.Hour)
	f, _ := os.OpenFile(filepath.Join(h.claude, "projects", "-"+strings.ReplaceAll(strings.TrimPrefix(api, "/"), "/", "-"), "00000000-0000-0000-0000-000000000002.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if f != nil {
		f.WriteString(`{"type":"attachment","attachment":"` + strings.Repeat("x", 3<<20) + `"}` + "\n" + `{"parentUuid":"cut`)
		f.Close()
	}
	r := h.run("resume", "ls")
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if !strings.HasPrefix(lines[0], "SESSION") || len(lines) != 5 {
		t.Fatalf("table:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "Login bugfix work") || !strings.Contains(r.stdout, "“dark mode please”") {
		t.Fatalf("titles:\n%s", r.stdout)
	}
	r = h.run("resume", "ls", "--all", "--verbose")
	if r.code != 0 || !strings.Contains(r.stderr, "transcripts read") {
		t.Fatalf("verbose: %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "00000000-0000-0000-0000-000000000001") {
		t.Fatalf("--all hides the garbage file:\n%s", r.stdout)
	}
}

func TestInitLaunchVersionDispatch(t *testing.T) {
	h := newHome(t)
	r := h.run("init")
	if r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(h.fc, "config.toml"))
	if err != nil || !strings.Contains(string(b), "[[resume.on_update]]") {
		t.Fatalf("config: %v", err)
	}
	os.WriteFile(filepath.Join(h.fc, "config.toml"), []byte("# mine\n"), 0o600)
	r = h.run("init")
	if r.code != 2 || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("init over existing: %d %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(h.fc, "config.toml")); string(b) != "# mine\n" {
		t.Fatal("init overwrote")
	}

	r = h.run("launch", "--dry-run", "--", "--verbose")
	wd, _ := os.Getwd()
	if r.code != 0 || r.stdout != "cwd: "+wd+"\nargv: "+h.bin+" --verbose\n" {
		t.Fatalf("launch: %d %q %q", r.code, r.stdout, r.stderr)
	}

	r = h.run("--version")
	if r.stdout != "forgectl "+version.String()+"\n" {
		t.Fatalf("version %q", r.stdout)
	}
	for _, args := range [][]string{{"--help"}, {"resume", "--help"}, {"resume", "ls", "--help"}} {
		r = h.run(args...)
		if r.code != 0 {
			t.Fatalf("%v: %d", args, r.code)
		}
	}
	r = h.run("resume", "--bogus")
	if r.code != 2 {
		t.Fatalf("bad flag: %d", r.code)
	}

	// The snapshot runs in-process and always exits 0, quietly with
	// --quiet, even on a bad flag; the other siblings fail with a hint when
	// missing.
	r = h.run("resume", "snapshot", "--quiet", "--bogus")
	if r.code != 0 || r.stderr != "" || r.exec != nil {
		t.Fatalf("snapshot: %d %q", r.code, r.stderr)
	}
	r = h.run("resume", "snapshot", "--version")
	if r.code != 0 || r.stdout != "forgectl "+version.String()+"\n" {
		t.Fatalf("snapshot --version: %d %q", r.code, r.stdout)
	}
	r = h.run("resume", "outdated")
	if r.code != 1 || !strings.Contains(r.stderr, "resume-restart is not installed") {
		t.Fatalf("missing restart: %d %q", r.code, r.stderr)
	}
	sib := filepath.Join(h.home, "bin", "resume-restart")
	os.WriteFile(sib, []byte("#!/bin/sh\n"), 0o755)
	r = h.run("resume", "restart", "--outdated", "--dry-run")
	if r.exec == nil || r.exec.argv0 != sib || strings.Join(r.exec.argv[1:], " ") != "restart --outdated --dry-run" {
		t.Fatalf("dispatch: %+v", r.exec)
	}
	found := false
	for _, kv := range r.exec.env {
		found = found || kv == "FORGECTL_SELF="+filepath.Join(h.home, "bin", "forgectl")
	}
	if !found {
		t.Fatal("FORGECTL_SELF not passed to the sibling")
	}
}

// ls --help states the caps the code keeps.
func TestLsHelpDocumentsTheCaps(t *testing.T) {
	for _, want := range []string{
		fmt.Sprintf("Indentation stops at %d levels", render.TreeIndent),
		`"…(12) " for a session 12 below its root`,
		fmt.Sprintf("nested at most %d sessions below a root", render.TreeJSONDepth),
		fmt.Sprintf("ancestor %d below the root", render.TreeJSONDepth-1),
	} {
		if !strings.Contains(strings.Join(strings.Fields(lsHelp), " "), want) {
			t.Errorf("ls --help does not say %q", want)
		}
	}
}

// cancelAtWarning is a stderr that cancels the listing at the warning
// --verbose gives for a transcript with a broken line: an interrupt at a
// known row.
type cancelAtWarning struct {
	buf    bytes.Buffer // not embedded: io.WriteString would pass Write by
	cancel context.CancelFunc
}

func (w *cancelAtWarning) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("not JSON")) {
		w.cancel()
	}
	return w.buf.Write(p)
}

// A table for a pipe holds its rows back and writes them 48 KB at a time.
// An interrupted listing still prints every row it gathered, whole and in
// order after the header, as a table that wrote each row at once would
// have; here the interrupt comes at row 251, before the first 48 KB.
func TestLsInterruptedKeepsTheRowsItGathered(t *testing.T) {
	h := newHome(t)
	repo := filepath.Join(h.home, "src", "bulk")
	const at = 250
	for k := range 400 {
		lines := []string{cchome.Prompt(repo, fmt.Sprintf("c0000000-0000-4000-8000-%012d", k), "main", "cli", "bulk prompt")}
		if k == at {
			lines = append(lines, "{not json}\n")
		}
		h.cc.Transcript(repo, fmt.Sprintf("c0000000-0000-4000-8000-%012d", k), time.Now().Add(-time.Duration(k)*time.Minute), lines...)
	}
	a, rec := h.newTestApp(false, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.stderr = &cancelAtWarning{cancel: cancel}
	if code := a.run(ctx, []string{"resume", "ls", "--verbose"}); code != 130 && code != 1 {
		t.Fatalf("exit %d from an interrupted listing; %d bytes out; stderr %q", code, rec.out.Len(), a.stderr.(*cancelAtWarning).buf.String())
	}
	out := rec.out.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasSuffix(out, "\n") || !strings.HasPrefix(lines[0], "SESSION") {
		t.Fatalf("want a header and whole rows, got %q", out[:min(len(out), 200)])
	}
	if len(lines) != at+2 {
		t.Fatalf("%d rows printed, want the %d gathered before the interrupt", len(lines)-1, at+1)
	}
	for k, l := range lines[1:] {
		if want := fmt.Sprintf("c0000000-0000-4000-8000-%012d", k); !strings.HasPrefix(l, want) {
			t.Fatalf("row %d is %q, want %s", k+1, l, want)
		}
	}
}
