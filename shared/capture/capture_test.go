package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
	"github.com/google/go-cmp/cmp"
)

// home is a temporary Claude Code tree and snapshot store.
type home struct {
	t      *testing.T
	claude paths.Claude
	store  snapstore.Store
}

func newHome(t *testing.T) home {
	t.Helper()
	root := t.TempDir()
	cc := cchome.New(t, filepath.Join(root, ".claude"))
	return home{t: t, claude: cc.Claude, store: snapstore.Store{Dir: filepath.Join(root, "forgectl", "resume-sessions")}}
}

func (h home) capturer(env map[string]string) Capturer {
	return Capturer{Claude: h.claude, Store: h.store, Now: time.Now, Getenv: func(k string) string { return env[k] }}
}

// child starts a real process standing in for claude; env is added to its
// environment.
func child(t *testing.T, env ...string) int { return cchome.Process(t, env...).Process.Pid }

func deadPid(t *testing.T) int { return cchome.DeadPid(t) }

// register writes a registry file the way Claude Code 2.1.332 does, with the
// process's real start time unless procStart is given.
func (h home) register(pid int, id string, fields map[string]any) {
	h.t.Helper()
	cchome.New(h.t, h.claude.Root).Register(pid, id, fields)
}

func taskBody(id, status string) []byte {
	b, _ := json.MarshalIndent(map[string]any{"id": id, "subject": "Task " + id, "description": "Add tests for the login flow",
		"activeForm": "Working on " + id, "status": status, "blocks": []string{}, "blockedBy": []string{}}, "", "  ")
	return b
}

// tasks writes task files as Claude Code does, dated an hour back (files
// touched within seconds are always read in full, see fingerprint.go).
func (h home) tasks(list string, ids ...string) string {
	h.t.Helper()
	dir := h.claude.TaskList(list)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, id := range ids {
		p := filepath.Join(dir, id+".json")
		if err := os.WriteFile(p, taskBody(id, "pending"), 0o644); err != nil {
			h.t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	os.Chtimes(dir, old, old)
	return dir
}

func (h home) load(id string) snapstore.Record {
	h.t.Helper()
	r, err := h.store.Load(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func taskIDs(r snapstore.Record) (live, gone []string) {
	for _, t := range r.Tasks {
		if t.GoneSince == nil {
			live = append(live, t.ID)
		} else {
			gone = append(gone, t.ID)
		}
	}
	return
}

func sessionIDs(res Result) []string {
	var out []string
	for _, s := range res.Sessions {
		out = append(out, s.SessionID)
	}
	return out
}

const (
	idA = "1fc9d747-58cb-4e62-b7f1-a85d62252943"
	idB = "fcb86714-61b8-4fdd-af04-0d6d365ff47a"
	idC = "0b1c2d3e-0000-4000-8000-000000000003"
	idD = "0b1c2d3e-0000-4000-8000-000000000004"
)

func TestRunCapturesOnlyLiveSessions(t *testing.T) {
	h := newHome(t)
	live, named, reused := child(t), child(t), child(t)
	dead := deadPid(t)
	h.register(live, idA, map[string]any{"name": "Login bugfix work", "nameSource": "user", "nameSince": 1795970509352, "formerNames": []any{"first try", map[string]string{"name": "second try"}}})
	h.register(named, idB, nil)
	h.register(reused, idC, map[string]any{"procStart": "1"})
	h.register(dead, idD, map[string]any{"procStart": "5"})
	os.WriteFile(filepath.Join(h.claude.Registry(), "777.json"), []byte(`{"pid":777,"sessionId":`), 0o644)
	h.tasks(idA, "1", "2", "10")
	h.tasks(idC, "1")
	h.tasks(idD, "1")
	// idB has no registry name of its own, but /rename left a sidecar.
	proj := filepath.Join(h.claude.Projects(), "-home-alice-src-demo-repo")
	os.MkdirAll(filepath.Join(proj, idB), 0o700)
	os.WriteFile(filepath.Join(proj, idB+".jsonl"), []byte("{}\n"), 0o600)
	os.WriteFile(filepath.Join(proj, idB, "custom-title.json"), []byte(`{"customTitle":"Picker rename","by":"user","at":"2026-11-29T16:41:49.344Z"}`), 0o600)

	res := h.capturer(nil).Run(context.Background(), Hook{})
	if d := cmp.Diff([]string{idA, idB}, sessionIDs(res)); d != "" {
		t.Fatalf("captured (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{idA, idB}, res.Live); d != "" {
		t.Fatalf("live (-want +got):\n%s", d)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Error(), "777.json") {
		t.Fatalf("problems: %v", res.Problems)
	}

	a := h.load(idA)
	st, _ := proc.StartTime(live)
	got := snapstore.Record{SessionID: a.SessionID, Cwd: a.Cwd, Version: a.Version, Name: a.Name, NameSource: a.NameSource,
		FormerNames: a.FormerNames, Pid: a.Pid, ProcStart: a.ProcStart, TaskListID: a.TaskListID, TaskDir: a.TaskDir, HighWater: a.HighWater}
	want := snapstore.Record{SessionID: idA, Cwd: "/home/alice/src/demo-repo", Version: "2.1.332", Name: "Login bugfix work", NameSource: "user",
		FormerNames: []string{"first try", "second try"}, Pid: live, ProcStart: st, TaskListID: idA, TaskDir: h.claude.TaskList(idA), HighWater: 10}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("record (-want +got):\n%s", d)
	}
	ids, _ := taskIDs(a)
	if d := cmp.Diff([]string{"1", "2", "10"}, ids); d != "" {
		t.Fatal(d)
	}
	var body map[string]any
	if err := json.Unmarshal(a.Tasks[0].Body, &body); err != nil || body["activeForm"] != "Working on 1" {
		t.Fatalf("task body not kept verbatim: %s", a.Tasks[0].Body)
	}

	b := h.load(idB)
	if b.Name != "Picker rename" || b.NameSource != "user" || b.Transcript != filepath.Join(proj, idB+".jsonl") {
		t.Fatalf("sidecar name or transcript: %+v", b)
	}
	if len(b.Tasks) != 0 {
		t.Fatalf("session without a task folder: %+v", b.Tasks)
	}
	for _, id := range []string{idC, idD} {
		if _, err := h.store.Load(id); err != snapstore.ErrNoRecord {
			t.Fatalf("stale session %s captured: %v", id, err)
		}
	}
	fi, err := os.Stat(h.store.Path(idA))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record mode: %v %v", fi.Mode(), err)
	}
	di, err := os.Stat(h.store.Dir)
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("store mode: %v %v", di.Mode(), err)
	}
}

// hookJSON is a Stop hook's stdin as captured from Claude Code 2.1.332.
func hookJSON(id, transcript, cwd string) string {
	return fmt.Sprintf(`{"session_id":%q,
 "transcript_path":%q,
 "cwd":%q,"prompt_id":"f2c5ed29-0000","permission_mode":"auto",
 "effort":{"level":"medium"},"hook_event_name":"Stop","stop_hook_active":false,
 "last_assistant_message":"Hello from the mock model. \"session_id\":\"not-this\"","background_tasks":[],"session_crons":[]}`, id, transcript, cwd)
}

func TestRunCapturesHookSessionBeforeRegistry(t *testing.T) {
	h := newHome(t)
	pid := child(t)
	// The registry still names the session this pid ran before /clear.
	h.register(pid, idB, map[string]any{"name": "Old name", "nameSource": "user", "version": "2.1.197"})
	h.tasks("shared-list", "1", "2")
	h.tasks(idA, "9") // not read: the hook's environment names another list
	transcript := filepath.Join(h.claude.Projects(), "-home-alice-src-demo-repo", idA+".jsonl")

	hook, err := ParseHook([]byte(hookJSON(idA, transcript, "/home/alice/src/demo-repo")))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{PidEnv: fmt.Sprint(pid), TaskListEnv: "shared-list"}
	res := h.capturer(env).Run(context.Background(), hook)
	if len(res.Problems) != 0 {
		t.Fatal(res.Problems)
	}
	if d := cmp.Diff([]string{idA}, sessionIDs(res)); d != "" {
		t.Fatalf("captured (-want +got):\n%s", d)
	}
	r := h.load(idA)
	st, _ := proc.StartTime(pid)
	ids, _ := taskIDs(r)
	got := []any{r.Cwd, r.Transcript, r.TaskListID, r.Pid, r.ProcStart, r.Version, r.Name, ids}
	want := []any{"/home/alice/src/demo-repo", transcript, "shared-list", pid, st, "2.1.197", "", []string{"1", "2"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestRunHookWithoutRegistryOrPid(t *testing.T) {
	h := newHome(t)
	h.tasks(idA, "1")
	res := h.capturer(nil).Run(context.Background(), Hook{SessionID: idA, Cwd: "/w"})
	if d := cmp.Diff([]string{idA}, sessionIDs(res)); d != "" || len(res.Problems) != 0 {
		t.Fatalf("%s %v", d, res.Problems)
	}
	if r := h.load(idA); r.Pid != 0 || len(r.Tasks) != 1 {
		t.Fatalf("%+v", r)
	}
	// A session id that cannot name a file is refused, not sanitised.
	res = h.capturer(nil).Run(context.Background(), Hook{SessionID: "../../etc"})
	if len(res.Sessions) != 0 || len(res.Problems) != 1 {
		t.Fatalf("%+v", res)
	}
}

func TestStoreNeverShrinks(t *testing.T) {
	h := newHome(t)
	pid := child(t)
	h.register(pid, idA, nil)
	dir := h.tasks(idA, "1", "2", "3")
	c := h.capturer(nil)
	c.Run(context.Background(), Hook{})
	os.Remove(filepath.Join(dir, "2.json"))
	c.Run(context.Background(), Hook{})
	live, gone := taskIDs(h.load(idA))
	if d := cmp.Diff([]any{[]string{"1", "3"}, []string{"2"}}, []any{live, gone}); d != "" {
		t.Fatal(d)
	}
	// Every task completed: Claude Code deletes the files, the folder stays.
	os.Remove(filepath.Join(dir, "1.json"))
	os.Remove(filepath.Join(dir, "3.json"))
	res := c.Run(context.Background(), Hook{})
	live, gone = taskIDs(h.load(idA))
	if d := cmp.Diff([]any{[]string(nil), []string{"1", "2", "3"}}, []any{live, gone}); d != "" {
		t.Fatal(d)
	}
	if res.Sessions[0].Tasks != 3 || res.Sessions[0].Gone != 3 {
		t.Fatalf("%+v", res.Sessions)
	}
}

func TestTornTaskFileIsNotGone(t *testing.T) {
	h := newHome(t)
	pid := child(t)
	h.register(pid, idA, nil)
	dir := h.tasks(idA, "1", "2")
	c := h.capturer(nil)
	c.Run(context.Background(), Hook{})
	os.WriteFile(filepath.Join(dir, "2.json"), []byte(`{"id":"2","subj`), 0o644)
	h.tasks(idA, "3")
	res := c.Run(context.Background(), Hook{})
	if len(res.Problems) != 1 {
		t.Fatalf("problems: %v", res.Problems)
	}
	live, gone := taskIDs(h.load(idA))
	if d := cmp.Diff([]any{[]string{"1", "2", "3"}, []string(nil)}, []any{live, gone}); d != "" {
		t.Fatal(d)
	}
}

func TestSessionReadsTheProcessTaskList(t *testing.T) {
	h := newHome(t)
	pid := child(t, TaskListEnv+"=team-list")
	h.register(pid, idA, nil)
	h.tasks("team-list", "4")
	e, err := registry.ReadFile(filepath.Join(h.claude.Registry(), fmt.Sprintf("%d.json", pid)))
	if err != nil {
		t.Fatal(err)
	}
	rec, notes, err := h.capturer(nil).Session(e)
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	ids, _ := taskIDs(rec)
	if d := cmp.Diff([]any{"team-list", []string{"4"}}, []any{rec.TaskListID, ids}); d != "" {
		t.Fatal(d)
	}
	// Run finds the same list for the same session.
	h.tasks("team-list", "5")
	h.capturer(nil).Run(context.Background(), Hook{})
	ids, _ = taskIDs(h.load(idA))
	if d := cmp.Diff([]string{"4", "5"}, ids); d != "" {
		t.Fatal(d)
	}
}

// clock is a settable clock safe for the capturer's goroutines.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestFastPath(t *testing.T) {
	h := newHome(t)
	hookPid, other := child(t), child(t)
	h.register(hookPid, idA, map[string]any{"name": "Hook session", "nameSource": "user"})
	h.register(other, idB, nil)
	dirA := h.tasks(idA, "1", "2")
	dirB := h.tasks(idB, "1", "2")
	clk := &clock{t: time.Now()}
	env := map[string]string{PidEnv: fmt.Sprint(hookPid)}
	c := h.capturer(env)
	c.Now = clk.now
	hook := Hook{SessionID: idA}
	pass := func() map[string]bool {
		t.Helper()
		res := c.Run(context.Background(), hook)
		if len(res.Problems) != 0 {
			t.Fatal(res.Problems)
		}
		out := map[string]bool{}
		for _, s := range res.Sessions {
			out[s.SessionID] = s.Unchanged
		}
		return out
	}
	if d := cmp.Diff(map[string]bool{idA: false, idB: false}, pass()); d != "" {
		t.Fatalf("first pass (-want +got):\n%s", d)
	}
	clk.t = clk.t.Add(time.Second)
	before := h.load(idB)
	if d := cmp.Diff(map[string]bool{idA: true, idB: true}, pass()); d != "" {
		t.Fatalf("nothing changed (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, h.load(idB)); d != "" {
		t.Fatalf("an unchanged session's record was rewritten:\n%s", d)
	}

	// An in-place rewrite (no folder change) is seen deep, in the hook's
	// own session, and not shallow, in the other one until refreshAfter.
	rewrite := func(dir string) {
		st, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "2.json")
		os.WriteFile(p, taskBody("2", "completed"), 0o644)
		m := time.Now().Add(-30 * time.Minute)
		os.Chtimes(p, m, m)
		os.Chtimes(dir, st.ModTime(), st.ModTime())
	}
	rewrite(dirA)
	rewrite(dirB)
	clk.t = clk.t.Add(time.Second)
	if d := cmp.Diff(map[string]bool{idA: false, idB: true}, pass()); d != "" {
		t.Fatalf("after in-place rewrites (-want +got):\n%s", d)
	}
	if s := h.load(idA).Tasks[1].Status; s != "completed" {
		t.Fatalf("hook session: %s", s)
	}
	clk.t = clk.t.Add(refreshAfter)
	if d := cmp.Diff(map[string]bool{idA: false, idB: false}, pass()); d != "" {
		t.Fatalf("after refreshAfter (-want +got):\n%s", d)
	}
	if s := h.load(idB).Tasks[1].Status; s != "completed" {
		t.Fatalf("other session: %s", s)
	}

	// A new task changes the folder: seen shallow too.
	clk.t = clk.t.Add(time.Second)
	h.tasks(idB, "3")
	now := time.Now().Add(-time.Minute)
	os.Chtimes(dirB, now, now)
	if d := cmp.Diff(map[string]bool{idA: true, idB: false}, pass()); d != "" {
		t.Fatalf("after a new task (-want +got):\n%s", d)
	}

	// Racily clean: a file written within racyWindow of the last capture
	// is never trusted, however equal its stamp.
	clk.t = time.Now()
	os.WriteFile(filepath.Join(dirA, "1.json"), taskBody("1", "in_progress"), 0o644)
	if got := pass(); got[idA] {
		t.Fatal("a just-written file was trusted")
	}
	if got := pass(); got[idA] {
		t.Fatal("a file as new as the capture was trusted")
	}

	// A record removed behind the cache's back is written again.
	clk.t = clk.t.Add(racyWindow + time.Second)
	pass()
	os.Remove(h.store.Path(idB))
	if got := pass(); got[idB] {
		t.Fatal("a missing record was taken as current")
	}
	h.load(idB)

	// A cache that does not parse only costs a full pass.
	os.WriteFile(filepath.Join(h.store.Dir, CacheFile), []byte("{garbage"), 0o600)
	if d := cmp.Diff(map[string]bool{idA: false, idB: false}, pass()); d != "" {
		t.Fatalf("after a corrupt cache (-want +got):\n%s", d)
	}
}

func TestParseHook(t *testing.T) {
	full := hookJSON(idA, "/home/alice/.claude/projects/-home-alice-src-demo-repo/"+idA+".jsonl", "/home/alice/src/demo-repo")
	want := Hook{SessionID: idA, TranscriptPath: "/home/alice/.claude/projects/-home-alice-src-demo-repo/" + idA + ".jsonl", Cwd: "/home/alice/src/demo-repo", Event: "Stop"}
	cut := full[:strings.Index(full, `"prompt_id"`)+20]
	tests := []struct {
		name    string
		in      string
		want    Hook
		wantErr bool
	}{
		{"as Claude Code sends it", full, want, false},
		{"cut off by the size cap", cut, Hook{SessionID: want.SessionID, TranscriptPath: want.TranscriptPath, Cwd: want.Cwd}, false},
		{"empty", "", Hook{}, false},
		{"whitespace", " \n", Hook{}, false},
		{"not json", "hello", Hook{}, true},
		{"json but not an object", `["x"]`, Hook{}, true},
		{"truncated before session_id", `{"hook_event_name":"St`, Hook{}, true},
		{"relative paths dropped", `{"session_id":"s","transcript_path":"x.jsonl","cwd":"."}`, Hook{SessionID: "s"}, false},
		{"escaped quotes in session_id", `{"session_id":"a\"b","cwd":"/x"`, Hook{SessionID: `a"b`, Cwd: "/x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHook([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestProjectDirName(t *testing.T) {
	for in, want := range map[string]string{
		"/home/alice/src/demo-repo": "-home-alice-src-demo-repo",
		"/a/b.c_d e:f":              "-a-b-c-d-e-f",
		"/tmp/café":                 "-tmp-caf-",
		"/tmp/😀":                    "-tmp---",
	} {
		if got := paths.ProjectDirName(in); got != want {
			t.Errorf("ProjectDirName(%q) = %q, want %q", in, got, want)
		}
	}
}
