package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %q: %v", s, err)
	}
	return m
}

// oneLine checks a success reply: exactly one compact JSON line with sorted
// keys on stdout and nothing on stderr.
func oneLine(t *testing.T, res result) map[string]any {
	t.Helper()
	if res.code != 0 || res.stderr != "" {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if !strings.HasSuffix(res.stdout, "\n") || strings.Count(res.stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line: %q", res.stdout)
	}
	assertSortedKeys(t, res.stdout)
	if strings.Contains(res.stdout, "null") {
		t.Errorf("null in output: %s", res.stdout)
	}
	return decode(t, res.stdout)
}

func wantAPIError(t *testing.T, res result, id, code, message string) {
	t.Helper()
	want := fmt.Sprintf(`{"error":{"code":%q,"message":%q},"id":%q}`+"\n", code, message, id)
	if res.code != 1 || res.stdout != "" || res.stderr != want {
		t.Errorf("got exit %d stdout %q stderr %q; want exit 1 with stderr %q", res.code, res.stdout, res.stderr, want)
	}
}

func TestPaneListShape(t *testing.T) {
	r := newRig(t)
	c1, reg := r.claudePane()
	c2 := r.createPane()

	got := oneLine(t, r.herdr("pane", "list"))
	// max_offset_from_bottom is tmux's scrollback size, which depends on
	// how the shells drew; check its type and drop it.
	for _, p := range got["result"].(map[string]any)["panes"].([]any) {
		sc := p.(map[string]any)["scroll"].(map[string]any)
		if _, ok := sc["max_offset_from_bottom"].(float64); !ok {
			t.Errorf("scroll without max_offset_from_bottom: %v", sc)
		}
		delete(sc, "max_offset_from_bottom")
	}
	want := map[string]any{
		"id": "cli:pane:list",
		"result": map[string]any{
			"type": "pane_list",
			"panes": []any{
				map[string]any{
					"agent": "claude",
					"agent_session": map[string]any{
						"agent": "claude", "kind": "id", "source": "herdr:claude", "value": reg.SessionID,
					},
					"agent_status": "idle", "cwd": r.work, "focused": true, "foreground_cwd": r.work,
					"pane_id": c1.PaneID, "revision": 1.0,
					"scroll": map[string]any{"offset_from_bottom": 0.0, "viewport_rows": 40.0},
					"tab_id": "w1:t1", "terminal_id": "term-1", "workspace_id": "w1",
				},
				map[string]any{
					"agent_status": "unknown", "cwd": r.work, "focused": false, "foreground_cwd": r.work,
					"pane_id": c2.PaneID, "revision": 1.0,
					"scroll": map[string]any{"offset_from_bottom": 0.0, "viewport_rows": 40.0},
					"tab_id": "w1:t1", "terminal_id": "term-2", "workspace_id": "w1",
				},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pane list (-want +got):\n%s", diff)
	}
	if c1.PaneID != "w1:p1" || c2.PaneID != "w1:p2" {
		t.Errorf("pane ids %s, %s; want w1:p1, w1:p2", c1.PaneID, c2.PaneID)
	}

	get := oneLine(t, r.herdr("pane", "get", "w1:p2"))
	if diff := cmp.Diff(want["result"].(map[string]any)["panes"].([]any)[1], deleteScrollMax(get["result"].(map[string]any)["pane"])); diff != "" {
		t.Errorf("pane get (-want +got):\n%s", diff)
	}
	if get["id"] != "cli:pane:get" || get["result"].(map[string]any)["type"] != "pane_info" {
		t.Errorf("pane get envelope: %v", get)
	}

	empty := oneLine(t, r.herdr("pane", "list", "--workspace", "w1"))
	if n := len(empty["result"].(map[string]any)["panes"].([]any)); n != 2 {
		t.Errorf("--workspace w1 listed %d panes", n)
	}
	wantAPIError(t, r.herdr("pane", "list", "--workspace", "w9"), "cli:pane:list", "workspace_not_found", "workspace w9 not found")
}

func deleteScrollMax(p any) any {
	delete(p.(map[string]any)["scroll"].(map[string]any), "max_offset_from_bottom")
	return p
}

func TestPaneEnvironment(t *testing.T) {
	r := newRig(t)
	c := r.createPane("--env", "EXTRA=1", "--env", "PATH=/opt/pane-bin:/usr/bin:/bin")
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", c.ShellPID))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	want := map[string]string{
		"HERDR_ENV": "1", "HERDR_SOCKET_PATH": r.sock, "HERDR_PANE_ID": "w1:p1", "HERDR_TAB_ID": "w1:t1",
		"HERDR_WORKSPACE_ID": "w1", "FAKEHERDR_STATE": r.state, "FAKEHERDR_TMUX": r.tmux, "EXTRA": "1",
		"PATH": "/opt/pane-bin:/usr/bin:/bin",
	}
	got := map[string]string{}
	for k := range want {
		got[k] = env[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pane environment (-want +got):\n%s", diff)
	}
	if _, ok := env["CALLER_VAR"]; ok {
		t.Error("first pane has a variable only the second create-pane call had")
	}

	// Each pane gets the environment of its own create-pane call.
	res := r.herdrEnv([]string{"CALLER_VAR=second"}, "admin", "create-pane")
	var c2 created
	if err := json.Unmarshal([]byte(res.stdout), &c2); err != nil {
		t.Fatalf("create-pane: %+v", res)
	}
	if v, _ := procEnv(c2.ShellPID, "CALLER_VAR"); v != "second" {
		t.Errorf("second pane CALLER_VAR = %q", v)
	}
	if v, _ := procEnv(c2.ShellPID, "HERDR_PANE_ID"); v != "w1:p2" {
		t.Errorf("second pane HERDR_PANE_ID = %q", v)
	}
}

func TestProcessInfoFollowsForeground(t *testing.T) {
	r := newRig(t)
	c, reg := r.claudePane()

	for _, args := range [][]string{
		{"pane", "process-info", "--pane", c.PaneID},
		{"pane", "process-info"}, // the focused pane
	} {
		got := oneLine(t, r.herdr(args...))
		if got["id"] != "cli:pane:process_info" || got["result"].(map[string]any)["type"] != "pane_process_info" {
			t.Errorf("%v envelope: %v", args, got)
		}
		pi := got["result"].(map[string]any)["process_info"].(map[string]any)
		want := map[string]any{
			"pane_id": c.PaneID, "shell_pid": float64(c.ShellPID), "foreground_process_group_id": float64(reg.PID),
			"foreground_processes": []any{map[string]any{
				"pid": float64(reg.PID), "name": "claude", "argv0": "claude",
				"argv": []any{"claude", "--model", "opus"}, "cmdline": "claude --model opus", "cwd": r.work,
			}},
		}
		if diff := cmp.Diff(want, pi); diff != "" {
			t.Errorf("%v (-want +got):\n%s", args, diff)
		}
	}
	cur := oneLine(t, r.herdrEnv([]string{"HERDR_PANE_ID=" + c.PaneID}, "pane", "process-info", "--current"))
	if cur["result"].(map[string]any)["process_info"].(map[string]any)["pane_id"] != c.PaneID {
		t.Errorf("--current answered for the wrong pane: %v", cur)
	}

	if err := syscall.Kill(reg.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rigPoll.Until(t, rigWait, "the shell to hold the foreground again", func() (bool, string) {
		res := r.herdr("pane", "process-info", "--pane", c.PaneID)
		var m struct {
			Result struct {
				ProcessInfo struct {
					PGID  int `json:"foreground_process_group_id"`
					Shell int `json:"shell_pid"`
					Procs []struct {
						Name string `json:"name"`
					} `json:"foreground_processes"`
				} `json:"process_info"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(res.stdout), &m)
		pi := m.Result.ProcessInfo
		return pi.PGID == c.ShellPID && pi.Shell == c.ShellPID && len(pi.Procs) == 1 && pi.Procs[0].Name == "bash", res.stdout
	})
	if _, ok := r.registry(reg.PID); ok {
		t.Error("registry file left after SIGTERM")
	}
	// herdr forgets the agent and its session once the process is gone.
	p := deleteScrollMax(oneLine(t, r.herdr("pane", "get", c.PaneID))["result"].(map[string]any)["pane"]).(map[string]any)
	for _, k := range []string{"agent", "agent_session"} {
		if _, ok := p[k]; ok {
			t.Errorf("%s still reported after claude exited: %v", k, p)
		}
	}
	if p["agent_status"] != "unknown" {
		t.Errorf("agent_status = %v, want unknown", p["agent_status"])
	}
}

func TestReadAndTypeIntoClaude(t *testing.T) {
	r := newRig(t)
	record := filepath.Join(t.TempDir(), "record.jsonl")
	c, reg := r.claudePane("FAKECLAUDE_RECORD="+record, "FAKECLAUDE_BUSY_MS=200")

	draft := func() string {
		res := r.herdr("pane", "read", c.PaneID, "--source", "visible")
		if res.code != 0 || res.stderr != "" {
			t.Fatalf("pane read: exit %d stderr %q", res.code, res.stderr)
		}
		d, ok := promptDraft(res.stdout)
		if !ok {
			return "<no box>\n" + res.stdout
		}
		return d
	}
	waitDraft := func(want string) {
		t.Helper()
		rigPoll.Until(t, rigWait, fmt.Sprintf("draft %q", want), func() (bool, string) {
			d := draft()
			return d == want, d
		})
	}
	waitDraft("")
	scr := r.herdr("pane", "read", c.PaneID, "--source", "visible").stdout
	if !strings.Contains(scr, "❯\u00a0") || strings.HasSuffix(scr, "\n\n\n") == false {
		t.Errorf("visible screen lacks the prompt or the blank rows below it:\n%q", scr)
	}

	send := func(args ...string) {
		t.Helper()
		res := r.herdr(args...)
		if res.code != 0 || res.stdout != "" || res.stderr != "" {
			t.Fatalf("%v: exit %d stdout %q stderr %q", args, res.code, res.stdout, res.stderr)
		}
	}
	send("pane", "send-text", c.PaneID, "hello", "wörld;")
	waitDraft("hello wörld;")
	send("pane", "send-keys", c.PaneID, "backspace", "BackSpace")
	waitDraft("hello wörl")
	send("pane", "send-keys", c.PaneID, "ctrl+u")
	waitDraft("")
	send("pane", "send-keys", c.PaneID, "h", "i", "minus", "plus")
	waitDraft("hi-+")
	send("pane", "send-keys", c.PaneID, "enter")
	waitDraft("")
	rigPoll.Until(t, rigWait, "the submit, busy and idle again in the record", func() (bool, string) {
		var seen []string
		for _, ev := range readJSONL(t, record) {
			switch ev["event"] {
			case "submit":
				seen = append(seen, "submit:"+ev["text"].(string))
			case "status":
				seen = append(seen, ev["status"].(string))
			}
		}
		return cmp.Equal(seen, []string{"submit:hi-+", "busy", "idle"}), fmt.Sprint(seen)
	})

	typed := readJSONL(t, filepath.Join(r.state, "typed.jsonl"))
	var got []string
	for _, e := range typed {
		if e["pane_id"] != c.PaneID || e["tmux_pane"] != c.TmuxPane {
			t.Errorf("typed record for the wrong pane: %v", e)
		}
		if e["verb"] == "send-text" {
			got = append(got, fmt.Sprintf("send-text %q", e["text"]))
		} else {
			got = append(got, fmt.Sprintf("%s %v", e["verb"], e["keys"]))
		}
	}
	want := []string{`send-text "hello wörld;"`, "send-keys [backspace BackSpace]", "send-keys [ctrl+u]",
		"send-keys [h i minus plus]", "send-keys [enter]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("typed.jsonl (-want +got):\n%s", diff)
	}

	// Status follows the registry: SIGUSR1 toggles fakeclaude's busy flag.
	status := func() string {
		return oneLine(t, r.herdr("pane", "get", c.PaneID))["result"].(map[string]any)["pane"].(map[string]any)["agent_status"].(string)
	}
	syscall.Kill(reg.PID, syscall.SIGUSR1)
	rigPoll.Until(t, rigWait, "agent_status working", func() (bool, string) { s := status(); return s == "working", s })
	syscall.Kill(reg.PID, syscall.SIGUSR1)
	rigPoll.Until(t, rigWait, "agent_status idle", func() (bool, string) { s := status(); return s == "idle", s })

	// A bad key anywhere in the list means nothing is typed at all.
	before := len(readJSONL(t, filepath.Join(r.state, "typed.jsonl")))
	wantAPIError(t, r.herdr("pane", "send-keys", c.PaneID, "x", "nosuchkey"), "cli:pane:send_keys", "invalid_key", "unsupported key nosuchkey")
	if after := len(readJSONL(t, filepath.Join(r.state, "typed.jsonl"))); after != before {
		t.Errorf("typed.jsonl grew after an invalid key")
	}
	send("pane", "send-text", c.PaneID, "z")
	waitDraft("z")
}

func TestDimSuggestionOnlyVisibleWithANSI(t *testing.T) {
	r := newRig(t)
	c, _ := r.claudePane("FAKECLAUDE_SUGGESTION=write a test")
	plain := r.herdr("pane", "read", c.PaneID, "--source", "visible")
	if d, ok := promptDraft(plain.stdout); !ok || d != "write a test" {
		t.Errorf("plain read: draft %q, %v (ghost text should look like a draft without ANSI)", d, ok)
	}
	for _, flag := range [][]string{{"--ansi"}, {"--format", "ansi"}, {"--raw"}} {
		ansi := r.herdr(append([]string{"pane", "read", c.PaneID, "--source", "visible"}, flag...)...)
		if !strings.Contains(ansi.stdout, "\x1b[2mwrite a test") {
			t.Errorf("%v read lacks the dim attribute: %q", flag, ansi.stdout)
		}
	}
}

func TestRunTypesLineAndEnter(t *testing.T) {
	r := newRig(t)
	c := r.createPane()
	res := r.herdr("pane", "run", c.PaneID, "echo", "one", "--", "two  three;", "echo", "four")
	if res.code != 0 || res.stdout != "" || res.stderr != "" {
		t.Fatalf("pane run: %+v", res)
	}
	rigPoll.Until(t, rigWait, "the command's output", func() (bool, string) {
		scr := r.herdr("pane", "read", c.PaneID, "--source", "visible").stdout
		return strings.Contains(scr, "$ echo one -- two  three; echo four\none -- two three\nfour\n"), scr
	})
	typed := readJSONL(t, filepath.Join(r.state, "typed.jsonl"))
	want := []map[string]any{{"bracketed_paste": false, "enter": true, "pane_id": c.PaneID, "text": "echo one -- two  three; echo four", "tmux_pane": c.TmuxPane, "verb": "run"}}
	for _, e := range typed {
		delete(e, "time")
	}
	if diff := cmp.Diff(want, typed); diff != "" {
		t.Errorf("typed.jsonl (-want +got):\n%s", diff)
	}

	r.admin("paste", c.PaneID, "on")
	r.herdr("pane", "run", c.PaneID, "echo", "pasted")
	rigPoll.Until(t, rigWait, "the pasted command's output", func() (bool, string) {
		scr := r.herdr("pane", "read", c.PaneID, "--source", "recent").stdout
		return strings.Contains(scr, "\npasted\n"), scr
	})
	typed = readJSONL(t, filepath.Join(r.state, "typed.jsonl"))
	if last := typed[len(typed)-1]; last["bracketed_paste"] != true || last["text"] != "echo pasted" {
		t.Errorf("bracketed run recorded as %v", last)
	}

	b, _ := os.ReadFile(filepath.Join(r.state, "calls.jsonl"))
	if !strings.HasPrefix(string(b), `["pane","run","w1:p1","echo","one","--","two  three;","echo","four"]`+"\n") {
		t.Errorf("calls.jsonl starts %q", b)
	}
}

func TestReadSourcesAndScroll(t *testing.T) {
	r := newRig(t)
	c := r.createPane()
	r.herdr("pane", "run", c.PaneID, "seq", "1", "100")
	lines := func(args ...string) []string {
		res := r.herdr(append([]string{"pane", "read", c.PaneID}, args...)...)
		if res.code != 0 {
			t.Fatalf("read %v: %+v", args, res)
		}
		return strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	}
	rigPoll.Until(t, rigWait, "seq output", func() (bool, string) {
		l := lines("--source", "visible")
		return len(l) == 40 && l[38] == "100" && l[39] == "$", strings.Join(l, "|")
	})
	if got := lines("--lines", "3"); !cmp.Equal(got, []string{"99", "100", "$"}) {
		t.Errorf("recent --lines 3 = %q", got)
	}
	if got := lines(); len(got) != 80 || got[78] != "100" {
		t.Errorf("recent gave %d lines ending %q", len(got), got[len(got)-2:])
	}
	if got := lines("--source", "visible", "--lines", "2"); !cmp.Equal(got, []string{"100", "$"}) {
		t.Errorf("visible --lines 2 = %q", got)
	}

	r.admin("scroll", c.PaneID, "10")
	if got := lines("--source", "visible"); len(got) != 40 || got[39] != "91" {
		t.Errorf("scrolled 10: %d lines ending %q", len(got), got[len(got)-1])
	}
	p := oneLine(t, r.herdr("pane", "get", c.PaneID))["result"].(map[string]any)["pane"].(map[string]any)
	sc := p["scroll"].(map[string]any)
	if sc["offset_from_bottom"] != 10.0 || sc["viewport_rows"] != 40.0 || sc["max_offset_from_bottom"].(float64) < 60 {
		t.Errorf("scroll = %v", sc)
	}
	if p["revision"] != 2.0 {
		t.Errorf("revision = %v after one admin change, want 2", p["revision"])
	}
}

func TestNotFoundAndServerErrors(t *testing.T) {
	r := newRig(t)
	r.createPane()
	for _, tc := range []struct {
		args []string
		id   string
	}{
		{[]string{"pane", "get", "w9:p9"}, "cli:pane:get"},
		{[]string{"pane", "read", "w9:p9", "--source", "visible"}, "cli:pane:read"},
		{[]string{"pane", "send-text", "w9:p9", "x"}, "cli:pane:send_text"},
		{[]string{"pane", "send-keys", "w9:p9", "enter"}, "cli:pane:send_keys"},
		{[]string{"pane", "run", "w9:p9", "true"}, "cli:pane:run"},
		{[]string{"pane", "rename", "w9:p9", "x"}, "cli:pane:rename"},
	} {
		wantAPIError(t, r.herdr(tc.args...), tc.id, "pane_not_found", "pane w9:p9 not found")
	}
	wantAPIError(t, r.herdr("pane", "process-info", "--pane", "w9:p9"), "cli:pane:process_info", "pane_not_found", "pane not found")
	wantAPIError(t, r.herdrEnv([]string{"HERDR_PANE_ID=w9:p9"}, "pane", "process-info", "--current"), "cli:pane:process_info", "pane_not_found", "pane not found")

	missing := filepath.Join(t.TempDir(), "nope.sock")
	wantAPIError(t, r.herdrEnv([]string{"HERDR_SOCKET_PATH=" + missing}, "pane", "list"), "cli:pane:list", "server_not_running",
		"no herdr server is running at "+missing+"; run `herdr` to start or attach it")
	plain := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(plain, nil, 0o600)
	wantAPIError(t, r.herdrEnv([]string{"HERDR_SOCKET_PATH=" + plain}, "pane", "get", "w1:p1"), "cli:pane:get", "server_not_running",
		"no herdr server is running at "+plain+"; run `herdr` to start or attach it")
	// A socket file nobody listens on any more.
	dead, _ := os.MkdirTemp("", "fhd")
	defer os.RemoveAll(dead)
	ln, err := net.Listen("unix", filepath.Join(dead, "s"))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	wantAPIError(t, r.herdrEnv([]string{"HERDR_SOCKET_PATH=" + filepath.Join(dead, "s")}, "pane", "list"), "cli:pane:list", "server_not_running",
		"no herdr server is running at "+filepath.Join(dead, "s")+"; run `herdr` to start or attach it")
	xdg := t.TempDir()
	wantAPIError(t, r.herdrEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "--session", "work", "pane", "list"), "cli:pane:list", "server_not_running",
		"no herdr server is running at "+filepath.Join(xdg, "herdr", "sessions", "work", "herdr.sock")+"; run `herdr session attach work` to start or attach it")

	// Usage errors are plain text, exit 2, and still recorded.
	res := r.herdr("pane", "get")
	if res.code != 2 || res.stdout != "" || strings.HasPrefix(res.stderr, "{") {
		t.Errorf("usage error: %+v", res)
	}
	b, _ := os.ReadFile(filepath.Join(r.state, "calls.jsonl"))
	if !strings.HasSuffix(string(b), "[\"pane\",\"get\"]\n") {
		t.Errorf("usage error not recorded; calls.jsonl ends %q", b)
	}
}

func TestRenumberAfterServerRestart(t *testing.T) {
	r := newRig(t)
	c1, reg := r.claudePane()
	c2 := r.createPane()
	out := r.admin("renumber")
	var mapping map[string]string
	json.Unmarshal([]byte(out), &mapping)
	if diff := cmp.Diff(map[string]string{"w1:p1": "w1:p3", "w1:p2": "w1:p4"}, mapping); diff != "" {
		t.Fatalf("renumber mapping (-want +got):\n%s", diff)
	}
	wantAPIError(t, r.herdr("pane", "get", c1.PaneID), "cli:pane:get", "pane_not_found", "pane w1:p1 not found")
	wantAPIError(t, r.herdrEnv([]string{"HERDR_PANE_ID=w1:p1"}, "pane", "process-info", "--current"), "cli:pane:process_info", "pane_not_found", "pane not found")

	list := oneLine(t, r.herdr("pane", "list"))
	panes := list["result"].(map[string]any)["panes"].([]any)
	first := panes[0].(map[string]any)
	if first["pane_id"] != "w1:p3" || first["terminal_id"] != "term-3" || first["agent_session"].(map[string]any)["value"] != reg.SessionID || first["focused"] != true {
		t.Errorf("renumbered claude pane: %v", first)
	}
	// The process keeps the id it was started with.
	if v, _ := procEnv(reg.PID, "HERDR_PANE_ID"); v != "w1:p1" {
		t.Errorf("claude's HERDR_PANE_ID = %q, want the stale w1:p1", v)
	}

	// Id reuse: another pane takes the old id; its shell pid differs.
	r.admin("set-id", "w1:p4", "w1:p1")
	pi := oneLine(t, r.herdr("pane", "process-info", "--pane", "w1:p1"))["result"].(map[string]any)["process_info"].(map[string]any)
	if pi["shell_pid"] != float64(c2.ShellPID) || c2.ShellPID == c1.ShellPID {
		t.Errorf("w1:p1 now has shell %v, want %d", pi["shell_pid"], c2.ShellPID)
	}
	if res := r.herdr("admin", "set-id", "w1:p3", "w1:p1"); res.code != 1 {
		t.Errorf("set-id onto a taken id: %+v", res)
	}
}

func TestTwoPanesOneSessionAndOverrides(t *testing.T) {
	r := newRig(t)
	c1, reg := r.claudePane()
	c2 := r.createPane()
	r.admin("session", c2.PaneID, "--same-as", c1.PaneID)
	sessions := func() []string {
		var out []string
		for _, p := range oneLine(t, r.herdr("pane", "list"))["result"].(map[string]any)["panes"].([]any) {
			s, _ := p.(map[string]any)["agent_session"].(map[string]any)
			out = append(out, fmt.Sprint(s["value"]))
		}
		return out
	}
	if got := sessions(); !cmp.Equal(got, []string{reg.SessionID, reg.SessionID}) {
		t.Errorf("after --same-as: %q", got)
	}
	r.admin("session", c1.PaneID, "--none")
	r.admin("session", c2.PaneID, "--value", "11111111-2222-4333-8444-555555555555")
	if got := sessions(); !cmp.Equal(got, []string{"<nil>", "11111111-2222-4333-8444-555555555555"}) {
		t.Errorf("after --none/--value: %q", got)
	}
	p1 := oneLine(t, r.herdr("pane", "get", c1.PaneID))["result"].(map[string]any)["pane"].(map[string]any)
	if p1["agent"] != "claude" {
		t.Errorf("agent without integration = %v, want claude (detected from the process)", p1["agent"])
	}
	r.admin("session", c1.PaneID, "--auto")

	r.admin("label", c1.PaneID, "main")
	r.admin("status", c1.PaneID, "blocked")
	r.admin("focus", c2.PaneID)
	p1 = oneLine(t, r.herdr("pane", "get", c1.PaneID))["result"].(map[string]any)["pane"].(map[string]any)
	p2 := oneLine(t, r.herdr("pane", "get", c2.PaneID))["result"].(map[string]any)["pane"].(map[string]any)
	if p1["label"] != "main" || p1["agent_status"] != "blocked" || p1["focused"] != false || p2["focused"] != true {
		t.Errorf("overrides not reported: p1 %v p2 %v", p1, p2)
	}
	if p1["agent_session"].(map[string]any)["value"] != reg.SessionID {
		t.Errorf("--auto did not restore the session: %v", p1["agent_session"])
	}
	pi := oneLine(t, r.herdr("pane", "process-info"))["result"].(map[string]any)["process_info"].(map[string]any)
	if pi["pane_id"] != c2.PaneID {
		t.Errorf("process-info without a pane answered for %v, want the focused %s", pi["pane_id"], c2.PaneID)
	}
	r.admin("status", c1.PaneID, "--auto")
	r.admin("label", c1.PaneID, "--clear")
	ren := oneLine(t, r.herdr("pane", "rename", c1.PaneID, "renamed"))
	if ren["id"] != "cli:pane:rename" || ren["result"].(map[string]any)["pane"].(map[string]any)["label"] != "renamed" {
		t.Errorf("rename: %v", ren)
	}
}

func TestScriptedFaults(t *testing.T) {
	r := newRig(t)
	c := r.createPane()
	r.admin("fault", "send-text", "--error", "pane_send_failed")
	wantAPIError(t, r.herdr("pane", "send-text", c.PaneID, "x"), "cli:pane:send_text", "pane_send_failed", "failed to send input to pane")
	if res := r.herdr("pane", "send-text", c.PaneID, "x"); res.code != 0 {
		t.Errorf("fault did not expire after one call: %+v", res)
	}

	r.admin("fault", "list", "--error", "protocol_mismatch", "--message", "client 2, server 3", "--exit0")
	res := r.herdr("pane", "list")
	if res.code != 0 || res.stderr != "" || res.stdout != `{"error":{"code":"protocol_mismatch","message":"client 2, server 3"},"id":"cli:pane:list"}`+"\n" {
		t.Errorf("exit-0 error envelope: %+v", res)
	}

	r.admin("fault", "get", "--truncated")
	res = r.herdr("pane", "get", c.PaneID)
	if res.code != 1 || res.stdout != "" || res.stderr == "" || json.Valid([]byte(res.stderr)) {
		t.Errorf("truncated: %+v", res)
	}

	r.admin("fault", "read", "--stderr", "thread 'main' panicked\n", "--exit", "101")
	res = r.herdr("pane", "read", c.PaneID)
	if res.code != 101 || res.stderr != "thread 'main' panicked\n" || res.stdout != "" {
		t.Errorf("raw stderr: %+v", res)
	}
	r.admin("fault", "list", "--stdout", "<html>garbage")
	if res = r.herdr("pane", "list"); res.code != 0 || res.stdout != "<html>garbage" {
		t.Errorf("raw stdout: %+v", res)
	}

	r.admin("fault", "any", "--pane", c.PaneID, "--times", "2", "--error", "timeout")
	other := r.createPane()
	if res = r.herdr("pane", "get", other.PaneID); res.code != 0 {
		t.Errorf("a fault for %s hit %s: %+v", c.PaneID, other.PaneID, res)
	}
	wantAPIError(t, r.herdr("pane", "get", c.PaneID), "cli:pane:get", "timeout", "timed out")
	wantAPIError(t, r.herdr("pane", "run", c.PaneID, "true"), "cli:pane:run", "timeout", "timed out")
	if res = r.herdr("pane", "get", c.PaneID); res.code != 0 {
		t.Errorf("--times 2 lasted longer: %+v", res)
	}

	r.admin("fault", "process-info", "--times", "0", "--error", "server_not_running")
	for i := 0; i < 3; i++ {
		if res = r.herdr("pane", "process-info", "--pane", c.PaneID); res.code != 1 {
			t.Errorf("call %d escaped a --times 0 fault: %+v", i, res)
		}
	}
	var st struct {
		Faults []fault `json:"faults"`
	}
	json.Unmarshal([]byte(r.admin("state")), &st)
	if len(st.Faults) != 1 || st.Faults[0].Verb != "process-info" || st.Faults[0].Remaining != -1 {
		t.Errorf("state faults = %+v", st.Faults)
	}
	r.admin("clear-faults")
	if res = r.herdr("pane", "process-info", "--pane", c.PaneID); res.code != 0 {
		t.Errorf("after clear-faults: %+v", res)
	}
}

// startGroup starts fakeherdr in a process group of its own, the way the
// restart runner runs herdr.
func (r *rig) startGroup(args ...string) *exec.Cmd {
	r.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "fakeherdr"), args...)
	cmd.Env = r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	return cmd
}

func (r *rig) waitHang(n int) map[string]any {
	r.t.Helper()
	var hangs []map[string]any
	rigPoll.Until(r.t, rigWait, "the hang to start", func() (bool, string) {
		hangs = readJSONL(r.t, filepath.Join(r.state, "hangs.jsonl"))
		return len(hangs) >= n, fmt.Sprint(hangs)
	})
	return hangs[n-1]
}

func TestHangEndsOnlyWithAGroupKill(t *testing.T) {
	r := newRig(t)
	c := r.createPane()

	r.admin("fault", "list", "--hang", "--seconds", "120")
	cmd := r.startGroup("pane", "list")
	h := r.waitHang(1)
	parent, child := int(h["pid"].(float64)), int(h["child_pid"].(float64))
	if parent != cmd.Process.Pid || gone(child) {
		t.Fatalf("hang record %v for process %d", h, cmd.Process.Pid)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	rigPoll.Until(t, rigWait, "the hang's child to die with its group", func() (bool, string) { return gone(child), strconv.Itoa(child) })

	// Killing only the parent leaves the child: that is what makes a
	// caller's missing group kill observable.
	r.admin("fault", "get", "--hang", "--seconds", "120")
	cmd = r.startGroup("pane", "get", c.PaneID)
	h = r.waitHang(2)
	child = int(h["child_pid"].(float64))
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	if gone(child) {
		t.Errorf("child %d died although only its parent was killed", child)
	}
	syscall.Kill(child, syscall.SIGKILL)

	// A hang that runs out answers normally.
	r.admin("fault", "get", "--hang", "--seconds", "1")
	res := r.herdr("pane", "get", c.PaneID)
	if res.code != 0 || !strings.HasPrefix(res.stdout, `{"id":"cli:pane:get"`) {
		t.Errorf("after a short hang: %+v", res)
	}
}

func TestRunTypesThenHangs(t *testing.T) {
	r := newRig(t)
	c := r.createPane()
	r.admin("fault", "run", "--hang", "--after", "--seconds", "120")
	cmd := r.startGroup("pane", "run", c.PaneID, "echo", "typed-before-the-hang")
	h := r.waitHang(1)
	// By the time it hangs the line is typed and recorded.
	typed := readJSONL(t, filepath.Join(r.state, "typed.jsonl"))
	if len(typed) != 1 || typed[0]["text"] != "echo typed-before-the-hang" || typed[0]["enter"] != true {
		t.Errorf("typed.jsonl = %v", typed)
	}
	rigPoll.Until(t, rigWait, "the typed line to run", func() (bool, string) {
		scr := r.herdr("pane", "read", c.PaneID, "--source", "visible").stdout
		return strings.Contains(scr, "\ntyped-before-the-hang\n"), scr
	})
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("pane run ended with %v, want killed", err)
	}
	child := int(h["child_pid"].(float64))
	rigPoll.Until(t, rigWait, "the child to die", func() (bool, string) { return gone(child), "" })
}

func TestDeadPanesDisappear(t *testing.T) {
	r := newRig(t)
	c1 := r.createPane()
	c2 := r.createPane()
	r.herdr("pane", "run", c1.PaneID, "exit")
	rigPoll.Until(t, rigWait, "the exited pane to leave the list", func() (bool, string) {
		res := r.herdr("pane", "list")
		return strings.Count(res.stdout, `"pane_id"`) == 1 && strings.Contains(res.stdout, c2.PaneID), res.stdout
	})
	wantAPIError(t, r.herdr("pane", "get", c1.PaneID), "cli:pane:get", "pane_not_found", "pane w1:p1 not found")

	// With the last pane gone tmux exits; a new pane starts a new server.
	r.herdr("pane", "run", c2.PaneID, "exit")
	rigPoll.Until(t, rigWait, "an empty list", func() (bool, string) {
		res := r.herdr("pane", "list")
		return res.code == 0 && res.stdout == `{"id":"cli:pane:list","result":{"panes":[],"type":"pane_list"}}`+"\n", res.stdout + res.stderr
	})
	c3 := r.createPane()
	if c3.PaneID != "w1:p3" {
		t.Errorf("new pane id %s, want w1:p3 (numbers are never reused)", c3.PaneID)
	}
	if n := strings.Count(r.herdr("pane", "list").stdout, `"pane_id"`); n != 1 {
		t.Errorf("%d panes listed after a fresh server, want 1", n)
	}
	r.admin("close-pane", c3.PaneID)
	wantAPIError(t, r.herdr("pane", "get", c3.PaneID), "cli:pane:get", "pane_not_found", "pane w1:p3 not found")
}

func TestConcurrentInvocations(t *testing.T) {
	r := newRig(t)
	c := r.createPane()
	const n = 8
	errs := make(chan string, 2*n)
	for i := 0; i < n; i++ {
		go func() {
			res := r.herdrEnv(nil, "admin", "label", c.PaneID, fmt.Sprint("l", i))
			errs <- res.stderr
		}()
		go func() {
			res := r.herdrEnv(nil, "pane", "list")
			if res.code != 0 || !json.Valid([]byte(res.stdout)) {
				errs <- fmt.Sprintf("list: %+v", res)
				return
			}
			errs <- ""
		}()
	}
	for i := 0; i < 2*n; i++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	b, _ := os.ReadFile(filepath.Join(r.state, "calls.jsonl"))
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != n {
		t.Errorf("calls.jsonl has %d lines, want %d", len(lines), n)
	}
	for _, l := range lines {
		if l != `["pane","list"]` {
			t.Errorf("calls.jsonl line %q", l)
		}
	}
	p := oneLine(t, r.herdr("pane", "get", c.PaneID))["result"].(map[string]any)["pane"].(map[string]any)
	if p["revision"] != float64(1+n) {
		t.Errorf("revision %v after %d concurrent label changes, want %d", p["revision"], n, 1+n)
	}
}

func TestServeSocket(t *testing.T) {
	r := newRig(t)
	dir, _ := os.MkdirTemp("", "fhs")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "herdr.sock")
	cmd := exec.Command(filepath.Join(binDir, "fakeherdr"), "admin", "serve-socket", path)
	cmd.Env = r.env
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("serve-socket said %q", line)
	}
	if res := r.herdrEnv([]string{"HERDR_SOCKET_PATH=" + path}, "pane", "list"); res.code != 0 {
		t.Errorf("pane list against serve-socket: %+v", res)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve-socket exit: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestAdminWait(t *testing.T) {
	r := newRig(t)
	c := r.createPane()
	r.herdr("pane", "send-text", c.PaneID, "echo waited-for")
	r.admin("wait", c.PaneID, "--contains", "waited-for")
	res := r.herdr("admin", "wait", c.PaneID, "--contains", "never-there", "--timeout", "300ms")
	if res.code != 1 || !strings.Contains(res.stderr, "timed out") {
		t.Errorf("wait timeout: %+v", res)
	}
}
