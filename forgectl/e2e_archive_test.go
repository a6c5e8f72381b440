package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/vault"
	"github.com/google/go-cmp/cmp"
)

// The archive's crash safety, end to end: the built forgectl is killed
// with SIGKILL at each named step of a move (FORGECTL_TEST_CRASH_AT), and
// the next run must finish or roll back what it left.

func (e *e2e) runCmd(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := e.command(args...)
	cmd.Env = append(cmd.Env, env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return exitCode(err), out.String(), errb.String()
}

func (e *e2e) lsAll(t *testing.T, args ...string) []render.SessionJSON {
	t.Helper()
	code, out, errs := e.runCmd(t, nil, append([]string{"resume", "ls", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("ls %v: exit %d\n%s", args, code, errs)
	}
	var rows []render.SessionJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	return rows
}

// killedAt runs forgectl with the crash hook at step and checks that it
// died of SIGKILL there.
func (e *e2e) killedAt(t *testing.T, step string, args ...string) {
	t.Helper()
	cmd := e.command(args...)
	cmd.Env = append(cmd.Env, "FORGECTL_TEST_CRASH_AT="+step)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("forgectl %v with the crash at %s: %v, not killed\n%s", args, step, err, out)
	}
}

// wholeSomewhere checks that the session is whole in Claude Code's tree
// (every file as before) or in the archive (its manifest past the copy
// and every stored file matching its SHA-256).
func wholeSomewhere(t *testing.T, store string, s fullSession, before map[string]fileState, sameMtimes bool) string {
	t.Helper()
	now := snapshotTree(t, s.roots...)
	inTree := len(now) == len(before)
	for p, b := range before {
		a, ok := now[p]
		if !ok || a.SHA != b.SHA || a.Mode != b.Mode || (sameMtimes && !a.Mtime.Equal(b.Mtime)) {
			inTree = false
		}
	}
	if inTree {
		return "tree"
	}
	st := &vault.Store{Dir: store}
	m, err := st.Manifest(s.id)
	if err == nil && m.State != vault.Copying {
		if err = st.Verify(s.id); err == nil {
			return "archive"
		}
	}
	t.Fatalf("session %s is whole neither in the tree nor in the archive (%v); tree has %d of %d paths", s.id, err, len(now), len(before))
	return ""
}

func TestE2EArchiveKilledAtEveryStepLosesNothing(t *testing.T) {
	for _, step := range []string{"journal", "copy", "copied", "verified", "remove", "stored"} {
		t.Run(step, func(t *testing.T) {
			e := newE2E(t)
			s := e.fullSession(idA, "api", "Login work", 40*24*time.Hour)
			before := snapshotTree(t, s.roots...)
			store := filepath.Join(e.fc, "resume-archive")

			e.killedAt(t, step, "resume", "archive", idA)
			where := wholeSomewhere(t, store, s, before, true)
			if n, _ := countID(e.lsAll(t, "--all"), idA); n != 1 {
				t.Errorf("killed at %s (whole in the %s): ls --all lists it %d times", step, where, n)
			}

			// The next run finishes the move or rolls it back and moves it.
			code, out, errs := e.runCmd(t, nil, "resume", "archive", idA)
			if code != 0 {
				t.Fatalf("the run after the kill: exit %d\n%s%s", code, out, errs)
			}
			gone(t, s.roots...)
			if n, reason := countID(e.lsAll(t, "--all"), idA); n != 1 || reason != "archived" {
				t.Errorf("after the next run: %d rows, %q", n, reason)
			}
			if code, _, errs := e.runCmd(t, nil, "resume", "unarchive", "--keep-mtime", idA); code != 0 {
				t.Fatalf("unarchive: exit %d\n%s", code, errs)
			}
			if diff := cmp.Diff(before, snapshotTree(t, s.roots...)); diff != "" {
				t.Errorf("the session came back changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestE2ERestoreKilledAtEveryStepLosesNothing(t *testing.T) {
	for _, step := range []string{"restore-journal", "restore-file", "restored", "restore-done"} {
		t.Run(step, func(t *testing.T) {
			e := newE2E(t)
			s := e.fullSession(idA, "api", "Login work", 40*24*time.Hour)
			before := snapshotTree(t, s.roots...)
			store := filepath.Join(e.fc, "resume-archive")
			if code, _, errs := e.runCmd(t, nil, "resume", "archive", idA); code != 0 {
				t.Fatal(errs)
			}

			e.killedAt(t, step, "resume", "unarchive", "--keep-mtime", idA)
			where := wholeSomewhere(t, store, s, before, true)
			if n, _ := countID(e.lsAll(t, "--all"), idA); n != 1 {
				t.Errorf("killed at %s (whole in the %s): ls --all lists it %d times", step, where, n)
			}
			code, out, errs := e.runCmd(t, nil, "resume", "unarchive", "--keep-mtime", idA)
			if code != 0 {
				t.Fatalf("the run after the kill: exit %d\n%s%s", code, out, errs)
			}
			if diff := cmp.Diff(before, snapshotTree(t, s.roots...)); diff != "" {
				t.Errorf("the session came back changed (-before +after):\n%s", diff)
			}
			if n, reason := countID(e.lsAll(t, "--all"), idA); n != 1 || reason != "" {
				t.Errorf("after the next run: %d rows, %q", n, reason)
			}
			for _, p := range s.roots {
				ents, _ := os.ReadDir(filepath.Dir(p))
				for _, d := range ents {
					if vault.IsTemp(d.Name()) {
						t.Errorf("a restore's temp file is left: %s", filepath.Join(filepath.Dir(p), d.Name()))
					}
				}
			}
		})
	}
}

func TestE2ETwoArchiveRunsOnOverlappingFilters(t *testing.T) {
	e := newE2E(t)
	var all []fullSession
	var roots []string
	for i, id := range []string{idA, idB, idC} {
		s := e.fullSession(id, "repo"+strconv.Itoa(i), "work "+strconv.Itoa(i), time.Hour)
		all = append(all, s)
		roots = append(roots, s.roots...)
	}
	before := snapshotTree(t, roots...)
	type res struct {
		code      int
		out, errs string
	}
	results := make([]res, 2)
	var wg sync.WaitGroup
	for k, ids := range [][]string{{idA, idB}, {idB, idC}} {
		wg.Go(func() {
			c, o, er := e.runCmd(t, nil, append([]string{"resume", "archive", "--yes"}, ids...)...)
			results[k] = res{c, o, er}
		})
	}
	wg.Wait()
	var moved []string
	for k, r := range results {
		if r.code != 0 {
			t.Errorf("run %d: exit %d\n%s", k, r.code, r.errs)
		}
		moved = append(moved, strings.Fields(r.out)...)
	}
	sort.Strings(moved)
	if diff := cmp.Diff([]string{idA, idB, idC}, moved); diff != "" {
		t.Errorf("sessions moved (-want +got), each by one run:\n%s", diff)
	}
	rows := e.lsAll(t, "--all")
	for _, s := range all {
		gone(t, s.roots...)
		if n, reason := countID(rows, s.id); n != 1 || reason != "archived" {
			t.Errorf("%s: %d rows, %q", s.id, n, reason)
		}
	}
	if code, _, errs := e.runCmd(t, nil, "resume", "unarchive", "--keep-mtime", idA, idB, idC); code != 0 {
		t.Fatal(errs)
	}
	if diff := cmp.Diff(before, snapshotTree(t, roots...)); diff != "" {
		t.Errorf("the sessions came back changed:\n%s", diff)
	}
}

// An archive racing a resume of the same session: whichever takes the
// moves lock first, claude is started on a transcript that is there, and
// the session is never left in the archive while claude runs.
func TestE2EArchiveRacingAResume(t *testing.T) {
	for round := range 6 {
		e := newE2E(t)
		s := e.fullSession(idA, "api", "Login work", time.Hour)
		var wg sync.WaitGroup
		var archCode int
		var archErr string
		resume := e.command("resume", idA)
		// Each starts first in turn; which takes the lock first is the
		// machine's to decide.
		if round%2 == 1 {
			wg.Go(func() { archCode, _, archErr = e.runCmd(t, nil, "resume", "archive", idA) })
		}
		if err := resume.Start(); err != nil {
			t.Fatal(err)
		}
		if round%2 == 0 {
			wg.Go(func() { archCode, _, archErr = e.runCmd(t, nil, "resume", "archive", idA) })
		}
		start := e.waitRecord(t)
		wg.Wait()
		if start.SessionID != idA {
			t.Fatalf("round %d: claude started on %q", round, start.SessionID)
		}
		t.Logf("round %d: archive exit %d", round, archCode)
		switch archCode {
		case 2: // the resume was first: refused, naming claude's pid
			if !strings.Contains(archErr, "pid "+strconv.Itoa(start.Pid)) {
				t.Errorf("round %d: refused without naming claude's pid %d:\n%s", round, start.Pid, archErr)
			}
		case 0: // the archive was first: the resume restored it
		default:
			t.Errorf("round %d: archive exit %d\n%s", round, archCode, archErr)
		}
		if _, err := os.Stat(s.transcript); err != nil {
			t.Errorf("round %d (archive exit %d): the transcript claude resumed is not in the tree: %v", round, archCode, err)
		}
		if n, _ := countID(e.lsAll(t, "--archived"), idA); n != 0 {
			t.Errorf("round %d: the running session is in the archive", round)
		}
		// claude is forgectl's process, exec'd: stop it.
		resume.Process.Signal(syscall.SIGTERM)
		resume.Wait()
	}
}

// A full disk during an archive: the copy fails, nothing of it is left in
// the store, and the original is where it was. The store is a small tmpfs.
func TestE2EArchiveOnAFullDiskLeavesTheOriginal(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	e := newE2E(t)
	s := e.fullSession(idA, "api", "Login work", time.Hour)
	// An incompressible transcript larger than the store.
	f, err := os.OpenFile(s.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 1<<20)
	rf, _ := os.Open("/dev/urandom")
	rf.Read(noise)
	rf.Close()
	body, _ := json.Marshal(map[string]string{"type": "attachment", "data": string(noise)})
	f.Write(append(body, '\n'))
	f.Close()
	before := snapshotTree(t, s.roots...)
	store := filepath.Join(e.fc, "resume-archive")
	os.MkdirAll(store, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", store).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", store).Run() })

	code, out, errs := e.runCmd(t, nil, "resume", "archive", idA)
	if code != 1 || !strings.Contains(errs, "no space left") || !strings.Contains(errs, "hint:") || out != "" {
		t.Errorf("archive on a full disk: exit %d\n%s%s", code, out, errs)
	}
	if diff := cmp.Diff(before, snapshotTree(t, s.roots...)); diff != "" {
		t.Errorf("the original changed (-before +after):\n%s", diff)
	}
	if ents, _ := os.ReadDir(store); len(ents) != 0 {
		var names []string
		for _, d := range ents {
			names = append(names, d.Name())
		}
		t.Errorf("the failed copy is left in the store: %v", names)
	}
	if n, reason := countID(e.lsAll(t, "--all"), idA); n != 1 || reason != "" {
		t.Errorf("after the failed archive: %d rows, %q", n, reason)
	}
}
