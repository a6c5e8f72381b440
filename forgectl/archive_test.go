package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/vault"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/poll"
	"forgectl.dev/shared/proc"
	"github.com/google/go-cmp/cmp"
)

// fileState is what a round trip must give back: each file's and folder's
// mode and mtime, and each file's SHA-256.
type fileState struct {
	Mode  fs.FileMode
	Mtime time.Time
	SHA   string
}

// snapshotTree records every path under roots (those that exist).
func snapshotTree(t *testing.T, roots ...string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	for _, r := range roots {
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			st := fileState{Mode: fi.Mode(), Mtime: fi.ModTime()}
			if fi.Mode().IsRegular() {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(b)
				st.SHA = hex.EncodeToString(sum[:])
			}
			out[p] = st
			return nil
		})
	}
	return out
}

// fullSession writes a session with every kind of file that moves with it,
// with modes and mtimes of their own.
type fullSession struct {
	id, transcript string
	roots          []string
}

func (h *testHome) fullSession(id, repo, title string, age time.Duration) fullSession {
	h.t.Helper()
	cwd := h.repo(repo)
	h.session(id, cwd, "main", "work on "+repo, title, age)
	tr := ""
	filepath.WalkDir(filepath.Join(h.claude, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == id+".jsonl" {
			tr = p
		}
		return nil
	})
	if tr == "" {
		h.t.Fatal("no transcript written")
	}
	old := time.Now().Add(-age).Truncate(time.Millisecond)
	write := func(p string, body string, mode fs.FileMode) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			h.t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Chtimes(p, old, old)
	}
	side := strings.TrimSuffix(tr, ".jsonl")
	write(filepath.Join(side, "custom-title.json"), `{"customTitle":"`+title+`"}`, 0o600)
	write(filepath.Join(side, "subagents", "agent-1.jsonl"), `{"type":"user"}`+"\n", 0o640)
	tasks := filepath.Join(h.claude, "tasks", id)
	write(filepath.Join(tasks, "1.json"), `{"id":"1","subject":"x","status":"pending"}`, 0o644)
	write(filepath.Join(tasks, ".highwatermark"), "1", 0o644)
	fh := filepath.Join(h.claude, "file-history", id)
	write(filepath.Join(fh, "abc@v1"), "old file body", 0o600)
	env := filepath.Join(h.claude, "session-env", id)
	write(filepath.Join(env, "sessionstart-hook-0.sh"), "export X=1\n", 0o700)
	snap := filepath.Join(h.fc, "resume-sessions", id+".json")
	write(snap, `{"session_id":"`+id+`"}`, 0o600)
	for _, d := range []string{filepath.Join(side, "subagents"), side, tasks, fh, env} {
		os.Chtimes(d, old, old)
	}
	return fullSession{id: id, transcript: tr, roots: []string{tr, side, tasks, fh, env, snap}}
}

func lsJSON(t *testing.T, h *testHome, args ...string) []render.SessionJSON {
	t.Helper()
	r := h.run(append([]string{"resume", "ls", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("ls %v: exit %d\n%s", args, r.code, r.stderr)
	}
	var out []render.SessionJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, r.stdout)
	}
	return out
}

func countID(rows []render.SessionJSON, id string) (n int, reason string) {
	for _, r := range rows {
		if r.SessionID == id {
			n++
			reason = r.HiddenReason
		}
	}
	return n, reason
}

func gone(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
}

const (
	idA = "aaaaaaaa-1111-4000-8000-000000000001"
	idB = "bbbbbbbb-2222-4000-8000-000000000002"
	idC = "cccccccc-3333-4000-8000-000000000003"
)

func TestArchiveRoundTripIsByteModeAndMtimeIdentical(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", 40*24*time.Hour)
	other := h.fullSession(idB, "web", "Dark mode", time.Hour)
	before := snapshotTree(t, s.roots...)
	otherBefore := snapshotTree(t, other.roots...)

	r := h.run("resume", "archive", idA)
	if r.code != 0 || strings.TrimSpace(r.stdout) != idA {
		t.Fatalf("archive: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	gone(t, s.roots...)
	if diff := cmp.Diff(otherBefore, snapshotTree(t, other.roots...)); diff != "" {
		t.Errorf("another session changed (-before +after):\n%s", diff)
	}
	// The store is private, and its manifest has every file's facts.
	dir := filepath.Join(h.fc, "resume-archive")
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		fi, _ := os.Lstat(p)
		if want := fs.FileMode(0o700); d.IsDir() && fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		} else if !d.IsDir() && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, fi.Mode().Perm())
		}
		return nil
	})
	m, err := (&vault.Store{Dir: dir}).Manifest(idA)
	if err != nil {
		t.Fatal(err)
	}
	if m.State != vault.Stored || len(m.Files) != len(before) {
		t.Fatalf("manifest: state %q, %d files; want stored, %d", m.State, len(m.Files), len(before))
	}
	for _, f := range m.Files {
		b := before[f.Path]
		if fs.FileMode(f.Mode).Perm() != b.Mode.Perm() || f.MtimeNs != b.Mtime.UnixNano() || f.SHA256 != b.SHA {
			t.Errorf("manifest entry %s = %+v, the file was %+v", f.Path, f, b)
		}
	}

	// Listed once, as archived, only where asked for.
	if n, _ := countID(lsJSON(t, h), idA); n != 0 {
		t.Errorf("plain ls lists the archived session %d times", n)
	}
	if n, reason := countID(lsJSON(t, h, "--all"), idA); n != 1 || reason != "archived" {
		t.Errorf("ls --all: %d rows, hidden_reason %q; want 1, archived", n, reason)
	}
	arch := lsJSON(t, h, "--archived")
	if len(arch) != 1 || arch[0].SessionID != idA || arch[0].Name != "Login work" || arch[0].Transcript != s.transcript {
		t.Errorf("ls --archived = %+v", arch)
	}

	r = h.run("resume", "unarchive", "--keep-mtime", idA)
	if r.code != 0 {
		t.Fatalf("unarchive: exit %d\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff(before, snapshotTree(t, s.roots...)); diff != "" {
		t.Errorf("round trip changed files (-before +after):\n%s", diff)
	}
	if n, reason := countID(lsJSON(t, h, "--all"), idA); n != 1 || reason != "" {
		t.Errorf("after unarchive ls --all: %d rows, hidden_reason %q", n, reason)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 || ents[0].Name() != ".pending" || ents[1].Name() != "restored" {
		t.Errorf("the archive still holds %v", ents)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, ".pending")); len(ents) != 0 {
		t.Errorf("a finished restore is still marked pending: %v", ents)
	}
}

func TestUnarchiveGivesTheSweptFilesAFreshMtimeAndKeepsTheOriginal(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", 40*24*time.Hour)
	before := snapshotTree(t, s.roots...)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatalf("archive: %d\n%s", r.code, r.stderr)
	}
	start := time.Now().Add(-time.Second)
	if r := h.run("resume", "unarchive", idA); r.code != 0 {
		t.Fatalf("unarchive: %d\n%s", r.code, r.stderr)
	}
	after := snapshotTree(t, s.roots...)
	fresh := map[string]bool{s.transcript: true, s.roots[2]: true, s.roots[3]: true, s.roots[4]: true}
	for p, b := range before {
		a := after[p]
		if a.SHA != b.SHA || a.Mode != b.Mode {
			t.Errorf("%s: content or mode changed: %+v -> %+v", p, b, a)
		}
		switch {
		case fresh[p] && a.Mtime.Before(start):
			t.Errorf("%s: mtime %v, want the restore's time (the sweep deletes by it)", p, a.Mtime)
		case !fresh[p] && !a.Mtime.Equal(b.Mtime):
			t.Errorf("%s: mtime %v, want the original %v", p, a.Mtime, b.Mtime)
		}
	}
	// The kept manifest holds the original mtime.
	kept, _ := filepath.Glob(filepath.Join(h.fc, "resume-archive", "restored", idA+"-*.json"))
	if len(kept) != 1 {
		t.Fatalf("kept manifests: %v", kept)
	}
	b, _ := os.ReadFile(kept[0])
	var m vault.Manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Files[0].MtimeNs != before[s.transcript].Mtime.UnixNano() || m.Restored == nil {
		t.Errorf("kept manifest %s: %v, transcript mtime %d, want %d", kept[0], err, m.Files[0].MtimeNs, before[s.transcript].Mtime.UnixNano())
	}
}

func TestArchiveRefusals(t *testing.T) {
	h := newHome(t)
	a := h.fullSession(idA, "api", "Login work", time.Hour)
	b := h.fullSession(idB, "api", "Rate limit", 2*time.Hour)
	h.fullSession(idC, "web", "Dark mode", 3*time.Hour)
	before := snapshotTree(t, append(a.roots, b.roots...)...)
	pid := h.live(idA)

	r := h.run("resume", "archive", idA)
	if r.code != 2 || !strings.Contains(r.stderr, "pid "+itoa(pid)) {
		t.Errorf("live: exit %d, want 2 naming pid %d\n%s", r.code, pid, r.stderr)
	}
	// Several sessions and no terminal: --yes is needed.
	r = h.run("resume", "archive", idB, idC)
	if r.code != 2 || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("several without --yes: exit %d\n%s", r.code, r.stderr)
	}
	var bytes int64
	nfiles := 0
	for p := range snapshotTree(t, b.roots...) {
		fi, _ := os.Lstat(p)
		if fi.Mode().IsRegular() {
			bytes += fi.Size()
		}
		nfiles++
	}
	r = h.run("resume", "archive", "--dry-run", "--older-than", "90m", "api")
	if r.code != 0 || !strings.Contains(r.stdout, "would archive "+idB) || strings.Contains(r.stdout, idA) ||
		!strings.Contains(r.stdout, b.transcript) || !strings.Contains(r.stdout, fmt.Sprintf("total: 1 sessions, %d files, %d bytes", nfiles, bytes)) {
		t.Errorf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("resume", "archive", "--older-than", "soon")
	if r.code != 2 || !strings.Contains(r.stderr, "--older-than") {
		t.Errorf("bad duration: exit %d\n%s", r.code, r.stderr)
	}
	r = h.run("resume", "archive", "nothing-like-it")
	if r.code != 1 {
		t.Errorf("no match: exit %d\n%s", r.code, r.stderr)
	}
	if r := h.run("resume", "archive"); r.code != 2 {
		t.Errorf("no selection: exit %d\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff(before, snapshotTree(t, append(a.roots, b.roots...)...)); diff != "" {
		t.Errorf("a refused run changed files (-before +after):\n%s", diff)
	}
	// --yes takes both, the live one still refused.
	r = h.run("resume", "archive", "--yes", "api")
	if r.code != 2 {
		t.Errorf("several with a live one: exit %d\n%s", r.code, r.stderr)
	}
	r = h.run("resume", "archive", "--yes", "--older-than", "90m", "api")
	if r.code != 0 || strings.TrimSpace(r.stdout) != idB {
		t.Errorf("--older-than --yes: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestArchiveEmptySelectsSessionsWithNoConversation(t *testing.T) {
	h := newHome(t)
	h.fullSession(idA, "api", "Login work", time.Hour)
	cwd := h.repo("api")
	h.cc.Transcript(cwd, idB, time.Now().Add(-time.Hour), `{"type":"permission-mode","permissionMode":"default","sessionId":"`+idB+`"}`)
	r := h.run("resume", "archive", "--empty")
	if r.code != 0 || strings.TrimSpace(r.stdout) != idB {
		t.Fatalf("--empty: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestUnarchiveRefusesATranscriptThatReappeared(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", time.Hour)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	os.WriteFile(s.transcript, []byte(`{"type":"user","new":true}`+"\n"), 0o600)
	again := snapshotTree(t, s.roots...)
	r := h.run("resume", "unarchive", idA)
	if r.code != 2 || !strings.Contains(r.stderr, s.transcript) || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("exit %d, want 2 naming the transcript\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff(again, snapshotTree(t, s.roots...)); diff != "" {
		t.Errorf("the refused restore changed files:\n%s", diff)
	}
	if err := (&vault.Store{Dir: filepath.Join(h.fc, "resume-archive")}).Verify(idA); err != nil {
		t.Errorf("the archived copy is damaged after a refused restore: %v", err)
	}
}

func TestArchiveDamageIsReportedWithTheSessionNamed(t *testing.T) {
	h := newHome(t)
	a := h.fullSession(idA, "api", "Login work", time.Hour)
	b := h.fullSession(idB, "web", "Dark mode", time.Hour)
	if r := h.run("resume", "archive", "--yes", idA, idB); r.code != 0 {
		t.Fatal(r.stderr)
	}
	dir := filepath.Join(h.fc, "resume-archive")
	// A truncated manifest, and the index gone so it must be read.
	man := filepath.Join(dir, idA, "manifest.json")
	body, _ := os.ReadFile(man)
	os.WriteFile(man, body[:len(body)/2], 0o600)
	os.Remove(filepath.Join(dir, "index.bin"))
	// A stored file missing.
	os.Remove(filepath.Join(dir, idB, "files", "0.zst"))

	r := h.run("resume", "ls", "--archived", "--json")
	if r.code != 0 || !strings.Contains(r.stderr, idA) || !strings.Contains(r.stderr, "hint:") || !strings.Contains(r.stdout, idB) {
		t.Errorf("ls --archived: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("resume", "unarchive", idB)
	if r.code != 1 || !strings.Contains(r.stderr, idB) || !strings.Contains(r.stderr, "missing") || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("unarchive with a stored file missing: exit %d\n%s", r.code, r.stderr)
	}
	gone(t, b.transcript) // nothing half restored
	if ents, _ := os.ReadDir(filepath.Join(dir, ".pending")); len(ents) != 0 {
		t.Errorf("a restore refused for a missing stored file is left pending: %v", ents)
	}
	r = h.run("resume", "unarchive", idA)
	if r.code != 1 || !strings.Contains(r.stderr, idA) {
		t.Errorf("unarchive of a damaged manifest: exit %d\n%s", r.code, r.stderr)
	}
	gone(t, a.transcript)
	// A garbage index line is reported and the rows still come from the manifests.
	os.WriteFile(filepath.Join(dir, "index.bin"), []byte("FCTVAULT\x01garbage"), 0o600)
	r = h.run("resume", "ls", "--archived")
	if r.code != 0 || !strings.Contains(r.stdout, idB) || !strings.Contains(r.stderr, "index") {
		t.Errorf("damaged index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestResumeAnArchivedSessionRestoresThenResumes(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", 40*24*time.Hour)
	before := snapshotTree(t, s.roots...)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := h.run("resume", "--dry-run", idA)
	if r.code != 0 || !strings.Contains(r.stdout, "archived: would be restored") {
		t.Errorf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	gone(t, s.transcript)
	start := time.Now().Add(-time.Second)
	r = h.run("resume", idA)
	if r.code != 0 || r.exec == nil || !strings.Contains(strings.Join(r.exec.argv, " "), "--resume "+idA) {
		t.Fatalf("resume: exit %d, exec %+v\n%s", r.code, r.exec, r.stderr)
	}
	after := snapshotTree(t, s.roots...)
	for p, b := range before {
		if after[p].SHA != b.SHA || after[p].Mode != b.Mode {
			t.Errorf("%s not restored whole", p)
		}
	}
	if after[s.transcript].Mtime.Before(start) {
		t.Errorf("the resumed transcript keeps mtime %v: the next sweep would delete it", after[s.transcript].Mtime)
	}
	if n, _ := countID(lsJSON(t, h, "--all"), idA); n != 1 {
		t.Errorf("listed %d times after the resume", n)
	}
}

func TestRmTrashRestoreAndEmpty(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", time.Hour)
	arch := h.fullSession(idB, "web", "Dark mode", time.Hour)
	hist := filepath.Join(h.claude, "history.jsonl")
	os.WriteFile(hist, []byte(`{"display":"work on api","sessionId":"`+idA+`","timestamp":1}`+"\n"), 0o600)
	histBefore := snapshotTree(t, hist)
	before := snapshotTree(t, s.roots...)

	if r := h.run("resume", "rm", "--help"); !strings.Contains(r.stdout, "history.jsonl") {
		t.Errorf("rm --help does not say history.jsonl is left alone")
	}
	if r := h.run("resume", "rm", idA); r.code != 0 || strings.TrimSpace(r.stdout) != idA {
		t.Fatalf("rm: exit %d\n%s", r.code, r.stderr)
	}
	gone(t, s.roots...)
	if n, _ := countID(lsJSON(t, h, "--all"), idA); n != 0 {
		t.Errorf("a trashed session is listed by ls --all")
	}
	// An archived session moves from the archive to the trash.
	if r := h.run("resume", "archive", idB); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := h.run("resume", "rm", idB); r.code != 0 {
		t.Fatalf("rm of an archived session: exit %d\n%s", r.code, r.stderr)
	}
	if n, _ := countID(lsJSON(t, h, "--all"), idB); n != 0 {
		t.Errorf("a trashed archived session is still listed")
	}
	r := h.run("resume", "trash", "list", "--json")
	var listed []trashedJSON
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed) != 2 {
		t.Fatalf("trash list --json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	if r := h.run("resume", "trash", "restore", idA, "--keep-mtime"); r.code != 0 {
		t.Fatalf("trash restore: exit %d\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff(before, snapshotTree(t, s.roots...)); diff != "" {
		t.Errorf("rm + trash restore changed files:\n%s", diff)
	}
	if r := h.run("resume", "trash", "empty"); r.code != 2 {
		t.Errorf("trash empty without a terminal or --yes: exit %d", r.code)
	}
	if r := h.run("resume", "trash", "empty", "--older-than", "1h", "--yes"); r.code != 0 || r.stdout != "" {
		t.Errorf("trash empty --older-than 1h deleted %q", r.stdout)
	}
	if r := h.run("resume", "trash", "empty", "--yes"); r.code != 0 || strings.TrimSpace(r.stdout) != idB {
		t.Errorf("trash empty: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	gone(t, arch.roots...)
	if diff := cmp.Diff(histBefore, snapshotTree(t, hist)); diff != "" {
		t.Errorf("history.jsonl changed:\n%s", diff)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A resume leaves a claim before it execs claude, which registers only
// once it has started: an archive run in that gap must see the session as
// running. Here the claim is a real process that never registers.
func TestArchiveRefusesASessionAResumeHasClaimed(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", time.Hour)
	if r := h.run("resume", idA); r.code != 0 || r.exec == nil {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(h.fc, "resume-claims", idA+".json"))
	var c claim
	if err != nil || json.Unmarshal(b, &c) != nil || c.Pid != os.Getpid() || c.ProcStart == "" {
		t.Fatalf("the resume left no claim naming itself: %v %s", err, b)
	}
	// Claimed by another live process: refused, naming it.
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	start, err := proc.StartTime(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(claim{Pid: sleeper.Process.Pid, ProcStart: start})
	os.WriteFile(filepath.Join(h.fc, "resume-claims", idA+".json"), b, 0o600)
	r := h.run("resume", "archive", idA)
	if r.code != 2 || !strings.Contains(r.stderr, "pid "+strconv.Itoa(sleeper.Process.Pid)) {
		t.Errorf("archive of a claimed session: exit %d\n%s", r.code, r.stderr)
	}
	// A claim whose process exited but is not reaped yet (a zombie: a
	// pane's codex or claude the terminal has not waited for) is over,
	// though its pid and start time still answer. Seen with the real
	// Codex: archive right after the resumed TUI quit was refused.
	done := exec.Command("/bin/sh", "-c", "exit 0")
	if err := done.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done.Wait() })
	zstart, err := proc.StartTime(done.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the child to exit", func() (bool, string) { return !proc.Alive(done.Process.Pid), "" })
	if _, err := proc.StartTime(done.Process.Pid); err != nil {
		t.Fatalf("the zombie's start time: %v", err)
	}
	b, _ = json.Marshal(claim{Pid: done.Process.Pid, ProcStart: zstart})
	os.WriteFile(filepath.Join(h.fc, "resume-claims", idA+".json"), b, 0o600)
	if r := h.run("resume", "archive", "--dry-run", idA); r.code != 0 {
		t.Errorf("archive --dry-run with a zombie's claim: exit %d\n%s", r.code, r.stderr)
	}
	// A claim whose pid was reused (another start time) is stale.
	b, _ = json.Marshal(claim{Pid: sleeper.Process.Pid, ProcStart: start + "0"})
	os.WriteFile(filepath.Join(h.fc, "resume-claims", idA+".json"), b, 0o600)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Errorf("archive with a stale claim: exit %d\n%s", r.code, r.stderr)
	}
	gone(t, s.transcript)
}

func TestSearchFindsAnArchivedSessionByItsText(t *testing.T) {
	h := newHome(t)
	h.fullSession(idA, "api", "Login work", time.Hour)
	h.fullSession(idB, "web", "Dark mode", time.Hour)
	// The index exists (a search ran), then the session is archived.
	if r := h.run("resume", "search", "work", "on", "api"); r.code != 0 || !strings.Contains(r.stdout, idA) {
		t.Fatalf("search before: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := h.run("resume", "search", "work", "on", "api"); r.code != 1 || strings.Contains(r.stdout, idA) || !strings.Contains(r.stderr, "--all") {
		t.Errorf("search without --all shows an archived session: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, flag := range []string{"--all", "--archived"} {
		r := h.run("resume", "search", flag, "work", "on", "api")
		if r.code != 0 || !strings.Contains(r.stdout, idA) {
			t.Errorf("search %s: exit %d\n%s%s", flag, r.code, r.stdout, r.stderr)
		}
	}
	if r := h.run("resume", "search", "--archived", "web"); r.code != 1 {
		t.Errorf("search --archived found a session that is not archived: exit %d\n%s", r.code, r.stdout)
	}
}

func TestPickerOffersArchivedSessionsWithAllOrArchived(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", time.Hour)
	h.fullSession(idB, "web", "Dark mode", 2*time.Hour)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	plain := &fakePicker{choose: 0}
	h.runWith(true, plain, nil, "resume")
	if strings.Contains(strings.Join(plain.rows, "\n"), "Login work") {
		t.Errorf("the plain picker offers the archived session:\n%s", strings.Join(plain.rows, "\n"))
	}
	look := &fakePicker{err: errors.New("look only")}
	h.runWith(true, look, nil, "resume", "--all")
	if !strings.Contains(strings.Join(look.rows, "\n"), "Login work") || !strings.Contains(strings.Join(look.rows, "\n"), "Dark mode") {
		t.Errorf("resume --all does not offer both:\n%s", strings.Join(look.rows, "\n"))
	}
	p := &fakePicker{choose: 0}
	r := h.runWith(true, p, nil, "resume", "--archived")
	if len(p.rows) != 1 || !strings.Contains(p.rows[0], "Login work") {
		t.Fatalf("resume --archived offers %q", p.rows)
	}
	if r.code != 0 || r.exec == nil || !strings.Contains(strings.Join(r.exec.argv, " "), "--resume "+idA) {
		t.Fatalf("picking the archived session: exit %d %+v\n%s", r.code, r.exec, r.stderr)
	}
	if _, err := os.Stat(s.transcript); err != nil {
		t.Errorf("picked and resumed, but not restored: %v", err)
	}
	all := &fakePicker{err: errors.New("look only")}
	h.runWith(true, all, nil, "resume", "--all")
	if n := strings.Count(strings.Join(all.rows, "\n"), "Login work"); n != 1 {
		t.Errorf("resume --all offers the restored session %d times:\n%s", n, strings.Join(all.rows, "\n"))
	}
}

// Lineage still links an archived session: a branch whose parent is
// archived names a parent that exists, and ls --all --tree nests it.
func TestLineageLinksArchivedSessions(t *testing.T) {
	h := newHome(t)
	lh := &lineageHome{e: &e2e{testHome: h}, repo: h.repo("api")}
	lh.session(idA, "", "", time.Now().Add(-2*time.Hour))
	lh.session(idB, idA, "branch", time.Now().Add(-time.Hour))
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, args := range [][]string{{"--all"}, {"--all", "--tree"}} {
		rows := lsJSON(t, h, args...)
		var child *render.SessionJSON
		for i := range rows {
			if rows[i].SessionID == idB {
				child = &rows[i]
			}
		}
		if args[len(args)-1] == "--tree" {
			// The tree nests the child inside its parent's object.
			r := h.run("resume", "ls", "--all", "--tree")
			if !strings.Contains(r.stdout, "└─ "+idB) {
				t.Errorf("ls --all --tree does not nest the branch under its archived parent:\n%s", r.stdout)
			}
			continue
		}
		if child == nil || child.ParentID != idA || !child.ParentExists {
			t.Errorf("ls %v: the branch's parent %s (archived) does not exist: %+v", args, idA, child)
		}
	}
}

// The store keeps regular files and folders: a session holding a symlink
// (or a FIFO) is refused before anything moves, and nothing is followed.
func TestArchiveRefusesASessionHoldingASymlink(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", time.Hour)
	link := filepath.Join(strings.TrimSuffix(s.transcript, ".jsonl"), "tool-results")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	before := snapshotTree(t, s.roots...)
	r := h.run("resume", "archive", idA)
	if r.code != 1 || !strings.Contains(r.stderr, link) || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff(before, snapshotTree(t, s.roots...)); diff != "" {
		t.Errorf("a refused archive changed files:\n%s", diff)
	}
	if _, err := os.Lstat(filepath.Join(h.fc, "resume-archive", idA)); err == nil {
		t.Errorf("a refused archive left an entry")
	}
}

func TestForkOfAnArchivedSessionRestoresItFirst(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", time.Hour)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := h.run("resume", "--fork", idA)
	if r.code != 0 || r.exec == nil || !strings.Contains(strings.Join(r.exec.argv, " "), "--resume "+idA+" --fork-session") {
		t.Fatalf("fork: exit %d %+v\n%s", r.code, r.exec, r.stderr)
	}
	if _, err := os.Stat(s.transcript); err != nil {
		t.Errorf("forked without restoring the transcript claude reads: %v", err)
	}
}

func TestUnarchiveCompletesTheArchivedIDs(t *testing.T) {
	h := newHome(t)
	h.fullSession(idA, "api", "Login work", time.Hour)
	h.fullSession(idB, "web", "Dark mode", time.Hour)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := h.run("__complete", "resume", "unarchive", "")
	if !strings.Contains(r.stdout, idA) || strings.Contains(r.stdout, idB) || !strings.Contains(r.stdout, "Login work") {
		t.Errorf("unarchive completes:\n%s", r.stdout)
	}
}

// Archived before any search ran: archive builds the index first, so the
// text is still found.
func TestSearchFindsTextArchivedBeforeTheFirstSearch(t *testing.T) {
	h := newHome(t)
	h.fullSession(idA, "api", "Login work", time.Hour)
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := h.run("resume", "search", "--archived", "work", "on", "api"); r.code != 0 || !strings.Contains(r.stdout, idA) {
		t.Errorf("search --archived: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A resume does not wait for an archive run that holds the lock over other
// sessions: its claim is enough, since the run checks claims before it
// removes anything.
func TestResumeDoesNotWaitForAnArchiveOfOtherSessions(t *testing.T) {
	h := newHome(t)
	h.fullSession(idA, "api", "Login work", time.Hour)
	os.MkdirAll(h.fc, 0o700)
	held, err := fsutil.TryLock(filepath.Join(h.fc, "resume-moves.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	r := h.run("resume", idA)
	if r.code != 0 || r.exec == nil || strings.Contains(r.stderr, "waiting") {
		t.Errorf("resume with the lock held elsewhere: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.fc, "resume-claims", idA+".json")); err != nil {
		t.Errorf("no claim: %v", err)
	}
}

// rm refuses as archive does: a live session (exit 2, naming the pid),
// several sessions with no terminal and no --yes (exit 2); --dry-run
// lists what would move, with the bytes, and moves nothing.
func TestRmRefusalsAndDryRun(t *testing.T) {
	h := newHome(t)
	a := h.fullSession(idA, "api", "Login work", time.Hour)
	b := h.fullSession(idB, "api", "Rate limit", 2*time.Hour)
	c := h.fullSession(idC, "web", "Dark mode", 3*time.Hour)
	roots := append(append(append([]string{}, a.roots...), b.roots...), c.roots...)
	before := snapshotTree(t, roots...)
	pid := h.live(idA)

	if r := h.run("resume", "rm", idA); r.code != 2 || !strings.Contains(r.stderr, "pid "+itoa(pid)) {
		t.Errorf("rm of a live session: exit %d, want 2 naming pid %d\n%s", r.code, pid, r.stderr)
	}
	if r := h.run("resume", "rm", idB, idC); r.code != 2 || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("rm of several without a terminal or --yes: exit %d\n%s", r.code, r.stderr)
	}
	var size int64
	nfiles := 0
	for p := range snapshotTree(t, c.roots...) {
		if fi, _ := os.Lstat(p); fi.Mode().IsRegular() {
			size += fi.Size()
		}
		nfiles++
	}
	r := h.run("resume", "rm", "--dry-run", idC)
	fi, err := os.Stat(c.transcript)
	if err != nil {
		t.Fatal(err)
	}
	trSize := fmt.Sprintf("  %s  %d\n", c.transcript, fi.Size())
	if r.code != 0 || !strings.HasPrefix(r.stdout, "would move to the trash "+idC) || !strings.Contains(r.stdout, trSize) ||
		!strings.Contains(r.stdout, fmt.Sprintf("total: 1 sessions, %d files, %d bytes", nfiles, size)) {
		t.Errorf("rm --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if diff := cmp.Diff(before, snapshotTree(t, roots...)); diff != "" {
		t.Errorf("a refused or dry rm changed files (-before +after):\n%s", diff)
	}
	if ents, _ := os.ReadDir(filepath.Join(h.fc, "resume-trash")); len(ents) != 0 {
		t.Errorf("a refused or dry rm wrote to the trash: %v", ents)
	}
}

// trash restore refuses to write over a transcript that reappeared since
// the rm (exit 2), and changes nothing: neither the new transcript nor
// the trashed copy.
func TestTrashRestoreRefusesATranscriptThatReappeared(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", time.Hour)
	if r := h.run("resume", "rm", idA); r.code != 0 {
		t.Fatalf("rm: exit %d\n%s", r.code, r.stderr)
	}
	os.WriteFile(s.transcript, []byte(`{"type":"user","new":true}`+"\n"), 0o600)
	// The trashed entry, not the trash folder: a listing may rewrite its
	// index (same content) on the way.
	trash := filepath.Join(h.fc, "resume-trash")
	entry := filepath.Join(trash, idA)
	again := snapshotTree(t, append([]string{entry}, s.roots...)...)
	r := h.run("resume", "trash", "restore", idA)
	if r.code != 2 || !strings.Contains(r.stderr, s.transcript) {
		t.Errorf("trash restore over a reappeared transcript: exit %d, want 2 naming it\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff(again, snapshotTree(t, append([]string{entry}, s.roots...)...)); diff != "" {
		t.Errorf("the refused restore changed files (-before +after):\n%s", diff)
	}
	if err := (&vault.Store{Dir: trash}).Verify(idA); err != nil {
		t.Errorf("the trashed copy is damaged after a refused restore: %v", err)
	}
}

// The manifest records each file's size (a folder's is 0), and resuming
// an archived session keeps its manifest in restored/, with the original
// mtimes and the time of the restore.
func TestManifestSizesAndTheKeptManifestAfterAResume(t *testing.T) {
	h := newHome(t)
	s := h.fullSession(idA, "api", "Login work", 40*24*time.Hour)
	before := snapshotTree(t, s.roots...)
	sizes := map[string]int64{}
	var total int64
	for p := range before {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().IsRegular() {
			sizes[p] = fi.Size()
			total += fi.Size()
		} else {
			sizes[p] = 0
		}
	}
	if r := h.run("resume", "archive", idA); r.code != 0 {
		t.Fatalf("archive: exit %d\n%s", r.code, r.stderr)
	}
	m, err := (&vault.Store{Dir: filepath.Join(h.fc, "resume-archive")}).Manifest(idA)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != len(sizes) {
		t.Fatalf("manifest has %d files, want %d", len(m.Files), len(sizes))
	}
	for _, f := range m.Files {
		if want, ok := sizes[f.Path]; !ok || f.Size != want {
			t.Errorf("manifest %s: size %d, want %d", f.Path, f.Size, want)
		}
	}
	if m.Bytes() != total {
		t.Errorf("manifest bytes %d, want %d", m.Bytes(), total)
	}

	start := time.Now().Add(-time.Second)
	if r := h.run("resume", idA); r.code != 0 || r.exec == nil {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(h.fc, "resume-archive", "restored", idA+"-*.json"))
	if len(kept) != 1 {
		t.Fatalf("kept manifests after the resume: %v", kept)
	}
	body, _ := os.ReadFile(kept[0])
	var k vault.Manifest
	if err := json.Unmarshal(body, &k); err != nil {
		t.Fatalf("kept manifest %s: %v", kept[0], err)
	}
	if k.SessionID != idA || k.Restored == nil || k.Restored.Before(start) || len(k.Files) != len(m.Files) {
		t.Errorf("kept manifest: session %s, restored %v, %d files", k.SessionID, k.Restored, len(k.Files))
	}
	for _, f := range k.Files {
		if b := before[f.Path]; f.MtimeNs != b.Mtime.UnixNano() || f.Size != sizes[f.Path] {
			t.Errorf("kept manifest %s: mtime %d size %d, want the original %d and %d", f.Path, f.MtimeNs, f.Size, b.Mtime.UnixNano(), sizes[f.Path])
		}
	}
	if _, err := os.Stat(filepath.Join(h.fc, "resume-archive", idA)); err == nil {
		t.Error("the archive entry is still there after the resume restored it")
	}
}
