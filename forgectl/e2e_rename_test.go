package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// run runs the built forgectl with args and returns its exit code, stdout
// and stderr.
func (e *e2e) runBin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := e.command(args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return exitCode(cmd.Run()), stdout.String(), stderr.String()
}

// A rename appends the rows /rename appends (custom-title, then
// agent-name, as JSON.stringify writes them), writes <id>/custom-title.json
// as /rename does, and the warm listing and search show the new name: the
// index reads the appended rows. The name beats an earlier /rename's agent
// name.
func TestE2ERenameWritesWhatRenameWrites(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	const id = "c0000000-0000-4000-8000-000000000001"
	e.session(id, api, "main", "fix the login flow", "", time.Hour)
	path := filepath.Join(e.cc.ProjectDir(api), id+".jsonl")
	// An earlier /rename left an agent name, which the picker shows first.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"custom-title","customTitle":"Old name","sessionId":"` + id + `"}` + "\n" +
		`{"type":"agent-name","agentName":"Old name","sessionId":"` + id + `"}` + "\n")
	f.Close()
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	// Warm both indexes first, so the rename must be read from the tail.
	if r := rowByID(e.lsJSON(t), id); r == nil || r["name"] != "Old name" {
		t.Fatalf("before: %v", r)
	}
	if code, out, errOut := e.runBin(t, "resume", "search", "--json", "login"); code != 0 || !strings.Contains(out, `"Old name"`) {
		t.Fatalf("search before: %d %s %s", code, out, errOut)
	}
	before, _ := os.ReadFile(path)

	name := `Login <fix> & "more" ünïcode`
	code, out, errOut := e.runBin(t, "resume", "rename", "c0000000", name)
	if code != 0 || out != "" || !strings.Contains(errOut, "renamed session "+id) {
		t.Fatalf("rename: %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	after, _ := os.ReadFile(path)
	want := `{"type":"custom-title","customTitle":"Login <fix> & \"more\" ünïcode","sessionId":"` + id + `"}` + "\n" +
		`{"type":"agent-name","agentName":"Login <fix> & \"more\" ünïcode","sessionId":"` + id + `"}` + "\n"
	if !bytes.HasPrefix(after, before) || string(after[len(before):]) != want {
		t.Fatalf("appended %q\nwant %q", after[len(before):], want)
	}
	side := filepath.Join(e.cc.ProjectDir(api), id, "custom-title.json")
	b, err := os.ReadFile(side)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\{"customTitle":"Login <fix> & \\"more\\" ünïcode","by":"user","at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"\}$`).Match(b) {
		t.Fatalf("custom-title.json %s", b)
	}
	if st, _ := os.Stat(side); st.Mode().Perm() != 0o600 {
		t.Fatalf("custom-title.json mode %v", st.Mode())
	}
	if st, _ := os.Stat(filepath.Dir(side)); st.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v", st.Mode())
	}
	r := rowByID(e.lsJSON(t), id)
	if r == nil || r["name"] != name || r["name_source"] != "agent-name" {
		t.Fatalf("after: %v", r)
	}
	code, out, errOut = e.runBin(t, "resume", "search", "--json", "ünïcode")
	var hits []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &hits) != nil || rowByID(hits, id) == nil || rowByID(hits, id)["name"] != name {
		t.Fatalf("search after: %d %s %s", code, out, errOut)
	}
}

// A transcript cut mid-line (a writer killed) gets a newline before the
// rows: the cut line stays a broken line of its own and the rows parse.
func TestE2ERenameAfterACutLine(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	const id = "c0000000-0000-4000-8000-000000000002"
	e.session(id, api, "main", "fix the login flow", "", time.Hour)
	path := filepath.Join(e.cc.ProjectDir(api), id+".jsonl")
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"assistant","message":{"content":"cut her`)
	f.Close()
	before, _ := os.ReadFile(path)
	if code, _, errOut := e.runBin(t, "resume", "rename", id, "After the cut"); code != 0 {
		t.Fatalf("rename: %d %s", code, errOut)
	}
	after, _ := os.ReadFile(path)
	rest := string(after[len(before):])
	if !strings.HasPrefix(rest, "\n{\"type\":\"custom-title\"") || !strings.HasSuffix(rest, "}\n") {
		t.Fatalf("appended %q", rest)
	}
	lines := strings.Split(strings.TrimSuffix(rest[1:], "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("row %q does not parse", l)
		}
	}
	if r := rowByID(e.lsJSON(t), id); r == nil || r["name"] != "After the cut" {
		t.Fatalf("after: %v", r)
	}
}

// Refusals: a live session (exit 2, its pid named), names Claude Code
// would change (exit 2), bad usage (2), no match and several (1). None
// writes a byte.
func TestE2ERenameRefusals(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	const (
		idLive = "c0000000-0000-4000-8000-000000000003"
		idA    = "c0000000-0000-4000-8000-000000000004"
		idB    = "c0000000-0000-4000-8000-000000000005"
	)
	e.session(idLive, api, "main", "running one", "Running", time.Hour)
	e.session(idA, api, "main", "first", "Twin A", 2*time.Hour)
	e.session(idB, api, "main", "second", "Twin B", 3*time.Hour)
	pid := e.live(idLive)
	snapshot := func() string {
		var b strings.Builder
		filepath.Walk(filepath.Join(e.claude, "projects"), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				c, _ := os.ReadFile(p)
				b.WriteString(p + "\n" + string(c) + "\n")
			} else if err == nil {
				b.WriteString(p + "/\n")
			}
			return nil
		})
		return b.String()
	}
	before := snapshot()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout func(string) bool
	}{
		{"live", []string{idLive, "New"}, 2, "(pid " + itoa(pid) + ")", empty},
		{"empty", []string{idA, "   "}, 2, "the name is empty", empty},
		{"newline", []string{idA, "two\nlines"}, 2, "control character (U+000A)", empty},
		{"tab", []string{idA, "a\tb"}, 2, "control character (U+0009)", empty},
		{"escape", []string{idA, "a\x1b[31mred"}, 2, "control character (U+001B)", empty},
		{"zero width", []string{idA, "a\u200bb"}, 2, "control character (U+200B)", empty},
		{"too long", []string{idA, strings.Repeat("é", 201)}, 2, "201 characters long", empty},
		{"not utf-8", []string{idA, "a\xffb"}, 2, "not valid UTF-8", empty},
		{"no name", []string{idA}, 2, "rename takes a FILTER and a NAME", empty},
		{"three words", []string{idA, "x", "y"}, 2, "rename takes a FILTER and a NAME", empty},
		{"no match", []string{"zzzz-nothing", "x"}, 1, "no session matches", empty},
		{"several", []string{"Twin", "x"}, 1, "2 sessions match", func(s string) bool {
			return strings.Contains(s, idA) && strings.Contains(s, idB)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := e.runBin(t, append([]string{"resume", "rename"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) || !strings.Contains(errOut, "forgectl: hint: ") || !tc.stdout(out) {
				t.Fatalf("exit %d (want %d)\nstdout %q\nstderr %s", code, tc.code, out, errOut)
			}
			if now := snapshot(); now != before {
				t.Fatalf("something was written:\n%s", now)
			}
		})
	}
	// The longest name Claude Code keeps whole is taken.
	long := strings.Repeat("é", 200)
	if code, _, errOut := e.runBin(t, "resume", "rename", idA, "  "+long+"  "); code != 0 {
		t.Fatalf("200 characters: %d %s", code, errOut)
	}
	if r := rowByID(e.lsJSON(t), idA); r == nil || r["name"] != long {
		t.Fatalf("after: %v", r)
	}
	// A name that starts with "-" goes after "--", as --help says.
	if code, _, errOut := e.runBin(t, "resume", "rename", idB, "--", "-draft-"); code != 0 {
		t.Fatalf("-- -draft-: %d %s", code, errOut)
	}
	if r := rowByID(e.lsJSON(t), idB); r == nil || r["name"] != "-draft-" {
		t.Fatalf("after --: %v", r)
	}
}

func empty(s string) bool { return s == "" }

// A write the kernel cuts short (here a file-size limit a few bytes past
// the transcript; a full disk acts alike) is cut back off: the transcript
// is byte for byte what it was, so Claude Code's next row does not land on
// half a row, and the rename fails with exit 1.
func TestE2ERenameShortWriteIsCutBack(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatal("prlimit (util-linux) is needed to cut a write short")
	}
	e := newE2E(t)
	api := e.repo("api-server")
	const id = "c0000000-0000-4000-8000-000000000006"
	e.session(id, api, "main", "fix the login flow", "", time.Hour)
	path := filepath.Join(e.cc.ProjectDir(api), id+".jsonl")
	e.lsJSON(t) // the index is written now, not under the limit
	before, _ := os.ReadFile(path)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(prlimit, "--fsize="+itoa(len(before)+40), e.forgectl, "resume", "rename", id, "Cut short")
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = e.env, e.home, &stdout, &stderr
	code := exitCode(cmd.Run())
	after, _ := os.ReadFile(path)
	if code != 1 || !bytes.Equal(after, before) || !strings.Contains(stderr.String(), "cannot rename session "+id) {
		t.Fatalf("exit %d\nstderr %s\nfile grew by %q", code, stderr.String(), after[len(before):])
	}
	if _, err := os.Stat(filepath.Join(e.cc.ProjectDir(api), id, "custom-title.json")); err == nil {
		t.Fatal("custom-title.json written after a failed append")
	}
}
