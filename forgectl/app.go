package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/interrupt"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/version"
	"github.com/peterbourgon/ff/v3/ffcli"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// app carries everything a command touches of the outside world, so tests
// can run a whole command against a temp home without exec'ing anything.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	environ        func() []string
	home           string
	goos           string
	now            func() time.Time
	lookPath       func(string) (string, error)
	// exec replaces the process (unix.Exec in production).
	exec func(argv0 string, argv, env []string) error
	// chdir changes directory before exec.
	chdir func(string) error
	// stdoutTTY/stdinTTY say whether a person is on the other end.
	stdoutTTY, stdinTTY bool
	picker              picker.Picker
	// self is this executable's absolute path, for dispatching to siblings.
	self string
	// verdict collects `resume --dry-run --json`'s answer (nil otherwise);
	// assumeStopped is the live pid --assume-stopped says will have exited.
	verdict       *verdict
	assumeStopped int
	// flagOut collects what the flag package prints: the manual on --help
	// (sent to stdout), the flag error plus the manual on a bad flag
	// (replaced by one error line and a hint).
	flagOut bytes.Buffer
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	home, _ := os.UserHomeDir()
	self, _ := os.Executable()
	a := &app{
		stdin: stdin, stdout: stdout, stderr: stderr,
		getenv:   os.Getenv,
		environ:  os.Environ,
		home:     home,
		goos:     runtime.GOOS,
		now:      time.Now,
		lookPath: exec.LookPath,
		exec:     unix.Exec,
		chdir:    os.Chdir,
		picker:   picker.Fuzzy{},
		self:     self,
	}
	a.stdoutTTY = isTerminal(stdout)
	a.stdinTTY = isTerminal(stdin)
	return a
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).run(ctx, args)
}

func (a *app) run(ctx context.Context, args []string) int {
	// Sibling binaries take their arguments untouched, and before anything
	// else: `forgectl resume snapshot` runs on every Claude Code turn.
	if code, ok := a.dispatch(ctx, args); ok {
		return code
	}
	if len(args) > 0 && args[0] == completeCommand {
		return a.complete(ctx, args[1:])
	}
	// A first Ctrl-C or SIGTERM cancels ctx; a second returns at once.
	return interrupt.Run(ctx, func(ctx context.Context) int {
		code := a.runRoot(ctx, args)
		if c := interrupt.Signalled(ctx); c != 0 {
			return c // 130 or 143, whatever the command made of the cancel
		}
		return code
	})
}

func (a *app) runRoot(ctx context.Context, args []string) int {
	root := a.rootCommand()
	if err := root.Parse(flagsFirst(args)); err != nil {
		return a.usageError(err, args)
	}
	if err := root.Run(ctx); err != nil {
		var ce *codeError
		if errors.As(err, &ce) {
			return ce.code
		}
		if errors.Is(err, flag.ErrHelp) {
			return exitcode.OK
		}
		a.errorf("%v", err)
		return exitcode.Failed
	}
	return exitcode.OK
}

// codeError ends a command with an exit code after its messages were printed.
type codeError struct{ code int }

func (e *codeError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func exit(code int) error {
	if code == 0 {
		return nil
	}
	return &codeError{code}
}

func (a *app) usageError(err error, args []string) int {
	if errors.Is(err, flag.ErrHelp) {
		a.stdout.Write(a.flagOut.Bytes())
		return exitcode.OK
	}
	a.errorf("%s", strings.TrimPrefix(err.Error(), "error parsing commandline arguments: "))
	a.hintf("run 'forgectl %s--help' for usage", commandWords(args))
	return exitcode.Usage
}

// flagsFirst lets flags follow the filter, as people type them
// ("forgectl resume api --dry-run"): the flag package stops at the first
// word, so for resume, resume ls and resume search the flags are moved
// ahead of the words, and "--" is put before the words so that one
// starting with "-" (after the user's own "--") stays a word. A flag that
// takes a value (resume --search, --assume-stopped PID, search --limit)
// keeps the word after it unless written as --flag=value.
func flagsFirst(args []string) []string {
	if len(args) == 0 || args[0] != "resume" {
		return args
	}
	path := []string{"resume"}
	rest := args[1:]
	if len(rest) > 0 && (rest[0] == "ls" || rest[0] == "search") {
		path, rest = append(path, rest[0]), rest[1:]
	}
	valued := map[string]bool{"search": true, "assume-stopped": true}
	if len(path) == 2 && path[1] == "search" {
		valued = map[string]bool{"limit": true}
	}
	var flags, words []string
	for k := 0; k < len(rest); k++ {
		w := rest[k]
		if w == "--" {
			words = append(words, rest[k+1:]...)
			break
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			flags = append(flags, w)
			if name := strings.TrimLeft(w, "-"); valued[name] && k+1 < len(rest) {
				flags = append(flags, rest[k+1])
				k++
			}
		} else {
			words = append(words, w)
		}
	}
	if len(path) == 1 && len(words) > 0 && (words[0] == "ls" || words[0] == "search") {
		// "forgectl resume --json ls": still the ls subcommand.
		path, words = append(path, words[0]), words[1:]
	}
	out := append(append(path, flags...), "--")
	return append(out, words...)
}

// commandWords is the subcommand path in args ("resume ls "), for a hint.
func commandWords(args []string) string {
	var b strings.Builder
	for _, w := range args {
		if strings.HasPrefix(w, "-") {
			break
		}
		switch w {
		case "resume", "ls", "search", "launch", "doctor", "init", "completion":
			b.WriteString(w + " ")
			continue
		}
		break
	}
	return b.String()
}

func (a *app) errorf(format string, args ...any) { msg.Errorf(a.stderr, format, args...) }

func (a *app) hintf(format string, args ...any) { msg.Hintf(a.stderr, format, args...) }

func (a *app) notef(format string, args ...any) { noteTo(a.stderr, format, args...) }

func noteTo(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "forgectl: "+format+"\n", args...)
}

func (a *app) claudePaths() paths.Claude { return paths.ClaudeFrom(a.getenv, a.home) }

func (a *app) forgectlPaths() paths.Forgectl { return paths.ForgectlFrom(a.getenv, a.home, a.goos) }

// loadConfig reads config.toml; its errors are printed here and mean exit 2.
func (a *app) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(a.forgectlPaths().Config())
	if err != nil {
		config.Report(a.stderr, err)
		a.hintf("fix the config file, or run 'forgectl doctor' for a full report")
		return nil, exit(exitcode.Refused)
	}
	return cfg, nil
}

func newFlagSet(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	return fs
}

// helpFunc prints a hand-written manual instead of ffcli's generated one.
func helpFunc(text string) func(*ffcli.Command) string {
	return func(*ffcli.Command) string { return strings.TrimLeft(text, "\n") }
}

func (a *app) rootCommand() *ffcli.Command {
	fs := newFlagSet("forgectl", &a.flagOut)
	showVersion := fs.Bool("version", false, "print the version")
	return &ffcli.Command{
		Name:      "forgectl",
		FlagSet:   fs,
		UsageFunc: helpFunc(rootHelp),
		Subcommands: []*ffcli.Command{
			a.resumeCommand(),
			a.launchCommand(),
			a.doctorCommand(),
			a.initCommand(),
			a.completionCommand(),
		},
		Exec: func(ctx context.Context, args []string) error {
			if *showVersion {
				fmt.Fprintf(a.stdout, "forgectl %s\n", version.String())
				return nil
			}
			if len(args) > 0 {
				a.errorf("unknown command %q", args[0])
				a.hintf("run 'forgectl --help' for the list of commands")
				return exit(exitcode.Usage)
			}
			fmt.Fprint(a.stdout, strings.TrimLeft(rootHelp, "\n"))
			return nil
		},
	}
}

const rootHelp = `
forgectl — get back into your Claude Code sessions

USAGE
  forgectl resume [FILTER]        pick a recent session from any repo and resume it in place
  forgectl resume ls [--json]     list sessions without acting
  forgectl resume search WORDS    list the sessions whose conversation holds every word
  forgectl resume snapshot        capture what a live session's exit would destroy (Stop hook)
  forgectl resume outdated        list live sessions running an older claude
  forgectl resume restart         restart outdated sessions in their herdr panes
  forgectl resume hooks           run hooks when claude updates (run, install, status)
  forgectl launch [--dry-run]     start claude here with this directory's launch profile
  forgectl launch doctor          check claude, the config and the update-hooks watcher
  forgectl doctor                 check that session rescue is wired correctly
  forgectl init                   write a commented config.toml
  forgectl init --stop-hook       wire the Stop hook into Claude Code's settings.json
  forgectl completion SHELL       print the bash, zsh or fish completion script

  forgectl --version              print the version
  forgectl COMMAND --help         the manual of one command

` + exitcode.Table + `

ENVIRONMENT
  CLAUDE_CONFIG_DIR     Claude Code's directory (default ~/.claude)
  FORGECTL_CONFIG_DIR   forgectl's directory (default ~/.config/forgectl, or
                        ~/Library/Application Support/forgectl on macOS)
  FORGECTL_CLAUDE_BIN   the claude to run (else [launch] binary_path, else PATH)
`
