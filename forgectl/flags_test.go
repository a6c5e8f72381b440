package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
)

// idForce is a session whose prompt holds "--force", as real sessions do:
// what a search for a stray "--" would find.
const idForce = "f0cef0ce-1111-4222-8333-444444444444"

func flagsHome(t *testing.T) (*testHome, string) {
	h, api, _ := demo(t)
	h.session(idForce, h.repo("deploy"), "main", "run git push --force please", "", 4*time.Hour)
	return h, api
}

// TestFlagValues: a flag that takes a value and has none is bad usage
// naming the flag; "--" and the next flag are never its value; a value or
// word starting with "-" is reached with = or after "--"; values given as
// the next word and filters before flags still work.
func TestFlagValues(t *testing.T) {
	h, _ := flagsHome(t)
	deploy := filepath.Join(h.home, "src", "deploy")
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		stdout  string // a substring ("" means stdout must be empty)
		stderr  string // a substring
		execID  string
		execDir string
	}{
		{"--search last", []string{"resume", "--search"}, 2, "", "error: flag --search needs a value", "", ""},
		{"--search then --", []string{"resume", "--search", "--"}, 2, "", "flag --search needs a value", "", ""},
		{"--search then a flag", []string{"resume", "--search", "--dry-run"}, 2, "",
			`flag --search needs a value, and "--dry-run" starts with "-"`, "", ""},
		{"--assume-stopped last", []string{"resume", "--dry-run", "--assume-stopped"}, 2, "", "flag --assume-stopped needs a value", "", ""},
		{"search --limit last", []string{"resume", "search", "--limit"}, 2, "", "flag --limit needs a value", "", ""},
		{"search --limit after the words", []string{"resume", "search", "please", "--limit"}, 2, "", "flag --limit needs a value", "", ""},
		{"single-dash flag", []string{"resume", "-search"}, 2, "", "flag --search needs a value", "", ""},
		{"--search=--force", []string{"resume", "--search=--force", "--dry-run"}, 0, "session: " + idForce + "\n", "", "", ""},
		{"--search -- --force", []string{"resume", "--search", "--", "--force"}, 0, "", "", idForce, deploy},
		{"--search -- -x with flags before", []string{"resume", "--dry-run", "--search", "--", "--force"}, 0, "session: " + idForce + "\n", "", "", ""},
		{"search -- --force", []string{"resume", "search", "--", "--force"}, 0, idForce, "", "", ""},
		{"--search VALUE then a flag", []string{"resume", "--search", "login", "--dry-run"}, 0, "session: " + idLogin + "\n", "", "", ""},
		{"search --limit N words", []string{"resume", "search", "--limit", "1", "please"}, 0, idWeb, "", "", ""},
		{"filter before a flag", []string{"resume", "login", "--dry-run"}, 0, "session: " + idLogin + "\n", "", "", ""},
		{"flags before ls", []string{"resume", "--json", "ls", "web-app"}, 0, idWeb, "", "", ""},
		{"--assume-stopped PID", []string{"resume", "--dry-run", "--assume-stopped", "1", "login"}, 0, "session: " + idLogin + "\n", "", "", ""},
		{"unknown flag still reported", []string{"resume", "search", "--bogus", "x"}, 2, "", "flag provided but not defined: -bogus", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.run(tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.stdout == "" && r.stdout != "" || !strings.Contains(r.stdout, tc.stdout) {
				t.Errorf("stdout %q, want %q", r.stdout, tc.stdout)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.stderr)
			}
			if tc.code == 2 && !strings.Contains(r.stderr, "forgectl: hint: ") {
				t.Errorf("no hint: %q", r.stderr)
			}
			switch {
			case tc.execID == "" && r.exec != nil:
				t.Errorf("exec'd %v", r.exec.argv)
			case tc.execID != "" && (r.exec == nil || r.exec.argv[len(r.exec.argv)-1] != tc.execID || r.exec.dir != tc.execDir):
				t.Errorf("exec %+v, want %s in %s", r.exec, tc.execID, tc.execDir)
			}
		})
	}
	// The search for "please" above found two sessions: --limit 1 kept one.
	if r := h.run("resume", "search", "--limit", "1", "please"); strings.Contains(r.stdout, idForce) {
		t.Errorf("--limit 1 printed both:\n%s", r.stdout)
	}
}

// TestSearchVerdict: resume --search's dry-run verdict names no_match and
// ambiguous as a FILTER's does (resume restart relies on it).
func TestSearchVerdict(t *testing.T) {
	h, _ := flagsHome(t)
	for _, tc := range []struct {
		query, reason, err string
	}{
		{"xylophonequasar", "no_match", `no session holds "xylophonequasar"`},
		{"please", "ambiguous", `2 sessions hold "please"`},
		{"login", "", ""},
	} {
		r := h.run("resume", "--search", tc.query, "--dry-run", "--json")
		var v verdict
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("%s: not a verdict (%v): %q", tc.query, err, r.stdout)
		}
		if v.Reason != tc.reason || v.OK != (tc.reason == "") || v.Error != tc.err {
			t.Errorf("%s: reason %q ok %v error %q, want %q %q", tc.query, v.Reason, v.OK, v.Error, tc.reason, tc.err)
		}
	}
}

// TestSearchNoHitHint: the hint after a search that found nothing says what
// would find something, true for each case, for resume --search and for
// resume search alike.
func TestSearchNoHitHint(t *testing.T) {
	h, _ := flagsHome(t)
	h.cc.Transcript(h.repo("bot"), "b0b0b0b0-1111-4222-8333-444444444444", time.Now().Add(-5*time.Hour),
		cchome.Prompt(filepath.Join(h.home, "src", "bot"), "b0b0b0b0-1111-4222-8333-444444444444", "main", "sdk-cli", "a gibbon in print mode"))
	for _, tc := range []struct {
		name string
		args []string
		hint string
	}{
		{"one word", []string{"xylophonequasar"}, "hint: check the spelling, or search for part of the word"},
		{"a word no session holds", []string{"login", "xylophonequasar"}, `hint: no session holds "xylophonequasar" at all; leave it out`},
		{"two such words", []string{"login", "xylophone", `"quasar star"`}, `hint: no session holds any of "xylophone \"quasar star\"", even alone`},
		{"no word held", []string{"xylophone", "quasar"}, "hint: no session holds any of the words, even alone"},
		{"each held apart", []string{"login", "dark"}, "hint: each word is in some session, but no one session holds them all; try fewer words"},
		{"hidden", []string{"gibbon"}, "hint: 1 hidden session(s) match; --all includes them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, args := range [][]string{
				append([]string{"resume", "search"}, tc.args...),
				{"resume", "--search", strings.Join(tc.args, " ")},
			} {
				r := h.run(args...)
				if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "error: no session holds ") || !strings.Contains(r.stderr, tc.hint) {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want the hint %q", args, r.code, r.stdout, r.stderr, tc.hint)
				}
			}
		})
	}
	// A FILTER that leaves out every hit says so.
	r := h.run("resume", "--search", "login", "web-app")
	if r.code != 1 || !strings.Contains(r.stderr, `error: no session matching "web-app" holds "login"`) ||
		!strings.Contains(r.stderr, `hint: 1 session(s) hold it, none matching "web-app"; leave the filter out`) {
		t.Errorf("filter: exit %d, %q", r.code, r.stderr)
	}
	r = h.run("resume", "--search", "gibbon", "bot")
	if r.code != 1 || !strings.Contains(r.stderr, "hint: 1 hidden session(s) match; --all includes them") {
		t.Errorf("hidden, filter: exit %d, %q", r.code, r.stderr)
	}
	r = h.run("resume", "--search", "gibbon", "web-app")
	if r.code != 1 || !strings.Contains(r.stderr, `hint: 1 hidden session(s) hold it, none matching "web-app"; leave the filter out and add --all`) {
		t.Errorf("hidden outside the filter: exit %d, %q", r.code, r.stderr)
	}
}

// TestSearchJSONNoHit: search --json prints [] for no hit, as ls --json.
func TestSearchJSONNoHit(t *testing.T) {
	h, _ := flagsHome(t)
	r := h.run("resume", "search", "--json", "xylophonequasar")
	if r.code != 1 || r.stdout != "[]\n" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if ls := h.run("resume", "ls", "--json", "xylophonequasar"); ls.stdout != r.stdout {
		t.Errorf("ls --json prints %q, search --json %q", ls.stdout, r.stdout)
	}
}

// TestLongQueryIsCut: a message quoting a filter or a query quotes at most
// msg.MaxQuoted characters of it.
func TestLongQueryIsCut(t *testing.T) {
	h, _ := flagsHome(t)
	long := strings.Repeat("y", 5000)
	for _, args := range [][]string{
		{"resume", "search", long},
		{"resume", "search", "login", long},
		{"resume", "--search", long},
		{"resume", "--search", "login", long},
		{"resume", long},
		{"resume", "--dry-run", "--json", long},
		{long},
	} {
		r := h.run(args...)
		if r.code == 0 || len(r.stderr) > 600 || len(r.stdout) > 600 || !strings.Contains(r.stderr, "y…\"") {
			t.Errorf("%d words: exit %d, %d bytes of stderr: %.300q", len(args), r.code, len(r.stderr), r.stderr)
		}
	}
}

// TestProjectsNotADirectory: when Claude Code's projects directory is a
// file or missing, the hint says so, not that the index is safe to delete.
func TestProjectsNotADirectory(t *testing.T) {
	h := newHome(t)
	os.MkdirAll(h.claude, 0o700)
	os.WriteFile(filepath.Join(h.claude, "projects"), []byte("x"), 0o600)
	for _, args := range [][]string{{"resume", "search", "x"}, {"resume", "--search", "x"}, {"resume", "ls"}} {
		r := h.run(args...)
		if r.code != 1 || !strings.Contains(r.stderr, "projects is not a directory; Claude Code keeps its sessions there") ||
			strings.Contains(r.stderr, "safe to delete") {
			t.Errorf("%q: exit %d, %q", args, r.code, r.stderr)
		}
	}
	os.Remove(filepath.Join(h.claude, "projects"))
	r := h.run("resume", "search", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "there are no Claude Code sessions: "+filepath.Join(h.claude, "projects")+" does not exist") {
		t.Errorf("missing: exit %d, %q", r.code, r.stderr)
	}
}

// TestProjectsUnreadable: a projects directory this user cannot read
// (mode 000) is named as the problem, with the owner and mode to check,
// by search and ls alike; it is not the search index's fault.
func TestProjectsUnreadable(t *testing.T) {
	if childRun(t) {
		return
	}
	home := sharedHome(t)
	projects := filepath.Join(home, ".claude", "projects")
	if err := os.Mkdir(projects, 0o000); err != nil {
		t.Fatal(err)
	}
	os.Chown(projects, 12345, 12345)
	os.Chmod(projects, 0o000)
	hint := "forgectl: hint: check its owner and mode (ls -ld " + projects + "): Claude Code keeps its sessions there, and forgectl cannot read them"
	for _, args := range [][]string{{"resume", "search", "x"}, {"resume", "ls"}, {"resume", "ls", "--json"}} {
		out := asAnotherUser(t, home, args...)
		if !strings.Contains(out, "code=1\n") || !strings.Contains(out, "open "+projects+": permission denied") ||
			!strings.Contains(out, hint) || strings.Contains(out, "safe to delete") {
			t.Errorf("%q:\n%s", args, out)
		}
	}
}

// TestFlagValueNotDashDash: "--search -- WORD" takes WORD as the value,
// but "--" itself never is one, even after the user's own "--".
func TestFlagValueNotDashDash(t *testing.T) {
	h, _ := flagsHome(t)
	for _, args := range [][]string{
		{"resume", "--search", "--", "--"},
		{"resume", "--dry-run", "--search", "--", "--", "force"},
		{"resume", "search", "--limit", "--", "--"},
	} {
		r := h.run(args...)
		if r.code != 2 || r.exec != nil || r.stdout != "" || !strings.Contains(r.stderr, "forgectl: error: flag --") ||
			!strings.Contains(r.stderr, " needs a value\nforgectl: hint: give it one: --") {
			t.Errorf("%q: exit %d, exec %v, stdout %q, stderr %q", args, r.code, r.exec, r.stdout, r.stderr)
		}
	}
}
