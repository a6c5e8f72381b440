package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

const idWide = "c0ffee00-1111-4222-8333-444455556666"

// outputHome is the demo sessions and one whose name, branch and prompt
// are long, in wide runes and combining accents.
func outputHome(t *testing.T) *e2e {
	e := newE2E(t)
	api, _ := demoSessions(e.testHome)
	e.session(idWide, api, "feature/a-branch-name-longer-than-any-column", "fix the login "+strings.Repeat("and the e\u0301tude ", 12),
		strings.Repeat("日本語の長い名前 ", 8), time.Minute)
	return e
}

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
// terminal, cut values end in …, and the ids are whole.
func TestE2ETablesFitTheTerminal(t *testing.T) {
	e := outputHome(t)
	for _, width := range []int{80, 200} {
		for _, args := range [][]string{{"resume", "ls"}, {"resume", "search", "login"}, {"resume", "ls", "--tree"}} {
			screen := e.inTmux(t, width, nil, false, args...)
			if !strings.Contains(screen, "EXIT=0") || !strings.Contains(screen, idWide) || !strings.Contains(screen, idLogin) {
				t.Fatalf("%d columns, %v:\n%s", width, args, screen)
			}
			for _, line := range strings.Split(screen, "\n") {
				if w := runewidth.StringWidth(line); w > width {
					t.Errorf("%d columns, %v: a line of %d columns:\n%s", width, args, w, line)
				}
				if strings.Contains(line, idWide) && !strings.Contains(line, "…") {
					t.Errorf("%d columns, %v: the long row was not cut: %q", width, args, line)
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
