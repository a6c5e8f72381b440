//go:build contract

package codex

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestCodexArchiveByForgectl: `forgectl resume archive` of a Codex thread
// runs the real `codex archive`, so the thread is archived as Codex's own
// archive leaves it: the file in archived_sessions/, listed with
// hidden_reason archived, and `codex resume <id>` asks "Unarchive and
// resume" first. `forgectl resume unarchive` runs `codex unarchive`, and a
// real resume then appends to the file in its first place.
func TestCodexArchiveByForgectl(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("arch-forgectl")
	const prompt = "archive me through forgectl"
	p := h.startTUI(repo)
	p.prompt(prompt)
	id, paths := h.thread(prompt)
	p.quit()
	if !enabled(h, "TestCodexArchiveByForgectl") {
		h.stopDaemon()
		return
	}
	// After /quit the daemon keeps the thread loaded for about a minute:
	// archive refuses it, naming the holder's pid.
	if holders := h.lockHolders(id); len(holders) == 1 {
		out, errOut, code := h.forgectl("resume", "archive", id)
		if code != 2 || out != "" || !strings.Contains(errOut, fmt.Sprintf("pid %d", holders[0])) {
			t.Errorf("archive of a thread the daemon still holds (pid %d): exit %d\nstdout %q\nstderr %s", holders[0], code, out, errOut)
		}
		if live, _ := h.files(); !slices.Equal(live, paths) {
			t.Errorf("a refused archive moved the rollout: sessions/ %v", live)
		}
	} else {
		t.Logf("the daemon had let go of the thread already (holders %v): the live refusal is not checked here", holders)
	}
	h.stopDaemon()
	before, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}

	out, errOut, code := h.forgectl("resume", "archive", id)
	if code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("forgectl resume archive %s: exit %d\nstdout %q\nstderr %s", id, code, out, errOut)
	}
	live, archived := h.files()
	want := filepath.Join(h.codex, "archived_sessions", filepath.Base(paths[0]))
	if len(live) != 0 || !slices.Equal(archived, []string{want}) {
		t.Fatalf("after forgectl's archive: sessions/ %v, archived_sessions/ %v; want the file at %s", live, archived, want)
	}
	if b, _ := os.ReadFile(want); !bytes.Equal(b, before) {
		t.Errorf("the archived rollout differs from the one archived")
	}
	if rows := h.ls("--archived"); len(rows) != 1 || rows[id].HiddenReason != "archived" {
		t.Errorf("ls --archived lists %v, want %s with hidden_reason archived", rows, id)
	}
	if _, ok := h.ls()[id]; ok {
		t.Errorf("the default ls lists the archived thread %s", id)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".config", "forgectl", "resume-archive", id)); err == nil {
		t.Errorf("a Codex thread went into forgectl's archive")
	}

	q := h.newPane(repo, h.binary, "resume", id)
	s := q.WaitScreen("codex resume of the archived thread", tmuxrig.StartWait, func(s string) bool {
		return strings.Contains(s, "Unarchive") || strings.Contains(s, "no rollout found") || strings.Contains(s, "gpt-fake")
	})
	if !strings.Contains(s, "Unarchive and resume") {
		t.Errorf("codex resume of a thread forgectl archived showed:\n%s\nwant Codex's own \"Unarchive and resume\" question", s)
	} else {
		t.Log("FACT: codex resume of a thread archived by forgectl (codex archive) asks \"Unarchive and resume\", as for one archived in Codex")
	}
	q.Kill()
	h.stopDaemon()
	if live, archived := h.files(); len(live) != 0 || len(archived) != 1 {
		t.Fatalf("cancelling the question moved files: sessions/ %v, archived_sessions/ %v", live, archived)
	}

	out, errOut, code = h.forgectl("resume", "unarchive", id[:13])
	if code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("forgectl resume unarchive %s: exit %d\nstdout %q\nstderr %s", id[:13], code, out, errOut)
	}
	if live, archived := h.files(); !slices.Equal(live, paths) || len(archived) != 0 {
		t.Fatalf("after forgectl's unarchive: sessions/ %v, archived_sessions/ %v; want %v", live, archived, paths)
	}
	if r, ok := h.ls()[id]; !ok || r.Hidden {
		t.Errorf("after unarchive, ls shows %+v (listed %v)", r, ok)
	}
	const again = "back from the archive"
	r := h.newPane(repo, h.binary, "resume", id)
	r.waitComposer("the unarchived thread resumed", tmuxrig.StartWait)
	r.prompt(again)
	r.quit()
	h.stopDaemon()
	if pg, _ := readRollout(t, paths[0]).prompts(); !slices.Equal(pg, []string{prompt, again}) {
		t.Errorf("the unarchived thread's rollout holds the prompts %q, want %q then %q in its first place", pg, prompt, again)
	} else {
		t.Log("FACT: after forgectl's archive and unarchive, codex resume <id> appends to the rollout in its first place")
	}
}

// TestCodexRmAndTrashRestore: `forgectl resume rm` moves a Codex thread's
// rollout into forgectl's trash, and `trash restore` writes it back to the
// same path. Codex's state database, left alone, still names that path:
// the real Codex resumes the thread again. An archived thread goes back to
// archived_sessions/, where `codex unarchive` still takes it.
func TestCodexRmAndTrashRestore(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("trash")
	const prompt = "trash me and bring me back"
	p := h.startTUI(repo)
	p.prompt(prompt)
	id, paths := h.thread(prompt)
	p.quit()
	h.stopDaemon()
	if !enabled(h, "TestCodexRmAndTrashRestore") {
		return
	}
	fi, _ := os.Stat(paths[0])
	before, _ := os.ReadFile(paths[0])

	out, errOut, code := h.forgectl("resume", "rm", id)
	if code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("forgectl resume rm %s: exit %d\nstdout %q\nstderr %s", id, code, out, errOut)
	}
	if live, archived := h.files(); len(live) != 0 || len(archived) != 0 {
		t.Fatalf("after rm: sessions/ %v, archived_sessions/ %v; want the rollout gone", live, archived)
	}
	if out, _, _ := h.forgectl("resume", "trash", "list"); !strings.Contains(out, id) {
		t.Errorf("trash list does not show %s:\n%s", id, out)
	}
	if _, ok := h.ls("--all")[id]; ok {
		t.Errorf("ls --all lists the trashed thread %s", id)
	}
	q := h.newPane(repo, h.binary, "resume", id)
	s := q.WaitScreen("codex resume of the trashed thread", tmuxrig.StartWait, func(s string) bool {
		return strings.Contains(s, "no rollout found") || strings.Contains(s, "gpt-fake") || strings.Contains(s, "Unarchive")
	})
	if strings.Contains(strings.ReplaceAll(s, "\n", ""), "no rollout found for thread id") {
		t.Log("FACT: while its rollout is in forgectl's trash, codex resume <id> fails: \"no rollout found for thread id\"")
	} else {
		t.Logf("codex resume of a trashed thread showed:\n%s", s)
	}
	q.Kill()
	h.stopDaemon()

	out, errOut, code = h.forgectl("resume", "trash", "restore", id)
	if code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("forgectl resume trash restore %s: exit %d\nstdout %q\nstderr %s", id, code, out, errOut)
	}
	after, err := os.ReadFile(paths[0])
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("trash restore did not put the rollout back whole at %s: %v", paths[0], err)
	}
	if fa, _ := os.Stat(paths[0]); !fa.ModTime().Equal(fi.ModTime()) || fa.Mode() != fi.Mode() {
		t.Errorf("restored rollout: mtime %v mode %v, want %v %v", fa.ModTime(), fa.Mode(), fi.ModTime(), fi.Mode())
	}
	const again = "back from the trash"
	r := h.newPane(repo, h.binary, "resume", id)
	r.waitComposer("the restored thread resumed", tmuxrig.StartWait)
	r.prompt(again)
	r.quit()
	h.stopDaemon()
	if pg, _ := readRollout(t, paths[0]).prompts(); !slices.Equal(pg, []string{prompt, again}) {
		t.Errorf("the restored thread's rollout holds the prompts %q, want %q then %q", pg, prompt, again)
	} else {
		t.Log("FACT: a rollout moved out of sessions/ and written back to the same path (state DB untouched) resumes: codex resume <id> appends to it")
	}

	// An archived thread: trashed from archived_sessions/, restored there,
	// and Codex's own unarchive still takes it.
	if _, errOut, code := h.forgectl("resume", "archive", id); code != 0 {
		t.Fatalf("archive: exit %d %s", code, errOut)
	}
	_, archived := h.files()
	if out, errOut, code := h.forgectl("resume", "rm", id); code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("rm of the archived thread: exit %d %s%s", code, out, errOut)
	}
	if live, arch := h.files(); len(live)+len(arch) != 0 {
		t.Fatalf("after rm of the archived thread: %v %v", live, arch)
	}
	if _, errOut, code := h.forgectl("resume", "trash", "restore", id); code != 0 {
		t.Fatalf("trash restore of the archived thread: exit %d %s", code, errOut)
	}
	if _, arch := h.files(); !slices.Equal(arch, archived) {
		t.Fatalf("the archived thread was restored to %v, want %v", arch, archived)
	}
	if r := h.ls("--archived")[id]; r.HiddenReason != "archived" {
		t.Errorf("ls --archived after the restore: %+v", r)
	}
	out, errOut, code = h.forgectl("resume", "unarchive", id)
	if live, _ := h.files(); code != 0 || !slices.Equal(live, paths) {
		t.Errorf("unarchive after the trash round trip: exit %d %s%s; sessions/ %v", code, out, errOut, live)
	} else {
		t.Log("FACT: a rollout trashed from archived_sessions/ and written back there is unarchived by codex unarchive")
	}
	h.stopDaemon()
}
