package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/poll"

	"github.com/google/go-cmp/cmp"
)

// End-to-end tests of `resume search` and `resume --search` on homes that
// tools/gencc writes, with phrases planted where a person would have seen
// them: as prompts, replies, tool calls and names, in the row shapes Claude
// Code writes. Each case checks the exact set of sessions and the exit code.

var genccOnce struct {
	sync.Once
	path string
	err  error
}

func genccBinary(t *testing.T) string {
	t.Helper()
	genccOnce.Do(func() {
		dir, err := os.MkdirTemp("", "forgectl-gencc-")
		if err != nil {
			genccOnce.err = err
			return
		}
		genccOnce.path = filepath.Join(dir, "gencc")
		cmd := exec.Command("go", "build", "-o", genccOnce.path, "./gencc/cmd/gencc")
		cmd.Dir = "../tools"
		if out, err := cmd.CombinedOutput(); err != nil {
			genccOnce.err = fmt.Errorf("build gencc: %v\n%s", err, out)
		}
	})
	if genccOnce.err != nil {
		t.Fatal(genccOnce.err)
	}
	return genccOnce.path
}

// genSession is what the tests need of gencc's manifest.
type genSession struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Branch         string `json:"branch"`
	Version        string `json:"version"`
	Entrypoint     string `json:"entrypoint"`
	HiddenReason   string `json:"hidden_reason"`
	Broken         string `json:"broken"`
	SizeBytes      int64  `json:"size_bytes"`
}

type searchHome struct {
	*e2e
	sessions []genSession
	huge     genSession
	visible  []genSession // intact, not hidden, not huge
	print    genSession
}

func newSearchHome(t *testing.T, args ...string) *searchHome {
	e := newE2E(t)
	cmd := exec.Command(genccBinary(t), append([]string{"-home", e.home, "-seed", "11"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gencc: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(e.home, "gencc-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Sessions []genSession `json:"sessions"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	h := &searchHome{e2e: e, sessions: m.Sessions}
	for _, s := range m.Sessions {
		switch {
		case s.SizeBytes > 40<<20:
			h.huge = s
		case s.HiddenReason == "print" && s.Broken == "":
			h.print = s
		case s.HiddenReason == "" && s.Broken == "":
			h.visible = append(h.visible, s)
		}
	}
	return h
}

// row renders a conversation row as Claude Code writes it: the message
// first, the envelope last.
func (h *searchHome) row(s genSession, typ string, message any, extra string) string {
	msg, _ := json.Marshal(message)
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":%q,"message":%s%s,"uuid":"planted-%d","timestamp":%q,"userType":"external","entrypoint":%q,"cwd":%q,"sessionId":%q,"version":%q,"gitBranch":%q}`,
		typ, msg, extra, time.Now().UnixNano(), time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), s.Entrypoint, s.Cwd, s.SessionID, s.Version, s.Branch)
}

func (h *searchHome) promptRow(s genSession, text string) string {
	return h.row(s, "user", cchome.Object{"role", "user", "content", text}, "")
}

func (h *searchHome) replyRow(s genSession, text string) string {
	return h.row(s, "assistant", cchome.Object{"id", "msg_planted", "type", "message", "role", "assistant", "model", "claude-sonnet-4-6",
		"content", []any{cchome.Object{"type", "text", "text", text}}}, "")
}

func (h *searchHome) toolRow(s genSession, name string, input cchome.Object) string {
	return h.row(s, "assistant", cchome.Object{"id", "msg_planted", "type", "message", "role", "assistant", "model", "claude-sonnet-4-6",
		"content", []any{cchome.Object{"type", "tool_use", "id", "toolu_planted", "name", name, "input", input}}}, "")
}

func (h *searchHome) resultRow(s genSession, text string) string {
	return h.row(s, "user", cchome.Object{"role", "user", "content", []any{cchome.Object{"tool_use_id", "toolu_planted", "type", "tool_result", "content", text}}}, "")
}

func (h *searchHome) plant(s genSession, lines ...string) {
	h.t.Helper()
	f, err := os.OpenFile(s.TranscriptPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			h.t.Fatal(err)
		}
	}
}

// insertAt puts a line at a fraction of a transcript's lines (0 = just
// after its first line).
func (h *searchHome) insertAt(s genSession, frac float64, line string) {
	h.t.Helper()
	b, err := os.ReadFile(s.TranscriptPath)
	if err != nil {
		h.t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	at := max(1, int(float64(len(lines))*frac))
	out := append(append(slices.Clone(lines[:at]), line+"\n"), lines[at:]...)
	if err := os.WriteFile(s.TranscriptPath, []byte(strings.Join(out, "")), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

type searchRow struct {
	SessionID string `json:"session_id"`
	Hits      []struct {
		Role    string `json:"role"`
		At      string `json:"at"`
		Snippet string `json:"snippet"`
	} `json:"hits"`
}

// search runs `forgectl resume search --json ARGS` and returns the session
// ids found (sorted), the rows, the exit code and stderr.
func (h *searchHome) search(args ...string) ([]string, []searchRow, int, string) {
	h.t.Helper()
	cmd := h.command(append([]string{"resume", "search", "--json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(cmd.Run())
	var rows []searchRow
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
			h.t.Fatalf("search %q: %v\n%s", args, err, stdout.Bytes())
		}
	}
	ids := []string{}
	for _, r := range rows {
		ids = append(ids, r.SessionID)
	}
	slices.Sort(ids)
	return ids, rows, code, stderr.String()
}

// expect checks the exact set of sessions and the exit code (0 with hits,
// 1 and empty stdout without).
func (h *searchHome) expect(args []string, want ...genSession) []searchRow {
	h.t.Helper()
	got, rows, code, stderr := h.search(args...)
	ids := []string{}
	for _, s := range want {
		ids = append(ids, s.SessionID)
	}
	slices.Sort(ids)
	wantCode := 0
	if len(want) == 0 {
		wantCode = 1
	}
	if d := cmp.Diff(ids, got); d != "" || code != wantCode {
		h.t.Errorf("search %q: exit %d (want %d), sessions (-want +got):\n%s\nstderr: %s", args, code, wantCode, d, stderr)
	}
	return rows
}

func TestE2ESearchPlantedPhrases(t *testing.T) {
	h := newSearchHome(t, "-scale", "-sessions", "40", "-repos", "4", "-huge-files", "1")
	if h.huge.SessionID == "" || len(h.visible) < 12 || h.print.SessionID == "" {
		t.Fatalf("the generated home lacks a case: huge %q, %d visible, print %q", h.huge.SessionID, len(h.visible), h.print.SessionID)
	}
	v := h.visible
	huge := h.huge
	// A prompt near the start of a 50 MB transcript, and one in its middle.
	h.insertAt(huge, 0, h.promptRow(huge, "where does the quokka lanternfish code live"))
	h.insertAt(huge, 0.5, h.promptRow(huge, "now the narwhal tesseract part"))
	// A reply, a Bash command, a file path an Edit touched.
	h.plant(v[0], h.replyRow(v[0], "The axolotl verdict: it rounds half to even."))
	h.plant(v[1], h.toolRow(v[1], "Bash", cchome.Object{"command", "make wombat-deploy ENV=staging", "description", "Deploy to staging"}))
	h.plant(v[2], h.toolRow(v[2], "Edit", cchome.Object{"file_path", "/src/pangolin/ledger.go", "old_string", "a", "new_string", "b"}))
	// Two words in two messages of one session, decoys holding each alone.
	h.plant(v[3], h.promptRow(v[3], "look at the ocelot config"), h.replyRow(v[3], "The marmalade flag is off."))
	h.plant(v[4], h.promptRow(v[4], "only an ocelot here"))
	h.plant(v[5], h.replyRow(v[5], "only marmalade here"))
	// Mixed case; quotes, a backslash, a newline and non-ASCII.
	h.plant(v[6], h.promptRow(v[6], "Refactor the ZeppelinCache now"))
	h.plant(v[7], h.promptRow(v[7], `He said "ship it" at C:\build\out`+"\nthen: crème brûlée Ωmega"))
	// A /rename, as Claude Code writes it.
	h.plant(v[8],
		fmt.Sprintf(`{"type":"custom-title","customTitle":"Pelican migration plan","sessionId":%q}`, v[8].SessionID),
		fmt.Sprintf(`{"type":"agent-name","agentName":"Pelican migration plan","sessionId":%q}`, v[8].SessionID))
	// Tool output and a print-mode session.
	h.plant(v[9], h.resultRow(v[9], "the heron token appears only in tool output"))
	h.plant(h.print, h.promptRow(h.print, "gibbon in print mode"))

	h.expect([]string{"quokka", "lanternfish"}, huge)
	h.expect([]string{"narwhal tesseract"}, huge)
	rows := h.expect([]string{"axolotl"}, v[0])
	if len(rows) == 1 && (len(rows[0].Hits) == 0 || rows[0].Hits[0].Role != "reply" || !strings.Contains(rows[0].Hits[0].Snippet, "axolotl verdict")) {
		t.Errorf("reply hit: %+v", rows[0].Hits)
	}
	rows = h.expect([]string{`"make wombat-deploy"`}, v[1])
	if len(rows) == 1 && rows[0].Hits[0].Role != "tool" {
		t.Errorf("Bash hit: %+v", rows[0].Hits)
	}
	h.expect([]string{"/src/pangolin/ledger.go"}, v[2])
	h.expect([]string{"ocelot", "marmalade"}, v[3])
	h.expect([]string{"ocelot"}, v[3], v[4])
	h.expect([]string{"zeppelincache"}, v[6])
	h.expect([]string{"ZEPPELINCACHE"}, v[6])
	h.expect([]string{`"said \"ship it\" at C:\build\out then:"`}, v[7])
	h.expect([]string{"CRÈME", "brûlée", "ωMEGA"}, v[7])
	rows = h.expect([]string{"pelican", "migration"}, v[8])
	if len(rows) == 1 && (rows[0].Hits[0].Role != "name" || rows[0].Hits[0].Snippet != "Pelican migration plan") {
		t.Errorf("name hit: %+v", rows[0].Hits)
	}
	h.expect([]string{"heron"})           // tool output is not searched
	h.expect([]string{"xylophonequasar"}) // nothing: exit 1, empty stdout
	_, _, code, stderr := h.search("gibbon")
	if code != 1 || !strings.Contains(stderr, "1 hidden session(s) match; --all includes them") {
		t.Errorf("print-mode without --all: exit %d, %q", code, stderr)
	}
	h.expect([]string{"--all", "gibbon"}, h.print)

	// The table: ls columns, the snippet last; exit 0.
	out, err := h.command("resume", "search", "ocelot", "marmalade").Output()
	// Each word is in one of its messages: the snippet is whichever hit is
	// newer, and the two rows can share a millisecond.
	if err != nil || !strings.HasPrefix(string(out), "SESSION") || !strings.Contains(string(out), v[3].SessionID) ||
		!strings.Contains(string(out), "prompt: look at the ocelot config") && !strings.Contains(string(out), "reply: The marmalade flag is off.") {
		t.Errorf("table: %v\n%s", err, out)
	}

	// Rows appended after the index was built are found; a deleted session
	// is gone.
	h.plant(v[10], h.promptRow(v[10], "a kingfisher arrived later"))
	h.expect([]string{"kingfisher"}, v[10])
	os.Remove(v[0].TranscriptPath)
	h.expect([]string{"axolotl"})

	// A truncated, then a garbage, index: rebuilt, the answer still exact.
	cat := filepath.Join(h.fc, "cache", "search", "catalog")
	b, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cat, b[:len(b)/2], 0o600)
	if _, _, code, stderr := h.search("ocelot"); code != 0 || !strings.Contains(stderr, "search index was damaged") {
		t.Errorf("truncated index: exit %d, %q", code, stderr)
	}
	h.expect([]string{"ocelot"}, v[3], v[4])
	segs, _ := filepath.Glob(filepath.Join(h.fc, "cache", "search", "seg-*"))
	for _, s := range segs {
		os.WriteFile(s, bytes.Repeat([]byte("garbage!"), 1000), 0o600)
	}
	h.expect([]string{"ocelot"}, v[3], v[4])
	h.expect([]string{"quokka"}, huge)
	// A FIFO where the catalog or a segment goes is damage too: rebuilt,
	// said so, never an error.
	for _, which := range []string{"catalog", "seg-*"} {
		found, _ := filepath.Glob(filepath.Join(h.fc, "cache", "search", which))
		if len(found) == 0 {
			t.Fatalf("no %s in the index", which)
		}
		p := found[0]
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		want := "the search index was damaged (" + filepath.Base(p) + " is a FIFO, not a regular file); rebuilding it"
		if p == cat {
			want = "the search index was damaged (the catalog is a FIFO, not a regular file); rebuilding it"
		}
		if _, _, code, stderr := h.search("ocelot"); code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("FIFO %s: exit %d, %q", filepath.Base(p), code, stderr)
		}
		h.expect([]string{"ocelot"}, v[3], v[4])
	}

	// Eight concurrent searches while a writer appends to another session.
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			h.plant(v[11], h.replyRow(v[11], fmt.Sprintf("a moving line %d", i)))
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, _, code, stderr := h.search("ocelot")
			if code != 0 || !slices.Equal(got, sortedIDs(v[3], v[4])) || stderr != "" {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("exit %d, %v, %q", code, got, stderr))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	for _, f := range failures {
		t.Errorf("concurrent search: %s", f)
	}
	h.expect([]string{"moving", "line"}, v[11])
}

func sortedIDs(ss ...genSession) []string {
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.SessionID)
	}
	slices.Sort(ids)
	return ids
}

func TestE2ESearchUsage(t *testing.T) {
	h := newSearchHome(t, "-sessions", "6", "-repos", "2")
	for _, args := range [][]string{{}, {`"unclosed`}, {"--limit", "-1", "x"}, {"--bogus", "x"}} {
		cmd := h.command(append([]string{"resume", "search"}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if code := exitCode(cmd.Run()); code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "forgectl: error:") {
			t.Errorf("search %q: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
	out, err := h.command("resume", "search", "--help").Output()
	for _, field := range []string{"session_id", "transcript_path", "hits", "role", "at", "snippet"} {
		if err != nil || !strings.Contains(string(out), "  "+field+" ") {
			t.Errorf("search --help lacks the field %q (%v)", field, err)
		}
	}
}

func TestE2EResumeSearchResolves(t *testing.T) {
	h := newSearchHome(t, "-sessions", "12", "-repos", "2")
	v := h.visible
	h.plant(v[0], h.promptRow(v[0], "the ocelot config"), h.replyRow(v[0], "marmalade is off"))
	h.plant(v[1], h.promptRow(v[1], "another ocelot"))

	// One hit resumes it (here: its dry run, and a real exec).
	out, err := h.command("resume", "--search", "ocelot marmalade", "--dry-run").Output()
	if err != nil || !strings.HasPrefix(string(out), "session: "+v[0].SessionID+"\n") {
		t.Fatalf("one hit, dry run: %v\n%s", err, out)
	}
	out, err = h.command("resume", "--fork", "--dry-run", "--search=ocelot marmalade").Output()
	if err != nil || !strings.Contains(string(out), "--resume "+v[0].SessionID+" --fork-session") {
		t.Fatalf("fork dry run: %v\n%s", err, out)
	}
	cmd := h.command("resume", "--search", "ocelot marmalade")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := h.waitRecord(t)
	if r.Cwd != v[0].Cwd || !strings.HasSuffix(strings.Join(r.Args, " "), "--resume "+v[0].SessionID) {
		t.Errorf("resumed %+v", r)
	}
	// claude runs under forgectl's pid (exec in place): stop our child.
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()

	// Several without a terminal: candidates on stdout, exit 1.
	c := h.command("resume", "--search", "ocelot")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	code := exitCode(c.Run())
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		ids = append(ids, strings.Fields(l)[0])
	}
	slices.Sort(ids)
	if code != 1 || !slices.Equal(ids, sortedIDs(v[0], v[1])) || !strings.Contains(stderr.String(), "2 sessions hold") {
		t.Errorf("several: exit %d, ids %v, stderr %q", code, ids, stderr.String())
	}
	// None: exit 1, empty stdout. A FILTER narrows the hits.
	c = h.command("resume", "--search", "xylophonequasar", "--dry-run")
	stdout.Reset()
	c.Stdout = &stdout
	if code := exitCode(c.Run()); code != 1 || stdout.Len() != 0 {
		t.Errorf("none: exit %d, %q", code, stdout.String())
	}
	out, err = h.command("resume", "--search", "ocelot", "--dry-run", v[1].SessionID[:8]).Output()
	if err != nil || !strings.HasPrefix(string(out), "session: "+v[1].SessionID+"\n") {
		t.Errorf("search narrowed by a filter: %v\n%s", err, out)
	}
}

// --search with several hits and a terminal opens the picker over them,
// with the snippets in the preview; Enter resumes the one under the cursor.
func TestE2EResumeSearchPickerInTmux(t *testing.T) {
	h := newSearchHome(t, "-sessions", "12", "-repos", "2")
	v := h.visible
	h.plant(v[0], h.promptRow(v[0], "an ocelot in the first"))
	h.plant(v[1], h.promptRow(v[1], "an ocelot in the second"))
	// The second is the newest: it is the first row.
	later := time.Now().Add(time.Minute)
	os.Chtimes(v[1].TranscriptPath, later, later)
	tm := newTmux(t)
	script := filepath.Join(h.home, "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n"+envExports(h.env)+"cd "+h.home+"\n"+h.forgectl+" resume --search ocelot\necho EXIT=$?\nsleep 600\n"), 0o755)
	tm.run("new-session", "-d", "-s", "t", "-x", "160", "-y", "40", script)
	// The hits may stream in one by one: wait for the screen with both.
	screen := tm.waitFor("the picker over the two hits, with a snippet in the preview", func(s string) bool {
		_, total := pickerCounts(s)
		return strings.Contains(s, "resume>") && strings.Contains(s, "prompt") && strings.Contains(s, "an ocelot in the second") && total == 2
	})
	if strings.Count(screen, " ago ") < 2 {
		t.Errorf("expected two rows:\n%s", screen)
	}
	tm.run("send-keys", "-t", "t", "Enter")
	r := h.waitRecord(t)
	if r.Cwd != v[1].Cwd || !strings.HasSuffix(strings.Join(r.Args, " "), "--resume "+v[1].SessionID) {
		t.Fatalf("picked and exec'd: %+v", r)
	}
	stopProcess(t, r.Pid)
}

// TestE2ESearchBadInput: with the built binary, a value-taking flag left
// without its value is bad usage and resumes nothing; dash words are
// reached with = or "--"; --search's verdict and no-hit hint tell the truth;
// search --json prints [] for no hit; a long query is cut in messages; a
// projects path that is not a directory is named as the problem.
func TestE2ESearchBadInput(t *testing.T) {
	e := newE2E(t)
	demoSessions(e.testHome)
	e.session(idForce, e.repo("deploy"), "main", "run git push --force please", "", 4*time.Hour)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		// A regression execs claude, which waits: kill it rather than hang.
		ctx, cancel := context.WithTimeout(context.Background(), poll.Long)
		defer cancel()
		cmd := exec.CommandContext(ctx, e.forgectl, args...)
		cmd.Env, cmd.Dir = e.env, e.home
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return exitCode(cmd.Run()), stdout.String(), stderr.String()
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"resume", "--search"}, "forgectl: error: flag --search needs a value"},
		{[]string{"resume", "--dry-run", "--assume-stopped"}, "forgectl: error: flag --assume-stopped needs a value"},
		{[]string{"resume", "search", "--limit"}, "forgectl: error: flag --limit needs a value"},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tc.args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(e.record); err == nil {
		t.Fatalf("claude was started")
	}
	for _, args := range [][]string{
		{"resume", "--search=--force", "--dry-run"},
		{"resume", "--dry-run", "--search", "--", "--force"},
		{"resume", "search", "--", "--force"},
		{"resume", "--search", "login", "--dry-run"},
		{"resume", "search", "--limit", "1", "push"},
	} {
		want := idForce
		if args[2] == "login" {
			want = idLogin
		}
		if code, stdout, stderr := run(args...); code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	for query, reason := range map[string]string{"xylophone": "no_match", "please": "ambiguous"} {
		_, stdout, _ := run("resume", "--search", query, "--dry-run", "--json")
		var v struct{ Reason string }
		if err := json.Unmarshal([]byte(stdout), &v); err != nil || v.Reason != reason {
			t.Errorf("--search %s verdict: %q (%v), want %s", query, stdout, err, reason)
		}
	}
	if code, _, stderr := run("resume", "--search", "login xylophone"); code != 1 ||
		!strings.Contains(stderr, `forgectl: hint: no session holds "xylophone" at all`) {
		t.Errorf("no-hit hint: exit %d, %q", code, stderr)
	}
	if code, stdout, _ := run("resume", "search", "--json", "xylophone"); code != 1 || stdout != "[]\n" {
		t.Errorf("search --json, no hit: exit %d, %q", code, stdout)
	}
	if code, _, stderr := run("resume", "search", strings.Repeat("q", 5000)); code != 1 || len(stderr) > 600 {
		t.Errorf("long query: exit %d, %d bytes of stderr", code, len(stderr))
	}
	cc := filepath.Join(e.home, "odd-claude")
	os.MkdirAll(cc, 0o700)
	os.WriteFile(filepath.Join(cc, "projects"), nil, 0o600)
	cmd := e.command("resume", "search", "x")
	cmd.Env = append(cmd.Env, "CLAUDE_CONFIG_DIR="+cc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 1 || !strings.Contains(stderr.String(), "projects is not a directory") || strings.Contains(stderr.String(), "safe to delete") {
		t.Errorf("projects a file: exit %d, %q", code, stderr.String())
	}
}
