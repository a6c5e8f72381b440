package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"github.com/google/go-cmp/cmp"
)

const (
	idLogin = "1fc9d747-58cb-4e62-b7f1-a85d62252943"
	idPages = "4e58ac17-0df1-4d69-a1a9-57e3d284df9c"
	idWeb   = "ca55e534-bb1f-493a-ba0b-905b7e019356"
)

func demo(t *testing.T) (*testHome, string, string) {
	h := newHome(t)
	api, web := demoSessions(h)
	return h, api, web
}

// demoSessions writes the three sessions most tests start from: two in
// api-server (one named), one in web-app.
func demoSessions(h *testHome) (api, web string) {
	api = h.repo("api-server")
	web = h.repo("web-app")
	h.session(idLogin, api, "feature/login", "fix the login flow", "Login bugfix work", time.Hour)
	h.session(idPages, api, "feat/pages", "add cursor pagination", "Cursor pagination", 2*time.Hour)
	h.session(idWeb, web, "main", "dark mode please", "", 3*time.Hour)
	return api, web
}

func TestResumeFilterOutcomes(t *testing.T) {
	h, api, web := demo(t)
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		candidates []string // ids printed on stdout, in order
		execID     string
		execDir    string
		stderr     string
	}{
		{"one hit by name resumes", []string{"resume", "Login bugfix work"}, 0, nil, idLogin, api, ""},
		{"id prefix", []string{"resume", "ca55"}, 0, nil, idWeb, web, ""},
		{"exact id", []string{"resume", idPages}, 0, nil, idPages, api, ""},
		{"substring of cwd", []string{"resume", "web-app"}, 0, nil, idWeb, web, ""},
		{"ambiguous lists candidates", []string{"resume", "api-server"}, 1, []string{idLogin, idPages}, "", "", `2 sessions match "api-server"`},
		{"no match", []string{"resume", "nothing"}, 1, nil, "", "", `no session matches "nothing"`},
		{"no filter, no terminal", []string{"resume"}, 1, []string{idLogin, idPages, idWeb}, "", "", "no terminal"},
		{"multi-word filter", []string{"resume", "Cursor", "pagination"}, 0, nil, idPages, api, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.run(tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				if f := strings.Fields(l); len(f) > 0 {
					got = append(got, f[0])
				}
			}
			if d := cmp.Diff(tc.candidates, got); d != "" {
				t.Errorf("candidates (-want +got):\n%s", d)
			}
			if tc.execID == "" {
				if r.exec != nil {
					t.Fatalf("exec'd %v", r.exec.argv)
				}
			} else {
				if r.exec == nil {
					t.Fatalf("no exec; stderr: %s", r.stderr)
				}
				want := []string{h.bin, "--resume", tc.execID}
				if d := cmp.Diff(want, r.exec.argv); d != "" || r.exec.dir != tc.execDir {
					t.Errorf("argv (-want +got):\n%s\ndir %q want %q", d, r.exec.dir, tc.execDir)
				}
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.stderr)
			}
		})
	}
}

func TestResumeDryRunAndProfile(t *testing.T) {
	h, api, _ := demo(t)
	h.config(`
[launch.defaults]
model = "opus"
allow_danger = true
env = { CLAUDE_CODE_ENABLE_TODO_TOOLS = "1" }

[[launch.project]]
match = "~/src/api-server"
effort = "low"
add_dir = ["~/notes"]

[proxy]
launch_profile = "corp"
[proxy.profiles.corp]
https_proxy = "http://proxy.corp:3128"
`)
	r := h.run("resume", "--dry-run", "login")
	if r.code != 0 || r.exec != nil {
		t.Fatalf("dry run: %d %v %s", r.code, r.exec, r.stderr)
	}
	// Not a terminal: --allow-dangerously-skip-permissions is withheld.
	want := strings.Join([]string{
		"session: " + idLogin,
		"cwd: " + api,
		"argv: " + h.bin + " --model opus --effort low --add-dir " + filepath.Join(h.home, "notes") + " --resume " + idLogin,
		"env: ALL_PROXY=", "env: CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "env: HTTPS_PROXY=http://proxy.corp:3128", "env: HTTP_PROXY=",
		"env: NO_PROXY=", "env: all_proxy=", "env: http_proxy=", "env: https_proxy=http://proxy.corp:3128", "env: no_proxy=",
	}, "\n") + "\n"
	if d := cmp.Diff(want, r.stdout); d != "" {
		t.Fatalf("dry run (-want +got):\n%s", d)
	}

	// On a terminal the real run adds the flag, and the inherited proxy
	// variable is replaced, not duplicated.
	r = h.runWith(true, nil, nil, "resume", "login")
	if r.exec == nil || !slices.Contains(r.exec.argv, "--allow-dangerously-skip-permissions") {
		t.Fatalf("tty run: %+v %s", r.exec, r.stderr)
	}
	var proxies []string
	for _, kv := range r.exec.env {
		if strings.HasPrefix(kv, "HTTP_PROXY=") {
			proxies = append(proxies, kv)
		}
	}
	if d := cmp.Diff([]string{"HTTP_PROXY="}, proxies); d != "" || !slices.Contains(r.exec.env, "KEEP=1") {
		t.Fatalf("env: %v", r.exec.env)
	}
}

func TestResumeRefusals(t *testing.T) {
	h, _, _ := demo(t)
	pid := h.live(idLogin)

	r := h.run("resume", "login")
	if r.code != 2 || r.exec != nil || !strings.Contains(r.stderr, "pid "+strconv.Itoa(pid)) || !strings.Contains(r.stderr, "cc:@0.%3") {
		t.Fatalf("live refusal: %d %q", r.code, r.stderr)
	}
	r = h.run("resume", "--dry-run", "login")
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("dry run must give the real code: %d %q", r.code, r.stdout)
	}
	r = h.run("resume", "--fork", "login")
	if r.code != 0 || r.exec == nil || r.exec.argv[len(r.exec.argv)-1] != "--fork-session" {
		t.Fatalf("fork into a live session: %d %+v %s", r.code, r.exec, r.stderr)
	}

	// A stale registry file whose pid now belongs to another process (a
	// reused pid: the start time differs) does not make a session live.
	other := h.live(idPages)
	h.register(other, idPages, "1")
	r = h.run("resume", "pagination")
	if r.code != 0 || r.exec == nil {
		t.Fatalf("reused pid treated as live: %d %s", r.code, r.stderr)
	}

	// A bad launch_profile is refused before anything else, dry run included.
	for _, cfg := range []string{"[proxy]\nlaunch_profile = \"nope\"\n", "[proxy]\nlaunch_profile = \"empty\"\n[proxy.profiles.empty]\n"} {
		h.config(cfg)
		for _, args := range [][]string{{"resume", "--dry-run", "pagination"}, {"resume", "nothing-matches"}, {"launch", "--dry-run"}} {
			r = h.run(args...)
			if r.code != 2 || r.exec != nil || r.stdout != "" || !strings.Contains(r.stderr, "launch_profile") {
				t.Fatalf("%v with %q: %d %q %q", args, cfg, r.code, r.stdout, r.stderr)
			}
		}
	}

	// A config that does not parse: exit 2, naming file and line.
	h.config("[launch.defaults\nmodel = 1\n")
	r = h.run("resume", "--dry-run", "pagination")
	if r.code != 2 || !strings.Contains(r.stderr, "config.toml:2: expected") {
		t.Fatalf("bad config: %d %q", r.code, r.stderr)
	}
}

func TestResumeMissingCwd(t *testing.T) {
	h := newHome(t)
	gone := filepath.Join(h.home, "wt", "deleted")
	h.session(idLogin, gone, "feature/x", "work in a worktree", "", time.Minute)
	for _, args := range [][]string{{"resume", idLogin}, {"resume", "--dry-run", idLogin}} {
		r := h.run(args...)
		if r.code != 1 || r.exec != nil || !strings.Contains(r.stderr, gone+" no longer exists") || !strings.Contains(r.stderr, "hint:") {
			t.Fatalf("%v: %d %q", args, r.code, r.stderr)
		}
	}
}

func TestResumePicker(t *testing.T) {
	h, api, _ := demo(t)
	p := &fakePicker{choose: 1}
	r := h.runWith(true, p, nil, "resume")
	if r.code != 0 || r.exec == nil || r.exec.argv[len(r.exec.argv)-1] != idPages || r.exec.dir != api {
		t.Fatalf("pick: %d %+v %s", r.code, r.exec, r.stderr)
	}
	if len(p.rows) != 3 || !strings.Contains(p.rows[0], "Login bugfix work") || !strings.Contains(p.rows[0], "api-server") || !strings.Contains(p.rows[0], "feature/login") {
		t.Fatalf("rows: %q", p.rows)
	}
	r = h.runWith(true, &fakePicker{err: picker.ErrAborted}, nil, "resume")
	if r.code != 130 || r.exec != nil {
		t.Fatalf("abort: %d", r.code)
	}
	// A filter that is ambiguous never prompts, even on a terminal.
	r = h.runWith(true, nil, nil, "resume", "api-server")
	if r.code != 1 || r.exec != nil {
		t.Fatalf("ambiguous on a tty: %d", r.code)
	}
}

func TestResumeRestoresTasks(t *testing.T) {
	h, _, _ := demo(t)
	store := snapstore.Store{Dir: filepath.Join(h.fc, "resume-sessions")}
	body := func(id string) tasks.Task {
		return tasks.Task{ID: id, Status: "pending", Body: json.RawMessage(`{"id":"` + id + `","subject":"t` + id + `","status":"pending"}`)}
	}
	if _, err := store.Update(snapstore.Observation{SessionID: idLogin, Tasks: []tasks.Task{body("1"), body("2"), body("3")}, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(h.claude, "tasks", idLogin)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "2.json"), []byte(`{"id":"2","subject":"live"}`), 0o644)

	r := h.run("resume", "--dry-run", "login")
	if !strings.Contains(r.stdout, "tasks: would restore 2 into "+dir+" (1 3)\n") || !strings.Contains(r.stdout, "tasks: 1 already present, left alone (2)") {
		t.Fatalf("dry run tasks: %q", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "1.json")); err == nil {
		t.Fatal("dry run wrote a task")
	}
	r = h.run("resume", "--fork", "--dry-run", "login")
	if !strings.Contains(r.stdout, "3 snapshotted, not restored into a fork") {
		t.Fatalf("fork dry run: %q", r.stdout)
	}
	r = h.run("resume", "login")
	if r.code != 0 || !strings.Contains(r.stderr, "restored 2 task(s) (1 3)") {
		t.Fatalf("restore: %d %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "2.json")); string(b) != `{"id":"2","subject":"live"}` {
		t.Fatal("overwrote the live task")
	}
	hw, _ := os.ReadFile(filepath.Join(dir, ".highwatermark"))
	if string(hw) != "3" {
		t.Fatalf("highwatermark %q", hw)
	}
	r = h.run("resume", "login")
	if strings.Contains(r.stderr, "restored") {
		t.Fatalf("second restore not a no-op: %q", r.stderr)
	}
	r = h.run("resume", "--fork", "login")
	if !strings.Contains(r.stderr, "3 snapshotted task(s) not restored") {
		t.Fatalf("fork: %q", r.stderr)
	}
}

func TestFlagsAfterTheFilter(t *testing.T) {
	h, api, _ := demo(t)
	r := h.run("resume", "Login", "bugfix", "--dry-run")
	if r.code != 0 || r.exec != nil || !strings.HasPrefix(r.stdout, "session: "+idLogin+"\ncwd: "+api) {
		t.Fatalf("flag after the filter: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = h.run("resume", "ls", "nothing-matches", "--json")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("ls filter --json: %d %q", r.code, r.stdout)
	}
	r = h.run("resume", "login", "--bogus")
	if r.code != 2 || !strings.Contains(r.stderr, "flag provided but not defined: -bogus") {
		t.Fatalf("bad flag after the filter: %d %q", r.code, r.stderr)
	}
	r = h.run("resume", "--dry-run", "--", "-not-a-flag")
	if r.code != 1 || !strings.Contains(r.stderr, `no session matches "-not-a-flag"`) {
		t.Fatalf("word after --: %d %q", r.code, r.stderr)
	}
	r = h.run("resume", "login", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "forgectl resume —") {
		t.Fatalf("--help after the filter: %d %q", r.code, r.stdout)
	}
}

func TestResumeRefusesOtherHarnessesAndMissingCwd(t *testing.T) {
	h, _, _ := demo(t)
	h.config("[launch.defaults]\nharness = \"codex\"\n")
	r := h.run("resume", "--dry-run", "login")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, `harness "codex" is not supported yet`) {
		t.Fatalf("harness: %d %q %q", r.code, r.stdout, r.stderr)
	}
	h.config("")
	// A transcript whose rows carry no cwd at all.
	dir := filepath.Join(h.claude, "projects", "-nowhere")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "22222222-0000-0000-0000-000000000000.jsonl"), []byte(`{"type":"custom-title","customTitle":"No cwd","sessionId":"22222222-0000-0000-0000-000000000000"}`+"\n"), 0o600)
	r = h.run("resume", "--dry-run", "--all", "No cwd")
	if r.code != 1 || !strings.Contains(r.stderr, "records no working directory") {
		t.Fatalf("no cwd: %d %q", r.code, r.stderr)
	}
}

func TestVerboseReportsBrokenLines(t *testing.T) {
	h, api, _ := demo(t)
	p := filepath.Join(h.claude, "projects", strings.ReplaceAll(api, "/", "-"), idLogin+".jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json at all\n")
	f.Close()
	r := h.run("resume", "ls", "--verbose")
	if !strings.Contains(r.stderr, p+": 1 line(s) that are not JSON") {
		t.Fatalf("verbose: %q", r.stderr)
	}
}

// A choice is decided against the registry and the disk as they are when
// Enter is pressed, not as the listing saw them: a session that started
// running while the picker was open is refused, one whose transcript went
// is an error.
func TestPickerChoiceUsesFreshFacts(t *testing.T) {
	h, _, _ := demo(t)
	p := &fakePicker{choose: 0, meanwhile: func() { h.live(idLogin) }}
	r := h.runWith(true, p, nil, "resume")
	if r.code != 2 || r.exec != nil || !strings.Contains(r.stderr, "session "+idLogin+" is running") {
		t.Fatalf("went live meanwhile: %d %q", r.code, r.stderr)
	}
	h2, _, _ := demo(t)
	p = &fakePicker{choose: 1, meanwhile: func() {
		matches, _ := filepath.Glob(filepath.Join(h2.claude, "projects", "*", idPages+".jsonl"))
		for _, m := range matches {
			os.Remove(m)
		}
	}}
	r = h2.runWith(true, p, nil, "resume")
	if r.code != 1 || r.exec != nil || !strings.Contains(r.stderr, "no longer on disk") || !strings.Contains(r.stderr, "hint:") {
		t.Fatalf("transcript gone meanwhile: %d %q", r.code, r.stderr)
	}
}
