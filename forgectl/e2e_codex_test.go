package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/poll"
)

// Codex end to end: the built forgectl over a temp HOME holding a Claude
// Code session and a ~/.codex written in the shapes facts/codex.md
// records, with a stand-in codex on PATH that writes down how it was run.

const (
	cxTUI    = "019ad100-0000-7000-8000-000000000001"
	cxRewind = "019ad100-0000-7000-8000-000000000002"
	cxFork   = "019ad100-0000-7000-8000-000000000003"
	cxExec   = "019ad100-0000-7000-8000-000000000004"
	cxSub    = "019ad100-0000-7000-8000-000000000005"
	cxArch   = "019ad100-0000-7000-8000-000000000006"
	cxLegacy = "019ad100-0000-7000-8000-000000000007"
)

type codexHome struct {
	*e2e
	root    string
	record  string // where the stand-in codex writes its cwd and argv
	repoDir string
}

func newCodexE2E(t *testing.T) *codexHome {
	e := newE2E(t)
	c := &codexHome{e2e: e, root: filepath.Join(e.home, ".codex"), record: filepath.Join(e.home, "codex-record.txt")}
	c.repoDir = e.repo("payments")
	bin := filepath.Join(filepath.Dir(e.bin), "codex")
	script := "#!/bin/sh\nprintf '%s\\n' \"$PWD\" \"$*\" > " + c.record + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *codexHome) write(rel string, b []byte, mtime time.Time) string {
	c.t.Helper()
	p := filepath.Join(c.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// segment writes a rollout created at `at`, last written age ago.
func (c *codexHome) segment(dir string, at time.Time, id, extra string, age time.Duration, lines ...[]byte) string {
	if dir == "" {
		dir = filepath.Join("sessions", codextest.DayDir(at))
	}
	return c.write(filepath.Join(dir, codextest.FileName(at, id, extra)), bytes.Join(lines, nil), time.Now().Add(-age))
}

// build writes a TUI thread (renamed), its rewind, a fork, an exec thread,
// a subagent, an archived thread and a legacy thread.
func (c *codexHome) build() {
	at := time.Now().Add(-5 * time.Hour).UTC().Truncate(time.Second)
	meta := func(id string) codextest.Meta {
		return codextest.Meta{ID: id, Cwd: c.repoDir, Branch: "feature/refunds", Paginated: true, At: at}
	}
	c.segment("", at, cxTUI, "", 2*time.Hour,
		codextest.MetaLine(meta(cxTUI)),
		codextest.User(at, 1, "wire the refund webhook"),
		codextest.Tool(at, 2, "grep -rn zanzibarcommand src", "quuxoutput in the tool result", "plughreasoning about it"),
		codextest.Agent(at, 3, "the webhook handler is in refunds.go"))
	var idx []byte
	idx = append(idx, codextest.IndexLine(cxTUI, "Refund webhook", at)...)
	idx = append(idx, codextest.IndexLine(cxTUI, "refunds webhook", at)...)
	idx = append(idx, codextest.IndexLine(cxFork, "refunds webhook", at)...)
	c.write("session_index.jsonl", idx, time.Now())
	c.write("history.jsonl", codextest.HistoryLine(cxTUI, at.Add(time.Minute), "wire the refund webhook"), time.Now())

	rw := meta(cxRewind)
	c.segment("", at, cxRewind, "", 90*time.Minute, codextest.MetaLine(rw), codextest.User(at, 1, "rewound thread start"), codextest.User(at, 2, "dropped turn"))
	rw.At, rw.BaseThread = at.Add(time.Hour), cxRewind
	c.segment("", rw.At, cxRewind, "019ad100-ffff-7000-8000-0000000000ff", 80*time.Minute, codextest.MetaLine(rw), codextest.User(rw.At, 3, "after rewinding"))

	fm := meta(cxFork)
	fm.ForkedFrom, fm.BaseThread = cxTUI, cxTUI
	c.segment("", at, cxFork, "", 70*time.Minute, codextest.MetaLine(fm), codextest.User(at, 1, "fork: try a queue instead"))

	em := meta(cxExec)
	em.Originator, em.Source = "codex_exec", "exec"
	c.segment("", at, cxExec, "", 60*time.Minute, codextest.MetaLine(em), codextest.User(at, 1, "exec: summarise the diff"))
	sm := meta(cxSub)
	sm.ParentThread = cxTUI
	c.segment("", at, cxSub, "", 50*time.Minute, codextest.MetaLine(sm), codextest.User(at, 1, "subagent: read the tests"))
	c.segment("archived_sessions", at, cxArch, "", 40*time.Minute, codextest.MetaLine(meta(cxArch)), codextest.User(at, 1, "archived: old spike"))
	lm := codextest.Meta{ID: cxLegacy, Cwd: c.repoDir, Version: "0.142.3", Source: "cli", At: at}
	c.segment("", at, cxLegacy, "", 30*time.Minute, codextest.MetaLine(lm), codextest.User(at, -1, "legacy: bump the sdk"), codextest.Agent(at, -1, "bumped"))
}

func (c *codexHome) lsJSON(t *testing.T, args ...string) []render.SessionJSON {
	t.Helper()
	out, err := c.command(append([]string{"resume", "ls", "--json"}, args...)...).Output()
	if err != nil {
		t.Fatalf("ls --json %v: %v", args, err)
	}
	var rows []render.SessionJSON
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	return rows
}

func rowsByID(rows []render.SessionJSON) map[string]render.SessionJSON {
	m := map[string]render.SessionJSON{}
	for _, r := range rows {
		m[r.SessionID] = r
	}
	return m
}

func TestE2ECodexOneList(t *testing.T) {
	c := newCodexE2E(t)
	c.session(idLogin, c.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", 3*time.Hour)
	c.build()

	rows := c.lsJSON(t)
	m := rowsByID(rows)
	if len(rows) != 5 {
		t.Fatalf("want the claude session and 4 visible codex threads (a rewind is one), got %d: %+v", len(rows), rows)
	}
	for k := 1; k < len(rows); k++ {
		if rows[k].LastActivity > rows[k-1].LastActivity {
			t.Errorf("not newest first at %d: %s after %s", k, rows[k].LastActivity, rows[k-1].LastActivity)
		}
	}
	if m[idLogin].Harness != "claude" || m[cxTUI].Harness != "codex" {
		t.Errorf("harness fields: %q %q", m[idLogin].Harness, m[cxTUI].Harness)
	}
	tui := m[cxTUI]
	if tui.Name != "refunds webhook" || tui.FirstPrompt != "wire the refund webhook" || tui.Branch != "feature/refunds" ||
		tui.Cwd != c.repoDir || !tui.CwdExists || tui.Repo != "payments" || tui.LastPromptAt == "" || tui.Version != "0.171.0" {
		t.Errorf("tui row: %+v", tui)
	}
	if r := m[cxRewind]; r.FirstPrompt != "rewound thread start" || r.LastPrompt != "after rewinding" {
		t.Errorf("rewind row: %+v", r)
	}
	if f := m[cxFork]; f.Relation != "fork" || f.ParentID != cxTUI || !f.ParentExists || f.FirstPrompt != "fork: try a queue instead" || f.Name != "refunds webhook" {
		t.Errorf("fork row: %+v", f)
	}

	all := rowsByID(c.lsJSON(t, "--all"))
	for id, reason := range map[string]string{cxExec: "print-mode", cxSub: "subagent", cxArch: "archived"} {
		if r := all[id]; !r.Hidden || r.HiddenReason != reason {
			t.Errorf("%s: hidden %v %q, want %q", id, r.Hidden, r.HiddenReason, reason)
		}
	}
	if all[cxSub].ParentID != cxTUI {
		t.Errorf("subagent names its parent: %+v", all[cxSub])
	}

	// --harness narrows; the table's harness mark shows only for two.
	if rows := c.lsJSON(t, "--harness", "codex"); len(rows) != 4 || rows[0].Harness != "codex" {
		t.Errorf("--harness codex: %d rows", len(rows))
	}
	if rows := c.lsJSON(t, "--harness", "claude"); len(rows) != 1 || rows[0].SessionID != idLogin {
		t.Errorf("--harness claude: %+v", rows)
	}
	both, _ := c.command("resume", "ls").Output()
	one, _ := c.command("resume", "ls", "--harness", "codex").Output()
	if !strings.Contains(string(both), " cx refunds webhook") || !strings.Contains(string(both), " cc Login bugfix work") {
		t.Errorf("two harnesses, no marks:\n%s", both)
	}
	if strings.Contains(string(one), " cx ") || !strings.Contains(string(one), "refunds webhook") {
		t.Errorf("one harness, marks shown:\n%s", one)
	}

	// [resume] harnesses sets the default; --harness still wins.
	c.config("[resume]\nharnesses = [\"claude\"]\n")
	if rows := c.lsJSON(t); len(rows) != 1 || rows[0].Harness != "claude" {
		t.Errorf("[resume] harnesses = [claude]: %d rows", len(rows))
	}
	if rows := c.lsJSON(t, "--harness", "codex"); len(rows) != 4 {
		t.Errorf("--harness over the config: %d rows", len(rows))
	}
	if rows := c.lsJSON(t, "--harness", "claude", "--harness", "codex"); len(rows) != 5 || rowsByID(rows)[idLogin].Harness != "claude" || rowsByID(rows)[cxTUI].Harness != "codex" {
		t.Errorf("--harness claude --harness codex over the config: %d rows, want both harnesses' 5", len(rows))
	}
	c.config("")

	// A FILTER matching a Claude session and a Codex thread is ambiguous.
	c.session("5e551011-0000-4000-8000-000000000099", c.repoDir, "main", "payments work", "payments claude", 4*time.Hour)
	var stderr bytes.Buffer
	cmd := c.command("resume", "--dry-run", "payments")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if code := exitCode(err); code != 1 || !strings.Contains(stderr.String(), "sessions match") || !strings.Contains(string(out), cxTUI) || !strings.Contains(string(out), "5e551011") {
		t.Errorf("ambiguous across harnesses: exit %d\n%s\n%s", code, out, stderr.String())
	}
}

func TestE2ECodexResumeAndFork(t *testing.T) {
	c := newCodexE2E(t)
	c.build()
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		cmd := c.command(args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return exitCode(err), stdout.String(), stderr.String()
	}
	readRecord := func() []string {
		b, err := os.ReadFile(c.record)
		if err != nil {
			t.Fatalf("codex did not run: %v", err)
		}
		os.Remove(c.record)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	if code, _, stderr := run("resume", cxTUI); code != 0 {
		t.Fatalf("resume: exit %d %s", code, stderr)
	}
	if r := readRecord(); r[0] != c.repoDir || r[1] != "resume "+cxTUI {
		t.Errorf("codex ran as %q", r)
	}
	if code, _, stderr := run("resume", "--fork", cxTUI); code != 0 {
		t.Fatalf("fork: exit %d %s", code, stderr)
	}
	if r := readRecord(); r[0] != c.repoDir || r[1] != "fork "+cxTUI {
		t.Errorf("codex fork ran as %q", r)
	}

	// The dry run shows the plan; the binary comes from FORGECTL_CODEX_BIN.
	alt := filepath.Join(c.home, "alt-codex")
	os.WriteFile(alt, []byte("#!/bin/sh\n"), 0o755)
	c.env = append(c.env, "FORGECTL_CODEX_BIN="+alt)
	code, out, _ := run("resume", "--dry-run", "--json", cxTUI)
	var v struct {
		OK     bool     `json:"ok"`
		Binary string   `json:"binary"`
		Argv   []string `json:"argv"`
		Cwd    string   `json:"cwd"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || !v.OK || v.Binary != alt || strings.Join(v.Argv, " ") != alt+" resume "+cxTUI || v.Cwd != c.repoDir {
		t.Errorf("dry run --json: exit %d %s", code, out)
	}
	if code, out, _ := run("resume", "--dry-run", cxTUI); code != 0 || !strings.Contains(out, "argv: "+alt+" resume "+cxTUI) {
		t.Errorf("dry run: exit %d %s", code, out)
	}
	c.env = c.env[:len(c.env)-1]

	// A launch_profile naming nothing is refused first, as for Claude.
	c.config("[proxy]\nlaunch_profile = \"nope\"\n")
	if code, _, _ := run("resume", "--dry-run", cxTUI); code != 2 {
		t.Errorf("bad launch_profile: exit %d, want 2", code)
	}
	c.config("[resume]\ncodex_binary_path = \"" + filepath.Join(c.home, "missing-codex") + "\"\n")
	if code, _, stderr := run("resume", "--dry-run", cxTUI); code != 1 || !strings.Contains(stderr, "codex_binary_path") {
		t.Errorf("codex_binary_path that is not there: exit %d %s", code, stderr)
	}

	// FORGECTL_CODEX_BIN wins over a working codex_binary_path, which wins
	// over PATH.
	cfgBin := filepath.Join(c.home, "config-codex")
	os.WriteFile(cfgBin, []byte("#!/bin/sh\n"), 0o755)
	c.config("[resume]\ncodex_binary_path = \"" + cfgBin + "\"\n")
	argv := func() string {
		t.Helper()
		code, out, stderr := run("resume", "--dry-run", "--json", cxTUI)
		var v struct {
			Argv []string `json:"argv"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 {
			t.Fatalf("dry run --json: exit %d %s %s", code, out, stderr)
		}
		return strings.Join(v.Argv, " ")
	}
	c.env = append(c.env, "FORGECTL_CODEX_BIN="+alt)
	if got := argv(); got != alt+" resume "+cxTUI {
		t.Errorf("FORGECTL_CODEX_BIN and codex_binary_path: argv %q, want the env's %s", got, alt)
	}
	c.env = c.env[:len(c.env)-1]
	if got := argv(); got != cfgBin+" resume "+cxTUI {
		t.Errorf("codex_binary_path alone: argv %q, want %s", got, cfgBin)
	}
	c.config("")

	// A deleted cwd gets the worktree hint.
	os.RemoveAll(c.repoDir)
	if code, _, stderr := run("resume", cxTUI); code != 1 || !strings.Contains(stderr, "git worktree add "+c.repoDir) {
		t.Errorf("deleted cwd: exit %d %s", code, stderr)
	}
}

// A thread is live while a write flock is held on its lock file: here by
// a real process (flock(1)), seen through /proc/locks.
func TestE2ECodexLiveThread(t *testing.T) {
	c := newCodexE2E(t)
	c.build()
	holder := holdThreadLock(t, c.root, cxTUI)
	pid := holder.Process.Pid
	var tui render.SessionJSON
	poll.Every(20*time.Millisecond).Until(t, 15*time.Second, "the lock to be held", func() (bool, string) {
		tui = rowsByID(c.lsJSON(t))[cxTUI]
		return tui.Live, fmt.Sprintf("%+v", tui)
	})
	if tui.Pid == nil || *tui.Pid != pid || tui.LiveHolder != "tui" {
		t.Fatalf("live row: pid %v holder %q, want %d tui", tui.Pid, tui.LiveHolder, pid)
	}
	var stderr bytes.Buffer
	cmd := c.command("resume", cxTUI)
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 2 || !strings.Contains(stderr.String(), fmt.Sprintf("pid %d", pid)) {
		t.Fatalf("resume of a thread a TUI holds: exit %d %s", code, stderr.String())
	}
	if _, err := os.Stat(c.record); err == nil {
		t.Fatal("codex ran on a thread another writer holds")
	}
	if out, err := c.command("resume", "--fork", "--dry-run", cxTUI).Output(); err != nil || !strings.Contains(string(out), "fork "+cxTUI) {
		t.Errorf("a fork of a live thread: %v %s", err, out)
	}

	// Held by a running codex exec: refused too, and said so.
	execPid := holdThreadLock(t, c.root, cxExec).Process.Pid
	poll.Every(20*time.Millisecond).Until(t, 15*time.Second, "the exec lock to be held", func() (bool, string) {
		r := rowsByID(c.lsJSON(t, "--all"))[cxExec]
		return r.Live && r.Pid != nil && *r.Pid == execPid && r.LiveHolder == "exec", fmt.Sprintf("%+v", r)
	})
	stderr.Reset()
	cmd = c.command("resume", cxExec)
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 2 || !strings.Contains(stderr.String(), fmt.Sprintf("pid %d", execPid)) || !strings.Contains(stderr.String(), "codex exec") {
		t.Fatalf("resume of a thread a codex exec holds: exit %d %s", code, stderr.String())
	}
	if _, err := os.Stat(c.record); err == nil {
		t.Fatal("codex ran on a thread a codex exec holds")
	}

	// Held by the background daemon: attached to.
	c.write("app-server-daemon/daemon.pid", fmt.Appendf(nil, `{"pid":%d,"processStartTime":1}`, pid), time.Now())
	if r := rowsByID(c.lsJSON(t))[cxTUI]; !r.Live || r.LiveHolder != "daemon" {
		t.Errorf("daemon-held row: %+v", r)
	}
	if out, err := c.command("resume", "--dry-run", cxTUI).Output(); err != nil || !strings.Contains(string(out), "resume "+cxTUI) {
		t.Errorf("resume of a daemon-held thread: %v %s", err, out)
	}

	// SIGKILL leaves the lock file and takes the lock: not live.
	holder.Process.Kill()
	holder.Wait()
	if _, err := os.Stat(filepath.Join(c.root, "thread-writer-locks", cxTUI+".lock")); err != nil {
		t.Fatal("the lock file should stay")
	}
	poll.Every(20*time.Millisecond).Until(t, 15*time.Second, "the lock to go", func() (bool, string) {
		r := rowsByID(c.lsJSON(t))[cxTUI]
		return !r.Live && r.Pid == nil && r.LiveHolder == "", fmt.Sprintf("%+v", r)
	})
}

// Search covers Codex threads: prompts, replies, tool-call inputs and
// names; never tool output or reasoning.
func TestE2ECodexSearch(t *testing.T) {
	c := newCodexE2E(t)
	c.build()
	// What Codex injects into what the model sees, as response_item user
	// messages beside the typed prompt: the AGENTS.md text and the skills
	// block. Neither was typed, so neither is searched.
	tui, err := filepath.Glob(filepath.Join(c.root, "sessions", "*", "*", "*", "rollout-*"+cxTUI+".jsonl"))
	if err != nil || len(tui) != 1 {
		t.Fatalf("the TUI segment: %v %v", tui, err)
	}
	at := time.Now().Add(-5 * time.Hour)
	f, err := os.OpenFile(tui[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(codextest.ResponseUser(at, 4, "# AGENTS.md instructions for "+c.repoDir+"\n\nAlways run xyzzyagentsword before a commit."))
	f.Write(codextest.ResponseUser(at, 5, "<skills_instructions>\n## Skills\n- frobnicateskillword: turn a diff into release notes\n</skills_instructions>"))
	f.Close()
	os.Chtimes(tui[0], time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour))
	search := func(q string) []string {
		out, err := c.command("resume", "search", "--json", "--all", q).Output()
		if exitCode(err) > 1 {
			t.Fatalf("search %q: %v", q, err)
		}
		var rows []render.SessionJSON
		json.Unmarshal(out, &rows)
		var ids []string
		for _, r := range rows {
			ids = append(ids, r.SessionID)
		}
		return ids
	}
	for q, want := range map[string]string{
		"wire":            cxTUI,    // a prompt
		"handler":         cxTUI,    // a reply
		"zanzibarcommand": cxTUI,    // a tool call's input
		"rewinding":       cxRewind, // the rewind's later segment, one row
		"rewound":         cxRewind, // its first segment
		"legacy":          cxLegacy,
		"summarise":       cxExec,
	} {
		if got := search(q); len(got) != 1 || got[0] != want {
			t.Errorf("search %q: %v, want [%s]", q, got, want)
		}
	}
	for _, q := range []string{"quuxoutput", "plughreasoning", "environment_context", "xyzzyagentsword", "frobnicateskillword", "skills_instructions"} {
		if got := search(q); len(got) != 0 {
			t.Errorf("search %q found %v: tool output, reasoning and injected blocks are not searched", q, got)
		}
	}
	if got := search("refunds"); len(got) < 2 {
		t.Errorf("names are searched (the TUI thread and its fork share one): %v", got)
	}
	// A /rename in Codex appends to session_index.jsonl and leaves the
	// rollout as it was: the next search finds the new name, not the old.
	rename := func(name string) {
		idx, err := os.OpenFile(filepath.Join(c.root, "session_index.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		idx.Write(codextest.IndexLine(cxTUI, name, time.Now()))
		idx.Close()
	}
	rename("quetzal billing")
	if got := search("quetzal"); len(got) != 1 || got[0] != cxTUI {
		t.Errorf("search for a name given in Codex after the index was built: %v, want [%s]", got, cxTUI)
	}
	rename("ocelot ledger")
	if got := search("ocelot"); len(got) != 1 || got[0] != cxTUI {
		t.Errorf("search for the second new name: %v, want [%s]", got, cxTUI)
	}
	if got := search("quetzal"); len(got) != 0 {
		t.Errorf("search for a name the thread no longer has still finds %v", got)
	}
}

// Completion offers both agents' sessions, and --harness narrows it.
func TestE2ECodexCompletion(t *testing.T) {
	c := newCodexE2E(t)
	c.session(idLogin, c.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", 3*time.Hour)
	c.build()
	complete := func(args ...string) string {
		out, err := c.command(append([]string{"__complete"}, args...)...).Output()
		if err != nil {
			t.Fatalf("__complete %v: %v", args, err)
		}
		return string(out)
	}
	for range 2 { // the first lists (and writes the indexes), the second reads them
		both := complete("resume", "")
		if !strings.Contains(both, "refunds webhook\tname") || !strings.Contains(both, "Login bugfix work\tname") {
			t.Errorf("both agents:\n%s", both)
		}
		one := complete("resume", "--harness", "codex", "")
		if !strings.Contains(one, "refunds webhook\tname") || strings.Contains(one, "Login bugfix work") {
			t.Errorf("--harness codex:\n%s", one)
		}
		if one := complete("resume", "--harness=claude", ""); strings.Contains(one, "refunds webhook") || !strings.Contains(one, "Login bugfix work\tname") {
			t.Errorf("--harness=claude:\n%s", one)
		}
		if ids := complete("resume", "--harness", "codex", "019ad100-0000-7000-8000-00000000000"); !strings.Contains(ids, cxTUI) || strings.Contains(ids, cxExec) {
			t.Errorf("ids of visible threads:\n%s", ids)
		}
	}
	if v := complete("resume", "ls", "--harness", "co"); !strings.HasPrefix(v, "codex") {
		t.Errorf("--harness values: %q", v)
	}
}

// The picker shows both agents' rows, each with its mark, and Enter on a
// Codex row resumes it with codex in its directory; ls --tree nests a
// fork under its parent.
func TestCodexPickerAndTree(t *testing.T) {
	c := newCodexE2E(t)
	c.session(idLogin, c.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", 3*time.Hour)
	c.build()
	p := &fakePicker{choose: 0}
	r := c.runWith(true, p, nil, "resume")
	if r.code != 0 || r.exec == nil {
		t.Fatalf("picker resume: exit %d %s", r.code, r.stderr)
	}
	var sawCC, sawCX bool
	for _, row := range p.rows {
		sawCC = sawCC || strings.HasPrefix(row, "cc ")
		sawCX = sawCX || strings.HasPrefix(row, "cx ")
	}
	if !sawCC || !sawCX {
		t.Errorf("picker rows carry no harness marks:\n%s", strings.Join(p.rows, "\n"))
	}
	// The newest row is a Codex thread: the legacy one (30 minutes ago).
	if got := strings.Join(r.exec.argv, " "); !strings.HasSuffix(got, "codex resume "+cxLegacy) || r.exec.dir != c.repoDir {
		t.Errorf("picked and resumed as %q in %s", got, r.exec.dir)
	}
	p = &fakePicker{choose: 0}
	c.runWith(true, p, nil, "resume", "--harness", "codex")
	for _, row := range p.rows {
		if strings.HasPrefix(row, "cx ") {
			t.Errorf("one harness, a mark: %q", row)
		}
	}

	out, err := c.command("resume", "ls", "--tree", "--json", "--harness", "codex").Output()
	if err != nil {
		t.Fatal(err)
	}
	var roots []struct {
		SessionID string `json:"session_id"`
		Children  []struct {
			SessionID string `json:"session_id"`
			Relation  string `json:"relation"`
		} `json:"children"`
	}
	json.Unmarshal(out, &roots)
	found := false
	for _, r := range roots {
		if r.SessionID == cxTUI && len(r.Children) == 1 && r.Children[0].SessionID == cxFork && r.Children[0].Relation == "fork" {
			found = true
		}
	}
	if !found {
		t.Errorf("ls --tree: the fork is not under its parent:\n%s", out)
	}
}

// A Codex home with no thread in it puts no mark on Claude Code's rows.
func TestCodexEmptyHomeNoMarks(t *testing.T) {
	c := newCodexE2E(t)
	c.session(idLogin, c.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", 3*time.Hour)
	os.MkdirAll(filepath.Join(c.root, "sessions"), 0o755)
	out, err := c.command("resume", "ls").Output()
	if err != nil || strings.Contains(string(out), " cc ") || !strings.Contains(string(out), "Login bugfix work") {
		t.Errorf("ls with an empty ~/.codex: %v\n%s", err, out)
	}
}

// The picker's preview of a Codex thread, drawn by the real finder in a
// real terminal: the cost from its newest token_count event, and the end
// of the conversation read from the rollout's tail, newest at the bottom, without the tool's output, the reasoning or
// the blocks Codex injects.
func TestE2ECodexPreviewShowsTheConversation(t *testing.T) {
	c := newCodexE2E(t)
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	c.segment("", at, cxTUI, "", 10*time.Minute,
		codextest.MetaLine(codextest.Meta{ID: cxTUI, Cwd: c.repoDir, Branch: "main", Paginated: true, At: at}),
		codextest.User(at, 1, "wire the refund webhook"),
		codextest.Agent(at, 2, "the webhook handler is in refunds.go"),
		codextest.User(at.Add(time.Minute), 3, "now make it retry on 503"),
		codextest.Tool(at.Add(time.Minute), 4, "go test ./refunds/", "TOOL-OUTPUT-SECRET", "REASONING-SECRET"),
		codextest.Agent(at.Add(2*time.Minute), 5, "Retries on 503 with backoff; the tests pass."),
		codextest.TurnContext(at.Add(2*time.Minute), 6, c.repoDir),
		codextest.TokenCount(at.Add(2*time.Minute), 7, 41000, 20000, 90, 70000))
	tm := newTmux(t)
	c.startPickers(tm, 1)
	screen := tm.waitFor("the conversation in the preview", func(s string) bool {
		return strings.Contains(s, "Retries on 503 with backoff; the tests pass.")
	})
	var order []int
	for _, want := range []string{"context  41k tokens · cache cold (", "> wire the refund webhook", "  the webhook handler is in refunds.go",
		"> now make it retry on 503", "  · shell: go test ./refunds/", "  Retries on 503 with backoff; the tests pass."} {
		i := strings.Index(screen, want)
		if i < 0 {
			t.Errorf("the preview lacks %q:\n%s", want, screen)
		}
		order = append(order, i)
	}
	for k := 1; k < len(order); k++ {
		if order[k] < order[k-1] {
			t.Errorf("the preview's lines are out of order (%v):\n%s", order, screen)
		}
	}
	for _, bad := range []string{"TOOL-OUTPUT-SECRET", "REASONING-SECRET", "environment_context"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the preview shows %q:\n%s", bad, screen)
		}
	}
	tm.run("send-keys", "-t", "t", "Escape")
	tm.waitFor("exit 130", func(s string) bool { return strings.Contains(s, "EXIT=130") })
}

// --archived means the archived rows of every harness listed: forgectl's
// archive of Claude Code sessions and Codex's archived_sessions/, newest
// first, in ls (flat, --tree, --roots), search and resume.
func TestE2ECodexArchived(t *testing.T) {
	c := newCodexE2E(t)
	const archivedClaude = "5e551011-0000-4000-8000-0000000000a1"
	c.session(idLogin, c.repo("api-server"), "feature/login", "fix the login flow", "Login bugfix work", 3*time.Hour)
	c.build() // cxArch: archived_sessions/, in the payments repo, 40 minutes ago
	c.session(archivedClaude, c.repoDir, "main", "spike on ledger exports", "Ledger spike", 2*time.Hour)
	if code, _, errs := c.runCmd(t, nil, "resume", "archive", archivedClaude); code != 0 {
		t.Fatalf("archive: exit %d: %s", code, errs)
	}
	ids := func(rows []render.SessionJSON) []string {
		var out []string
		for _, r := range rows {
			if r.HiddenReason != "archived" {
				t.Errorf("--archived lists %s with hidden_reason %q", r.SessionID, r.HiddenReason)
			}
			out = append(out, r.SessionID)
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{cxArch, archivedClaude}}, // newest first: the thread is 40 minutes old, the session 2 hours
		{[]string{"--harness", "codex"}, []string{cxArch}},
		{[]string{"--harness", "claude"}, []string{archivedClaude}},
		{[]string{"--since", "1h"}, []string{cxArch}},
		{[]string{"--until", "1h"}, []string{archivedClaude}},
		{[]string{"payments"}, []string{cxArch, archivedClaude}}, // both in the repo, as are visible threads
		{[]string{"ledger"}, []string{archivedClaude}},
		{[]string{"--roots"}, []string{cxArch, archivedClaude}},
	} {
		got := ids(c.lsJSON(t, append([]string{"--archived"}, tc.args...)...))
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("ls --archived %v: %v, want %v", tc.args, got, tc.want)
		}
	}
	tree := ids(c.lsJSON(t, "--archived", "--tree"))
	if strings.Join(tree, " ") != cxArch+" "+archivedClaude {
		t.Errorf("ls --tree --archived: %v", tree)
	}

	out, err := c.command("resume", "search", "--json", "--archived", "spike").Output() // the thread's prompt, the session's name
	if err != nil {
		t.Fatalf("search --archived: %v", err)
	}
	var found []render.SessionJSON
	json.Unmarshal(out, &found)
	if got := ids(found); !slices.Contains(got, cxArch) || len(got) != 2 {
		t.Errorf("search --archived spike: %v, want the thread and the archived session", got)
	}

	// resume --archived matches among them (an id prefix every Codex
	// thread here shares names the archived one alone); the Codex thread is
	// resumed where it is, not restored from forgectl's archive.
	code, plan, errs := c.runCmd(t, nil, "resume", "--archived", "--dry-run", "019ad100")
	if code != 0 || !strings.Contains(plan, cxArch) || strings.Contains(plan, "would be restored") {
		t.Errorf("resume --archived --dry-run 019ad100: exit %d\n%s\n%s", code, plan, errs)
	}
	code, plan, errs = c.runCmd(t, nil, "resume", "--archived", "--dry-run", "ledger")
	if code != 0 || !strings.Contains(plan, archivedClaude) || !strings.Contains(plan, "would be restored") {
		t.Errorf("resume --archived --dry-run ledger: exit %d\n%s\n%s", code, plan, errs)
	}
	// A visible thread is not among the archived ones.
	if code, _, _ := c.runCmd(t, nil, "resume", "--archived", "--dry-run", "refund webhook"); code != 1 {
		t.Errorf("resume --archived matched a thread that is not archived: exit %d", code)
	}
}

// holdThreadLock holds a write flock on the thread's lock file under root
// from a real process (flock(1)), as a running Codex does, until the test
// ends; it skips where there is no /proc/locks to see it by. -o: the
// sleep does not inherit the locked descriptor, so the lock is flock's
// alone and goes with it.
func holdThreadLock(t *testing.T, root, id string) *exec.Cmd {
	t.Helper()
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks on this system")
	}
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		t.Fatal("flock(1) (util-linux) is needed to hold a thread's lock")
	}
	lock := filepath.Join(root, "thread-writer-locks", id+".lock")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	os.WriteFile(lock, nil, 0o644)
	holder := exec.Command(flockBin, "-o", "-x", lock, "sleep", "120")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-holder.Process.Pid, syscall.SIGKILL); holder.Wait() })
	return holder
}
