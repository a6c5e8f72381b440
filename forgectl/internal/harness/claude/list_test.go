package claude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
)

type fixture struct {
	t      *testing.T
	home   string
	claude paths.Claude
	cc     *cchome.Home
}

func newFixture(t *testing.T) *fixture {
	home := t.TempDir()
	cc := cchome.New(t, filepath.Join(home, ".claude"))
	return &fixture{t: t, home: home, claude: cc.Claude, cc: cc}
}

func row(cwd, id, branch, entry, prompt string) string {
	return cchome.Prompt(cwd, id, branch, entry, prompt)
}

func (f *fixture) transcript(cwd, id string, mtime time.Time, lines ...string) string {
	return f.cc.Transcript(cwd, id, mtime, lines...)
}

// result is a whole listing, collected.
type result struct {
	Sessions []harness.Session
	sessions.Stats
}

// listAll lists Claude Code's sessions at c, with the snapshots in snaps,
// through the engine.
func listAll(c paths.Claude, snaps snapstore.Store, opt sessions.Options) (result, error) {
	var r result
	opt.Harness = New(c, snaps)
	st, err := sessions.List(context.Background(), opt, func(s *harness.Session) error {
		r.Sessions = append(r.Sessions, *s)
		return nil
	})
	r.Stats = st
	return r, err
}

func TestList(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "src", "web-app")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "pkg"), 0o755)
	wt := filepath.Join(f.home, "wt", "feature-x")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+repo+"/.git/worktrees/feature-x\n"), 0o644)
	gone := filepath.Join(f.home, "deleted-worktree")
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

	f.transcript(repo+"/pkg", "s-old", now.Add(-48*time.Hour), row(repo+"/pkg", "s-old", "main", "cli", "old work"))
	f.transcript(repo, "s-new", now.Add(-time.Hour), row(repo, "s-new", "feature/login", "cli", "fix login"),
		`{"type":"custom-title","customTitle":"Login work","sessionId":"s-new"}`+"\n")
	f.transcript(wt, "s-wt", now.Add(-2*time.Hour), row(wt, "s-wt", "feature-x", "cli", "worktree work"))
	f.transcript(gone, "s-gone", now.Add(-3*time.Hour), row(gone, "s-gone", "HEAD", "cli", "vanished"))
	f.transcript(repo, "s-print", now.Add(-4*time.Hour), row(repo, "s-print", "main", "sdk-cli", "print mode"))
	f.transcript(repo, "s-broken", now.Add(-5*time.Hour), "not json\n", row(repo, "s-broken", "main", "cli", "after garbage"), `{"truncat`)

	// A snapshot names a session whose transcript has no title, and holds its tasks.
	store := snapstore.Store{Dir: filepath.Join(f.home, "fc", "resume-sessions")}
	store.Update(snapstore.Observation{SessionID: "s-old", Name: "Rescued name", NameSource: "user", At: now,
		Tasks: []tasks.Task{{ID: "1", Status: "pending", Body: []byte(`{"id":"1","status":"pending"}`)}}})
	// A live task list for s-new.
	os.MkdirAll(f.claude.TaskList("s-new"), 0o700)
	os.WriteFile(filepath.Join(f.claude.TaskList("s-new"), "1.json"), []byte(`{"id":"1","status":"in_progress"}`), 0o644)
	os.WriteFile(filepath.Join(f.claude.TaskList("s-new"), "2.json"), []byte(`{"id":"2","status":"completed"}`), 0o644)

	// A real live process registered for s-wt, and a stale file for s-new.
	cmd := f.cc.Live("s-wt", map[string]any{"tmux": "cc:@0.%1", "nameSource": nil, "name": nil})
	f.cc.Register(cchome.DeadPid(t), "s-new", map[string]any{"procStart": "1"})

	// The prompt history says when s-new was last prompted; a line for a
	// session without a transcript and a broken line change nothing.
	os.WriteFile(f.claude.History(), []byte(`{"display":"fix login","timestamp":1795970465615,"project":"/x","sessionId":"s-new"}
{"display":"older","timestamp":1795970000000,"project":"/x","sessionId":"s-new"}
{"display":"ghost","timestamp":1795970465615,"project":"/x","sessionId":"no-transcript"}
{"display":"no session id in old lines","timestamp":1795970465615,"project":"/x"}
{"display":"brok`+"\n"), 0o600)

	idx := filepath.Join(f.home, "fc", "cache", "index")
	res, err := listAll(f.claude, store, sessions.Options{IndexPath: idx})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Sessions {
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s|live=%v|tasks=%d/%s|hidden=%s|exists=%v|broken=%d",
			s.ID, s.Name, s.NameSource, s.Repo, s.Branch, s.Live, s.Tasks.Total, s.TasksSource, s.HiddenReason, s.CwdExists, s.BrokenLines))
	}
	want := []string{
		"s-new|Login work|custom-title|web-app|feature/login|live=false|tasks=2/live|hidden=|exists=true|broken=0",
		"s-wt||||feature-x|live=true|tasks=0/none|hidden=|exists=true|broken=0",
		"s-gone||||HEAD|live=false|tasks=0/none|hidden=|exists=false|broken=0",
		"s-print||||main|live=false|tasks=0/none|hidden=print-mode|exists=true|broken=0",
		"s-broken||||main|live=false|tasks=0/none|hidden=|exists=true|broken=1",
		"s-old|Rescued name|snapshot|web-app|main|live=false|tasks=1/snapshot|hidden=|exists=true|broken=0",
	}
	// Repos are filled in below; compare with them patched in.
	want[1] = strings.Replace(want[1], "||||", "|||web-app|", 1)
	want[2] = strings.Replace(want[2], "||||", "|||deleted-worktree|", 1)
	want[3] = strings.Replace(want[3], "||||", "|||web-app|", 1)
	want[4] = strings.Replace(want[4], "||||", "|||web-app|", 1)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("want:\n%s\ngot:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	if res.Scanned != 6 || res.Reused != 0 {
		t.Fatalf("cold: scanned %d reused %d", res.Scanned, res.Reused)
	}
	if s := res.Sessions[1]; s.Pid != cmd.Process.Pid || s.Tmux != "cc:@0.%1" || s.Status != "idle" {
		t.Fatalf("live fields: %+v", s)
	}
	if at := res.Sessions[0].LastPromptAt; !at.Equal(time.UnixMilli(1795970465615)) || !res.Sessions[1].LastPromptAt.IsZero() {
		t.Fatalf("history join: %v %v", at, res.Sessions[1].LastPromptAt)
	}

	// Warm: nothing re-read. Then an append is read incrementally.
	res, _ = listAll(f.claude, store, sessions.Options{IndexPath: idx})
	if res.Scanned != 0 || res.Reused != 6 {
		t.Fatalf("warm: scanned %d reused %d", res.Scanned, res.Reused)
	}
	// History grows: read incrementally, the newer prompt wins.
	hf, _ := os.OpenFile(f.claude.History(), os.O_APPEND|os.O_WRONLY, 0)
	hf.WriteString(`{"display":"ship it","timestamp":1795971000000,"project":"/x","sessionId":"s-new"}` + "\n")
	hf.Close()
	p := filepath.Join(f.cc.ProjectDir(repo), "s-new.jsonl")
	fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString(row(repo, "s-new", "release", "cli", "ship it"))
	fh.Close()
	res, _ = listAll(f.claude, store, sessions.Options{IndexPath: idx})
	if res.Scanned != 1 || res.Sessions[0].ID != "s-new" || res.Sessions[0].Branch != "release" || res.Sessions[0].LastPrompt != "ship it" ||
		!res.Sessions[0].LastPromptAt.Equal(time.UnixMilli(1795971000000)) {
		t.Fatalf("append: scanned %d first %+v", res.Scanned, res.Sessions[0])
	}

	// A task rewritten in place (Claude Code does not rename) is recounted.
	taskFile := filepath.Join(f.claude.TaskList("s-new"), "1.json")
	os.WriteFile(taskFile, []byte(`{"id":"1","status":"completed"}`), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(taskFile, later, later)
	res, _ = listAll(f.claude, store, sessions.Options{IndexPath: idx})
	if c := res.Sessions[0].Tasks; c.Completed != 2 || c.InProgress != 0 {
		t.Fatalf("task counts not refreshed: %+v", c)
	}

	// A damaged cache is rebuilt, not trusted.
	os.WriteFile(idx, []byte("FCTIX\n\x85\x80\x08garbage"), 0o600)
	res, _ = listAll(f.claude, store, sessions.Options{IndexPath: idx})
	if len(res.Sessions) != 6 || res.Scanned != 6 {
		t.Fatalf("corrupt index: %d sessions scanned %d", len(res.Sessions), res.Scanned)
	}
}

// A transcript that cannot be read now is left out of the listing and of
// the cache, so that once it is readable again it is listed.
func TestUnreadableTranscriptIsNotCached(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.jsonl")
	os.Mkdir(bad, 0o700) // opens, but every read fails (EISDIR)
	ent, scanned, err := summarise(jsonl.NewScanner(nil, 0), &harness.File{Dir: &dir, Name: "x.jsonl", File: fresh.File{Size: 10, MtimeNs: 1}}, bad, nil)
	if ent != nil || err == nil || !scanned {
		t.Fatalf("ent %v err %v scanned %v", ent, err, scanned)
	}
}

// A name the user gave, kept by the snapshot store, beats an AI title.
func TestUserNameBeatsAITitle(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "r")
	os.MkdirAll(repo, 0o755)
	now := time.Now()
	f.transcript(repo, "s1", now, row(repo, "s1", "main", "cli", "hi"),
		`{"type":"ai-title","aiTitle":"Greeting","sessionId":"s1"}`+"\n")
	f.transcript(repo, "s2", now.Add(-time.Minute), row(repo, "s2", "main", "cli", "hi"),
		`{"type":"custom-title","customTitle":"Kept","sessionId":"s2"}`+"\n")
	store := snapstore.Store{Dir: filepath.Join(f.home, "store")}
	for _, id := range []string{"s1", "s2"} {
		store.Update(snapstore.Observation{SessionID: id, Name: "Renamed by me", NameSource: "user", At: now})
	}
	res, _ := listAll(f.claude, store, sessions.Options{})
	if s := res.Sessions[0]; s.Name != "Renamed by me" || s.NameSource != "snapshot" {
		t.Fatalf("ai-title kept over the user's name: %+v", s)
	}
	if s := res.Sessions[1]; s.Name != "Kept" || s.NameSource != "custom-title" {
		t.Fatalf("the transcript's own custom title must win: %+v", s)
	}
}

// A /rename also writes <id>/custom-title.json beside the transcript; it
// names a session whose transcript carries no title row, in Claude Code's
// precedence (agent name and the transcript's own title first).
func TestSidecarTitle(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "src", "api")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	now := time.Now()
	sidecar := func(p, body string, at time.Time) string {
		dir := filepath.Join(filepath.Dir(p), strings.TrimSuffix(filepath.Base(p), ".jsonl"))
		os.MkdirAll(filepath.Join(dir, "subagents"), 0o700)
		sp := filepath.Join(dir, "custom-title.json")
		if err := os.WriteFile(sp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(sp, at, at)
		return sp
	}
	only := f.transcript(repo, "s-only", now.Add(-time.Hour), row(repo, "s-only", "main", "cli", "work"),
		`{"type":"ai-title","aiTitle":"An AI title","sessionId":"s-only"}`+"\n")
	sp := sidecar(only, `{"customTitle":"Sidecar name","by":"user","at":"2026-11-29T16:41:49.344Z"}`, now.Add(-time.Hour))
	row2 := f.transcript(repo, "s-row", now.Add(-2*time.Hour), row(repo, "s-row", "main", "cli", "work"),
		`{"type":"custom-title","customTitle":"Row name","sessionId":"s-row"}`+"\n")
	sidecar(row2, `{"customTitle":"Older sidecar","by":"user"}`, now.Add(-2*time.Hour))
	agent := f.transcript(repo, "s-agent", now.Add(-3*time.Hour), row(repo, "s-agent", "main", "cli", "work"),
		`{"type":"agent-name","agentName":"Agent name","sessionId":"s-agent"}`+"\n")
	sidecar(agent, `{"customTitle":"Sidecar under agent","by":"user"}`, now.Add(-3*time.Hour))
	derived := f.transcript(repo, "s-derived", now.Add(-4*time.Hour), row(repo, "s-derived", "main", "cli", "derived work"))
	sidecar(derived, `{"customTitle":"Not a name","by":"derived"}`, now.Add(-4*time.Hour))
	garbage := f.transcript(repo, "s-garbage", now.Add(-5*time.Hour), row(repo, "s-garbage", "main", "cli", "garbage work"))
	sidecar(garbage, `{"customTitle":`, now.Add(-5*time.Hour))
	// A folder without a title file (subagents only).
	bare := f.transcript(repo, "s-bare", now.Add(-6*time.Hour), row(repo, "s-bare", "main", "cli", "bare work"))
	os.MkdirAll(filepath.Join(filepath.Dir(bare), "s-bare", "subagents"), 0o700)

	idx := filepath.Join(f.home, "fc", "cache", "transcripts.idx")
	names := func() map[string]string {
		t.Helper()
		res, err := listAll(f.claude, snapstore.Store{}, sessions.Options{IndexPath: idx, Home: f.home})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, s := range res.Sessions {
			m[s.ID] = s.Name + " (" + s.NameSource + ")"
		}
		return m
	}
	want := map[string]string{
		"s-only":    "Sidecar name (custom-title-file)",
		"s-row":     "Row name (custom-title)",
		"s-agent":   "Agent name (agent-name)",
		"s-derived": " ()",
		"s-garbage": " ()",
		"s-bare":    " ()",
	}
	for pass := range 2 { // cold, then from the index
		got := names()
		for id, w := range want {
			if got[id] != w {
				t.Errorf("pass %d: %s is named %q, want %q", pass, id, got[id], w)
			}
		}
	}

	// Renamed again: a new size or mtime is read, even from the index.
	later := now.Add(time.Minute)
	os.WriteFile(sp, []byte(`{"customTitle":"Renamed twice","by":"user"}`), 0o600)
	os.Chtimes(sp, later, later)
	if got := names()["s-only"]; got != "Renamed twice (custom-title-file)" {
		t.Errorf("after a second rename: %q", got)
	}
	// The file removed: back to the AI title.
	os.Remove(sp)
	if got := names()["s-only"]; got != "An AI title (ai-title)" {
		t.Errorf("without the file: %q", got)
	}
	// Named again, then the whole folder removed: forgotten too.
	os.WriteFile(sp, []byte(`{"customTitle":"Third name","by":"user"}`), 0o600)
	if got := names()["s-only"]; got != "Third name (custom-title-file)" {
		t.Errorf("named again: %q", got)
	}
	os.RemoveAll(filepath.Dir(sp))
	for pass := range 2 {
		if got := names()["s-only"]; got != "An AI title (ai-title)" {
			t.Errorf("pass %d without the folder: %q", pass, got)
		}
	}
}
