package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEncodeNumber(t *testing.T) {
	for n, want := range map[int]string{1: "1", 9: "9", 10: "A", 16: "G", 17: "H", 18: "J", 31: "Z", 32: "0", 33: "11", 50: "1J", 64: "10", 65: "21", 1056: "00", 1057: "111"} {
		if got := encodeNumber(n); got != want {
			t.Errorf("encodeNumber(%d) = %q, want %q", n, got, want)
		}
	}
	for n := 1; n < 5000; n++ {
		if back, ok := decodeNumber(encodeNumber(n)); !ok || back != n {
			t.Fatalf("decodeNumber(encodeNumber(%d)) = %d, %v", n, back, ok)
		}
	}
	for _, bad := range []string{"", "I", "L", "O", "U", "a", "1-"} {
		if _, ok := decodeNumber(bad); ok {
			t.Errorf("decodeNumber(%q) accepted", bad)
		}
	}
}

func TestSplitPaneID(t *testing.T) {
	tests := []struct {
		id   string
		ws   string
		n    int
		fail bool
	}{
		{id: "w1:p1", ws: "w1", n: 1},
		{id: "wG:p1", ws: "wG", n: 1},
		{id: "w1J:p1A", ws: "w1J", n: 42},
		{id: "w1:t1", fail: true},
		{id: "p_1_2", fail: true},
		{id: "w1:pI", fail: true},
	}
	for _, tc := range tests {
		ws, n, err := splitPaneID(tc.id)
		if (err != nil) != tc.fail || ws != tc.ws || n != tc.n {
			t.Errorf("splitPaneID(%q) = %q, %d, %v", tc.id, ws, n, err)
		}
	}
}

func TestTranslateKey(t *testing.T) {
	tests := []struct {
		key  string
		want tmuxKey
		bad  bool
	}{
		{key: "enter", want: tmuxKey{name: "Enter"}},
		{key: "Enter", want: tmuxKey{name: "Enter"}},
		{key: "esc", want: tmuxKey{name: "Escape"}},
		{key: "escape", want: tmuxKey{name: "Escape"}},
		{key: "tab", want: tmuxKey{name: "Tab"}},
		{key: "shift+tab", want: tmuxKey{name: "BTab"}},
		{key: "backspace", want: tmuxKey{name: "BSpace"}},
		{key: "up", want: tmuxKey{name: "Up"}},
		{key: "down", want: tmuxKey{name: "Down"}},
		{key: "left", want: tmuxKey{name: "Left"}},
		{key: "right", want: tmuxKey{name: "Right"}},
		{key: "ctrl+u", want: tmuxKey{name: "C-u"}},
		{key: "ctrl+U", want: tmuxKey{name: "C-u"}},
		{key: "C-c", want: tmuxKey{name: "C-c"}},
		{key: "alt+x", want: tmuxKey{name: "M-x"}},
		{key: "M-x", want: tmuxKey{name: "M-x"}},
		{key: "ctrl+left", want: tmuxKey{name: "C-Left"}},
		{key: "f1", want: tmuxKey{name: "F1"}},
		{key: "f12", want: tmuxKey{name: "F12"}},
		{key: "minus", want: tmuxKey{literal: "-"}},
		{key: "plus", want: tmuxKey{literal: "+"}},
		{key: "a", want: tmuxKey{literal: "a"}},
		{key: ";", want: tmuxKey{literal: ";"}},
		{key: "bogus", bad: true},
		{key: "", bad: true},
		{key: "f13", bad: true},
		{key: "ctrl+", bad: true},
		{key: "ctrl+shift+x", bad: true},
		{key: "shift+a", bad: true},
		{key: "\x01", bad: true},
	}
	for _, tc := range tests {
		got, err := translateKey(tc.key)
		if tc.bad {
			if err == nil || err.Error() != "unsupported key "+tc.key {
				t.Errorf("translateKey(%q) = %+v, %v; want unsupported key", tc.key, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("translateKey(%q) = %+v, %v; want %+v", tc.key, got, err, tc.want)
		}
	}
}

func TestParseStat(t *testing.T) {
	st, err := parseStat("4242 (we (ird) name) S 1 4240 4240 34816 4250 4194304 1 2 3")
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{pid: 4242, comm: "we (ird) name", state: "S", pgrp: 4240, tpgid: 4250}
	if st != want {
		t.Errorf("parseStat = %+v, want %+v", st, want)
	}
	if _, err := parseStat("garbage"); err == nil {
		t.Error("parseStat accepted garbage")
	}
}

func TestAgentStatusFor(t *testing.T) {
	for in, want := range map[string]string{"idle": "idle", "busy": "working", "waiting": "blocked", "shell": "unknown", "": "unknown"} {
		if got := agentStatusFor(in); got != want {
			t.Errorf("agentStatusFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want call
	}{
		{[]string{"pane", "list"}, call{verb: "list"}},
		{[]string{"--session", "work", "pane", "list", "--workspace", "w2"}, call{verb: "list", session: "work", workspace: "w2"}},
		{[]string{"--session=work", "pane", "get", "w1:p1"}, call{verb: "get", session: "work", pane: "w1:p1"}},
		{[]string{"pane", "process-info"}, call{verb: "process-info"}},
		{[]string{"pane", "process-info", "--pane", "w1:p2"}, call{verb: "process-info", pane: "w1:p2"}},
		{[]string{"pane", "process-info", "--current"}, call{verb: "process-info", current: true}},
		{[]string{"pane", "read", "w1:p1"}, call{verb: "read", pane: "w1:p1", source: "recent"}},
		{[]string{"pane", "read", "w1:p1", "--source", "visible", "--ansi"}, call{verb: "read", pane: "w1:p1", source: "visible", ansi: true}},
		{[]string{"pane", "read", "--source=visible", "w1:p1", "--format", "ansi", "--lines", "5000"}, call{verb: "read", pane: "w1:p1", source: "visible", ansi: true, lines: 1000}},
		{[]string{"pane", "read", "w1:p1", "--raw", "--lines", "3"}, call{verb: "read", pane: "w1:p1", source: "recent", ansi: true, lines: 3}},
		{[]string{"pane", "send-keys", "w1:p1", "ctrl+u", "enter"}, call{verb: "send-keys", pane: "w1:p1", keys: []string{"ctrl+u", "enter"}}},
		{[]string{"pane", "send-text", "w1:p1", "hello", "--", "world"}, call{verb: "send-text", pane: "w1:p1", text: "hello -- world"}},
		{[]string{"pane", "run", "w1:p1", "'/x/forgectl'", "resume", "--", "-abc"}, call{verb: "run", pane: "w1:p1", text: "'/x/forgectl' resume -- -abc"}},
		{[]string{"pane", "rename", "w1:p1", "build"}, call{verb: "rename", pane: "w1:p1", label: "build"}},
		{[]string{"pane", "rename", "w1:p1", "--clear"}, call{verb: "rename", pane: "w1:p1", clear: true}},
		{[]string{"pane", "get", "--help"}, call{verb: "get", help: true}},
	}
	for _, tc := range tests {
		got, err := parseArgs(tc.args)
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tc.args, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(call{})); diff != "" {
			t.Errorf("parseArgs(%q) mismatch (-want +got):\n%s", tc.args, diff)
		}
	}
}

// testApp runs the CLI in-process with a fixed environment.
func testApp(env map[string]string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	a := &app{
		stdout: &out, stderr: &errb,
		getenv: func(k string) string { return env[k] }, now: time.Now, cwd: "/",
	}
	code = a.main(context.Background(), args)
	return out.String(), errb.String(), code
}

func TestUsageErrorsExit2(t *testing.T) {
	tests := [][]string{
		{},
		{"pane"},
		{"pane", "bogus"},
		{"workspace", "list"},
		{"--session"},
		{"--sessionx", "a", "pane", "list"},
		{"pane", "list", "--bogus"},
		{"pane", "list", "extra"},
		{"pane", "list", "--workspace"},
		{"pane", "get"},
		{"pane", "get", "w1:p1", "w1:p2"},
		{"pane", "get", "--json", "w1:p1"},
		{"pane", "process-info", "w1:p1"},
		{"pane", "process-info", "--pane"},
		{"pane", "process-info", "--pane", "w1:p1", "--current"},
		{"pane", "process-info", "--current=yes"},
		{"pane", "read"},
		{"pane", "read", "w1:p1", "--source", "nope"},
		{"pane", "read", "w1:p1", "--lines", "0"},
		{"pane", "read", "w1:p1", "--lines", "x"},
		{"pane", "read", "w1:p1", "--format", "html"},
		{"pane", "read", "w1:p1", "--ansi", "--ansi"},
		{"pane", "send-keys"},
		{"pane", "send-keys", "w1:p1"},
		{"pane", "send-keys", "w1:p1", "--bogus"},
		{"pane", "send-text"},
		{"pane", "send-text", "w1:p1"},
		{"pane", "run"},
		{"pane", "run", "w1:p1"},
		{"pane", "rename", "w1:p1"},
		{"pane", "rename", "w1:p1", "x", "--clear"},
	}
	for _, args := range tests {
		// Usage is checked before anything else, even a missing state dir.
		stdout, stderr, code := testApp(map[string]string{}, args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "error: ") || !strings.Contains(stderr, "Usage: herdr") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 with usage text on stderr", args, code, stdout, stderr)
		}
	}
}

func TestHelpExit0(t *testing.T) {
	stdout, stderr, code := testApp(map[string]string{}, "pane", "run", "--help")
	if code != 0 || stderr != "" || stdout != "Usage: herdr pane run <PANE_ID> <COMMAND>...\n" {
		t.Errorf("pane run --help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestMissingStateDir(t *testing.T) {
	_, stderr, code := testApp(map[string]string{}, "pane", "list")
	if code != 1 || !strings.Contains(stderr, "FAKEHERDR_STATE is not set") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestAdminUsage(t *testing.T) {
	env := map[string]string{"FAKEHERDR_STATE": t.TempDir(), "FAKEHERDR_TMUX": "fht-unused"}
	tests := [][]string{
		{"admin"},
		{"admin", "nope"},
		{"admin", "fault", "frobnicate", "--error", "x"},
		{"admin", "fault", "list"},
		{"admin", "fault", "list", "--error", "x", "--hang"},
		{"admin", "fault", "list", "--times", "-1", "--truncated"},
		{"admin", "session", "w1:p1"},
		{"admin", "session", "w1:p1", "--auto", "--none"},
		{"admin", "status", "w1:p1", "sleepy"},
		{"admin", "scroll", "w1:p1", "-3"},
		{"admin", "paste", "w1:p1", "maybe"},
		{"admin", "create-pane", "--id", "bogus"},
		{"admin", "create-pane", "--size", "1x1"},
		{"admin", "renumber", "extra"},
		{"admin", "set-id", "w1:p1", "nonsense"},
		{"admin", "serve-socket"},
	}
	for _, args := range tests {
		_, stderr, code := testApp(env, args...)
		if code != 2 || !strings.Contains(stderr, "usage: fakeherdr admin") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with admin usage", args, code, stderr)
		}
	}
}

func TestFaultQueue(t *testing.T) {
	s := newState()
	s.Faults = []*fault{
		{Verb: "get", Pane: "w1:p2", Remaining: 1, Mode: "error", Code: "a"},
		{Verb: "any", Remaining: 2, Mode: "error", Code: "b"},
		{Verb: "list", Remaining: -1, Mode: "error", Code: "c"},
	}
	var got []string
	for _, c := range []struct{ verb, pane string }{
		{"get", "w1:p1"}, {"get", "w1:p2"}, {"get", "w1:p2"}, {"list", ""}, {"list", ""}, {"list", ""}, {"run", "w1:p1"},
	} {
		f, ok := takeFault(s, c.verb, c.pane)
		if !ok {
			got = append(got, "-")
			continue
		}
		got = append(got, f.Code)
	}
	want := []string{"b", "a", "b", "c", "c", "c", "-"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("faults taken (-want +got):\n%s", diff)
	}
}

func TestFailNowOutputs(t *testing.T) {
	tests := []struct {
		f            fault
		code         int
		stdout, errs string
	}{
		{fault{Mode: "error", Code: "pane_send_failed"}, 1, "", `{"error":{"code":"pane_send_failed","message":"failed to send input to pane"},"id":"cli:pane:run"}` + "\n"},
		{fault{Mode: "error", Code: "protocol_mismatch", Message: "m<&>", Exit0: true}, 0, `{"error":{"code":"protocol_mismatch","message":"m<&>"},"id":"cli:pane:run"}` + "\n", ""},
		{fault{Mode: "raw", Stdout: "junk", Stderr: "boom", Exit: 3}, 3, "junk", "boom"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := failNow(&tc.f, "cli:pane:run", &out, &errb)
		if code != tc.code || out.String() != tc.stdout || errb.String() != tc.errs {
			t.Errorf("%+v: exit %d stdout %q stderr %q", tc.f, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := failNow(&fault{Mode: "truncated"}, "cli:pane:get", &out, &errb); code != 1 || errb.Len() == 0 || bytes.HasSuffix(errb.Bytes(), []byte("\n")) {
		t.Errorf("truncated: exit %d stderr %q", code, errb.String())
	}
	if json := errb.String(); strings.HasSuffix(json, "}") {
		t.Errorf("truncated stderr looks complete: %q", json)
	}
}
