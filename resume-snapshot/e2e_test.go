package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"github.com/google/go-cmp/cmp"
)

// binary is resume-snapshot, built once for the package's tests.
var binary string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "resume-snapshot-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "resume-snapshot")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build resume-snapshot: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// world is a temporary HOME with Claude Code's and forgectl's folders.
type world struct {
	t        *testing.T
	home     string
	claude   string
	forgectl string
	env      []string // extra variables for the next runs
	procs    map[int]*exec.Cmd
}

func newWorld(t *testing.T) *world {
	t.Helper()
	home := t.TempDir()
	w := &world{t: t, home: home, claude: filepath.Join(home, ".claude"), forgectl: filepath.Join(home, ".config", "forgectl"), procs: map[int]*exec.Cmd{}}
	for _, d := range []string{"sessions", "tasks", "projects"} {
		if err := os.MkdirAll(filepath.Join(w.claude, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *world) store() snapstore.Store {
	return snapstore.Store{Dir: filepath.Join(w.forgectl, "resume-sessions")}
}

// environ is the run's whole environment: nothing inherited that could
// point at the real home or at a real Claude Code session (these tests may
// themselves run inside one, which sets CLAUDE_PID).
func (w *world) environ() []string {
	env := []string{
		"HOME=" + w.home,
		"PATH=" + os.Getenv("PATH"),
		"CLAUDE_CONFIG_DIR=" + w.claude,
		"FORGECTL_CONFIG_DIR=" + w.forgectl,
	}
	return append(env, w.env...)
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary; stdin may be nil (/dev/null), a string, or an
// *os.File. It fails the test if the run does not end within a minute,
// which only a hang would take.
func (w *world) run(stdin any, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = w.environ()
	switch in := stdin.(type) {
	case string:
		cmd.Stdin = strings.NewReader(in)
	case *os.File:
		cmd.Stdin = in
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		w.t.Fatalf("resume-snapshot %v hung: %s", args, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// session starts a real process standing in for a claude and registers it
// the way Claude Code 2.1.332 does, with the process's real start time.
func (w *world) session(id string, fields map[string]any, env ...string) int {
	w.t.Helper()
	cmd := cchome.New(w.t, w.claude).Live(id, fields, env...)
	w.procs[cmd.Process.Pid] = cmd
	return cmd.Process.Pid
}

// end stops a session's process and reaps it (a zombie still answers
// kill(pid, 0)), leaving its registry file behind as SIGKILL does.
func (w *world) end(pid int) {
	w.t.Helper()
	cmd := w.procs[pid]
	cmd.Process.Kill()
	cmd.Wait()
}

func (w *world) register(pid int, id string, fields map[string]any) {
	w.t.Helper()
	cchome.New(w.t, w.claude).Register(pid, id, fields)
}

func taskJSON(id, status string) []byte {
	b, _ := json.MarshalIndent(map[string]any{"id": id, "subject": "Task " + id, "description": "Add tests for the login flow",
		"activeForm": "Writing unit tests", "status": status, "blocks": []string{}, "blockedBy": []string{}}, "", "  ")
	return b
}

func (w *world) tasks(list string, ids ...string) string {
	w.t.Helper()
	dir := filepath.Join(w.claude, "tasks", list)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	for _, id := range ids {
		if err := os.WriteFile(filepath.Join(dir, id+".json"), taskJSON(id, "pending"), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
	return dir
}

func (w *world) transcript(id string) string {
	p := filepath.Join(w.claude, "projects", "-home-alice-src-demo-repo", id+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte(`{"type":"user","sessionId":"`+id+`"}`+"\n"), 0o600)
	return p
}

func (w *world) record(id string) snapstore.Record {
	w.t.Helper()
	r, err := w.store().Load(id)
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

// hookStdin is the Stop hook's stdin as the real Claude Code 2.1.332 sent it.
func hookStdin(id, transcript string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/home/alice/src/demo-repo","prompt_id":"f2c5ed29-4f0e-4e8b-9d35-1d1c0b2f3a44","permission_mode":"auto","effort":{"level":"medium"},"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Hello from the mock model. I said hello to the login module.","background_tasks":[],"session_crons":[]}`, id, transcript)
}

const (
	idNamed = "1fc9d747-58cb-4e62-b7f1-a85d62252943"
	idPlain = "fcb86714-61b8-4fdd-af04-0d6d365ff47a"
	idHook  = "3a6b2f0e-9c41-4d7e-8f25-6e0d1b7c9a10"
	idStale = "5d2e8c1a-7b34-4f69-a0d2-c4e1f8b36a57"
)

func TestSnapshotEndToEnd(t *testing.T) {
	w := newWorld(t)
	w.session(idNamed, map[string]any{"name": "Login bugfix work", "nameSource": "user", "formerNames": []string{"login"}})
	w.session(idPlain, nil)
	hookPid := w.session(idStale, nil) // the hook's claude; its registry file still names the session it ran before /clear
	dead := exec.Command("true")
	dead.Run()
	w.register(dead.Process.Pid, "9e9e9e9e-0000-4000-8000-000000000000", map[string]any{"procStart": "12"})
	w.tasks(idNamed, "1", "2", "3")
	w.tasks(idHook, "1")
	w.tasks(idStale, "1")
	transcript := w.transcript(idHook)
	w.env = []string{fmt.Sprintf("CLAUDE_PID=%d", hookPid)}

	r := w.run(hookStdin(idHook, transcript))
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := []string{
		"captured " + idHook + " (no name): 1 task",
		"captured " + idNamed + ` "Login bugfix work": 3 tasks`,
		"captured " + idPlain + " (no name): 0 tasks",
	}
	got := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("stdout (-want +got):\n%s", d)
	}
	if _, err := w.store().Load(idStale); err != snapstore.ErrNoRecord {
		t.Fatalf("the session this pid left behind was captured: %v", err)
	}
	hook := w.record(idHook)
	if hook.Pid != hookPid || hook.Transcript != transcript || hook.Cwd != "/home/alice/src/demo-repo" || len(hook.Tasks) != 1 {
		t.Fatalf("hook session: %+v", hook)
	}
	named := w.record(idNamed)
	if d := cmp.Diff([]any{"Login bugfix work", []string{"login"}, 3}, []any{named.Name, named.FormerNames, len(named.Tasks)}); d != "" {
		t.Fatal(d)
	}
	dir := w.store().Dir
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("store folder: %v %v", st.Mode(), err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if st, _ := e.Info(); st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v", e.Name(), st.Mode().Perm())
		}
	}

	// Quiet: the same capture, not a byte of output.
	os.Remove(filepath.Join(w.claude, "tasks", idNamed, "2.json"))
	if r := w.run(hookStdin(idHook, transcript), "--quiet"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("--quiet: %+v", r)
	}
	named = w.record(idNamed)
	if len(named.Tasks) != 3 || named.Tasks[1].GoneSince == nil {
		t.Fatalf("a deleted task was dropped or not marked: %+v", named.Tasks)
	}
	r = w.run(nil)
	if !strings.Contains(r.stdout, `"Login bugfix work": 3 tasks (1 no longer live)`) {
		t.Fatalf("%q", r.stdout)
	}
}

func TestAlwaysExitsZero(t *testing.T) {
	type check func(t *testing.T, w *world, r result)
	stderrHas := func(subs ...string) check {
		return func(t *testing.T, w *world, r result) {
			for _, s := range subs {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr %q lacks %q", r.stderr, s)
				}
			}
		}
	}
	silent := func(t *testing.T, w *world, r result) {
		if r.stdout != "" || r.stderr != "" {
			t.Errorf("not silent: %+v", r)
		}
	}
	captured := func(t *testing.T, w *world, r result) {
		if _, err := w.store().Load(idNamed); err != nil {
			t.Errorf("live session not captured: %v", err)
		}
	}
	nothingWritten := func(t *testing.T, w *world, r result) {
		if _, err := os.Stat(w.store().Dir); !os.IsNotExist(err) {
			t.Errorf("bad usage wrote the store: %v", err)
		}
	}
	tests := []struct {
		name   string
		setup  func(w *world)
		stdin  any
		args   []string
		checks []check
	}{
		{name: "bad flag", args: []string{"--bogus"},
			checks: []check{stderrHas("forgectl: error: resume snapshot: flag provided but not defined: -bogus", "forgectl: hint: "), nothingWritten}},
		{name: "bad flag before --quiet", args: []string{"--bogus", "--quiet"}, checks: []check{silent, nothingWritten}},
		{name: "stray argument", args: []string{"now"}, checks: []check{stderrHas(`unexpected argument "now"`), nothingWritten}},
		{name: "garbage registry file", setup: func(w *world) {
			os.WriteFile(filepath.Join(w.claude, "sessions", "4242.json"), []byte("\x00\x01 not json"), 0o644)
		}, checks: []check{stderrHas("forgectl: error: ", "4242.json"), captured}},
		{name: "garbage registry file, quiet", setup: func(w *world) {
			os.WriteFile(filepath.Join(w.claude, "sessions", "4242.json"), []byte("{"), 0o644)
		}, args: []string{"--quiet"}, checks: []check{silent, captured}},
		{name: "unwritable store", setup: func(w *world) {
			os.MkdirAll(filepath.Dir(w.forgectl), 0o700)
			os.WriteFile(w.forgectl, []byte("a file where forgectl's folder belongs"), 0o600)
		}, checks: []check{stderrHas("forgectl: error: snapshot "+idNamed, "not a directory")}},
		{name: "corrupt record", setup: func(w *world) {
			os.MkdirAll(w.store().Dir, 0o700)
			os.WriteFile(w.store().Path(idNamed), []byte(`{"schema":1,"tasks":[{"id"`), 0o600)
		}, checks: []check{captured, func(t *testing.T, w *world, r result) {
			if m, _ := filepath.Glob(w.store().Path(idNamed) + ".corrupt-*"); len(m) != 1 {
				t.Errorf("corrupt record not moved aside: %v", m)
			}
		}}},
		{name: "garbage stdin", stdin: "\x1b[A\x1b[Bnot json at all", checks: []check{stderrHas("hook stdin"), captured}},
		{name: "truncated stdin", stdin: `{"session_id":"` + idHook + `","transcript_path":"/x`, checks: []check{captured, func(t *testing.T, w *world, r result) {
			if _, err := w.store().Load(idHook); err != nil {
				t.Errorf("the hook session of a truncated stdin: %v", err)
			}
		}}},
		{name: "no home at all", setup: func(w *world) { w.env = []string{"HOME=", "CLAUDE_CONFIG_DIR=", "FORGECTL_CONFIG_DIR="} },
			checks: []check{stderrHas("no home directory")}},
		{name: "CLAUDE_PID not a number", setup: func(w *world) { w.env = []string{"CLAUDE_PID=abc"} }, checks: []check{captured}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.session(idNamed, map[string]any{"name": "Login bugfix work", "nameSource": "user"})
			if tt.setup != nil {
				tt.setup(w)
			}
			r := w.run(tt.stdin, tt.args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %+v", r.code, r)
			}
			for _, c := range tt.checks {
				c(t, w, r)
			}
		})
	}
}

func TestOpenSilentStdinDoesNotHang(t *testing.T) {
	w := newWorld(t)
	w.session(idNamed, nil)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close() // held open and never written: a wrapper that forgot stdin
	r := w.run(pr, "--quiet")
	pr.Close()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	if _, err := w.store().Load(idNamed); err != nil {
		t.Fatal(err)
	}
}

func TestStdinLeftOpenAfterTheJSON(t *testing.T) {
	w := newWorld(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	io.WriteString(pw, hookStdin(idHook, w.transcript(idHook)))
	r := w.run(pr)
	pr.Close()
	if r.code != 0 || !strings.Contains(r.stdout, idHook) {
		t.Fatalf("%+v", r)
	}
}

func TestHelpAndVersion(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"--quiet", "--help"}} {
		r := w.run(nil, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "resume-snapshot — capture what a Claude Code session's exit would destroy\n\nUSAGE\n  resume-snapshot [--quiet]\n") || r.stderr != "" {
			t.Fatalf("%v: %+v", args, r)
		}
		for _, s := range []string{"FORGECTL_RESUME_NO_PRUNE", "CLAUDE_CONFIG_DIR", "FORGECTL_CONFIG_DIR", "CLAUDE_PID", "CLAUDE_CODE_TASK_LIST_ID", "EXIT STATUS"} {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("help lacks %s", s)
			}
		}
	}
	// The version itself depends on how the binary was built (see the
	// Makefile's version test); the shape is "<binary> <version>".
	if r := w.run(nil, "--version"); !regexp.MustCompile(`^resume-snapshot \S+\n$`).MatchString(r.stdout) || r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(w.store().Dir); !os.IsNotExist(err) {
		t.Fatal("--help or --version touched the store")
	}
}

func TestPruneFromTheBinary(t *testing.T) {
	w := newWorld(t)
	w.session(idNamed, nil)
	w.transcript(idNamed)
	gone := w.session(idPlain, nil)
	w.tasks(idPlain, "1")
	if r := w.run(nil, "--quiet"); r.code != 0 {
		t.Fatal(r)
	}
	// idPlain's session ends and Claude Code's retention removes its
	// transcript (it never had one here). The first run already took
	// today's stamp, so nothing is retired until tomorrow.
	w.end(gone)
	stamp := filepath.Join(w.store().Dir, snapstore.PruneStamp)
	if _, err := os.Stat(stamp); err != nil {
		t.Fatalf("no stamp after the first run: %v", err)
	}
	w.run(nil, "--quiet")
	w.record(idPlain)

	yesterday := time.Now().Add(-25 * time.Hour)
	os.Chtimes(stamp, yesterday, yesterday)
	w.env = []string{"FORGECTL_RESUME_NO_PRUNE=1"}
	w.run(nil, "--quiet")
	w.record(idPlain)
	if st, _ := os.Stat(stamp); !st.ModTime().Equal(yesterday) {
		t.Fatal("FORGECTL_RESUME_NO_PRUNE did not stop the pass")
	}

	w.env = nil
	r := w.run(nil)
	if !strings.Contains(r.stdout, "pruned 1 snapshots whose transcript is gone") {
		t.Fatalf("%+v", r)
	}
	if _, err := w.store().Load(idPlain); err != snapstore.ErrNoRecord {
		t.Fatalf("not retired: %v", err)
	}
	w.record(idNamed) // live, kept
}

func TestEveryRecordParses(t *testing.T) {
	// The helper the stress and crash tests rely on must itself notice a
	// torn file.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.json"), []byte(`{"session_id":"x","tasks":[`), 0o600)
	if err := everyRecordParses(dir); err == nil {
		t.Fatal("a torn record passed")
	}
}

// everyRecordParses reads every file a reader of the store would read.
func everyRecordParses(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var r snapstore.Record
		if err := json.Unmarshal(b, &r); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		sorted := slices.IsSortedFunc(r.Tasks, func(a, b snapstore.Task) int {
			if tasks.IDLess(b.ID, a.ID) {
				return 1
			}
			return 0
		})
		if r.SessionID+".json" != name || r.Tasks == nil || !sorted {
			errs = append(errs, fmt.Errorf("%s: inconsistent record", name))
		}
	}
	return errors.Join(errs...)
}

func TestClosedStdoutStillExitsZero(t *testing.T) {
	w := newWorld(t)
	w.session(idNamed, nil)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close() // nobody reads what it prints
	cmd := exec.Command(binary)
	cmd.Env = w.environ()
	cmd.Stdout = pw
	err = cmd.Run()
	pw.Close()
	if err != nil {
		t.Fatalf("a closed stdout ended the run with %v", err)
	}
	w.record(idNamed)
}
