package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/poll"
	"github.com/google/go-cmp/cmp"
)

const (
	idAPIServer = "3f2a9c1e-0b4d-4c8e-9f1a-2b3c4d5e6f70"
	idWebApp    = "7b11d0aa-5c3e-4f21-8e0b-91a2b3c4d5e6"
	idLive      = "c0ffee00-1111-4222-8333-944455556666"
)

func completionHome(t *testing.T) *testHome {
	h := newHome(t)
	h.session(idAPIServer, h.repo("api-server"), "main", "fix the login", "login fix", time.Hour)
	h.session(idWebApp, h.repo("web-app"), "main", "dark mode", "", 2*time.Hour)
	h.session(idLive, h.repo("api-server"), "main", "still running", "", time.Minute)
	h.live(idLive)
	h.session("0dd0aa11-2222-4333-8444-955566667777", h.repo("cafe"), "main", "menu", "cafe-menu", 3*time.Hour)
	// Names that need the shell's quoting, or cannot be typed at all.
	for _, s := range []struct{ id, name string }{
		{idDarkMode, nameDarkMode}, {idQuoted, nameQuoted}, {idCost, nameCost}, {idDash, nameDash},
		{idNewline, nameNewline}, {idEsc, nameEsc},
	} {
		named(h, s.id, h.repo("web-app"), s.name)
	}
	return h
}

// The names completion must quote back: spaces, both quotes, $, a
// backtick and "!" (history expansion in interactive bash and zsh), a
// leading dash, and two it must never print: a newline and an ESC
// sequence that would turn the terminal red.
const (
	idDarkMode, nameDarkMode = "11110000-aaaa-4bbb-8ccc-000000000001", "Dark mode"
	idQuoted, nameQuoted     = "11110000-aaaa-4bbb-8ccc-000000000002", `it's "quoted"`
	idCost, nameCost         = "11110000-aaaa-4bbb-8ccc-000000000003", "cost $HOME `id` !now"
	idDash, nameDash         = "11110000-aaaa-4bbb-8ccc-000000000004", "-rf danger"
	idNewline, nameNewline   = "e5c0aaaa-aaaa-4bbb-8ccc-000000000005", "warn two\nlines"
	idEsc, nameEsc           = "e5c0bbbb-aaaa-4bbb-8ccc-000000000006", "warn red \x1b[31mALERT"
)

// named plants a session renamed to name, the row written as JSON (as
// Claude Code writes it: cchome.Title quotes with %q, which is not JSON
// for an ESC).
func named(h *testHome, id, cwd, name string) {
	title, err := json.Marshal(cchome.Object{"type", "custom-title", "customTitle", name, "sessionId", id})
	if err != nil {
		h.t.Fatal(err)
	}
	h.cc.Transcript(cwd, id, time.Now().Add(-4*time.Hour), cchome.Prompt(cwd, id, "main", "cli", "work"), string(title)+"\n")
}

func values(r result) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
		if l != "" {
			out = append(out, strings.SplitN(l, "\t", 2)[0])
		}
	}
	return out
}

func TestCompleteCandidates(t *testing.T) {
	h := completionHome(t)
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"res"}, []string{"resume"}},
		{[]string{"c"}, []string{"completion"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"resume", "ls", "--j"}, []string{"--json"}},
		{[]string{"resume", "3f2a"}, []string{idAPIServer}},
		{[]string{"resume", "ls", "--all", "7b"}, []string{idWebApp}},
		{[]string{"resume", "api"}, []string{"api-server"}},
		// Looks like an id prefix but prefixes no id: names and repos.
		{[]string{"resume", "cafe"}, []string{"cafe", "cafe-menu"}},
		{[]string{"resume", "LOG"}, []string{"login fix"}},
		{[]string{"resume", "restart", "--o"}, []string{"--outdated"}},
		{[]string{"resume", "restart", "--session", ""}, []string{idLive}},
		{[]string{"resume", "restart", "--session", "=", "c0f"}, []string{idLive}},
		{[]string{"resume", "restart", "--session=c0"}, []string{"--session=" + idLive}},
		{[]string{"resume", "restart", "--timeout", ""}, nil},
		{[]string{"resume", "hooks", "st"}, []string{"status"}},
		{[]string{"resume", "hooks", "install", "--"}, []string{"--dry-run", "--help"}},
		{[]string{"init", "--st"}, []string{"--stop-hook"}},
		{[]string{"resume", "api-server", "l"}, []string{"login fix"}}, // a FILTER given: no subcommands any more
		{[]string{"resume", "Dark m"}, []string{nameDarkMode}},
		// A name starting with "-" is offered for a word starting with "-".
		{[]string{"resume", "-rf"}, []string{nameDash}},
		{[]string{"resume", "--", "-r"}, []string{nameDash}},
		// Names that cannot be typed back come as their ids, matched as
		// the table shows them.
		{[]string{"resume", "warn two l"}, []string{idNewline}},
		{[]string{"resume", "WARN RED  [31m"}, []string{idEsc}},
		{[]string{"resume", "warn"}, []string{idEsc, idNewline}},
	} {
		r := h.run(append([]string{"__complete"}, c.words...)...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%v: %d %s", c.words, r.code, r.stderr)
		}
		if diff := cmp.Diff(c.want, values(r)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.words, diff)
		}
	}
}

// TestCompleteForShells: what each script reads back from __complete
// --shell, for words typed with the shell's quoting. Bash gets COMPREPLY
// entries quoted for the word as it stands (readline keeps what precedes
// its own word: an open quote, a "fix:"); zsh "kind<TAB>value<TAB>
// display" and fish "value<TAB>description", plain, since those shells
// quote themselves.
func TestCompleteForShells(t *testing.T) {
	h := completionHome(t)
	zshLine := func(kind, v, desc string) string { return kind + "\t" + v + "\t" + v + "  -- " + desc }
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"bash", `forgectl resume Dark\ m`, `Dark\ m`}, []string{`Dark\ mode`}},
		{[]string{"bash", `forgectl resume 'Dark m`, `Dark m`}, []string{`Dark mode`}},
		{[]string{"bash", `forgectl resume "Dark m`, `Dark m`}, []string{`Dark mode`}},
		{[]string{"bash", `forgectl resume $'Dark\x20m`, `Dark\x20m`}, []string{`Dark mode`}},
		{[]string{"bash", `forgectl resume it`, `it`}, []string{`it\'s\ \"quoted\"`}},
		{[]string{"bash", `forgectl resume 'it`, `it`}, []string{`it'\''s "quoted"`}},
		// Readline would not close a quote after an escaped one.
		{[]string{"bash", `forgectl resume "it's`, `it's`}, []string{`it's \"quoted\""`}},
		{[]string{"bash", `forgectl resume cost\ \$`, `cost\ \$`}, []string{"cost\\ \\$HOME\\ \\`id\\`\\ \\!now"}},
		{[]string{"bash", `forgectl resume "cost \$H`, `cost \$H`}, []string{"cost \\$HOME \\`id\\` \"\\!\"now"}},
		{[]string{"bash", `forgectl resume -rf`, `-rf`}, []string{`-- -rf\ danger`}},
		{[]string{"bash", `forgectl resume '-rf`, `-rf`}, []string{` -rf danger`}},
		{[]string{"bash", `forgectl resume -- -rf`, `-rf`}, []string{`-rf\ danger`}},
		{[]string{"bash", `forgectl resume warn\ t`, `warn\ t`}, []string{idNewline}},
		{[]string{"bash", `forgectl resume 'warn r`, `warn r`}, []string{idEsc}},
		// COMP_WORDBREAKS: readline's word starts after ":" or "=".
		{[]string{"bash", `forgectl resume restart --session=c0f`, `c0f`}, []string{idLive}},
		{[]string{"bash", `forgectl resume LOGIN\ f`, `LOGIN\ f`}, []string{`login\ fix`}},
		{[]string{"bash", `forgectl 'resume' "ls" --j`, `--j`}, []string{`--json`}},
		{[]string{"zsh", "resume", `Dark\ m`}, []string{zshLine("", nameDarkMode, "name")}},
		{[]string{"zsh", "resume", `"Dark m`}, []string{zshLine("", nameDarkMode, "name")}},
		{[]string{"zsh", "resume", `-rf`}, []string{zshLine("--", nameDash, "name")}},
		{[]string{"zsh", "resume", `'-rf`}, []string{zshLine(" ", nameDash, "name")}},
		{[]string{"zsh", "resume", "--", `-rf`}, []string{zshLine("", nameDash, "name")}},
		{[]string{"zsh", "resume", `warn\ t`}, []string{zshLine("id", idNewline, "web-app: warn two lines")}},
		{[]string{"zsh", "resume", `warn`}, []string{zshLine("id", idEsc, "web-app: warn red  [31mALERT"), zshLine("id", idNewline, "web-app: warn two lines")}},
		// Beside other values, zsh matches an id as it matches any value.
		{[]string{"zsh", "resume", `w`}, []string{zshLine("", "web-app", "repo"), zshLine("", idEsc, "web-app: warn red  [31mALERT"), zshLine("", idNewline, "web-app: warn two lines")}},
		{[]string{"fish", "resume", `'Dark m`}, []string{"Dark mode\tname"}},
		{[]string{"fish", "resume", `it\'s\ \"`}, []string{nameQuoted + "\tname"}},
		{[]string{"fish", "resume", `-rf`}, []string{" -rf danger\tname"}},
		{[]string{"fish", "resume", `warn`}, []string{idEsc + "\tweb-app: warn red  [31mALERT", idNewline + "\tweb-app: warn two lines"}},
	} {
		r := h.run(append([]string{"__complete", "--shell"}, c.args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%q: %d %s", c.args, r.code, r.stderr)
		}
		if diff := cmp.Diff(c.want, lines(r.stdout)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
	}
}

// TestCompleteNeverPrintsControls: no mode prints a control character
// other than its own tabs and newlines, and no name is split, whatever
// the names hold.
func TestCompleteNeverPrintsControls(t *testing.T) {
	h := completionHome(t)
	// A transcript file named like an id with an ESC sequence after it,
	// for the id-prefix path, which reads file names.
	bad := filepath.Join(h.cc.ProjectDir(h.repo("web-app")), "e5c0\x1b[31m.jsonl")
	if err := os.WriteFile(bad, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fields := map[string]int{"": 2, "bash": 1, "zsh": 3, "fish": 2}
	for sh, args := range map[string][]string{
		"":         {"resume", ""},
		"bash":     {"--shell", "bash", "forgectl resume ", ""},
		"zsh":      {"--shell", "zsh", "resume", ""},
		"fish":     {"--shell", "fish", "resume", ""},
		"plain id": {"resume", "e5c0"},
	} {
		if sh == "plain id" {
			r := h.run(append([]string{"__complete"}, args...)...)
			if diff := cmp.Diff([]string{idNewline, idEsc}, lines(r.stdout)); diff != "" {
				t.Errorf("the id prefix (-want +got):\n%s", diff)
			}
			continue
		}
		r := h.run(append([]string{"__complete"}, args...)...)
		got := lines(r.stdout)
		if len(got) < 10 {
			t.Errorf("%s: only %d lines:\n%s", sh, len(got), r.stdout)
		}
		for _, l := range got {
			if render.HasControl(strings.ReplaceAll(l, "\t", "")) {
				t.Errorf("%s: a control character in %q", sh, l)
			}
			// A value without a description has no tab but in zsh's lines.
			if n := len(strings.Split(l, "\t")); n != fields[sh] && (sh == "zsh" || n != 1) {
				t.Errorf("%s: %d fields in %q", sh, n, l)
			}
		}
		if !strings.Contains(r.stdout, idEsc) || !strings.Contains(r.stdout, idNewline) {
			t.Errorf("%s: the sessions with untypeable names are not offered by id:\n%s", sh, r.stdout)
		}
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// TestCompletionShellWords: the word under the cursor read as each shell
// reads it, open quotes and all.
func TestCompletionShellWords(t *testing.T) {
	for _, c := range []struct {
		sh, raw string
		want    []string
		state   quoteState
	}{
		{"bash", `a\ b 'c d' "e \"f\" \$g \x" $'h\ti\'j' k\`, []string{"a b", "c d", `e "f" $g \x`, "h\ti'j", "k"}, unquoted},
		{"bash", `forgectl resume `, []string{"forgectl", "resume", ""}, unquoted},
		{"bash", ``, []string{""}, unquoted},
		{"bash", `x 'Dark m`, []string{"x", "Dark m"}, inSingle},
		{"bash", `x "Dark \"m`, []string{"x", `Dark "m`}, inDouble},
		{"bash", `x $'Dark\tm\`, []string{"x", "Dark\tm"}, inDollar},
		{"bash", "a\\\nb", []string{"ab"}, unquoted}, // a continued line
		{"zsh", `$'\e[31m\x41\101\u00e9\cA'`, []string{"\x1b[31mAA\u00e9cA"}, unquoted},
		{"fish", `'it\'s \\ \x' "a\$b\x" \x41\e\101 c\ d $'x'`, []string{`it's \ \x`, `a$b\x`, "A\x1bA", "c d", "$x"}, unquoted},
		{"fish", `'it\'s`, []string{"it's"}, inSingle},
	} {
		got, state := shellWords(c.sh, c.raw, true)
		if diff := cmp.Diff(c.want, got); diff != "" || state != c.state {
			t.Errorf("%s %q: state %d, want %d (-want +got):\n%s", c.sh, c.raw, state, c.state, diff)
		}
	}
}

// TestCompletionShellWordsAgree checks the reading against the shells
// themselves, on words they can run.
func TestCompletionShellWordsAgree(t *testing.T) {
	common := []string{`a\ b`, `'c d'`, `"e \"f\" \$g \x \\"`, `k\'l`, `"a"'b'c`, `''`, `""`, "\"\\`x\"", `\~\#\*`, `'\'`}
	for sh, words := range map[string][]string{
		"bash": append([]string{`$'h\ti\'j\x41\101\u00e9\e[0m\cA'`, `$"loc"`}, common...),
		"zsh":  append([]string{`$'h\ti\'j\x41\101\u00e9\e[0m\cA'`}, common...),
		"fish": {`a\ b`, `'c\'d\\e\x'`, `"e \"f\" \$g \x \\"`, `\x41\e\t\101`, `a\nb`, `''`, `""`, "\"`x\"", `\~\#\*`},
	} {
		path, err := exec.LookPath(sh)
		if err != nil {
			t.Fatalf("%s is needed (apt-get install zsh fish): %v", sh, err)
		}
		script := "printf '%s\\0' " + strings.Join(words, " ")
		argv := map[string][]string{"bash": {"--norc", "--noprofile", "-c"}, "zsh": {"-f", "-c"}, "fish": {"--no-config", "-c"}}[sh]
		out, err := exec.Command(path, append(argv, script)...).Output()
		if err != nil {
			t.Fatalf("%s -c %s: %v", sh, script, err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		got, _ := shellWords(sh, strings.Join(words, " "), true)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s reads %s differently (-%s +shellWords):\n%s", sh, strings.Join(words, " "), sh, diff)
		}
	}
}

// completionQuoteSamples are values bashQuote must give back exactly.
var completionQuoteSamples = []string{
	nameDarkMode, nameQuoted, nameCost, nameDash, "~tilde #hash {a,b} *glob! x=1:y",
	"é ü", `back\slash\`, "!", `'`, `"`, "", "tab\there\nnl\x1besc\x7f",
}

// quoteOpen opens the quoting of state, as quoteClose closes it.
func quoteOpen(state quoteState) string {
	return [...]string{unquoted: "", inSingle: "'", inDouble: `"`, inDollar: "$'"}[state]
}

// TestCompletionBashQuote: bash itself reads a value quoted by bashQuote,
// in each quoting a word can be in, as the value.
func TestCompletionBashQuote(t *testing.T) {
	var words []string
	var want []string
	for _, v := range completionQuoteSamples {
		for _, st := range []quoteState{unquoted, inSingle, inDouble, inDollar} {
			if v == "" && st == unquoted {
				continue // not a word at all
			}
			words = append(words, quoteOpen(st)+bashQuote(v, st)+quoteClose(st))
			want = append(want, v)
		}
	}
	out, err := exec.Command("bash", "--norc", "--noprofile", "-c", "printf '%s\\0' "+strings.Join(words, " ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")); diff != "" {
		t.Errorf("(-want +bash):\n%s", diff)
	}
}

// FuzzCompletionQuote: quoting then reading back gives the value, in each
// quoting state, and reading never fails on any input for any shell.
func FuzzCompletionQuote(f *testing.F) {
	for _, v := range completionQuoteSamples {
		f.Add(v, uint8(0))
		f.Add(v, uint8(2))
	}
	f.Add(`$'\x`, uint8(3))
	f.Fuzz(func(t *testing.T, v string, n uint8) {
		st := quoteState(n % 4)
		got, end := shellWords("bash", quoteOpen(st)+bashQuote(v, st)+quoteClose(st), false)
		if len(got) != 1 || got[0] != v || end != unquoted {
			t.Errorf("%q in state %d: read back %q, state %d", v, st, got, end)
		}
		for _, sh := range []string{"bash", "zsh", "fish"} {
			shellWords(sh, v, true)
			shellWords(sh, v, false)
		}
	})
}

// TestCompletionSiblings keeps the sibling table honest: every flag it
// offers is in that binary's --help, and every flag the help lists is
// offered.
func TestCompletionSiblings(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"resume-snapshot", "resume-restart", "resume-hooks"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, m), ".")
		cmd.Dir = filepath.Join("..", m)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", m, err, out)
		}
	}
	argv := map[string][]string{
		"snapshot": {"resume-snapshot"}, "outdated": {"resume-restart", "outdated"}, "restart": {"resume-restart", "restart"},
		"hooks": {"resume-hooks"}, "run": {"resume-hooks", "run"}, "status": {"resume-hooks", "status"},
		"install": {"resume-hooks", "install"}, "uninstall": {"resume-hooks", "uninstall"},
	}
	var walk func(n *compNode)
	walk = func(n *compNode) {
		a := argv[n.name]
		out, err := exec.Command(filepath.Join(dir, a[0]), append(a[1:], "--help")...).Output()
		if err != nil {
			t.Fatalf("%v --help: %v", a, err)
		}
		help := string(out)
		offered := map[string]bool{}
		for _, f := range n.flags {
			offered["--"+f.name] = true
			if f.name != "help" && !strings.Contains(help, "--"+f.name) {
				t.Errorf("completion offers %s for %s, which its --help does not list", f.name, n.name)
			}
		}
		for _, l := range strings.Split(help, "\n") {
			if f, ok := strings.CutPrefix(strings.TrimSpace(l), "--"); ok && strings.HasPrefix(l, "  --") {
				name := "--" + strings.FieldsFunc(f, func(r rune) bool { return r == ' ' || r == '=' || r == ',' })[0]
				if !offered[name] {
					t.Errorf("%s --help lists %s, which completion does not offer", n.name, name)
				}
			}
		}
		for _, s := range n.subs {
			walk(s)
		}
	}
	for _, c := range resumeCommand().subs {
		if c.sibling != nil {
			walk(&compNode{name: c.name, flags: c.sibling.flags, subs: c.sibling.subs})
		}
	}
}

// TestCompletionInRealShells types into interactive bash, zsh and fish in
// tmux and presses Tab: a subcommand, a flag, an id prefix that becomes
// the full id, restart --session from the live sessions, and names typed
// with each shell's quoting (backslashes, an open ' or "), which must
// complete to the whole name quoted for that shell, and then resume that
// very session when the line runs (see realShellTabs). Names holding a
// newline or an ESC sequence are listed cleaned, never rendered. Each
// shell runs twice: with the script sourced by hand, and finding it by
// itself where make install PREFIX=~/.local puts it (bash-completion's
// lazy loader, zsh's fpath, fish's vendor_completions.d).
func TestCompletionInRealShells(t *testing.T) {
	fc, _ := binaries(t)
	for _, c := range []struct {
		shell     string
		installed bool
	}{{"bash", false}, {"zsh", false}, {"fish", false}, {"bash", true}, {"zsh", true}, {"fish", true}} {
		shell := c.shell
		name := shell + map[bool]string{true: "-installed", false: "-sourced"}[c.installed]
		t.Run(name, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Fatalf("%s is needed (apt-get install zsh fish bash-completion): %v", shell, err)
			}
			h := completionHome(t)
			os.Symlink(fc, filepath.Join(h.home, "bin", "forgectl"))
			tm := newTmux(t)
			env := []string{"env", "-i", "HOME=" + h.home, "PATH=" + filepath.Join(h.home, "bin") + ":/usr/bin:/bin",
				"TERM=xterm-256color", "LANG=C.UTF-8", "FORGECTL_CONFIG_DIR=" + h.fc, "FORGECTL_CLAUDE_BIN=/bin/echo", "XDG_CONFIG_HOME=" + filepath.Join(h.home, ".config"), "HISTFILE=/dev/null"}
			// The layout make install writes under PREFIX/share, for the
			// README's PREFIX=~/.local: bash-completion and fish look in
			// ~/.local/share by themselves, zsh needs it on $fpath.
			share := filepath.Join(h.home, ".local", "share")
			for sh, f := range map[string]string{"bash": "bash-completion/completions/forgectl", "zsh": "zsh/site-functions/_forgectl", "fish": "fish/vendor_completions.d/forgectl.fish"} {
				out, err := exec.Command(fc, "completion", sh).Output()
				if err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(filepath.Dir(filepath.Join(share, f)), 0o755)
				os.WriteFile(filepath.Join(share, f), out, 0o644)
			}
			var argv []string
			var setup string
			switch {
			case c.installed && shell == "bash":
				const loader = "/usr/share/bash-completion/bash_completion"
				if _, err := os.Stat(loader); err != nil {
					t.Fatalf("bash-completion is needed (apt-get install bash-completion): %v", err)
				}
				argv = []string{path, "--norc", "--noprofile", "-i"}
				setup = "PS1='$ '; source " + loader
			case c.installed && shell == "zsh":
				argv = []string{path, "-f", "-i"}
				setup = "PROMPT='%% '; fpath=(" + filepath.Join(share, "zsh", "site-functions") + " $fpath); autoload -Uz compinit && compinit -u -D"
			case c.installed && shell == "fish":
				// Its own start-up (no --no-config) sets the completion path.
				argv = []string{path, "--private", "-i"}
				setup = "function fish_prompt; echo -n '> '; end"
			case shell == "bash":
				argv = []string{path, "--norc", "--noprofile", "-i"}
				setup = "PS1='$ '; source <(forgectl completion bash)"
			case shell == "zsh":
				argv = []string{path, "-f", "-i"}
				setup = "PROMPT='%% '; autoload -Uz compinit && compinit -u -D && source <(forgectl completion zsh)"
			case shell == "fish":
				argv = []string{path, "--no-config", "--private", "-i"}
				setup = "function fish_prompt; echo -n '> '; end; forgectl completion fish | source"
			}
			// In the temp home, where no file name starts like a subcommand,
			// so a shell's file-name fallback cannot pass for completion.
			tm.run(append([]string{"new-session", "-d", "-s", "t", "-x", "160", "-y", "40", "-c", h.home}, append(env, argv...)...)...)
			// The shell must be gone before the temp home is removed: it
			// writes its history and variables as it exits.
			pid, _ := strconv.Atoi(strings.TrimSpace(tm.run("display", "-p", "-t", "t", "#{pane_pid}")))
			t.Cleanup(func() {
				exec.Command("tmux", "-L", tm.sock, "kill-server").Run()
				poll.Wait(poll.Long, func() bool { return syscall.Kill(pid, 0) != nil })
			})
			tm.run("send-keys", "-t", "t", setup, "Enter")
			tm.run("send-keys", "-t", "t", "echo READY", "Enter")
			tm.waitFor("the shell to load the script", func(s string) bool {
				for _, l := range strings.Split(s, "\n") {
					if strings.TrimSpace(l) == "READY" {
						return true
					}
				}
				return false
			})
			for _, tc := range realShellTabs(shell, c.installed) {
				tm.run("send-keys", "-t", "t", "-l", tc.typed)
				tm.waitFor("the typed text", func(string) bool { return strings.HasSuffix(cursorLine(tm), tc.typed) })
				tm.run("send-keys", "-t", "t", "Tab")
				tm.waitFor(tc.typed+" Tab to complete to "+tc.want, func(string) bool {
					return strings.HasSuffix(cursorLine(tm), tc.want)
				})
				if tc.id == "" {
					// Ctrl-U clears the line in all three.
					tm.run("send-keys", "-t", "t", "C-u")
					tm.waitFor("an empty line", func(string) bool { return !strings.Contains(cursorLine(tm), "forgectl") })
					continue
				}
				// The line as completed resumes that session: claude is
				// /bin/echo, which prints its arguments.
				tm.run("send-keys", "-t", "t", "Enter")
				screen := tm.waitFor(tc.want+" to resume "+tc.id, func(s string) bool { return strings.Contains(s, "--resume ") })
				if !strings.Contains(screen, "--resume "+tc.id+"\n") {
					t.Errorf("%s ran as:\n%s\nwant --resume %s", tc.want, screen, tc.id)
				}
				tm.run("send-keys", "-t", "t", "clear", "Enter")
				tm.waitFor("a clear screen", func(s string) bool { return !strings.Contains(s, "--resume") })
			}
			if shell == "bash" {
				return // bash lists values only: the names never show
			}
			// Two sessions whose names hold a newline and an ESC sequence,
			// listed with their names: on one line each, and no colour.
			tm.run("send-keys", "-t", "t", "-l", "forgectl resume warn")
			tm.waitFor("the typed text", func(string) bool { return strings.HasSuffix(cursorLine(tm), "forgectl resume warn") })
			tm.run("send-keys", "-t", "t", "Tab")
			tm.waitFor("the names listed", func(s string) bool {
				return strings.Contains(s, "warn two lines") && strings.Contains(s, "[31mALERT") && strings.Contains(s, idEsc)
			})
			out, err := exec.Command("tmux", "-L", tm.sock, "capture-pane", "-e", "-p", "-t", "t").Output()
			if err != nil {
				t.Fatal(err)
			}
			if sgr := regexp.MustCompile(`\x1b\[[0-9;:]*mALERT`); sgr.Match(out) {
				t.Errorf("the name's ESC sequence reached the terminal:\n%q", out)
			}
			if !strings.HasSuffix(cursorLine(tm), "forgectl resume warn") {
				t.Errorf("listing changed the line to %q", cursorLine(tm))
			}
		})
	}
}

type realShellTab struct {
	typed, want string
	id          string // when set, Enter runs the line, which must resume this session
}

// realShellTabs are the lines TestCompletionInRealShells completes, and
// what each shell shows after Tab: each quotes in its own way (fish does
// not escape a backtick or "!", nor put "--" before a name; zsh escapes
// "!" inside "…", which bash cannot). The names are completionHome's.
func realShellTabs(shell string, installed bool) []realShellTab {
	tabs := []realShellTab{
		{"forgectl res", "forgectl resume", ""},
		{"forgectl resume ls --js", "forgectl resume ls --json", ""},
		{"forgectl resume 3f2a9c", "forgectl resume " + idAPIServer, ""},
		{"forgectl resume restart --session c0f", "forgectl resume restart --session " + idLive, ""},
		{`forgectl resume Dark\ mo`, `forgectl resume Dark\ mode`, idDarkMode},
	}
	if installed {
		return tabs // the script is the sourced one: loading is what differs
	}
	by := func(m map[string]string) string { return m[shell] }
	return append(tabs, []realShellTab{
		{`forgectl resume 'Dark mo`, `forgectl resume 'Dark mode'`, idDarkMode},
		{`forgectl resume "Dark mo`, `forgectl resume "Dark mode"`, idDarkMode},
		{`forgectl resume it`, `forgectl resume it\'s\ \"quoted\"`, idQuoted},
		{`forgectl resume 'it`, by(map[string]string{
			"bash": `forgectl resume 'it'\''s "quoted"'`, "zsh": `forgectl resume 'it'\''s "quoted"'`, "fish": `forgectl resume 'it\'s "quoted"'`,
		}), idQuoted},
		{`forgectl resume "it's`, `forgectl resume "it's \"quoted\""`, idQuoted},
		{`forgectl resume cost\ \$`, by(map[string]string{
			"bash": "forgectl resume cost\\ \\$HOME\\ \\`id\\`\\ \\!now", "zsh": "forgectl resume cost\\ \\$HOME\\ \\`id\\`\\ \\!now",
			"fish": "forgectl resume cost\\ \\$HOME\\ `id`\\ !now",
		}), idCost},
		{`forgectl resume 'cost $H`, "forgectl resume 'cost $HOME `id` !now'", idCost},
		{`forgectl resume "cost \$H`, by(map[string]string{
			"bash": "forgectl resume \"cost \\$HOME \\`id\\` \"\\!\"now\"", "zsh": "forgectl resume \"cost \\$HOME \\`id\\` \\!now\"",
			"fish": "forgectl resume \"cost \\$HOME `id` !now\"",
		}), idCost},
		{`forgectl resume -rf`, by(map[string]string{
			"bash": `forgectl resume -- -rf\ danger`, "zsh": `forgectl resume -- -rf\ danger`, "fish": `forgectl resume \ -rf\ danger`,
		}), idDash},
		{`forgectl resume '-rf`, by(map[string]string{
			"bash": `forgectl resume ' -rf danger'`, "zsh": `forgectl resume ' -rf danger'`, "fish": `forgectl resume \ -rf\ danger`,
		}), idDash},
		{`forgectl resume warn\ t`, "forgectl resume " + idNewline, idNewline},
		{`forgectl resume 'warn r`, by(map[string]string{
			"bash": "forgectl resume '" + idEsc + "'", "zsh": "forgectl resume '" + idEsc + "'", "fish": "forgectl resume " + idEsc,
		}), idEsc},
	}...)
}

// cursorLine is the screen line the cursor is on, right-trimmed.
func cursorLine(tm *tmuxServer) string {
	y, err := exec.Command("tmux", "-L", tm.sock, "display", "-p", "-t", "t", "#{cursor_y}").Output()
	if err != nil {
		return ""
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(y)))
	lines := strings.Split(tm.screen(), "\n")
	if n >= len(lines) {
		return ""
	}
	return strings.TrimRight(lines[n], " ")
}
