package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

const idWide = "c0ffee00-1111-4222-8333-444455556666"

// outputHome is the demo sessions and one whose name, branch and prompt
// are long, in wide runes and combining accents, and one with a long
// plain name; with codex, beside a ~/.codex of threads, so that every row
// carries its harness mark.
func outputHome(t *testing.T, codex ...bool) *e2e {
	var e *e2e
	if len(codex) > 0 && codex[0] {
		c := newCodexE2E(t)
		c.build()
		e = c.e2e
	} else {
		e = newE2E(t)
	}
	api, _ := demoSessions(e.testHome)
	e.session(idWide, api, "feature/a-branch-name-longer-than-any-column", "fix the login "+strings.Repeat("and the e\u0301tude ", 12),
		strings.Repeat("日本語の長い名前 ", 8), time.Minute)
	e.session(idLongName, api, "refactor/upload-handler-wrong-status-code", "the login handler returns the wrong status code when retried",
		longName, 2*time.Minute)
	return e
}

const (
	idLongName = "7d326e5c-8e0e-4885-b07d-8c151e6e70e7"
	longName   = "Investigate the memory leak in the settings page"
)

// inTmux runs forgectl with args in a width-column tmux window, env added,
// and returns the screen with wrapped lines joined (so a line wider than
// the window shows as one) and, with escapes, as tmux drew it.
func (e *e2e) inTmux(t *testing.T, width int, env []string, escapes bool, args ...string) string {
	t.Helper()
	tm := newTmux(t)
	var b strings.Builder
	b.WriteString("#!/bin/sh\n" + envExports(append(append([]string(nil), e.env...), env...)) + "cd " + e.home + "\n")
	b.WriteString(e.forgectl + " " + strings.Join(quoteAll(args), " ") + " 2>/dev/null\necho \"EXIT=$?\"\nsleep 600\n")
	script := filepath.Join(e.home, fmt.Sprintf("out-%d.sh", time.Now().UnixNano()))
	os.WriteFile(script, []byte(b.String()), 0o755)
	tm.run("new-session", "-d", "-s", "t", "-x", strconv.Itoa(width), "-y", "50", script)
	tm.waitFor("the command to finish", func(s string) bool { return strings.Contains(s, "EXIT=") })
	capture := []string{"-L", tm.sock, "capture-pane", "-p", "-J", "-t", "t"}
	if escapes {
		capture = append(capture, "-e")
	}
	out, err := exec.Command("tmux", capture...).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

// On a terminal of 80 or 200 columns no table line is wider than the
// terminal, cut values end in …, and the ids are whole. At 80 columns the
// tables stay readable, with Codex threads listed too (each row then
// carries a harness mark) or not: a long name shows at least 19
// characters (20 columns, the last "…") in ls, ls --tree and search.
func TestE2ETablesFitTheTerminal(t *testing.T) {
	for _, codex := range []bool{false, true} {
		e := outputHome(t, codex)
		for _, width := range []int{80, 200} {
			for _, args := range [][]string{{"resume", "ls"}, {"resume", "search", "login"}, {"resume", "ls", "--tree"}} {
				screen := e.inTmux(t, width, nil, false, args...)
				if !strings.Contains(screen, "EXIT=0") || !strings.Contains(screen, idWide) || !strings.Contains(screen, idLogin) {
					t.Fatalf("%d columns, %v:\n%s", width, args, screen)
				}
				if codex && !strings.Contains(screen, " cc ") {
					t.Fatalf("codex: no harness mark on the rows:\n%s", screen)
				}
				for _, line := range strings.Split(screen, "\n") {
					if w := runewidth.StringWidth(line); w > width {
						t.Errorf("%d columns, %v: a line of %d columns:\n%s", width, args, w, line)
					}
					if strings.Contains(line, idWide) && !strings.Contains(line, "…") {
						t.Errorf("%d columns, %v: the long row was not cut: %q", width, args, line)
					}
				}
				long := lineOf(screen, idLongName)
				shown := 0
				for n := len(longName); n > 0 && shown == 0; n-- {
					if strings.Contains(long, longName[:n]) {
						shown = n
					}
				}
				if shown < 19 {
					t.Errorf("%d columns, %v (codex %v): the name shows %d characters: %q\n%s", width, args, codex, shown, long, screen)
				}
			}
		}
	}
}

// Colour reaches a terminal only: NO_COLOR turns it off there, a pipe
// never gets it in auto, CLICOLOR_FORCE and --color=always force it,
// --color=never and NO_COLOR beat CLICOLOR_FORCE.
func TestE2EColourOnlyWhereAsked(t *testing.T) {
	e := outputHome(t)
	if s := e.inTmux(t, 200, nil, true, "resume", "search", "login"); !strings.Contains(s, "\x1b[") {
		t.Fatalf("no colour on a terminal:\n%q", s)
	}
	for _, args := range [][]string{{"resume", "ls"}, {"resume", "search", "login"}} {
		if s := e.inTmux(t, 200, []string{"NO_COLOR=1"}, true, args...); strings.Contains(s, "\x1b[") || !strings.Contains(s, idWide) {
			t.Errorf("NO_COLOR=1 %v: an escape on the terminal:\n%q", args, s)
		}
	}
	for _, c := range []struct {
		env    []string
		args   []string
		colour bool
	}{
		{nil, nil, false},
		{[]string{"CLICOLOR_FORCE=1"}, nil, true},
		{[]string{"CLICOLOR_FORCE=0"}, nil, false},
		{[]string{"CLICOLOR_FORCE=1", "NO_COLOR=1"}, nil, false},
		{[]string{"CLICOLOR_FORCE=1"}, []string{"--color=never"}, false},
		{[]string{"NO_COLOR=1"}, []string{"--color=always"}, true},
		{nil, []string{"--color", "auto"}, false},
	} {
		for _, cmd := range [][]string{{"resume", "ls"}, {"resume", "search", "login"}, {"resume", "api-server"}} {
			args := append(append([]string(nil), cmd...), c.args...)
			run := e.command(args...)
			run.Env = append(append([]string(nil), e.env...), c.env...)
			out, _ := run.Output() // resume api-server is ambiguous: exit 1, candidates on stdout
			if len(out) == 0 {
				t.Fatalf("%v %v: no output", c.env, args)
			}
			if got := strings.Contains(string(out), "\x1b["); got != c.colour {
				t.Errorf("%v %v on a pipe: colour %v, want %v:\n%q", c.env, args, got, c.colour, out)
			}
		}
	}
	r := e.command("resume", "ls", "--color=sometimes")
	out, err := r.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "hint: give --color=auto") {
		t.Errorf("--color=sometimes: %v %s", err, out)
	}
}

// The picker's list is the finder's fixed half of the screen; its rows
// give the name what repo and branch can spare, so a 40-character name
// shows whole on a 160-column terminal (it was cut at about 20).
func TestE2EPickerRowsGiveTheNameTheRoom(t *testing.T) {
	e := newE2E(t)
	api := e.repo("a-repository-name-that-is-long")
	const name = "Sliding-window token refresh for the API"
	e.session(idLogin, api, "feature/a-branch-name-that-is-long-too", "refresh tokens", name, time.Minute)
	tm := newTmux(t)
	e.startPickers(tm, 1)
	screen := tm.waitFor("the picker", func(s string) bool { return strings.Contains(s, "resume>") && strings.Contains(s, "1/1") })
	// The list is the left half; the preview, which names it too, the right.
	var list strings.Builder
	for _, line := range strings.Split(screen, "\n") {
		r := []rune(line)
		list.WriteString(string(r[:min(len(r), 80)]) + "\n")
	}
	if !strings.Contains(list.String(), name) {
		t.Errorf("the picker's list cut the name %q:\n%s", name, screen)
	}
	tm.run("send-keys", "-t", "t", "Escape")
	e.waitExits(t, 1)
}

// A search lists only its hits, but a hit's parent that does not hold the
// query is still on disk: its mark names it without "(gone)".
func TestE2ESearchHitsParentIsNotGone(t *testing.T) {
	e := newE2E(t)
	h := &lineageHome{e: e, repo: e.repo("api")}
	const parent, child = "aaaaaaaa-1111-4222-8333-444455556666", "bbbbbbbb-1111-4222-8333-444455556666"
	h.session(parent, "", "", time.Now().Add(-time.Hour))
	h.session(child, parent, "branch", time.Now().Add(-time.Minute))
	out, err := e.command("resume", "search", "work on "+child).Output()
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	line := lineOf(string(out), child)
	if !strings.Contains(line, "[branch of aaaaaaaa]") || strings.Contains(line, "(gone)") {
		t.Errorf("the hit's mark: %q\n%s", line, out)
	}
}

// A first search on a terminal prints its hits as the index is built; what
// it leaves on the screen is what a warm search prints there, row for row,
// in the piped table's order, and the index it leaves is complete; with a
// ~/.codex beside Claude Code's sessions too, the two harnesses' hits
// interleaved newest first.
func TestE2EFirstSearchStreamsTheWarmRows(t *testing.T) {
	for _, codex := range []bool{false, true} {
		e := newE2E(t)
		api := e.repo("api")
		var ids []string
		for k := range 40 {
			id := fmt.Sprintf("5e55%04d-1111-4222-8333-444455556666", k)
			text := fmt.Sprintf("session %d has nothing", k)
			if k%4 != 3 {
				text = fmt.Sprintf("session %d holds the needle", k)
			}
			// Hours apart, from 2h30m ago: the ages do not tick over between
			// the two runs.
			e.session(id, api, "main", text, "", 150*time.Minute+time.Duration(k)*time.Hour)
			ids = append(ids, id)
		}
		rows := 30
		if codex {
			// Threads between the sessions, from 3h ago, 3 hours apart.
			codexThreads(t, e.home, api, 10, "the needle", func(k int) time.Duration { return 180*time.Minute + time.Duration(3*k)*time.Hour })
			rows += 10
		}
		index := filepath.Join(e.fc, "cache", "search")
		os.RemoveAll(index)
		os.RemoveAll(index + "-codex")
		first := e.inTmux(t, 200, nil, false, "resume", "search", "needle")
		if _, err := os.Stat(filepath.Join(index, "catalog")); err != nil {
			t.Fatalf("no index after the first search: %v", err)
		}
		warm := e.inTmux(t, 200, nil, false, "resume", "search", "needle")
		if first != warm || !strings.Contains(first, "EXIT=0") {
			t.Fatalf("codex %v: the first search's screen differs from the warm one's:\n%s\n---\n%s", codex, first, warm)
		}
		piped, err := e.command("resume", "search", "needle").Output()
		if err != nil {
			t.Fatal(err)
		}
		order := func(s string) []string {
			var out []string
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(l, "5e55") || strings.HasPrefix(l, "019ad1") {
					out = append(out, l[:36])
				}
			}
			return out
		}
		got, want := order(first), order(string(piped))
		if strings.Join(got, " ") != strings.Join(want, " ") || len(got) != rows {
			t.Errorf("codex %v: terminal order %v\npiped order %v", codex, got, want)
		}
		if codex && (!strings.HasPrefix(got[1], "019ad1") || !strings.HasPrefix(got[2], "5e55")) {
			t.Errorf("the harnesses' rows are not interleaved newest first: %v", got)
		}
		out, _ := e.command("resume", "search", "--verbose", "needle").CombinedOutput()
		if !strings.Contains(string(out), fmt.Sprintf("search index: 0 transcripts read, %d unchanged", 40+rows-30)) {
			t.Errorf("the index was not complete: %s", out)
		}
	}
}

// At 80 columns the preview is never cut by the finder (which ends a line
// too long for its pane with ".."): it wraps to the room inside its
// frame, not to the terminal's width the finder hands it. The rows put the
// name first there, and keep every value whole, since the finder matches
// what a row says: a name, a repo or a branch finds its sessions however
// narrow the list.
func TestE2EPickerAt80ColumnsCutsNothing(t *testing.T) {
	e := newE2E(t)
	// The demo home: long names and prompts, and lineage marks.
	gencc := filepath.Join(filepath.Dir(e.forgectl), "gencc")
	if out, err := exec.Command(gencc, "-home", e.home, "-demo", "-seed", "7").CombinedOutput(); err != nil {
		t.Fatalf("gencc: %v\n%s", err, out)
	}
	tm := newTmux(t)
	script := filepath.Join(e.home, "pick80.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n"+envExports(e.env)+"cd "+e.home+"\n"+e.forgectl+" resume\nsleep 600\n"), 0o755)
	tm.run("new-session", "-d", "-s", "t", "-x", "80", "-y", "40", script)
	// The demo home lists 22 sessions, 8 of them with a lineage mark.
	screen := tm.waitFor("the picker, filled, with its preview", func(s string) bool {
		return strings.Contains(s, "22/22") && strings.Contains(s, "┐") && strings.Contains(s, "cwd")
	})
	cut := regexp.MustCompile(`\.\.│`) // the finder's cut of a preview line, at its frame
	rows, marks := 0, 0
	for _, line := range strings.Split(screen, "\n") {
		if cut.MatchString(line) {
			t.Errorf("the finder cut a preview line at 80 columns: %q\n%s", line, screen)
		}
		if strings.Contains(line, " ago ") {
			rows++
		}
		if strings.Contains(line, "[fork]") || strings.Contains(line, "[/clear]") {
			marks++
		}
	}
	if rows < 20 || marks == 0 {
		t.Fatalf("%d session rows, %d with a lineage mark: the test proves nothing\n%s", rows, marks, screen)
	}
	// Typed words match what the rows hold whole: four sessions are
	// named "Terraform state migration", and four are on fix/rate-limit,
	// past what an 80-column row shows of either.
	for _, tc := range []struct{ query, count string }{{"migration", "4/22"}, {"rate-limit", "4/22"}} {
		tm.run("send-keys", "-t", "t", "-l", tc.query)
		tm.waitFor(tc.query+" to match "+tc.count, func(s string) bool { return strings.Contains(s, tc.count) })
		tm.run("send-keys", "-t", "t", "C-u")
	}
	tm.run("send-keys", "-t", "t", "Escape")
}
