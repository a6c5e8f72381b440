package herdr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/poll"
)

// stub is a tiny herdr stand-in: it logs its argv (one argument per line,
// then a blank line) and answers as $STUB_MODE says.
const stub = `#!/bin/sh
for a in "$@"; do printf '%s\n' "$a" >> "$STUB_DIR/argv"; done
echo >> "$STUB_DIR/argv"
case "$STUB_MODE" in
list)
  printf '%s\n' '{"id":"cli:pane:list","result":{"panes":[{"agent":"claude","agent_session":{"agent":"claude","kind":"id","source":"herdr:claude","value":"s-1"},"agent_status":"idle","focused":true,"pane_id":"w1:p1","revision":3,"scroll":{"max_offset_from_bottom":40,"offset_from_bottom":0,"viewport_rows":50},"tab_id":"w1:t1","terminal_id":"t1","workspace_id":"w1"},{"agent_status":"unknown","focused":false,"pane_id":"w1:p2","revision":0,"tab_id":"w1:t1","terminal_id":"t2","workspace_id":"w1"}],"type":"pane_list"}}' ;;
get)
  printf '%s\n' '{"id":"cli:pane:get","result":{"pane":{"agent_status":"idle","focused":false,"pane_id":"w1:p2","revision":1,"scroll":{"max_offset_from_bottom":9,"offset_from_bottom":4,"viewport_rows":50},"tab_id":"w1:t1","terminal_id":"t2","workspace_id":"w1"},"type":"pane_info"}}' ;;
procinfo)
  printf '%s\n' '{"id":"cli:pane:process_info","result":{"process_info":{"foreground_process_group_id":4242,"foreground_processes":[{"argv":["claude"],"argv0":"claude","cmdline":"claude","name":"claude","pid":4242}],"pane_id":"w1:p1","shell_pid":4000},"type":"pane_process_info"}}' ;;
read) printf '\033[2mghost\033[0m\n❯ x' ;;
silent) ;;
notfound)
  printf '%s\n' '{"error":{"code":"pane_not_found","message":"pane w9:p9 not found"},"id":"cli:pane:get"}' >&2; exit 1 ;;
envelope0)
  printf '%s\n' '{"error":{"code":"pane_send_failed","message":"failed"},"id":"cli:pane:run"}'; exit 0 ;;
truncated)
  printf '%s' '{"error":{"code":"pane_not_fou' >&2; exit 1 ;;
trailing)
  printf '%s\n' '{"error":{"code":"pane_not_found","message":"x"},"id":"cli:pane:get"} and more' >&2; exit 1 ;;
plain)
  echo "thread 'main' panicked at src/cli.rs" >&2; exit 1 ;;
usage)
  echo "error: unexpected argument '--bogus'" >&2; exit 2 ;;
garbage) echo 'not json at all' ;;
wrongtype)
  printf '%s\n' '{"id":"cli:pane:get","result":{"pane":{"pane_id":"w1:p1"},"type":"pane_list"}}' ;;
hang)
  printf '%s\n' '{"error":{"code":"pane_not_found","message":"x"},"id":"cli:pane:run"}' >&2
  sleep 300 &
  # Renamed into place, so a test that sees the file sees the whole pid.
  echo $! > "$STUB_DIR/child.tmp" && mv "$STUB_DIR/child.tmp" "$STUB_DIR/child"
  wait ;;
esac
`

func newStub(t *testing.T, mode string) (Client, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "herdr")
	if err := os.WriteFile(bin, []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "STUB_MODE="+mode, "STUB_DIR="+dir)
	return Client{Binary: bin, Env: env, Timeout: 5 * time.Second}, dir
}

func argv(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "argv"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n")
}

func TestPaneList(t *testing.T) {
	c, dir := newStub(t, "list")
	panes, err := c.PaneList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []Pane{
		{PaneID: "w1:p1", WorkspaceID: "w1", TabID: "w1:t1", Agent: "claude", AgentStatus: "idle",
			AgentSession: &AgentSession{Agent: "claude", Kind: "id", Source: "herdr:claude", Value: "s-1"},
			Scroll:       &Scroll{MaxOffsetFromBottom: 40, ViewportRows: 50}},
		{PaneID: "w1:p2", WorkspaceID: "w1", TabID: "w1:t1", AgentStatus: "unknown"},
	}
	if d := cmp.Diff(want, panes); d != "" {
		t.Errorf("panes (-want +got):\n%s", d)
	}
	if got := []string{panes[0].ClaudeSession(), panes[1].ClaudeSession()}; !cmp.Equal(got, []string{"s-1", ""}) {
		t.Errorf("ClaudeSession = %q", got)
	}
	if d := cmp.Diff([]string{"pane", "list"}, argv(t, dir)); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
}

func TestPaneGetScrolled(t *testing.T) {
	c, dir := newStub(t, "get")
	p, err := c.PaneGet(context.Background(), "w1:p2")
	if err != nil {
		t.Fatal(err)
	}
	if !p.ScrolledBack() || p.ClaudeSession() != "" {
		t.Errorf("pane %+v: want scrolled back, no session", p)
	}
	if d := cmp.Diff([]string{"pane", "get", "w1:p2"}, argv(t, dir)); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
}

func TestProcessInfo(t *testing.T) {
	c, dir := newStub(t, "procinfo")
	pi, err := c.ProcessInfo(context.Background(), "w1:p1")
	if err != nil {
		t.Fatal(err)
	}
	if !pi.InForeground(4242) || pi.InForeground(4000) || pi.ShellForeground() {
		t.Errorf("process info %+v: want 4242 in the foreground, not the shell", pi)
	}
	if d := cmp.Diff([]string{"pane", "process-info", "--pane", "w1:p1"}, argv(t, dir)); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
}

func TestForeground(t *testing.T) {
	cases := []struct {
		name      string
		pi        ProcessInfo
		pid       int
		fg, shell bool
	}{
		{"group leader", ProcessInfo{ShellPid: 10, ForegroundProcessGroupID: 20}, 20, true, false},
		{"leader, listed with a child", ProcessInfo{ShellPid: 10, ForegroundProcessGroupID: 20, ForegroundProcesses: []ForegroundProcess{{Pid: 20}, {Pid: 21}}}, 20, true, false},
		// A nested claude runs in its parent's foreground job: listed, not leading.
		{"listed member, not the leader", ProcessInfo{ShellPid: 10, ForegroundProcessGroupID: 20, ForegroundProcesses: []ForegroundProcess{{Pid: 20}, {Pid: 21}}}, 21, false, false},
		{"another group", ProcessInfo{ShellPid: 10, ForegroundProcessGroupID: 30}, 20, false, false},
		{"shell at prompt", ProcessInfo{ShellPid: 10, ForegroundProcessGroupID: 10}, 10, false, true},
		{"nothing known", ProcessInfo{}, 20, false, false},
	}
	for _, c := range cases {
		if fg, sh := c.pi.InForeground(c.pid), c.pi.ShellForeground(); fg != c.fg || sh != c.shell {
			t.Errorf("%s: InForeground=%v ShellForeground=%v, want %v %v", c.name, fg, sh, c.fg, c.shell)
		}
	}
}

func TestReadKeepsANSI(t *testing.T) {
	c, dir := newStub(t, "read")
	s, err := c.ReadVisible(context.Background(), "w1:p1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\x1b[2mghost\x1b[0m\n❯ x"; s != want {
		t.Errorf("read = %q, want %q", s, want)
	}
	if d := cmp.Diff([]string{"pane", "read", "w1:p1", "--source", "visible", "--ansi"}, argv(t, dir)); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
}

func TestRunAndSendKeysArgv(t *testing.T) {
	c, dir := newStub(t, "silent")
	line := "'/opt/my tools/forgectl' resume 1fc9d747 -- x"
	if err := c.Run(context.Background(), "w1:p1", line); err != nil {
		t.Fatal(err)
	}
	if err := c.SendKeys(context.Background(), "w1:p1", "ctrl+u"); err != nil {
		t.Fatal(err)
	}
	want := []string{"pane", "run", "w1:p1", line, "", "pane", "send-keys", "w1:p1", "ctrl+u"}
	if d := cmp.Diff(want, argv(t, dir)); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
}

func TestErrorClassification(t *testing.T) {
	type result struct {
		API     string // the code of an *APIError
		Call    bool   // a *CallError
		Exit    int
		Timeout bool
	}
	cases := []struct {
		mode string
		want result
	}{
		{"notfound", result{API: "pane_not_found"}},
		{"envelope0", result{API: "pane_send_failed"}},
		{"truncated", result{Call: true, Exit: 1}},
		{"trailing", result{Call: true, Exit: 1}},
		{"plain", result{Call: true, Exit: 1}},
		{"usage", result{Call: true, Exit: 2}},
		{"garbage", result{Call: true, Exit: 0}},
		{"wrongtype", result{Call: true, Exit: 0}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			cl, _ := newStub(t, c.mode)
			_, err := cl.PaneGet(context.Background(), "w9:p9")
			var got result
			var ae *APIError
			var ce *CallError
			switch {
			case errors.As(err, &ae):
				got.API = ae.Code
			case errors.As(err, &ce):
				got.Call, got.Exit = true, ce.Exit
			case IsTimeout(err):
				got.Timeout = true
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("error %v (-want +got):\n%s", err, d)
			}
			if IsCode(err, CodePaneNotFound) != (c.want.API == CodePaneNotFound) {
				t.Errorf("IsCode(pane_not_found) wrong for %v", err)
			}
		})
	}
}

// A call past its bound is killed with its whole process group, and what it
// printed (even a well-formed error envelope) is not read as a code.
func TestHungCallKilledAsGroup(t *testing.T) {
	c, dir := newStub(t, "hang")
	c.Timeout = 300 * time.Millisecond
	err := c.Run(context.Background(), "w1:p1", "x")
	if !IsTimeout(err) || IsCode(err, CodePaneNotFound) {
		t.Fatalf("err = %v, want a timeout and no code", err)
	}
	var te *TimeoutError
	if errors.As(err, &te); te.Canceled {
		t.Errorf("timeout reported as cancellation: %v", err)
	}
	assertChildGone(t, dir)
}

func TestCanceledCall(t *testing.T) {
	c, dir := newStub(t, "hang")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "child")); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := c.PaneList(ctx)
	var te *TimeoutError
	if !errors.As(err, &te) || !te.Canceled {
		t.Fatalf("err = %v, want a cancelled call", err)
	}
	assertChildGone(t, dir)
}

func assertChildGone(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The group was sent SIGKILL; give the kernel a moment to reap it.
	if poll.Wait(poll.Long, func() bool {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err == nil && strings.Contains(string(st), ") Z ") // a zombie: dead, waiting for its reaper
	}) {
		return
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("the hung call's child %d survived", pid)
}

func TestMissingBinary(t *testing.T) {
	for _, bin := range []string{"", filepath.Join(t.TempDir(), "nope")} {
		_, err := Client{Binary: bin}.PaneList(context.Background())
		var ce *CallError
		if !errors.As(err, &ce) || ce.Exit != -1 {
			t.Errorf("binary %q: err = %v, want a CallError that did not run", bin, err)
		}
	}
}
