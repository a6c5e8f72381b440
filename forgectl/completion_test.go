package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	return h
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
	for _, n := range siblingNodes() {
		walk(n)
	}
}

// TestCompletionInRealShells types into interactive bash, zsh and fish in
// tmux and presses Tab: a subcommand, a flag, an id prefix that becomes
// the full id, and restart --session from the live sessions. Each shell
// runs twice: with the script sourced by hand, and finding it by itself
// where make install PREFIX=~/.local puts it (bash-completion's lazy
// loader, zsh's fpath, fish's vendor_completions.d).
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
				"TERM=xterm-256color", "LANG=C.UTF-8", "FORGECTL_CONFIG_DIR=" + h.fc, "XDG_CONFIG_HOME=" + filepath.Join(h.home, ".config"), "HISTFILE=/dev/null"}
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
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && syscall.Kill(pid, 0) == nil; {
					time.Sleep(10 * time.Millisecond)
				}
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
			for _, c := range []struct{ typed, want string }{
				{"forgectl res", "forgectl resume "},
				{"forgectl resume ls --js", "forgectl resume ls --json "},
				{"forgectl resume 3f2a9c", "forgectl resume " + idAPIServer + " "},
				{"forgectl resume restart --session c0f", "forgectl resume restart --session " + idLive + " "},
			} {
				tm.run("send-keys", "-t", "t", "-l", c.typed)
				tm.waitFor("the typed text", func(string) bool { return strings.HasSuffix(cursorLine(tm), c.typed) })
				tm.run("send-keys", "-t", "t", "Tab")
				tm.waitFor(c.typed+" Tab to complete to "+c.want, func(string) bool {
					return strings.HasSuffix(cursorLine(tm), strings.TrimSpace(c.want))
				})
				// Ctrl-U clears the line in all three.
				tm.run("send-keys", "-t", "t", "C-u")
				tm.waitFor("an empty line", func(string) bool { return !strings.Contains(cursorLine(tm), "forgectl") })
			}
		})
	}
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
