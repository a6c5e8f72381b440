package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/poll"
)

// End-to-end tests run the built forgectl against a temp home, with the
// claude stand-in from tools/fakeclaude installed as "claude" on PATH.

var buildOnce struct {
	sync.Once
	dir string
	err error
}

func binaries(t *testing.T) (forgectl, claude string) {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "forgectl-e2e-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.dir = dir
		for _, b := range []struct{ dir, pkg, out string }{
			{".", ".", "forgectl"},
			{"../tools", "./fakeclaude", "claude"},
			{"../tools", "./gencc/cmd/gencc", "gencc"},
		} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b.out), b.pkg)
			cmd.Dir = b.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				buildOnce.err = fmt.Errorf("build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return filepath.Join(buildOnce.dir, "forgectl"), filepath.Join(buildOnce.dir, "claude")
}

type e2e struct {
	*testHome
	forgectl string
	record   string
	env      []string
}

func newE2E(t *testing.T) *e2e {
	fc, claude := binaries(t)
	h := newHome(t)
	os.Remove(h.bin)
	if err := os.Symlink(claude, h.bin); err != nil {
		t.Fatal(err)
	}
	e := &e2e{testHome: h, forgectl: fc, record: filepath.Join(h.home, "claude-record.jsonl")}
	e.env = []string{
		"HOME=" + h.home, "PATH=" + filepath.Dir(h.bin) + ":/usr/bin:/bin",
		"FORGECTL_CONFIG_DIR=" + h.fc, "FAKECLAUDE_RECORD=" + e.record, "FAKECLAUDE_VERSION=2.1.332",
		"TERM=xterm-256color", "LANG=C.UTF-8",
	}
	return e
}

func (e *e2e) command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.forgectl, args...)
	cmd.Env = e.env
	cmd.Dir = e.home
	return cmd
}

type recordLine struct {
	Event     string            `json:"event"`
	Args      []string          `json:"args"`
	Cwd       string            `json:"cwd"`
	Pid       int               `json:"pid"`
	SessionID string            `json:"session_id"`
	Env       map[string]string `json:"env"`
}

// waitRecord waits for fakeclaude's "start" line.
func (e *e2e) waitRecord(t *testing.T) recordLine {
	t.Helper()
	var start recordLine
	poll.Every(20*time.Millisecond).Until(t, poll.Long, "claude to start", func() (bool, string) {
		f, err := os.Open(e.record)
		if err != nil {
			return false, ""
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r recordLine
			if json.Unmarshal(sc.Bytes(), &r) == nil && r.Event == "start" {
				start = r
				return true, ""
			}
		}
		return false, ""
	})
	return start
}

func TestE2EResumeExecsClaudeInItsDirectory(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	e.session(idLogin, api, "feature/login", "fix the login flow", "Login bugfix work", time.Hour)
	e.config("[launch.defaults]\nmodel = \"sonnet\"\n[proxy]\nlaunch_profile = \"corp\"\n[proxy.profiles.corp]\nhttps_proxy = \"http://proxy:3128\"\n")

	cmd := e.command("resume", "login")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := e.waitRecord(t)
	// exec replaces the process: claude runs under forgectl's own pid.
	if r.Pid != cmd.Process.Pid {
		t.Errorf("claude pid %d, forgectl pid %d: not exec'd in place", r.Pid, cmd.Process.Pid)
	}
	if r.Cwd != api || strings.Join(r.Args, " ") != "--model sonnet --resume "+idLogin || r.SessionID != idLogin {
		t.Errorf("claude started with %+v", r)
	}
	if r.Env["HTTPS_PROXY"] != "http://proxy:3128" || r.Env["https_proxy"] != "http://proxy:3128" {
		t.Errorf("proxy env: %v", r.Env)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

func TestE2ELiveSessionRefusedThenFork(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	e.session(idLogin, api, "feature/login", "fix the login flow", "Login bugfix work", time.Hour)

	// A real claude process holding the session, with its own registry file.
	live := exec.Command(e.bin, "--resume", idLogin)
	live.Env = append(e.env, "FAKECLAUDE_RECORD=")
	live.Dir = api
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	regFile := e.waitRegistered(t, live.Process.Pid)

	out, err := e.command("resume", "ls", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var rows []render.SessionJSON
	json.Unmarshal(out, &rows)
	if len(rows) != 1 || !rows[0].Live || rows[0].Pid == nil || *rows[0].Pid != live.Process.Pid {
		t.Fatalf("ls: %s", out)
	}

	var stderr bytes.Buffer
	cmd := e.command("resume", idLogin)
	cmd.Stderr = &stderr
	err = cmd.Run()
	if code := exitCode(err); code != 2 || !strings.Contains(stderr.String(), fmt.Sprintf("pid %d", live.Process.Pid)) {
		t.Fatalf("live resume: exit %d, %q", code, stderr.String())
	}
	out, err = e.command("resume", "--fork", "--dry-run", idLogin).Output()
	if err != nil || !strings.Contains(string(out), "--resume "+idLogin+" --fork-session") {
		t.Fatalf("fork dry run: %v %q", err, out)
	}

	// SIGKILL leaves a stale registry file: the session is no longer live.
	live.Process.Kill()
	live.Wait()
	if _, err := os.Stat(regFile); err != nil {
		t.Fatal("SIGKILL should leave the registry file behind")
	}
	out, err = e.command("resume", "--dry-run", idLogin).Output()
	if err != nil || !strings.HasPrefix(string(out), "session: "+idLogin) {
		t.Fatalf("stale registry still refuses: %v %q", err, out)
	}
}

// waitRegistered waits for a claude to write its registry file.
func (e *e2e) waitRegistered(t *testing.T, pid int) string {
	t.Helper()
	regFile := filepath.Join(e.claude, "sessions", fmt.Sprintf("%d.json", pid))
	poll.Every(20*time.Millisecond).Until(t, poll.Long, "claude to register", func() (bool, string) {
		_, err := os.Stat(regFile)
		return err == nil, ""
	})
	return regFile
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// tmuxServer is a private tmux server for one test.
type tmuxServer struct {
	t    *testing.T
	sock string
}

func newTmux(t *testing.T) *tmuxServer {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it)")
	}
	s := &tmuxServer{t: t, sock: fmt.Sprintf("fc-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxServer) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxServer) screen() string {
	out, _ := exec.Command("tmux", "-L", s.sock, "capture-pane", "-p", "-t", "t").Output()
	return string(out)
}

// waitFor waits for the screen ok accepts and returns it. A capture is a
// tmux process: it is asked every 30 ms, not more, to leave the CPU to the
// picker being watched.
func (s *tmuxServer) waitFor(what string, ok func(string) bool) string {
	s.t.Helper()
	var last string
	poll.Every(30*time.Millisecond).Until(s.t, poll.Long, what, func() (bool, string) {
		last = s.screen()
		return ok(last), last
	})
	return last
}

// startPickers runs `forgectl resume` n times in a row in a 160x40 tmux
// window, printing EXIT=<code> after each and adding it to e.exits().
func (e *e2e) startPickers(tm *tmuxServer, n int) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n" + envExports(e.env) + "cd " + e.home + "\n")
	for range n {
		b.WriteString(e.forgectl + " resume\nrc=$?\necho \"EXIT=$rc\"\necho $rc >> " + filepath.Join(e.home, "exits") + "\n")
	}
	b.WriteString("sleep 600\n")
	script := filepath.Join(e.home, "run.sh")
	os.WriteFile(script, []byte(b.String()), 0o755)
	tm.run("new-session", "-d", "-s", "t", "-x", "160", "-y", "40", script)
}

// waitExits waits until n pickers started by startPickers have exited and
// returns their exit codes.
func (e *e2e) waitExits(t *testing.T, n int) []string {
	t.Helper()
	var codes []string
	poll.Every(20*time.Millisecond).Until(t, poll.Long, fmt.Sprintf("%d picker(s) to exit", n), func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(e.home, "exits"))
		codes = strings.Fields(string(b))
		return len(codes) >= n, fmt.Sprintf("exit codes %q", codes)
	})
	return codes
}

func TestE2EPickerInTmux(t *testing.T) {
	e := newE2E(t)
	api, _ := demoSessions(e.testHome)
	tm := newTmux(t)
	e.startPickers(tm, 1)

	// The rows stream in as the listing finds them: the first can be drawn
	// alone, so the screen to look at is the one that holds all three.
	screen := tm.waitFor("the picker with its three rows", func(s string) bool {
		_, total := pickerCounts(s)
		return strings.Contains(s, "resume>") && total == 3
	})
	for _, want := range []string{"api-server", "feature/login", "web-app", "“dark mode please”", "Login bugfix work", "3/3"} {
		if !strings.Contains(screen, want) {
			t.Errorf("picker screen lacks %q:\n%s", want, screen)
		}
	}
	// The preview shows the session under the cursor.
	tm.waitFor("the preview", func(s string) bool {
		return strings.Contains(s, "cwd      "+api) && strings.Contains(s, "first    fix the login flow")
	})
	tm.run("send-keys", "-t", "t", "-l", "pagination")
	tm.waitFor("the filtered list", func(s string) bool {
		return strings.Contains(s, "Cursor pagination") && !strings.Contains(s, "dark mode please")
	})
	tm.run("send-keys", "-t", "t", "Enter")
	r := e.waitRecord(t)
	if r.Cwd != api || strings.Join(r.Args, " ") != "--resume "+idPages {
		t.Fatalf("picked and exec'd: %+v", r)
	}
	// claude now owns the terminal and draws its input box.
	tm.waitFor("claude's input box", func(s string) bool { return strings.Contains(s, "❯") })
	stopProcess(t, r.Pid)
}

// stopProcess ends a process the test did not start itself and waits until
// it is gone, so it cannot write into a temp dir being removed.
func stopProcess(t *testing.T, pid int) {
	gone := func() bool { return syscall.Kill(pid, 0) != nil }
	syscall.Kill(pid, syscall.SIGTERM)
	if poll.Every(20*time.Millisecond).Wait(poll.Long, gone) {
		return
	}
	// Gone only once it is reaped: wait for the KILL too, or it may still
	// be writing as the temp dir is removed.
	syscall.Kill(pid, syscall.SIGKILL)
	poll.Every(20*time.Millisecond).Wait(poll.Long, gone)
}

func TestE2EPickerEscExits130(t *testing.T) {
	e := newE2E(t)
	demoSessions(e.testHome)
	tm := newTmux(t)
	e.startPickers(tm, 1)
	tm.waitFor("the picker", func(s string) bool { return strings.Contains(s, "resume>") })
	tm.run("send-keys", "-t", "t", "Escape")
	tm.waitFor("exit 130", func(s string) bool { return strings.Contains(s, "EXIT=130") })
	if _, err := os.Stat(e.record); err == nil {
		t.Fatal("claude ran after Esc")
	}
}

func envExports(env []string) string {
	var b strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	return b.String()
}

// The whole rescue: a live session's tasks are snapshotted by the Stop hook
// as users wire it, the session exits and Claude Code's task folder is
// gone, and `forgectl resume` writes the tasks back before claude starts.
func TestE2EStopHookSnapshotThenRestore(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	e.session(idLogin, api, "feature/login", "fix the login flow", "", time.Hour)

	live := exec.Command(e.bin, "--resume", idLogin, "--name", "Login bugfix work")
	live.Env = append(e.env, "FAKECLAUDE_RECORD=")
	live.Dir = api
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	e.waitRegistered(t, live.Process.Pid)
	taskDir := filepath.Join(e.claude, "tasks", idLogin)
	os.MkdirAll(taskDir, 0o755)
	for i, status := range []string{"completed", "in_progress", "pending"} {
		body := fmt.Sprintf("{\n  \"id\": \"%d\",\n  \"subject\": \"step %d\",\n  \"description\": \"\",\n  \"status\": %q,\n  \"blocks\": [],\n  \"blockedBy\": []\n}", i+1, i+1, status)
		os.WriteFile(filepath.Join(taskDir, fmt.Sprintf("%d.json", i+1)), []byte(body), 0o644)
	}

	// The Stop hook, fed the stdin Claude Code sends.
	hook := e.command("resume", "snapshot", "--quiet")
	hook.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,"transcript_path":"","cwd":%q,"hook_event_name":"Stop","stop_hook_active":false}`, idLogin, api))
	hook.Env = append(hook.Env, fmt.Sprintf("CLAUDE_PID=%d", live.Process.Pid))
	if out, err := hook.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("stop hook: %v %q", err, out)
	}

	// The session exits; Claude Code deletes finished task lists.
	live.Process.Signal(syscall.SIGTERM)
	live.Wait()
	os.RemoveAll(taskDir)

	out, _ := e.command("resume", "ls", "--json").Output()
	var rows []render.SessionJSON
	json.Unmarshal(out, &rows)
	if len(rows) != 1 || rows[0].Name != "Login bugfix work" || rows[0].NameSource != "snapshot" || rows[0].Tasks.Total != 3 || rows[0].TasksSource != "snapshot" || rows[0].Live {
		t.Fatalf("ls after exit: %s", out)
	}

	cmd := e.command("resume", idLogin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := e.waitRecord(t)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	}
	defer stop()
	if r.SessionID != idLogin || r.Cwd != api {
		t.Fatalf("resumed %+v", r)
	}
	for i := 1; i <= 3; i++ {
		b, err := os.ReadFile(filepath.Join(taskDir, fmt.Sprintf("%d.json", i)))
		if err != nil || !strings.Contains(string(b), fmt.Sprintf(`"subject": "step %d"`, i)) {
			t.Fatalf("task %d not restored before claude started: %v %s", i, err, b)
		}
	}
	if hw, _ := os.ReadFile(filepath.Join(taskDir, ".highwatermark")); string(hw) != "3" {
		t.Fatalf("highwatermark %q", hw)
	}
	stop() // stderr is written by the process until it exits
	if !strings.Contains(stderr.String(), "restored 3 task(s) (1 2 3)") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

// Every filter outcome and refusal, through the built binary: exit code,
// what is on stdout, and that nothing was exec'd.
func TestE2EOutcomesAndExitCodes(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	web := e.repo("web-app")
	e.session(idLogin, api, "feature/login", "fix the login flow", "Login bugfix work", time.Hour)
	e.session(idPages, api, "feat/pages", "add cursor pagination", "Cursor pagination", 2*time.Hour)
	e.session(idWeb, web, "main", "dark mode please", "", 3*time.Hour)
	gone := filepath.Join(e.home, "wt", "deleted")
	e.session("00000000-0000-0000-0000-00000000dead", gone, "feature/x", "in a deleted worktree", "Deleted tree", 4*time.Hour)
	// A broken transcript and one cut mid-line never fail the listing.
	broken := filepath.Join(e.claude, "projects", "-junk")
	os.MkdirAll(broken, 0o700)
	os.WriteFile(filepath.Join(broken, "11111111-0000-0000-0000-000000000000.jsonl"), []byte("\x00garbage\n{\"parentUuid\":\"cut"), 0o600)
	// A registry file whose pid was reused by an unrelated live process.
	sleeper := exec.Command("sleep", "60")
	sleeper.Start()
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	e.register(sleeper.Process.Pid, idWeb, "1")

	for _, tc := range []struct {
		name   string
		config string
		args   []string
		code   int
		stdout func(string) bool
	}{
		{"one hit, dry run", "", []string{"resume", "--dry-run", "Login bugfix"}, 0, func(s string) bool {
			return strings.HasPrefix(s, "session: "+idLogin+"\ncwd: "+api+"\nargv: "+e.bin+" --resume "+idLogin+"\n")
		}},
		{"fork dry run", "", []string{"resume", "--fork", "--dry-run", "ca55"}, 0, func(s string) bool {
			return strings.Contains(s, "argv: "+e.bin+" --resume "+idWeb+" --fork-session\n")
		}},
		{"reused pid is not live", "", []string{"resume", "--dry-run", idWeb}, 0, func(s string) bool { return strings.HasPrefix(s, "session: "+idWeb) }},
		{"ambiguous", "", []string{"resume", "api-server"}, 1, func(s string) bool {
			return strings.HasPrefix(s, idLogin+" ") && strings.Contains(s, "\n"+idPages+" ") && strings.Count(s, "\n") == 2
		}},
		{"no terminal, no filter", "", []string{"resume"}, 1, func(s string) bool { return strings.Count(s, "\n") == 4 }},
		{"no match", "", []string{"resume", "zzz"}, 1, func(s string) bool { return s == "" }},
		{"deleted cwd", "", []string{"resume", "--dry-run", "Deleted tree"}, 1, func(s string) bool { return s == "" }},
		{"undefined launch_profile", "[proxy]\nlaunch_profile = \"corp\"\n", []string{"resume", "--dry-run", "Login bugfix"}, 2, func(s string) bool { return s == "" }},
		{"config that does not parse", "[launch\n", []string{"resume", "--dry-run", "Login bugfix"}, 2, func(s string) bool { return s == "" }},
		{"bad flag", "", []string{"resume", "--nope"}, 2, func(s string) bool { return s == "" }},
		{"ls lists around broken files", "", []string{"resume", "ls"}, 0, func(s string) bool { return strings.Count(s, "\n") == 5 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.config(tc.config)
			var stdout, stderr bytes.Buffer
			cmd := e.command(tc.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := exitCode(cmd.Run())
			if code != tc.code || !tc.stdout(stdout.String()) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout.String(), stderr.String())
			}
			if _, err := os.Stat(e.record); err == nil {
				t.Fatal("claude was exec'd")
			}
			if tc.code != 0 && !strings.Contains(stderr.String(), "forgectl: error: ") {
				t.Fatalf("a failure without an error line: %q", stderr.String())
			}
		})
	}
}

// bulkSessions writes n sessions older than the demo ones whose
// transcripts hold size bytes of short replies each, named "Bulk work NN"
// at their end: a listing without an index reads every byte to name them,
// so filling the picker visibly takes a while.
func (e *e2e) bulkSessions(n, size int) {
	e.t.Helper()
	repo := e.repo("bulk")
	for k := range n {
		id := fmt.Sprintf("b0000000-0000-4000-8000-%012d", k)
		e.session(id, repo, "main", "bulk prompt", "", 0)
		matches, _ := filepath.Glob(filepath.Join(e.claude, "projects", "*", id+".jsonl"))
		f, err := os.OpenFile(matches[0], os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			e.t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		reply := fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"uuid":"u","cwd":%q,"sessionId":%q}`+"\n", repo, id)
		for written := 0; written < size; written += len(reply) {
			w.WriteString(reply)
		}
		fmt.Fprintf(w, `{"type":"custom-title","customTitle":"Bulk work %02d","sessionId":%q}`+"\n", k, id)
		if err := w.Flush(); err != nil {
			e.t.Fatal(err)
		}
		f.Close()
		mt := time.Now().Add(-24*time.Hour - time.Duration(k)*time.Minute)
		os.Chtimes(matches[0], mt, mt)
	}
}

// pickerCounts reads the finder's "matched/total" line.
func pickerCounts(screen string) (matched, total int) {
	for _, l := range strings.Split(screen, "\n") {
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "%d/%d", &matched, &total); err == nil {
			return matched, total
		}
	}
	return -1, -1
}

// pickerCursor is the picker row under the cursor ("> " marks it).
func pickerCursor(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "> ") {
			return strings.TrimSpace(strings.SplitN(l[2:], "│", 2)[0])
		}
	}
	return ""
}

// A first run (no index) on a home whose listing takes a while: rows
// appear before the listing ends, arriving rows never move the cursor off
// its session (with and without a query typed), and Enter during the fill
// resumes exactly the highlighted session.
func TestE2EPickerFillsAsTheListingStreams(t *testing.T) {
	e := newE2E(t)
	_, web := demoSessions(e.testHome)
	// No more than a screen of them: new matches ranking above the
	// cursor's row push it down the list, and go-fuzzyfinder keeps the
	// cursor on its row but does not scroll to it (it is chosen all the
	// same; the preview still shows it).
	const bulk = 24
	e.bulkSessions(bulk, 10<<20)
	// One core, as on a loaded machine: the fill takes over a second.
	e.env = append(e.env, "GOMAXPROCS=1")
	index := filepath.Join(e.fc, "cache", "transcripts.idx")
	all := bulk + 3
	// The next picker starts as this one exits: make it a first run again
	// once this one's listing has written its index.
	coldNext := func() {
		t.Helper()
		poll.Every(20*time.Millisecond).Until(t, poll.Long, "the listing to write its index", func() (bool, string) {
			err := os.Remove(index)
			return err == nil, fmt.Sprint(err)
		})
	}

	// watch samples the screen until every row is in, failing if the
	// cursor ever leaves the row that has want in it; it returns how many
	// screens it saw with rows still to come.
	watch := func(tm *tmuxServer, want string) int {
		t.Helper()
		partial := 0
		poll.Every(20*time.Millisecond).Until(t, poll.Long, fmt.Sprintf("the picker to hold all %d rows", all), func() (bool, string) {
			screen := tm.screen()
			_, total := pickerCounts(screen)
			if total < 0 {
				return false, screen
			}
			if got := pickerCursor(screen); !strings.Contains(got, want) {
				t.Fatalf("with %d of %d rows in, the cursor is on %q, not the row of %q:\n%s", total, all, got, want, screen)
			}
			if total == all {
				return true, ""
			}
			partial++
			return false, screen
		})
		return partial
	}

	// Without a query: the cursor moved up two rows stays there.
	tm := newTmux(t)
	e.startPickers(tm, 3)
	screen := tm.waitFor("the first rows", func(s string) bool { return strings.Contains(s, "Login bugfix work") })
	if _, total := pickerCounts(screen); total >= all {
		t.Fatalf("the first rows came only after the whole listing (%d rows):\n%s", total, screen)
	}
	tm.run("send-keys", "-t", "t", "Up", "Up")
	tm.waitFor("the cursor on the third row", func(s string) bool { return strings.Contains(pickerCursor(s), "dark mode please") })
	if partial := watch(tm, "dark mode please"); partial == 0 {
		t.Fatal("no screen showed the picker while it filled")
	}
	coldNext()
	tm.run("send-keys", "-t", "t", "Escape")
	e.waitExits(t, 1)

	// With a query typed: later matches may rank above; the cursor stays.
	tm.waitFor("the second picker", func(s string) bool { return strings.Contains(s, "Login bugfix work") })
	// "work" is in "Login bugfix work" and in every "Bulk work NN", and
	// go-fuzzyfinder ranks equal scores later rows first: rows arriving
	// after the query rank above the cursor's.
	tm.run("send-keys", "-t", "t", "-l", "work")
	screen = tm.waitFor("the query's matches", func(s string) bool {
		m, total := pickerCounts(s)
		return m >= 0 && m < total && strings.Contains(pickerCursor(s), "work")
	})
	if _, total := pickerCounts(screen); total >= all {
		t.Fatalf("the listing was done before the query was typed:\n%s", screen)
	}
	watch(tm, pickerCursor(screen))
	if screen := tm.screen(); !strings.Contains(screen, "Bulk work 23") {
		t.Fatalf("the later matches are not listed:\n%s", screen)
	}
	coldNext()
	tm.run("send-keys", "-t", "t", "Escape")
	e.waitExits(t, 2)

	// Enter during the fill.
	screen = tm.waitFor("the third picker", func(s string) bool { return strings.Contains(s, "Login bugfix work") })
	tm.run("send-keys", "-t", "t", "Up", "Up")
	screen = tm.waitFor("the cursor on the third row", func(s string) bool { return strings.Contains(pickerCursor(s), "dark mode please") })
	if _, total := pickerCounts(screen); total >= all {
		t.Fatalf("the listing was done before Enter:\n%s", screen)
	}
	tm.run("send-keys", "-t", "t", "Enter")
	r := e.waitRecord(t)
	if r.Cwd != web || strings.Join(r.Args, " ") != "--resume "+idWeb {
		t.Fatalf("picked and exec'd: %+v", r)
	}
	stopProcess(t, r.Pid)
}

// An empty listing says why for each harness it covers: a person on a new
// machine, or with CLAUDE_CONFIG_DIR or CODEX_HOME pointing elsewhere,
// learns where forgectl looked. It is not an error (exit 0).
func TestE2EEmptyListingSaysWhereItLooked(t *testing.T) {
	e := newE2E(t)
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"resume", "ls"}, []string{"there are no Claude Code sessions: " + filepath.Join(empty, ".claude", "projects") + " does not exist"}},
		{[]string{"resume", "ls", "--harness", "codex"}, []string{"there are no Codex threads: " + filepath.Join(empty, ".codex") + " is not a folder (CODEX_HOME moves it)"}},
	} {
		cmd := e.command(tc.args...)
		cmd.Env = append(append([]string(nil), e.env...), "HOME="+empty, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, errb.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, w, errb.String())
			}
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q, want nothing", tc.args, out.String())
		}
	}
}
