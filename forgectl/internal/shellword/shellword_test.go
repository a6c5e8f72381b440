package shellword

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// shells are the POSIX shells a hook command may meet: /bin/sh is what
// Claude Code runs (dash on Debian, bash elsewhere).
func shells(t *testing.T) []string {
	var out []string
	for _, sh := range []string{"/bin/sh", "bash", "zsh"} {
		if p, err := exec.LookPath(sh); err == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatal("no shell to compare with")
	}
	return out
}

// argv is what a real shell passes to printf for args: the words as the
// shell splits and unquotes them.
func argv(t *testing.T, sh, args string) []string {
	t.Helper()
	cmd := exec.Command(sh, "-c", `printf '%s\0' `+args)
	if strings.HasSuffix(sh, "zsh") {
		cmd = exec.Command(sh, "-f", "-c", `printf '%s\0' `+args)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v", sh, args, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

var nasty = []string{
	"plain", "it's", `say "hi"`, "my tools", "$HOME", `back\slash`, `\'`, `'`, `''`, "a\nb", "tab\there",
	"*", "~/x", "a;b", "a|b&c", "#hash", "$(date)", "`date`", "ünï cødé 日本", "a\\\nb", "-n", "!x",
}

func TestQuoteRoundTripsThroughRealShells(t *testing.T) {
	for _, sh := range shells(t) {
		for _, s := range nasty {
			if got := argv(t, sh, Quote(s)); !cmp.Equal(got, []string{s}) {
				t.Errorf("%s: %q quoted as %s reads back as %q", sh, s, Quote(s), got)
			}
			if got, err := Parse("x " + Quote(s)); err != nil || len(got) != 1 || got[0][1].Text != s || !got[0][1].Literal {
				t.Errorf("Parse(Quote(%q)) = %v, %v", s, got, err)
			}
		}
	}
	if got := Join([]string{"a b", "c"}); got != "'a b' c" {
		t.Errorf("Join: %s", got)
	}
}

// Every literal line below is split as the shells split it.
func TestParseAgreesWithRealShells(t *testing.T) {
	lines := []string{
		`/opt/forge/forgectl resume snapshot --quiet`,
		`'/tmp/it'\''s/forgectl' resume snapshot --quiet`,
		`"/tmp/say \"hi\"/forgectl" resume`,
		`"/tmp/a\b/c" 'd\e' f\g`,
		`"back\\slash" "\$HOME" '$HOME' \$HOME`,
		`a"b"'c'd  e`,
		"one \\\ntwo",
		`"x\` + "\n" + `y"`,
		`''`,
		`a\ b`,
		`$ lone "$"`,
		`a#b c`,
		`x # a comment`,
		`"ü" 'ñ'`,
	}
	for _, line := range lines {
		cmds, err := Parse("printf " + line)
		if err != nil || len(cmds) != 1 {
			t.Errorf("Parse(%q): %v, %v", line, cmds, err)
			continue
		}
		var got []string
		for _, w := range cmds[0][1:] {
			if !w.Literal {
				t.Errorf("%q: %q marked as expanding", line, w.Text)
			}
			got = append(got, w.Text)
		}
		for _, sh := range shells(t) {
			if want := argv(t, sh, line); !cmp.Equal(got, want) {
				t.Errorf("%s splits %q as %q; Parse gives %q", sh, line, want, got)
			}
		}
	}
}

func TestParseCommandsAndExpansions(t *testing.T) {
	lit := func(s string) Word { return Word{Text: s, Literal: true} }
	exp := func(s string) Word { return Word{Text: s} }
	for line, want := range map[string][][]Word{
		"cd /x && forgectl resume snapshot --quiet": {{lit("cd"), lit("/x")}, {lit("forgectl"), lit("resume"), lit("snapshot"), lit("--quiet")}},
		"a; b | c & d || e\nf":                      {{lit("a")}, {lit("b")}, {lit("c")}, {lit("d")}, {lit("e")}, {lit("f")}},
		"forgectl resume snapshot >/dev/null 2>&1":  {{lit("forgectl"), lit("resume"), lit("snapshot")}},
		"x >> log 2> err < in <> rw >| f y":         {{lit("x"), lit("y")}},
		"(sub) # comment ; not a command":           {{lit("sub")}},
		`"$HOME/bin/forgectl" resume`:               {{exp("$HOME/bin/forgectl"), lit("resume")}},
		"$(command -v forgectl) resume":             {{exp("$(command -v forgectl)"), lit("resume")}},
		"`which forgectl` resume":                   {{exp("`which forgectl`"), lit("resume")}},
		"${X:-/a b} *.go ~/bin/f a~b":               {{exp("${X:-/a b}"), exp("*.go"), exp("~/bin/f"), lit("a~b")}},
		`FOO=1 /a/b c`:                              {{lit("FOO=1"), lit("/a/b"), lit("c")}},
		`"$(echo ")")" z`:                           {{exp(`$(echo ")")`), lit("z")}},
	} {
		got, err := Parse(line)
		if err != nil {
			t.Errorf("Parse(%q): %v", line, err)
			continue
		}
		if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Word{})); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", line, d)
		}
	}
}

// What sh refuses to run, Parse refuses to read.
func TestParseErrors(t *testing.T) {
	for _, line := range []string{`'/tmp/it's/forgectl' x`, `"open`, "`open", "$(open", "${open", "x >", "x > ; y"} {
		if _, err := Parse(line); err == nil {
			t.Errorf("Parse(%q) succeeded", line)
		}
		if err := exec.Command("/bin/sh", "-n", "-c", line).Run(); err == nil {
			t.Errorf("sh accepts %q: the case is wrong", line)
		}
	}
	if _, err := Parse("cat <<EOF\nx\nEOF"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a here-document: %v", err)
	}
}

// Expand resolves the home directory as real shells do, given HOME, and
// refuses every other expansion.
func TestExpandHome(t *testing.T) {
	for _, home := range []string{"/home/alice", "/home/my user", `/tmp/it's "q" $x`} {
		resolved := []string{
			`~`, `~/x`, `"$HOME/nope/forgectl"`, `"${HOME}"/x`, `~/"a b"/c`, `"$HOME$HOME"`, `a"$HOME"`,
			`'$HOME'/x`, `\~/x`, `"~/x"`, `a~/x`, `\$HOME`, `~/$`,
		}
		if !strings.ContainsAny(home, " \t\n*?[") {
			resolved = append(resolved, `$HOME/x`, `${HOME}/x`, `$HOME$HOME`)
		}
		for _, word := range resolved {
			cmds, err := Parse(word)
			if err != nil || len(cmds) != 1 || len(cmds[0]) != 1 {
				t.Fatalf("Parse(%q): %v, %v", word, cmds, err)
			}
			got, ok := cmds[0][0].Expand(home)
			if !ok {
				t.Errorf("%q with HOME=%q: not resolved", word, home)
				continue
			}
			for _, sh := range shells(t) {
				cmd := exec.Command(sh, "-c", `printf '%s\0' `+word)
				if strings.HasSuffix(sh, "zsh") {
					cmd = exec.Command(sh, "-f", "-c", `printf '%s\0' `+word)
				}
				cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
				out, err := cmd.Output()
				if want := strings.TrimSuffix(string(out), "\x00"); err != nil || got != want {
					t.Errorf("%s with HOME=%q expands %q to %q (%v); Expand gives %q", sh, home, word, want, err, got)
				}
			}
		}
		for _, word := range []string{`$X/x`, `"$X"/x`, `$(echo /x)`, "`echo /x`", `~root/x`, `${HOME:-/x}`, `*.go`, `$HOMEDIR/x`, `"$HOME"/*`, `$1/x`} {
			cmds, err := Parse(word)
			if err != nil || len(cmds) != 1 {
				t.Fatalf("Parse(%q): %v, %v", word, cmds, err)
			}
			if got, ok := cmds[0][0].Expand(home); ok {
				t.Errorf("%q resolved to %q", word, got)
			}
		}
	}
	// An unquoted $HOME is split and matched by sh: not told from the text
	// when home holds a blank or a pattern character.
	ws, _ := Parse(`$HOME/x`)
	if got, ok := ws[0][0].Expand("/home/my user"); ok {
		t.Errorf("an unquoted $HOME with a blank in home resolved to %q", got)
	}
	if got, ok := ws[0][0].Expand(""); ok {
		t.Errorf("no home resolved to %q", got)
	}
}
