package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseOptions(t *testing.T) {
	id := "3782e0dd-6827-4e38-b0fd-126403109db9"
	tests := []struct {
		args []string
		want options
		bad  bool
	}{
		{args: nil, want: options{}},
		{args: []string{"--version"}, want: options{version: true}},
		{args: []string{"-v"}, want: options{version: true}},
		{args: []string{"--resume", id}, want: options{resume: id}},
		{args: []string{"-r", id, "--fork-session"}, want: options{resume: id, fork: true}},
		{args: []string{"--resume=" + id}, want: options{resume: id}},
		{args: []string{"--resume", "--model", "opus"}, want: options{model: "opus"}},
		{args: []string{"--model", "sonnet", "--permission-mode", "acceptEdits", "--effort", "low", "--resume", id}, want: options{model: "sonnet", resume: id}},
		{args: []string{"--add-dir", "/a", "/b", "--resume", id, "a prompt"}, want: options{resume: id}},
		{args: []string{"--allow-dangerously-skip-permissions", "--dangerously-skip-permissions", "-c"}, want: options{}},
		{args: []string{"-n", "Login work", "--session-id", id}, want: options{name: "Login work", sessionID: id}},
		{args: []string{"--name=x"}, want: options{name: "x"}},
		{args: []string{"-p", "hi"}, want: options{print: true}},
		{args: []string{"--session-id", "not-a-uuid"}, bad: true},
		{args: []string{"--model"}, bad: true},
	}
	for _, tc := range tests {
		got, err := parseOptions(tc.args)
		if (err != nil) != tc.bad {
			t.Errorf("parseOptions(%q) error %v", tc.args, err)
			continue
		}
		if !tc.bad {
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("parseOptions(%q) (-want +got):\n%s", tc.args, diff)
			}
		}
	}
}

func TestResolveVersion(t *testing.T) {
	tests := []struct{ env, exe, want string }{
		{"9.9.9", "/home/a/.local/share/claude/versions/2.1.332", "9.9.9"},
		{"", "/home/a/.local/share/claude/versions/2.1.332", "2.1.332"},
		{"", "/x/versions/2.1.100-beta.1", "2.1.100-beta.1"},
		{"", "/usr/local/bin/claude", defaultVersion},
		{"", "/x/versions/2.1", defaultVersion},
		{"", "", defaultVersion},
	}
	for _, tc := range tests {
		if got := resolveVersion(tc.env, tc.exe); got != tc.want {
			t.Errorf("resolveVersion(%q, %q) = %q, want %q", tc.env, tc.exe, got, tc.want)
		}
	}
}

func TestStatStartTime(t *testing.T) {
	fields := "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 31931 100 200"
	for _, comm := range []string{"claude", "a b", "x) (y", ""} {
		line := "9840 (" + comm + ") " + fields
		if got := statStartTime(line); got != "31931" {
			t.Errorf("statStartTime with comm %q = %q", comm, got)
		}
	}
	for _, bad := range []string{"", "9840 (claude) S 1 2", "no paren here"} {
		if got := statStartTime(bad); got != "" {
			t.Errorf("statStartTime(%q) = %q", bad, got)
		}
	}
}

func TestProjectDirName(t *testing.T) {
	tests := map[string]string{
		"/home/alice/src/demo-repo": "-home-alice-src-demo-repo",
		"/a/b.c_d e:f":              "-a-b-c-d-e-f",
		"/tmp/ünï":                  "-tmp--n-",
		"/x/😀":                      "-x---",
	}
	for in, want := range tests {
		if got := projectDirName(in); got != want {
			t.Errorf("projectDirName(%q) = %q, want %q", in, got, want)
		}
	}
	long := "/" + strings.Repeat("d", 253)
	got := projectDirName(long)
	if !strings.HasPrefix(got, "-"+strings.Repeat("d", 199)+"-") || len(got) <= 201 {
		t.Errorf("long name %q", got)
	}
	if !regexp.MustCompile(`^[0-9a-z]+$`).MatchString(got[201:]) {
		t.Errorf("long name suffix %q is not base 36", got[201:])
	}
}

func TestDerivedName(t *testing.T) {
	re := regexp.MustCompile(`^demo-repo-[0-9a-f]{2}$`)
	if got := derivedName("/home/alice/src/Demo_Repo"); !re.MatchString(got) {
		t.Errorf("derivedName = %q", got)
	}
	if got := derivedName("/"); !regexp.MustCompile(`^session-[0-9a-f]{2}$`).MatchString(got) {
		t.Errorf("derivedName(/) = %q", got)
	}
}

func TestRenderBox(t *testing.T) {
	rule := strings.Repeat("─", 40)
	meter := strings.Repeat("─", 20) + " 0/200k (0%)"
	head := []string{" ✻ Claude Code v2.1.5 (fakeclaude)", "   default · session S", "   /w", ""}
	tests := []struct {
		name     string
		v        view
		body     []string
		row, col int
	}{
		{"empty", view{}, []string{"", rule, "❯\u00a0", rule, "  ? for shortcuts", meter}, 7, 3},
		{"draft", view{draft: []rune("fix the bug")}, []string{"", rule, "❯\u00a0fix the bug", rule, "  ? for shortcuts", meter}, 7, 14},
		{"wrapped", view{draft: []rune(strings.Repeat("a", 38) + strings.Repeat("b", 38) + "cc")},
			[]string{"", rule, "❯\u00a0" + strings.Repeat("a", 38), "  " + strings.Repeat("b", 38), "  cc", rule, "  ? for shortcuts", meter}, 9, 5},
		{"hint", view{hint: `Try "write a test"`}, []string{"", rule, "❯\u00a0Try \"write a test\"", rule, "  ? for shortcuts", meter}, 7, 3},
		{"suggestion", view{suggestion: "run the tests", hint: "ignored"}, []string{"", rule, "❯\u00a0\x1b[2mrun the tests\x1b[22m", rule, "  ? for shortcuts", meter}, 7, 3},
		{"busy", view{busy: true, history: []string{"> hi", "● (fakeclaude) ok"}},
			[]string{"> hi", "● (fakeclaude) ok", "✻ Working… (esc to interrupt)", rule, "❯\u00a0", rule, "  esc to interrupt", meter}, 9, 3},
		{"note", view{note: "Press Ctrl-C again to exit"}, []string{"", rule, "❯\u00a0", rule, "  Press Ctrl-C again to exit", meter}, 7, 3},
	}
	for _, tc := range tests {
		tc.v.version, tc.v.sessionID, tc.v.cwd = "2.1.5", "S", "/w"
		lines, row, col := render(tc.v)
		if diff := cmp.Diff(append(append([]string{}, head...), tc.body...), lines); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if row != tc.row || col != tc.col {
			t.Errorf("%s: cursor %d,%d want %d,%d", tc.name, row, col, tc.row, tc.col)
		}
	}
	lines, _, _ := render(view{cols: 100})
	if lines[5] != strings.Repeat("─", 100) {
		t.Errorf("rule does not follow the terminal width: %q", lines[5])
	}
}

func TestInputEditing(t *testing.T) {
	clock := time.Unix(1000, 0)
	s := &session{a: &app{now: func() time.Time { return clock }}}
	steps := []struct {
		in    string
		act   action
		draft string
	}{
		{"hello", actNone, "hello"},
		{"\x7f\x7f", actNone, "hel"},
		{"\xc3", actNone, "hel"}, // half of ö waits for the rest
		{"\xb6", actNone, "helö"},
		{"\x1b[A\x1bOB", actNone, "helö"}, // arrows are ignored
		{"\x1b[20", actNone, "helö"},      // a split escape sequence
		{"0~x", actNone, "helöx"},
		{"\x15", actNone, ""},
		{"ab\tc", actNone, "abc"},
		{"\r", actSubmit, "abc"},
	}
	for i, st := range steps {
		if act := s.input([]byte(st.in)); act != st.act || string(s.draft) != st.draft {
			t.Fatalf("step %d %q: action %v draft %q, want %v %q", i, st.in, act, string(s.draft), st.act, st.draft)
		}
	}
	s.draft = nil
	if act := s.input([]byte("\x1b")); act != actEscape {
		t.Errorf("lone ESC gave %v", act)
	}
	// Ctrl-C: clears a draft, then needs a second press within 2s to quit.
	s.draft = []rune("draft")
	if s.input([]byte{3}) != actNone || len(s.draft) != 0 {
		t.Error("Ctrl-C with a draft did not just clear it")
	}
	if s.input([]byte{3}) != actNone || s.note == "" {
		t.Error("first Ctrl-C at an empty prompt quit or showed no notice")
	}
	clock = clock.Add(3 * time.Second)
	if s.input([]byte{3}) != actNone {
		t.Error("Ctrl-C three seconds later quit")
	}
	clock = clock.Add(time.Second)
	if s.input([]byte{3}) != actQuit {
		t.Error("second Ctrl-C within two seconds did not quit")
	}
}

func TestRecordedEnv(t *testing.T) {
	a := &app{
		environ: []string{"HTTP_PROXY=http://p", "https_proxy=http://q", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
			"ANTHROPIC_API_KEY=secret", "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "HERDR_PANE_ID=w1:p1",
			"PATH=/bin", "MY_VAR=x", "CLAUDE_CODE_OAUTH_TOKEN=t"},
		getenv: func(k string) string {
			if k == "FAKECLAUDE_RECORD_ENV" {
				return "MY_VAR, CLAUDE_CODE_OAUTH_TOKEN"
			}
			return ""
		},
	}
	want := map[string]string{
		"HTTP_PROXY": "http://p", "https_proxy": "http://q", "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
		"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "HERDR_PANE_ID": "w1:p1", "MY_VAR": "x", "CLAUDE_CODE_OAUTH_TOKEN": "t",
	}
	if diff := cmp.Diff(want, a.recordedEnv()); diff != "" {
		t.Errorf("recordedEnv (-want +got):\n%s", diff)
	}
}
