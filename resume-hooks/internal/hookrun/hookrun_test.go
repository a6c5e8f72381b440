package hookrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/poll"
)

// envHook appends its position and the three hook variables to hooks.log.
func envHook(g *rig, pos int) Hook {
	p := g.script("env-hook", `echo "$1 $FORGECTL_HARNESS $FORGECTL_OLD_VERSION $FORGECTL_NEW_VERSION $#" >> "$RIG/hooks.log"`)
	return Hook{Position: pos, Kind: KindCommand, Command: []string{p, "pos" + itoa(pos)}, Timeout: 10 * time.Second}
}

func TestBaselineThenChangeFiresInOrder(t *testing.T) {
	g := newRig(t)
	failing := g.script("failing", `echo "failing ran" >> "$RIG/hooks.log"; exit 4`)
	g.r.Hooks = []Hook{envHook(g, 1), {Position: 2, Kind: KindCommand, Command: []string{failing}, Timeout: 10 * time.Second}, envHook(g, 3)}
	g.install("2.1.1")

	if code := g.run(); code != 0 {
		t.Fatalf("baseline run exit %d\n%s", code, g.stderr)
	}
	if got := g.lines("hooks.log"); got != nil {
		t.Fatalf("the baseline fired hooks: %q", got)
	}
	if s := g.state(); s.Version != "2.1.1" || s.Pending != nil {
		t.Fatalf("baseline state %+v", s)
	}

	g.install("2.1.2")
	if code := g.run(); code != 1 {
		t.Fatalf("a run with a failed hook exit %d, want 1\n%s", code, g.stderr)
	}
	// Config order; the failure does not stop hook 3; the versions come
	// in the environment and never in the argv (each got one argument).
	want := []string{"pos1 claude 2.1.1 2.1.2 1", "failing ran", "pos3 claude 2.1.1 2.1.2 1"}
	if d := cmp.Diff(want, g.lines("hooks.log")); d != "" {
		t.Fatalf("hooks (-want +got):\n%s", d)
	}
	if s := g.state(); s.Version != "2.1.2" || s.Pending != nil {
		t.Fatalf("state after the update %+v (a failed command is not retried)", s)
	}
	wantRecs := []string{
		"2.1.1->2.1.2 hook 1: command env-hook ok",
		"2.1.1->2.1.2 hook 2: command failing failed",
		"2.1.1->2.1.2 hook 3: command env-hook ok",
	}
	if d := cmp.Diff(wantRecs, g.outcomes()); d != "" {
		t.Fatalf("audit (-want +got):\n%s", d)
	}
	if r := g.records()[1]; r.ExitStatus != 4 || r.Trigger != "manual" || r.Harness != "claude" || r.Time.IsZero() {
		t.Fatalf("failed record %+v", r)
	}

	// Unchanged: nothing fires again.
	if code := g.run(); code != 0 {
		t.Fatalf("unchanged run exit %d", code)
	}
	if n := len(g.lines("hooks.log")); n != 3 {
		t.Fatalf("an unchanged version fired hooks again (%d lines)", n)
	}
}

// flipOnRead points the link at versions[i] just before read i (then
// leaves it at the last), so a test scripts what each read of the settle
// sees. "" removes the link, as a half-finished replacement would.
func flipOnRead(g *rig, versions ...string) {
	read := g.r.ReadVersion
	n := 0
	g.r.ReadVersion = func(ctx context.Context) (string, error) {
		if n < len(versions) {
			if v := versions[n]; v == "" {
				os.Remove(g.link)
			} else {
				g.install(v)
			}
		}
		n++
		return read(ctx)
	}
}

func TestSettle(t *testing.T) {
	tests := []struct {
		name     string
		reads    []string
		code     int
		recorded string
		fired    []string
	}{
		{"a link that moves twice fires once, for where it stopped",
			[]string{"2.1.2", "2.1.3", "2.1.3"}, 0, "2.1.3", []string{"pos1 claude 2.1.1 2.1.3 1"}},
		{"a link that reverts fires nothing",
			[]string{"2.1.2", "2.1.1", "2.1.1"}, 0, "2.1.1", nil},
		{"a read caught mid-replacement agrees with nothing",
			[]string{"2.1.2", "", "2.1.2", "2.1.2"}, 0, "2.1.2", []string{"pos1 claude 2.1.1 2.1.2 1"}},
		{"a link that never settles fires and records nothing",
			[]string{"2.1.2", "2.1.3", "2.1.2", "2.1.3", "2.1.2", "2.1.3", "2.1.2"}, 1, "2.1.1", nil},
		{"settling on the fifth re-read",
			[]string{"2.1.2", "2.1.3", "2.1.4", "2.1.5", "2.1.6", "2.1.6"}, 0, "2.1.6", []string{"pos1 claude 2.1.1 2.1.6 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t)
			g.r.Hooks = []Hook{envHook(g, 1)}
			g.install("2.1.1")
			if code := g.run(); code != 0 {
				t.Fatalf("baseline exit %d", code)
			}
			flipOnRead(g, tc.reads...)
			if code := g.run(); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, g.stderr)
			}
			if s := g.state(); s.Version != tc.recorded {
				t.Fatalf("recorded %q, want %q", s.Version, tc.recorded)
			}
			if d := cmp.Diff(tc.fired, g.lines("hooks.log")); d != "" {
				t.Fatalf("fired (-want +got):\n%s", d)
			}
		})
	}
}

func TestBaselineSettlesToo(t *testing.T) {
	g := newRig(t)
	g.install("2.1.1")
	flipOnRead(g, "2.1.1", "2.1.2", "2.1.2")
	if code := g.run(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if s := g.state(); s.Version != "2.1.2" {
		t.Fatalf("the baseline took a transient value: %+v", s)
	}
}

func TestAnUpdateDuringTheHooksIsHandledInTheSameRun(t *testing.T) {
	g := newRig(t)
	for _, v := range []string{"2.1.1", "2.1.2", "2.1.3", "2.1.4", "2.1.5"} {
		g.install(v)
	}
	// The hook plays an update landing while it runs: each run of it moves
	// the link one version on, up to 2.1.5.
	bump := g.script("bump", `
case "$FORGECTL_NEW_VERSION" in
2.1.2) next=2.1.3 ;; 2.1.3) next=2.1.4 ;; 2.1.4) next=2.1.5 ;; *) exit 0 ;;
esac
ln -sfn "$RIG/bin/claude-$next" "$RIG/bin/claude"
`)
	g.r.Hooks = []Hook{envHook(g, 1), {Position: 2, Kind: KindCommand, Command: []string{bump}, Timeout: 10 * time.Second}}
	g.point(filepath.Join(g.bin, "claude-2.1.1"))
	if code := g.run(); code != 0 {
		t.Fatal("baseline")
	}
	g.point(filepath.Join(g.bin, "claude-2.1.2"))
	if code := g.run(); code != 0 {
		t.Fatalf("exit %d\n%s", code, g.stderr)
	}
	// Three passes: 2.1.2, then 2.1.3 and 2.1.4 landed during the hooks;
	// 2.1.5 (landed during the third) is left for the next run.
	want := []string{"pos1 claude 2.1.1 2.1.2 1", "pos1 claude 2.1.2 2.1.3 1", "pos1 claude 2.1.3 2.1.4 1"}
	if d := cmp.Diff(want, g.lines("hooks.log")); d != "" {
		t.Fatalf("passes (-want +got):\n%s", d)
	}
	if s := g.state(); s.Version != "2.1.4" {
		t.Fatalf("recorded %q", s.Version)
	}
	if !strings.Contains(g.stderr.String(), "changed again to 2.1.5") {
		t.Fatalf("no note about the version left for the next run:\n%s", g.stderr)
	}
	if code := g.run(); code != 0 || g.state().Version != "2.1.5" {
		t.Fatalf("the next run did not take 2.1.5: %+v", g.state())
	}
}

func TestRetryLadder(t *testing.T) {
	tests := []struct {
		name     string
		fails    int
		runs     int
		attempts []string
		pending  *hookstate.Pending
	}{
		{"incomplete, then done on the second attempt", 1, 4,
			[]string{"2.1.1->2.1.2 hook 2: restart incomplete #1", "2.1.1->2.1.2 hook 2: restart ok #2"}, nil},
		{"gives up after three attempts", 99, 5,
			[]string{"2.1.1->2.1.2 hook 2: restart incomplete #1", "2.1.1->2.1.2 hook 2: restart incomplete #2", "2.1.1->2.1.2 hook 2: restart incomplete #3"},
			&hookstate.Pending{Version: "2.1.2", OldVersion: "2.1.1", Attempts: 3, GivenUp: true, LastOutcome: "incomplete"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t)
			g.fakeRestart(tc.fails, false)
			g.r.Hooks = []Hook{envHook(g, 1), {Position: 2, Kind: KindRestart, Timeout: 30 * time.Minute}}
			g.install("2.1.1")
			g.run()
			g.install("2.1.2")
			for range tc.runs {
				g.run()
			}
			var restarts []string
			for _, o := range g.outcomes() {
				if strings.Contains(o, "restart") {
					restarts = append(restarts, o)
				}
			}
			if d := cmp.Diff(tc.attempts, restarts); d != "" {
				t.Fatalf("attempts (-want +got):\n%s", d)
			}
			// The command hook fired once; retries re-run only the restart.
			if n := len(g.lines("hooks.log")); n != 1 {
				t.Fatalf("the command hook ran %d times", n)
			}
			got := g.state().Pending
			if got != nil {
				got.LastAttemptAt = time.Time{}
			}
			if d := cmp.Diff(tc.pending, got); d != "" {
				t.Fatalf("pending (-want +got):\n%s", d)
			}
			for _, args := range g.lines("restart.args") {
				if args != "restart --outdated --json --timeout 30m0s" {
					t.Fatalf("resume-restart ran with %q", args)
				}
			}
		})
	}
}

func TestANewVersionEndsAGivenUpRestart(t *testing.T) {
	g := newRig(t)
	g.fakeRestart(3, false)
	g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	for range 4 {
		g.run()
	}
	if p := g.state().Pending; p == nil || !p.GivenUp {
		t.Fatalf("pending %+v", p)
	}
	g.install("2.1.3")
	if code := g.run(); code != 0 {
		t.Fatalf("exit %d\n%s", code, g.stderr)
	}
	if s := g.state(); s.Version != "2.1.3" || s.Pending != nil {
		t.Fatalf("state %+v", s)
	}
	want := []string{
		"2.1.1->2.1.2 hook 1: restart incomplete #1", "2.1.1->2.1.2 hook 1: restart incomplete #2",
		"2.1.1->2.1.2 hook 1: restart incomplete #3", "2.1.2->2.1.3 hook 1: restart ok #1",
	}
	if d := cmp.Diff(want, g.outcomes()); d != "" {
		t.Fatalf("audit (-want +got):\n%s", d)
	}
}

func TestRestartLockHeldIsIncomplete(t *testing.T) {
	g := newRig(t)
	g.fakeRestart(0, false)
	g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
	g.install("2.1.1")
	g.run()
	os.MkdirAll(filepath.Dir(g.r.RestartLock), 0o700)
	held, err := fsutil.TryLock(g.r.RestartLock)
	if err != nil {
		t.Fatal(err)
	}
	g.install("2.1.2")
	code := g.run()
	held.Unlock()
	if code != 1 || g.lines("restart.args") != nil {
		t.Fatalf("exit %d; resume-restart ran %q", code, g.lines("restart.args"))
	}
	r := g.records()[0]
	if r.Outcome != "incomplete" || r.Detail != "another restart holds restart.lock" {
		t.Fatalf("record %+v", r)
	}
	if p := g.state().Pending; p == nil || p.Attempts != 1 {
		t.Fatalf("pending %+v", p)
	}
	// Free again: the retry runs it.
	if code := g.run(); code != 0 || len(g.lines("restart.args")) != 1 {
		t.Fatalf("retry exit %d, runs %d", code, len(g.lines("restart.args")))
	}
}

func TestMissingRestartBinaryFails(t *testing.T) {
	g := newRig(t)
	g.r.RestartErr = errors.New("resume-restart not found beside resume-hooks or on PATH")
	g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	if code := g.run(); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if r := g.records()[0]; r.Outcome != "failed" || r.Detail != "resume-restart not found beside resume-hooks or on PATH" {
		t.Fatalf("record %+v", r)
	}
}

func TestNotificationForAStrandedSession(t *testing.T) {
	for _, trigger := range []string{hookstate.TriggerLaunchd, hookstate.TriggerManual} {
		t.Run(trigger, func(t *testing.T) {
			g := newRig(t)
			g.fakeRestart(1, true)
			g.r.Trigger = trigger
			var posted []string
			g.r.Notify = func(_ context.Context, title, msg string) error {
				posted = append(posted, title+": "+msg)
				return nil
			}
			g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
			g.install("2.1.1")
			g.run()
			g.install("2.1.2")
			if code := g.run(); code != 1 {
				t.Fatalf("exit %d", code)
			}
			r := g.records()[0]
			if d := cmp.Diff([]string{"'/opt/my tools/forgectl' resume 0123abcd-aaaa"}, r.Resume); d != "" {
				t.Fatalf("resume (-want +got):\n%s", d)
			}
			var want []string
			if trigger == hookstate.TriggerLaunchd {
				want = []string{"forgectl resume hooks: could not restart 1 session(s) after the claude update; resume with: '/opt/my tools/forgectl' resume 0123abcd-aaaa"}
			}
			if d := cmp.Diff(want, posted); d != "" {
				t.Fatalf("notifications (-want +got):\n%s", d)
			}
		})
	}
}

func TestWaitingSessionsPostNothing(t *testing.T) {
	g := newRig(t)
	g.fakeRestart(1, false)
	g.r.Trigger = hookstate.TriggerLaunchd
	g.r.Notify = func(context.Context, string, string) error {
		t.Fatal("notified for a session still waiting")
		return nil
	}
	g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	g.run()
	if r := g.records()[0]; r.Outcome != "incomplete" || len(r.Resume) != 0 {
		t.Fatalf("record %+v", r)
	}
	if !strings.Contains(g.stderr.String(), "forgectl: waiting for session 0123abcd-aaaa") {
		t.Fatalf("the restart's progress did not reach the log:\n%s", g.stderr)
	}
}

func TestCommandTimeoutKillsItsGroupAndTheNextHookRuns(t *testing.T) {
	// A busy machine can take longer than the timeout to get the hook as
	// far as its pid file: such a run killed a helper that had not forked
	// yet and proves nothing, so it is run again, afresh, with twice the
	// time.
	var g *rig
	var pid []string
	timeout := 500 * time.Millisecond
	for ; ; timeout *= 2 {
		g = newRig(t)
		hang := g.script("hang", `sleep 300 & echo $! > "$RIG/grandchild.pid"; wait`)
		g.r.Hooks = []Hook{{Position: 1, Kind: KindCommand, Command: []string{hang}, Timeout: timeout}, envHook(g, 2)}
		g.install("2.1.1")
		g.run()
		g.install("2.1.2")
		if code := g.run(); code != 1 {
			t.Fatalf("exit %d", code)
		}
		if pid = g.lines("grandchild.pid"); len(pid) == 1 {
			break
		}
		if timeout > poll.Long {
			t.Fatal("the hook did not start its helper")
		}
	}
	waitGone(t, pid[0])
	if d := cmp.Diff([]string{"2.1.1->2.1.2 hook 1: command hang timeout", "2.1.1->2.1.2 hook 2: command env-hook ok"}, g.outcomes()); d != "" {
		t.Fatalf("audit (-want +got):\n%s", d)
	}
	if r := g.records()[0]; r.Signal != "SIGKILL" || r.ExitStatus != -1 || r.Detail != fmt.Sprintf("killed at the %s timeout", timeout) {
		t.Fatalf("record %+v", r)
	}
}

func TestAuditKeepsOnlyARedactedStderrTail(t *testing.T) {
	g := newRig(t)
	noisy := g.script("noisy", `
echo "stdout line with $1" 
echo "posting to $2 failed" >&2
echo "GET https://bob:pa55word@hooks.example/x" >&2
echo "Authorization: Bearer abcdefgh12345" >&2
printf 'colour \033[31mred\033[0m done\n' >&2
exit 2
`)
	ok := g.script("quiet-ok", `echo "ok output $1"; echo "ok stderr $1" >&2`)
	g.r.Hooks = []Hook{
		{Position: 1, Kind: KindCommand, Command: []string{noisy, "tok-SECRET-1", "https://hooks.example/T/SECRET2"}, Timeout: 10 * time.Second},
		{Position: 2, Kind: KindCommand, Command: []string{ok, "tok-SECRET-3"}, Timeout: 10 * time.Second},
	}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	// As under launchd: the run's stdout and stderr are watcher.log.
	g.r.Trigger = hookstate.TriggerLaunchd
	log, err := os.OpenFile(g.files.WatcherLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	g.r.Stdout, g.r.Stderr = log, log
	g.run()
	log.Close()
	raw, err := os.ReadFile(g.files.Runs())
	if err != nil {
		t.Fatal(err)
	}
	logged, err := os.ReadFile(g.files.WatcherLog())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"runs.jsonl": string(raw), "watcher.log": string(logged)} {
		for _, leak := range []string{"SECRET", "pa55word", "abcdefgh12345", "Authorization", "stdout line", "ok output", "ok stderr", g.dir, "\x1b"} {
			if strings.Contains(content, leak) {
				t.Errorf("%s holds %q:\n%s", name, leak, content)
			}
		}
	}
	recs := g.records()
	want := "posting to [arg 2] failed\n" +
		"[line withheld: may hold a credential]\n" +
		"[line withheld: may hold a credential]\n" +
		`colour \x1b[31mred\x1b[0m done`
	if d := cmp.Diff(want, recs[0].StderrTail); d != "" {
		t.Fatalf("tail (-want +got):\n%s", d)
	}
	if recs[0].Hook.Program != "noisy" || recs[1].StderrTail != "" || recs[1].Outcome != "ok" {
		t.Fatalf("records %+v / %+v", recs[0], recs[1])
	}
	// The log keeps the same redacted tail, and only for the failed hook.
	wantLog := "forgectl: hook 1: command noisy: stderr tail (redacted):\n" +
		"    posting to [arg 2] failed\n" +
		"    [line withheld: may hold a credential]\n" +
		"    [line withheld: may hold a credential]\n" +
		`    colour \x1b[31mred\x1b[0m done` + "\n"
	if !strings.Contains(string(logged), wantLog) {
		t.Errorf("watcher.log lacks the redacted tail:\n%s", logged)
	}
	if n := strings.Count(string(logged), "stderr tail"); n != 1 {
		t.Errorf("watcher.log has %d stderr tails, want 1 (the failed hook's):\n%s", n, logged)
	}
}

func TestInterruptedRunRecordsNothing(t *testing.T) {
	g := newRig(t)
	slow := g.script("slow", `
if [ -e "$RIG/once" ]; then echo again >> "$RIG/hooks.log"; exit 0; fi
touch "$RIG/once"; echo started >> "$RIG/hooks.log"; exec sleep 300`)
	g.r.Hooks = []Hook{{Position: 1, Kind: KindCommand, Command: []string{slow}, Timeout: time.Minute}, envHook(g, 2)}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- g.r.Run(ctx, false) }()
	poll.Until(t, runWait, "the first hook to run", func() (bool, string) {
		got := g.lines("hooks.log")
		return len(got) == 1, fmt.Sprintf("hooks.log %q", got)
	})
	cancel()
	if code := <-done; code != 1 {
		t.Fatalf("exit %d", code)
	}
	if d := cmp.Diff([]string{"started"}, g.lines("hooks.log")); d != "" {
		t.Fatalf("a hook started after the signal (-want +got):\n%s", d)
	}
	if s := g.state(); s.Version != "2.1.1" {
		t.Fatalf("recorded %q after a signal", s.Version)
	}
	// The next run fires the whole set again.
	if code := g.run(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := []string{"started", "again", "pos2 claude 2.1.1 2.1.2 1"}
	if d := cmp.Diff(want, g.lines("hooks.log")); d != "" {
		t.Fatalf("second run (-want +got):\n%s", d)
	}
	if s := g.state(); s.Version != "2.1.2" {
		t.Fatalf("recorded %q", s.Version)
	}
}

func TestLockWaitSaysSo(t *testing.T) {
	g := newRig(t)
	g.r.Hooks = []Hook{envHook(g, 1)}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	other, err := fsutil.TryLock(g.files.RunLock())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(g.files.RunLock(), hookstate.Holder{Pid: os.Getpid(), Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Trigger: "launchd"}.Encode(), 0o600)
	done := make(chan int, 1)
	go func() { done <- g.r.Run(context.Background(), false) }()
	poll.Until(t, runWait, "the run to wait for the lock", func() (bool, string) {
		s := g.stderr.String()
		return strings.Contains(s, "waiting for"), s
	})
	if got := g.lines("hooks.log"); got != nil {
		t.Fatalf("ran while the other run held the lock: %q", got)
	}
	if !strings.Contains(g.stderr.String(), "forgectl: waiting for the hooks run already in progress (pid ") ||
		!strings.Contains(g.stderr.String(), ", launchd, since 2026-01-01T00:00:00Z) to finish") {
		t.Fatalf("waiting line:\n%s", g.stderr)
	}
	other.Unlock()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if len(g.lines("hooks.log")) != 1 {
		t.Fatal("the waiting run did not fire once it had the lock")
	}
	if b, _ := os.ReadFile(g.files.RunLock()); len(b) != 0 {
		t.Fatalf("the lock file still names a holder: %s", b)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	g := newRig(t)
	g.r.Hooks = []Hook{envHook(g, 1), {Position: 2, Kind: KindRestart, Timeout: 30 * time.Minute}}
	g.install("2.1.1")
	if code := g.r.Run(context.Background(), true); code != 0 {
		t.Fatal(code)
	}
	if _, err := os.Stat(g.files.Dir); !os.IsNotExist(err) {
		t.Fatal("a dry run created the store")
	}
	g.run()
	g.install("2.1.2")
	g.stdout.b.Reset()
	g.r.Run(context.Background(), true)
	want := "claude 2.1.2 installed, 2.1.1 recorded: once the version settles, a run would fire:\n" +
		"  hook 1: command env-hook (timeout 10s)\n" +
		"  hook 2: restart (waits up to 30m0s for sessions to go idle)\n"
	if d := cmp.Diff(want, g.stdout.String()); d != "" {
		t.Fatalf("plan (-want +got):\n%s", d)
	}
	if g.lines("hooks.log") != nil || g.state().Version != "2.1.1" {
		t.Fatal("a dry run fired or recorded")
	}
}

// runWait bounds every wait for what a run does in the background.
const runWait = poll.Long

func waitGone(t *testing.T, pidText string) {
	t.Helper()
	poll.Until(t, runWait, "pid "+pidText+" to go", func() (bool, string) { return processGone(pidText), "" })
}

// resume-restart exits 0 when it skipped a session that has no herdr pane
// (it tells the person to resume it by hand); for the hooks that session is
// still outdated, so the restart is incomplete and retried.
func TestRestartSkippingAPanelessSessionIsIncomplete(t *testing.T) {
	g := newRig(t)
	g.r.RestartArgv = []string{g.script("resume-restart", `
echo "$*" >> "$RIG/restart.args"
echo '[{"session_id":"0123abcd-aaaa","outcome":"skipped","reason":"no_pane","signalled":false,"command":"forgectl resume 0123abcd-aaaa"}]'
exit 0
`), "restart", "--outdated"}
	g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	if code := g.run(); code != 1 {
		t.Fatalf("exit %d, want 1 (incomplete)", code)
	}
	r := g.records()[0]
	if r.Outcome != "incomplete" || r.Detail != "a session has no herdr pane" {
		t.Fatalf("record %+v", r)
	}
	if p := g.state().Pending; p == nil || p.Attempts != 1 {
		t.Fatalf("pending %+v", p)
	}
}

// A restart whose sessions were all skipped because their relaunch would
// fail (nothing to resume yet, a deleted directory, a broken profile, no
// claude) exits 0, as at a terminal, but did not restart them: for the
// hooks it is incomplete and pending, like a session with no pane, never
// ok. A skip that no retry can change (a background session) stays ok.
func TestRestartSkippingUnrelaunchableSessionsIsIncomplete(t *testing.T) {
	for _, tc := range []struct {
		reasons []string
		outcome string
		detail  string
	}{
		{[]string{"no_transcript"}, "incomplete", "a session has no transcript yet, so there is nothing to resume"},
		{[]string{"cwd_gone", "cwd_gone"}, "incomplete", "a session's directory no longer exists"},
		{[]string{"bad_launch_profile"}, "incomplete", "[proxy] launch_profile is broken, so no relaunch would start"},
		{[]string{"claude_not_found"}, "incomplete", "the relaunch would not find claude"},
		{[]string{"harness_unsupported"}, "incomplete", "the session's launch profile names an unsupported harness"},
		{[]string{"not_interactive"}, "ok", ""},
	} {
		t.Run(strings.Join(tc.reasons, ","), func(t *testing.T) {
			g := newRig(t)
			var outs []string
			for i, reason := range tc.reasons {
				outs = append(outs, fmt.Sprintf(`{"session_id":"0123abcd-%d","outcome":"skipped","reason":%q,"signalled":false,"command":""}`, i, reason))
			}
			g.r.RestartArgv = []string{g.script("resume-restart", "echo '["+strings.Join(outs, ",")+"]'\nexit 0\n"), "restart", "--outdated"}
			g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
			g.install("2.1.1")
			g.run()
			g.install("2.1.2")
			code := g.run()
			r := g.records()[0]
			if r.Outcome != tc.outcome || r.Detail != tc.detail || len(r.Resume) != 0 {
				t.Fatalf("record %+v", r)
			}
			p := g.state().Pending
			if tc.outcome == "incomplete" && (code != 1 || p == nil || p.Attempts != 1 || p.Version != "2.1.2") {
				t.Fatalf("exit %d, pending %+v: want 1 and a pending restart", code, p)
			}
			if tc.outcome == "ok" && (code != 0 || p != nil) {
				t.Fatalf("exit %d, pending %+v", code, p)
			}
		})
	}
}

// A signal to the run is when a restart leaves sessions stopped; the
// notification naming them must still go out, on a context of its own.
func TestNotificationSurvivesTheSignal(t *testing.T) {
	g := newRig(t)
	g.r.Trigger = hookstate.TriggerLaunchd
	// Plays resume-restart stopping mid-relaunch on SIGTERM: the session
	// was signalled and is not resumed.
	g.r.RestartArgv = []string{g.script("resume-restart", `
trap 'echo "[{\"session_id\":\"0123abcd-aaaa\",\"outcome\":\"failed\",\"reason\":\"interrupted\",\"signalled\":true,\"command\":\"forgectl resume 0123abcd-aaaa\"}]"; exit 1' TERM
touch "$RIG/restart.started"
while :; do sleep 0.05; done
`), "restart", "--outdated"}
	// Each post as its message, whether its context was live, and whether
	// it was bounded.
	var posted []string
	g.r.Notify = func(ctx context.Context, _, msg string) error {
		_, bounded := ctx.Deadline()
		posted = append(posted, fmt.Sprintf("%s | live %v | bounded %v", msg, ctx.Err() == nil, bounded))
		return nil
	}
	g.r.Hooks = []Hook{{Position: 1, Kind: KindRestart, Timeout: time.Minute}}
	g.install("2.1.1")
	g.run()
	g.install("2.1.2")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- g.r.Run(ctx, false) }()
	poll.Until(t, runWait, "the restart to start", func() (bool, string) {
		_, err := os.Stat(filepath.Join(g.dir, "restart.started"))
		return err == nil, ""
	})
	cancel()
	if code := <-done; code != 1 {
		t.Fatalf("exit %d\n%s", code, g.stderr)
	}
	want := []string{"could not restart 1 session(s) after the claude update; resume with: forgectl resume 0123abcd-aaaa | live true | bounded true"}
	if d := cmp.Diff(want, posted); d != "" {
		t.Fatalf("notifications (-want +got):\n%s", d)
	}
	if s := g.state(); s.Version != "2.1.1" {
		t.Fatalf("recorded %q after a signal", s.Version)
	}
}

// A full disk (here: runs.jsonl is a directory) costs the audit lines,
// not the hooks after the one whose line failed.
func TestAuditFailureDoesNotStopTheHooks(t *testing.T) {
	g := newRig(t)
	g.r.Hooks = []Hook{envHook(g, 1), envHook(g, 2)}
	g.install("2.1.1")
	g.run()
	if err := os.Mkdir(g.files.Runs(), 0o700); err != nil {
		t.Fatal(err)
	}
	g.install("2.1.2")
	if code := g.run(); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, g.stderr)
	}
	want := []string{"pos1 claude 2.1.1 2.1.2 1", "pos2 claude 2.1.1 2.1.2 1"}
	if d := cmp.Diff(want, g.lines("hooks.log")); d != "" {
		t.Fatalf("hooks (-want +got):\n%s", d)
	}
	for _, h := range []string{"hook 1: command env-hook: ok", "hook 2: command env-hook: ok"} {
		if !strings.Contains(g.stderr.String(), "forgectl: error: cannot append to the audit trail ("+h+")") {
			t.Errorf("the log does not report the lost line of %s:\n%s", h, g.stderr)
		}
	}
	// The hooks ran, so the version is recorded: a rerun would repeat them.
	if s := g.state(); s.Version != "2.1.2" {
		t.Fatalf("recorded %q", s.Version)
	}
}

func TestSignalDuringAVersionReadIsReportedAsOne(t *testing.T) {
	for _, dry := range []bool{false, true} {
		t.Run(map[bool]string{false: "run", true: "dry run"}[dry], func(t *testing.T) {
			g := newRig(t)
			g.install("2.1.1")
			g.run()
			g.r.ReadVersion = func(ctx context.Context) (string, error) {
				<-ctx.Done()
				return "", fmt.Errorf("claude --version: %w", ctx.Err())
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if code := g.r.Run(ctx, dry); code != 1 {
				t.Fatalf("exit %d", code)
			}
			if got := g.stderr.String(); !strings.Contains(got, "forgectl: stopped by a signal") || strings.Contains(got, "cannot read") {
				t.Fatalf("log:\n%s", got)
			}
		})
	}
}

// watcher.log (and its rotated copy) can hold a bare token; each run makes
// them owner-only before moving or writing them, as it does the directory.
func TestRunMakesTheWatcherLogOwnerOnly(t *testing.T) {
	g := newRig(t)
	g.install("2.1.1")
	loose := map[string]os.FileMode{g.files.Dir: 0o755, g.files.WatcherLog(): 0o644, g.files.WatcherLogRotated(): 0o644}
	if err := os.MkdirAll(g.files.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, mode := range loose {
		if mode == 0o644 {
			if err := os.WriteFile(p, []byte("older\n"), mode); err != nil {
				t.Fatal(err)
			}
		}
		// Chmod, as WriteFile and MkdirAll go through the umask.
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if code := g.run(); code != 0 {
		t.Fatalf("exit %d\n%s", code, g.stderr)
	}
	got := map[string]os.FileMode{}
	for _, p := range []string{g.files.Dir, g.files.WatcherLog(), g.files.WatcherLogRotated()} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.Base(p)] = st.Mode().Perm()
	}
	want := map[string]os.FileMode{"resume-hooks": 0o700, "watcher.log": 0o600, "watcher.log.1": 0o600}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("modes (-want +got):\n%s", d)
	}
}

func TestStranded(t *testing.T) {
	for _, tc := range []struct {
		s    Session
		want bool
	}{
		{Session{Outcome: "failed", Reason: "shell_not_back", Signalled: true, Command: "forgectl resume a"}, true},
		{Session{Outcome: "delivery_unknown", Signalled: true, Command: "forgectl resume a"}, true},
		{Session{Outcome: "failed", Reason: "relaunch_invalid", Signalled: false, Command: "forgectl resume a"}, false},
		{Session{Outcome: "resumed", Signalled: true}, false},
		{Session{Outcome: "waiting", Reason: "busy", Command: "forgectl resume a"}, false},
		{Session{Outcome: "skipped", Reason: "no_pane", Command: "forgectl resume a"}, false},
	} {
		if got := tc.s.Stranded(); got != tc.want {
			t.Errorf("%+v: Stranded() = %v", tc.s, got)
		}
	}
}
