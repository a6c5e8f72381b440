//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/poll"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"golang.org/x/sys/unix"
)

// Bad files must never hang a command, and a signal must always end one.
// These run the built forgectl against real FIFOs and send it real
// signals. (Linux: they watch the process through /proc and inotify.)

// hangLimit is far longer than any of these runs takes, even on a loaded
// machine; reaching it means the run hung.
const hangLimit = poll.Long

type ran struct {
	code           int
	stdout, stderr string
}

// runBounded runs cmd, failing the test if it has not ended within
// hangLimit (it is then killed).
func runBounded(t *testing.T, cmd *exec.Cmd) ran {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return waitBounded(t, cmd, &out, &errb)
}

func waitBounded(t *testing.T, cmd *exec.Cmd, out, errb *bytes.Buffer) ran {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(hangLimit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v hung (killed after %s); stderr: %s", cmd.Args[1:], hangLimit, errb.String())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ran{ee.ExitCode(), out.String(), errb.String()}
	case err != nil:
		t.Fatalf("%v: %v (stderr: %s)", cmd.Args[1:], err, errb.String())
	}
	return ran{0, out.String(), errb.String()}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestE2EFIFOsAreSkippedNotOpened: a FIFO at each place a listing reads is
// skipped with a warning --verbose names, by ls, search and --dry-run
// alike, which all still do their work.
func TestE2EFIFOsAreSkippedNotOpened(t *testing.T) {
	places := []struct {
		name string
		path func(e *e2e) string
	}{
		{"history", func(e *e2e) string { return filepath.Join(e.claude, "history.jsonl") }},
		{"registry", func(e *e2e) string { return filepath.Join(e.claude, "sessions", "4242.json") }},
		{"task file", func(e *e2e) string { return filepath.Join(e.claude, "tasks", idLogin, "1.json") }},
		{"listing index", func(e *e2e) string { return filepath.Join(e.fc, "cache", "transcripts.idx") }},
		{"snapshot", func(e *e2e) string { return filepath.Join(e.fc, "resume-sessions", idLogin+".json") }},
		{"transcript", func(e *e2e) string {
			return filepath.Join(e.cc.ProjectDir(filepath.Join(e.home, "src", "api-server")), "2fc9d747-58cb-4e62-b7f1-a85d62252943.jsonl")
		}},
	}
	for _, p := range places {
		t.Run(p.name, func(t *testing.T) {
			e := newE2E(t)
			e.session(idLogin, e.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", time.Hour)
			fifo := p.path(e)
			for _, args := range [][]string{
				{"resume", "ls", "--verbose"},
				{"resume", "search", "--verbose", "login"},
				{"resume", "--dry-run", "--verbose", idLogin},
			} {
				// The listing replaces its index whole, a FIFO there too.
				os.Remove(fifo)
				mkfifo(t, fifo)
				r := runBounded(t, e.command(args...))
				if r.code != 0 || !strings.Contains(r.stdout, idLogin) {
					t.Errorf("%v: exit %d, stdout %q, stderr %s", args, r.code, r.stdout, r.stderr)
				}
				if want := "forgectl: warning: read " + fifo + ": is a FIFO, not a regular file"; !strings.Contains(r.stderr, want) {
					t.Errorf("%v: stderr lacks %q:\n%s", args, want, r.stderr)
				}
			}
		})
	}
}

// TestE2EConfigAndSettingsFIFOs: config.toml and settings.json are an
// error with a hint, never a hang: exit 2 where they are needed, a fail
// row (exit 1) in doctor.
func TestE2EConfigAndSettingsFIFOs(t *testing.T) {
	e := newE2E(t)
	e.session(idLogin, e.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", time.Hour)
	config := filepath.Join(e.fc, "config.toml")
	settings := filepath.Join(e.claude, "settings.json")
	mkfifo(t, config)
	mkfifo(t, settings)

	r := runBounded(t, e.command("resume", "--dry-run", idLogin))
	if r.code != 2 || !strings.Contains(r.stderr, "forgectl: error: "+config+": cannot read the config file: is a FIFO, not a regular file\n") ||
		!strings.Contains(r.stderr, "forgectl: hint: replace it with a regular file") {
		t.Errorf("--dry-run with a FIFO config.toml: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// ls needs the config only for [resume] harnesses: it lists, and says
	// the config was not used.
	r = runBounded(t, e.command("resume", "ls"))
	if r.code != 0 || !strings.Contains(r.stdout, "Login bugfix work") ||
		!strings.Contains(r.stderr, "forgectl: warning: [resume] harnesses is not used, since the config cannot be: "+config+": cannot read the config file: is a FIFO, not a regular file\n") ||
		!strings.Contains(r.stderr, "forgectl: hint: fix the config file") {
		t.Errorf("ls with a FIFO config.toml: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBounded(t, e.command("init", "--stop-hook"))
	if r.code != 2 || !strings.Contains(r.stderr, "forgectl: error: cannot read "+settings+": is a FIFO, not a regular file\n") ||
		!strings.Contains(r.stderr, "forgectl: hint: replace "+settings+" with a regular file") {
		t.Errorf("init --stop-hook with a FIFO settings.json: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = runBounded(t, e.command("doctor"))
	for _, want := range []string{
		"fail  config        " + config + ": cannot read the config file: is a FIFO, not a regular file\n",
		"fail  resume tasks  cannot read " + settings + ": is a FIFO, not a regular file, so Claude Code runs none of its hooks\n",
		"→ replace " + settings + " with a regular file",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("doctor: exit %d, want 1 (a fail row)", r.code)
	}
}

// waitOpened returns once some process opens path: inotify's IN_OPEN.
func waitOpened(t *testing.T, path string) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	poll.Every(5*time.Millisecond).Until(t, hangLimit, "a process to open "+path, func() (bool, string) {
		n, _ := unix.Read(fd, buf)
		return n > 0, ""
	})
}

// TestE2EFirstSignalCancels: a search waiting for the index lock another
// search holds ends on the first SIGINT (130) or SIGTERM (143), long
// before the wait would.
func TestE2EFirstSignalCancels(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			e := newE2E(t)
			e.session(idLogin, e.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", time.Hour)
			dir := filepath.Join(e.fc, "cache", "search")
			os.MkdirAll(dir, 0o700)
			lock := filepath.Join(dir, "lock")
			held, err := fsutil.TryLock(lock) // another search, as far as flock can tell
			if err != nil {
				t.Fatal(err)
			}
			defer held.Unlock()
			cmd := e.command("resume", "search", "login")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitOpened(t, lock) // it is polling for the lock
			cmd.Process.Signal(tc.sig)
			if r := waitBounded(t, cmd, &out, &errb); r.code != tc.want {
				t.Errorf("exit %d, want %d; stderr: %s", r.code, tc.want, r.stderr)
			}
		})
	}
}

// blockedWriting reports whether one of pid's threads sleeps in a write to
// its stdout.
func blockedWriting(pid int) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
	for _, p := range tasks {
		b, _ := os.ReadFile(p)
		if f := strings.Fields(string(b)); len(f) > 1 && f[0] == strconv.Itoa(unix.SYS_WRITE) && f[1] == "0x1" {
			return true
		}
	}
	return false
}

// indexTemps are the listing index's temp files (binrec.Create names
// them like fsutil.WriteAtomic: .NAME.tmp-*), and any other file in cache/
// that is not the index itself.
func indexTemps(e *e2e) []string {
	var m []string
	ents, _ := os.ReadDir(filepath.Join(e.fc, "cache"))
	for _, d := range ents {
		if n := d.Name(); strings.Contains(n, "transcripts.idx") && n != "transcripts.idx" {
			m = append(m, filepath.Join(e.fc, "cache", n))
		}
	}
	return m
}

// TestE2ESecondSignalEndsAtOnce: a listing stuck writing to a stdout
// nobody reads cannot notice a cancel; the second SIGINT or SIGTERM ends
// it at once, with 130 or 143, and the index it was writing leaves no
// temp file behind.
func TestE2ESecondSignalEndsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			e := newE2E(t)
			repo := e.repo("bulk")
			for k := range 2000 { // far more rows than the pipe and the table's 48 KB hold
				e.session(fmt.Sprintf("b0000000-0000-4000-8000-%012d", k), repo, "main", "bulk prompt", "", time.Duration(k)*time.Minute)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := unix.FcntlInt(r.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
				t.Fatal(err)
			}
			cmd := e.command("resume", "ls") // a cold listing: it writes the index as it goes
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = w, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if !poll.Every(5*time.Millisecond).Wait(hangLimit, func() bool { return blockedWriting(cmd.Process.Pid) }) {
				cmd.Process.Kill()
				t.Fatal("the listing never filled the pipe")
			}
			if len(indexTemps(e)) == 0 {
				cmd.Process.Kill()
				t.Fatal("no index temp file while listing cold: the test proves nothing")
			}
			cmd.Process.Signal(tc.sig)
			time.Sleep(200 * time.Millisecond)
			if !blockedWriting(cmd.Process.Pid) {
				cmd.Process.Kill()
				t.Fatal("the first signal got the listing out of its write: the test proves nothing")
			}
			cmd.Process.Signal(tc.sig)
			if got := waitBounded(t, cmd, &bytes.Buffer{}, &errb); got.code != tc.want {
				t.Errorf("exit %d, want %d; stderr: %s", got.code, tc.want, got.stderr)
			}
			if left := indexTemps(e); len(left) > 0 {
				t.Errorf("temp files left behind: %v", left)
			}
		})
	}
}

// TestE2EStopHookSkipsFIFOs: `forgectl resume snapshot` (shared/snaprun,
// in-process) captures a live session even with FIFOs among the registry
// files and the snapshots, and exits 0.
func TestE2EStopHookSkipsFIFOs(t *testing.T) {
	e := newE2E(t)
	e.session(idLogin, e.repo("api-server"), "feature/login", "fix the login flow", "", time.Hour)
	e.live(idLogin)
	taskDir := filepath.Join(e.claude, "tasks", idLogin)
	os.MkdirAll(taskDir, 0o700)
	os.WriteFile(filepath.Join(taskDir, "1.json"), []byte(`{"id":"1","subject":"step 1","status":"pending"}`), 0o600)
	mkfifo(t, filepath.Join(e.claude, "sessions", "4242.json"))
	mkfifo(t, filepath.Join(e.fc, "resume-sessions", "2fc9d747-58cb-4e62-b7f1-a85d62252943.json"))
	mkfifo(t, filepath.Join(taskDir, "2.json"))
	cmd := e.command("resume", "snapshot")
	cmd.Stdin = strings.NewReader("")
	r := runBounded(t, cmd)
	if r.code != 0 || !strings.Contains(r.stdout, "captured "+idLogin+" (no name): 1 task") {
		t.Errorf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{"sessions/4242.json", "tasks/" + idLogin + "/2.json"} {
		if want := filepath.Join(e.claude, f) + ": is a FIFO, not a regular file"; !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// watchCreate watches dir (inotify's IN_CREATE); wait returns once name
// has been created in it since.
func watchCreate(t *testing.T, dir, name string) (wait func()) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		buf := make([]byte, 4096)
		poll.Every(5*time.Millisecond).Until(t, hangLimit, fmt.Sprintf("a process to create %s in %s", name, dir), func() (bool, string) {
			n, _ := unix.Read(fd, buf)
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				nb := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				if string(bytes.TrimRight(nb, "\x00")) == name {
					return true, ""
				}
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
			return false, ""
		})
	}
}

// TestE2ECtrlCWhileWaitingForTheTaskLock: a resume restoring snapshotted
// tasks waits for the task list's lock while claude holds it; Ctrl-C then
// ends the resume (130) and starts no claude, where it used to wait the
// lock out and exec claude anyway.
func TestE2ECtrlCWhileWaitingForTheTaskLock(t *testing.T) {
	e := newE2E(t)
	e.session(idLogin, e.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", time.Hour)
	store := snapstore.Store{Dir: filepath.Join(e.fc, "resume-sessions")}
	body := []byte(`{"id":"1","subject":"step 1","status":"pending"}`)
	if _, err := store.Update(snapstore.Observation{SessionID: idLogin, TaskListID: idLogin, Tasks: []tasks.Task{{ID: "1", Status: "pending", Body: body}}, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	taskDir := filepath.Join(e.claude, "tasks", idLogin)
	// claude holds the list's lock (proper-lockfile's directory); the
	// lock file itself is not there yet, so creating it says the resume
	// has reached the lock.
	if err := os.MkdirAll(filepath.Join(taskDir, ".lock.lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("resume", idLogin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	reached := watchCreate(t, taskDir, ".lock")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reached()
	cmd.Process.Signal(syscall.SIGINT)
	if r := waitBounded(t, cmd, &out, &errb); r.code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(e.record); err == nil {
		b, _ := os.ReadFile(e.record)
		t.Errorf("claude was started after Ctrl-C: %s", b)
	}
	if _, err := os.Stat(filepath.Join(taskDir, "1.json")); err == nil {
		t.Error("a task was written after Ctrl-C")
	}
}

// TestE2EFirstSignalLeavesAHugeTranscript: a cold listing in the middle of
// a 64 GB transcript (sparse: a row, then zeros, which the scanner reads
// and discards) ends on the first SIGINT within one read, not at the
// file's end some three minutes later (forty seconds for each 16 GB on an
// idle machine): far past poll.Long, the bound a busy machine gets.
func TestE2EFirstSignalLeavesAHugeTranscript(t *testing.T) {
	e := newE2E(t)
	repo := e.repo("huge")
	e.session(idLogin, repo, "main", "fix the login flow", "", time.Hour)
	matches, _ := filepath.Glob(filepath.Join(e.claude, "projects", "*", idLogin+".jsonl"))
	if len(matches) != 1 {
		t.Fatalf("transcript: %v", matches)
	}
	huge := matches[0]
	if err := os.Truncate(huge, 64<<30); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("resume", "ls", "--json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitOpened(t, huge)
	time.Sleep(200 * time.Millisecond) // well into the zeros
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	r := waitBounded(t, cmd, &out, &errb)
	if r.code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", r.code, r.stderr)
	}
	if d := time.Since(sent); d > poll.Long {
		t.Errorf("the first SIGINT took %v to end the listing", d)
	}
}
