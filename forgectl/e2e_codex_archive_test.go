package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

// Codex threads in archive, unarchive and rm, end to end: the built
// forgectl with a stand-in codex that writes down how it was run and does
// to the files what the real `codex archive|unarchive` does (moves the
// rollout to archived_sessions/ and back by its file-name date), or fails
// as the real one fails when FAKE_CODEX_FAIL is set.

// fakeCodexMover is the stand-in: it appends "<cwd>|<argv>" to the record.
const fakeCodexMover = `#!/bin/sh
printf '%s|%s\n' "$PWD" "$*" >> "$FAKE_CODEX_RECORD"
if [ -n "$FAKE_CODEX_FAIL" ]; then
	printf 'WARNING: proceeding, even though we could not create PATH aliases\nError: failed to %s session\n\nStack backtrace:\n   0: <unknown>\n' "$1" >&2
	exit 1
fi
case "$1" in
archive)
	f=$(find "$CODEX_HOME/sessions" -name "rollout-*-$2.jsonl" | head -n 1)
	[ -n "$f" ] || { echo "Error: failed to archive session" >&2; exit 1; }
	mkdir -p "$CODEX_HOME/archived_sessions" && mv "$f" "$CODEX_HOME/archived_sessions/"
	echo "Archived session $2." ;;
unarchive)
	f=$(find "$CODEX_HOME/archived_sessions" -name "rollout-*-$2.jsonl" | head -n 1)
	[ -n "$f" ] || { echo "Error: failed to unarchive session" >&2; exit 1; }
	d=$(basename "$f" | sed 's/^rollout-\([0-9]*\)-\([0-9]*\)-\([0-9]*\)T.*/\1\/\2\/\3/')
	mkdir -p "$CODEX_HOME/sessions/$d" && mv "$f" "$CODEX_HOME/sessions/$d/"
	echo "Unarchived session $2." ;;
esac
`

type codexMoves struct {
	*codexHome
	bin, log string
}

func newCodexMoves(t *testing.T) *codexMoves {
	c := newCodexE2E(t)
	c.build()
	m := &codexMoves{codexHome: c, bin: filepath.Join(filepath.Dir(c.bin), "codex"), log: filepath.Join(c.home, "codex-calls.txt")}
	if err := os.WriteFile(m.bin, []byte(fakeCodexMover), 0o755); err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "CODEX_HOME="+c.root, "FAKE_CODEX_RECORD="+m.log)
	return m
}

// calls are the stand-in's runs since the last look.
func (m *codexMoves) calls() []string {
	b, _ := os.ReadFile(m.log)
	os.Remove(m.log)
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
}

// rollouts lists every rollout with its mtime and content.
func (m *codexMoves) rollouts() string {
	var b strings.Builder
	filepath.Walk(m.root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && strings.HasPrefix(fi.Name(), "rollout-") {
			d, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %v %d %x\n", p, fi.Mode(), fi.ModTime().UnixNano(), d)
		}
		return nil
	})
	return b.String()
}

func (m *codexMoves) path(id string) string {
	ps, _ := filepath.Glob(filepath.Join(m.root, "sessions", "*", "*", "*", "rollout-*"+id+"*.jsonl"))
	a, _ := filepath.Glob(filepath.Join(m.root, "archived_sessions", "rollout-*"+id+"*.jsonl"))
	if ps = append(ps, a...); len(ps) != 1 {
		m.t.Fatalf("thread %s has rollouts %v", id, ps)
	}
	return ps[0]
}

func TestE2ECodexArchiveRunsCodex(t *testing.T) {
	m := newCodexMoves(t)
	orig := m.path(cxTUI)

	// --dry-run says what would run, runs nothing, moves nothing.
	before := m.rollouts()
	code, out, errs := m.runCmd(t, nil, "resume", "archive", "--dry-run", cxTUI)
	if code != 0 || !strings.Contains(out, "would archive "+cxTUI) || !strings.Contains(out, m.bin+" archive "+cxTUI) || !strings.Contains(out, orig) {
		t.Errorf("archive --dry-run: exit %d\n%s\n%s", code, out, errs)
	}
	if got := m.calls(); len(got) != 0 || m.rollouts() != before {
		t.Fatalf("a dry run ran codex %v or moved files", got)
	}

	// The archive is codex's: run in the thread's cwd, the rollout now in
	// archived_sessions/, listed as archived; nothing in forgectl's archive.
	code, out, errs = m.runCmd(t, nil, "resume", "archive", cxTUI)
	if code != 0 || out != cxTUI+"\n" {
		t.Fatalf("archive: exit %d\n%s\n%s", code, out, errs)
	}
	if got := m.calls(); len(got) != 1 || got[0] != m.repoDir+"|archive_"+cxTUI {
		t.Errorf("codex ran as %v, want once in %s as 'archive %s'", got, m.repoDir, cxTUI)
	}
	if p := m.path(cxTUI); p != filepath.Join(m.root, "archived_sessions", filepath.Base(orig)) {
		t.Errorf("the rollout is at %s", p)
	}
	if r := rowsByID(m.lsJSON(t, "--archived"))[cxTUI]; r.HiddenReason != "archived" {
		t.Errorf("ls --archived: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(m.fc, "resume-archive", cxTUI)); err == nil {
		t.Error("the thread went into forgectl's archive too")
	}
	// Again: archived already, and codex is not asked.
	if code, _, errs := m.runCmd(t, nil, "resume", "archive", cxTUI); code != 0 || !strings.Contains(errs, "archived already") || len(m.calls()) != 0 {
		t.Errorf("a second archive: exit %d %s", code, errs)
	}

	// unarchive completes it (the first listing wrote the index), and the
	// thread archived in Codex before.
	if out, err := m.command("__complete", "resume", "unarchive", "019ad100").Output(); err != nil || !strings.Contains(string(out), cxTUI) || !strings.Contains(string(out), cxArch) || strings.Contains(string(out), cxFork) {
		t.Errorf("unarchive completes: %v\n%s", err, out)
	}
	// unarchive takes it, through codex unarchive.
	code, out, errs = m.runCmd(t, nil, "resume", "unarchive", "--dry-run", cxTUI)
	if code != 0 || !strings.Contains(out, m.bin+" unarchive "+cxTUI) || len(m.calls()) != 0 {
		t.Errorf("unarchive --dry-run: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = m.runCmd(t, nil, "resume", "unarchive", cxTUI)
	if code != 0 || out != cxTUI+"\n" {
		t.Fatalf("unarchive: exit %d\n%s\n%s", code, out, errs)
	}
	if got := m.calls(); len(got) != 1 || got[0] != m.repoDir+"|unarchive_"+cxTUI {
		t.Errorf("codex ran as %v", got)
	}
	if p := m.path(cxTUI); p != orig {
		t.Errorf("unarchived to %s, want %s", p, orig)
	}
	// A thread that is not archived is not in the archive: said, and
	// codex is not asked (a second run of the same command is done).
	if code, _, errs := m.runCmd(t, nil, "resume", "unarchive", cxTUI); code != 0 || !strings.Contains(errs, "is not in the archive: it is at "+orig) || len(m.calls()) != 0 {
		t.Errorf("unarchive of a visible thread: exit %d %s", code, errs)
	}
	if code, _, _ := m.runCmd(t, nil, "resume", "unarchive", "019ad100-0000-7000-8000-0000000000ee"); code != 1 {
		t.Errorf("unarchive of an id nobody has: exit %d", code)
	}

	// A Claude session and a Codex thread in one run, which needs --yes.
	m.session(idLogin, m.repo("api-server"), "main", "fix the login flow", "Login bugfix work", 3*time.Hour)
	// --older-than takes Codex threads too, unless --harness leaves them out.
	if _, out, _ := m.runCmd(t, nil, "resume", "archive", "--dry-run", "--older-than", "1h"); !strings.Contains(out, idLogin) || !strings.Contains(out, "archive "+cxTUI) {
		t.Errorf("archive --older-than 1h --dry-run:\n%s", out)
	}
	if _, out, _ := m.runCmd(t, nil, "resume", "archive", "--dry-run", "--older-than", "1h", "--harness", "claude"); !strings.Contains(out, idLogin) || strings.Contains(out, "019ad100") {
		t.Errorf("archive --older-than 1h --harness claude --dry-run:\n%s", out)
	}
	if code, _, errs := m.runCmd(t, nil, "resume", "archive", idLogin, cxFork); code != 2 || !strings.Contains(errs, "--yes") || len(m.calls()) != 0 {
		t.Errorf("two sessions without --yes: exit %d %s", code, errs)
	}
	code, out, errs = m.runCmd(t, nil, "resume", "archive", "--yes", idLogin, cxFork)
	if code != 0 || !strings.Contains(out, idLogin) || !strings.Contains(out, cxFork) {
		t.Fatalf("archive of both: exit %d\n%s\n%s", code, out, errs)
	}
	if got := m.calls(); len(got) != 1 || got[0] != m.repoDir+"|archive_"+cxFork {
		t.Errorf("codex ran as %v", got)
	}
	if _, err := os.Stat(filepath.Join(m.fc, "resume-archive", idLogin, "manifest.json")); err != nil {
		t.Errorf("the Claude session is not in forgectl's archive: %v", err)
	}
	code, out, errs = m.runCmd(t, nil, "resume", "unarchive", idLogin, cxFork)
	if code != 0 || !strings.Contains(out, idLogin) || !strings.Contains(out, cxFork) {
		t.Errorf("unarchive of both: exit %d\n%s\n%s", code, out, errs)
	}
}

func TestE2ECodexArchiveFailures(t *testing.T) {
	m := newCodexMoves(t)
	before := m.rollouts()

	// codex fails: its own error line, the thread, a hint; exit 1.
	code, out, errs := m.runCmd(t, []string{"FAKE_CODEX_FAIL=1"}, "resume", "archive", cxTUI)
	if code != 1 || out != "" || !strings.Contains(errs, "codex thread "+cxTUI) || !strings.Contains(errs, "Error: failed to archive session") ||
		!strings.Contains(errs, "hint:") || strings.Contains(errs, "backtrace") || strings.Contains(errs, "WARNING") {
		t.Errorf("codex exits 1: exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
	if got := m.calls(); len(got) != 1 || m.rollouts() != before {
		t.Errorf("codex ran %v; files changed: %v", got, m.rollouts() != before)
	}
	code, _, errs = m.runCmd(t, []string{"FAKE_CODEX_FAIL=1"}, "resume", "unarchive", cxArch)
	if code != 1 || !strings.Contains(errs, "Error: failed to unarchive session") || !strings.Contains(errs, cxArch) {
		t.Errorf("codex unarchive exits 1: exit %d %s", code, errs)
	}
	m.calls()

	// No codex on PATH: refused before anything, with the way to fix it.
	os.Remove(m.bin)
	for _, args := range [][]string{{"archive", cxTUI}, {"archive", "--dry-run", cxTUI}, {"unarchive", cxArch}} {
		code, _, errs := m.runCmd(t, nil, append([]string{"resume"}, args...)...)
		if code != 2 || !strings.Contains(errs, "install the Codex CLI") || !strings.Contains(errs, "codex_binary_path") {
			t.Errorf("%v without codex: exit %d %s", args, code, errs)
		}
	}
	// codex_binary_path that is not there names the setting.
	m.config("[resume]\ncodex_binary_path = \"" + filepath.Join(m.home, "missing-codex") + "\"\n")
	if code, _, errs := m.runCmd(t, nil, "resume", "archive", cxTUI); code != 2 || !strings.Contains(errs, "codex_binary_path") {
		t.Errorf("a codex_binary_path that is not there: exit %d %s", code, errs)
	}
	// FORGECTL_CODEX_BIN comes first.
	alt := filepath.Join(m.home, "alt-codex")
	os.WriteFile(alt, []byte(fakeCodexMover), 0o755)
	if code, out, errs := m.runCmd(t, []string{"FORGECTL_CODEX_BIN=" + alt}, "resume", "archive", "--dry-run", cxTUI); code != 0 || !strings.Contains(out, alt+" archive "+cxTUI) {
		t.Errorf("FORGECTL_CODEX_BIN: exit %d %s %s", code, out, errs)
	}
	m.config("")
	if m.rollouts() != before {
		t.Error("a refused run moved files")
	}
	// rm needs no codex: it moves the rollouts itself.
	if code, out, errs := m.runCmd(t, nil, "resume", "rm", cxTUI); code != 0 || out != cxTUI+"\n" {
		t.Errorf("rm without codex: exit %d %s %s", code, out, errs)
	}
}

// A thread another process holds is refused with exit 2, naming its pid;
// codex is not run and nothing moves.
func TestE2ECodexArchiveRefusesLiveThread(t *testing.T) {
	m := newCodexMoves(t)
	holder := holdThreadLock(t, m.root, cxTUI)
	poll.Every(20*time.Millisecond).Until(t, 15*time.Second, "the lock to be held", func() (bool, string) {
		r := rowsByID(m.lsJSON(t))[cxTUI]
		return r.Live, fmt.Sprintf("%+v", r)
	})
	before := m.rollouts()
	for _, cmd := range []string{"archive", "rm"} {
		code, out, errs := m.runCmd(t, nil, "resume", cmd, cxTUI)
		if code != 2 || out != "" || !strings.Contains(errs, fmt.Sprintf("pid %d", holder.Process.Pid)) || !strings.Contains(errs, "codex") {
			t.Errorf("%s of a live thread: exit %d\nstdout %q\nstderr %s", cmd, code, out, errs)
		}
	}
	if got := m.calls(); len(got) != 0 || m.rollouts() != before {
		t.Errorf("codex ran %v, or files moved", got)
	}
}

// rm moves every rollout of a thread into the trash, and trash restore
// writes them back byte for byte, mode and mtime, where they were (Codex's
// state database still names those paths). codex is never run.
func TestE2ECodexRmAndRestore(t *testing.T) {
	m := newCodexMoves(t)
	before := m.rollouts()
	code, out, errs := m.runCmd(t, nil, "resume", "rm", "--dry-run", cxRewind)
	if code != 0 || strings.Count(out, "rollout-") != 2 || m.rollouts() != before {
		t.Errorf("rm --dry-run of a rewound thread: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = m.runCmd(t, nil, "resume", "rm", cxRewind, cxArch, "--yes")
	if code != 0 || !strings.Contains(out, cxRewind) || !strings.Contains(out, cxArch) {
		t.Fatalf("rm: exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(m.rollouts(), cxRewind) || strings.Contains(m.rollouts(), cxArch) {
		t.Fatalf("rollouts left after rm:\n%s", m.rollouts())
	}
	rows := rowsByID(m.lsJSON(t, "--all"))
	if _, ok := rows[cxRewind]; ok {
		t.Error("ls --all lists a trashed thread")
	}
	if _, ok := rows[cxArch]; ok {
		t.Error("ls --all lists a trashed archived thread")
	}
	code, out, _ = m.runCmd(t, nil, "resume", "trash", "list", "--json")
	if code != 0 || !strings.Contains(out, `"harness": "codex"`) || !strings.Contains(out, cxRewind) {
		t.Errorf("trash list --json: exit %d\n%s", code, out)
	}
	code, out, errs = m.runCmd(t, nil, "resume", "trash", "restore", cxRewind, cxArch)
	if code != 0 || !strings.Contains(out, cxRewind) || !strings.Contains(out, cxArch) {
		t.Fatalf("trash restore: exit %d\n%s\n%s", code, out, errs)
	}
	if after := m.rollouts(); after != before {
		t.Errorf("the restored rollouts differ:\nbefore\n%s\nafter\n%s", before, after)
	}
	if r := rowsByID(m.lsJSON(t, "--archived"))[cxArch]; r.HiddenReason != "archived" {
		t.Errorf("the archived thread came back as %+v", r)
	}
	if got := m.calls(); len(got) != 0 {
		t.Errorf("rm or restore ran codex: %v", got)
	}
	// A rollout that reappeared meanwhile is never overwritten.
	m.runCmd(t, nil, "resume", "rm", cxFork)
	var fork string
	for _, l := range strings.Split(before, "\n") {
		if strings.Contains(l, cxFork) {
			fork = strings.Fields(l)[0]
		}
	}
	os.WriteFile(fork, []byte("new\n"), 0o644)
	if code, _, errs := m.runCmd(t, nil, "resume", "trash", "restore", cxFork); code != 2 || !strings.Contains(errs, fork) {
		t.Errorf("restore over a new rollout: exit %d %s", code, errs)
	}
	if b, _ := os.ReadFile(fork); !bytes.Equal(b, []byte("new\n")) {
		t.Error("the new rollout was overwritten")
	}
}

// rm and trash restore of a Codex thread killed at every step of the
// store: the next run finishes or rolls back what was left, and the
// rollouts come back byte for byte, with their mode and mtime.
func TestE2ECodexRmKilled(t *testing.T) {
	m := newCodexMoves(t)
	before := m.rollouts()
	for _, step := range []string{"journal", "copy", "copied", "verified", "remove", "stored"} {
		m.killedAt(t, step, "resume", "rm", cxRewind)
		if code, _, errs := m.runCmd(t, nil, "resume", "trash", "restore", cxRewind); code != 0 {
			t.Fatalf("killed at %s: the restore after it: exit %d %s", step, code, errs)
		}
		if after := m.rollouts(); after != before {
			t.Fatalf("killed at %s: the rollouts differ:\nbefore\n%s\nafter\n%s", step, before, after)
		}
	}
	for _, step := range []string{"restore-journal", "restore-file", "restored", "restore-done"} {
		if code, _, errs := m.runCmd(t, nil, "resume", "rm", cxRewind); code != 0 {
			t.Fatalf("rm: exit %d %s", code, errs)
		}
		m.killedAt(t, step, "resume", "trash", "restore", cxRewind)
		if code, _, errs := m.runCmd(t, nil, "resume", "trash", "restore", cxRewind); code != 0 {
			t.Fatalf("restore killed at %s, then again: exit %d %s", step, code, errs)
		}
		if after := m.rollouts(); after != before {
			t.Fatalf("restore killed at %s: the rollouts differ:\nbefore\n%s\nafter\n%s", step, before, after)
		}
	}
	if code, out, _ := m.runCmd(t, nil, "resume", "trash", "list", "--json"); code != 0 || strings.Contains(out, cxRewind) {
		t.Errorf("the trash still lists the thread: %s", out)
	}
}
