package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/cli"
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
	// said is stderr, telling a --json dry run's verdict the messages as
	// they are written (msg.Recorder).
	said *said
	// prog is the finish path: the manual on --help, the usage hint, the
	// exit code.
	prog *cli.Program
}

// said is forgectl's stderr: each message written through shared/msg is
// also handed to record, when one listens (the dry-run verdict keeps its
// first error and hint so).
type said struct {
	io.Writer
	record func(k msg.Kind, text string)
}

func (s *said) Record(k msg.Kind, text string) {
	if s.record != nil {
		s.record(k, text)
	}
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	home, _ := os.UserHomeDir()
	self, _ := os.Executable()
	errs := &said{Writer: stderr}
	a := &app{
		stdin: stdin, stdout: stdout, stderr: errs, said: errs,
		prog:     &cli.Program{Command: "forgectl", Stdout: stdout, Stderr: errs},
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
	ordered, err := flagsFirst(root, args)
	if err == nil {
		err = root.Parse(ordered)
	}
	if err != nil {
		return a.prog.Finish(root, err, true)
	}
	return a.prog.Finish(root, root.Run(ctx), false)
}

// exit ends a command with code once its messages are printed (cli.Exit).
func exit(code int) error { return cli.Exit(code) }

// codeError and noteTo are the names listing.go still calls: cli's exit
// carrier, and an information line.
type codeError = cli.ExitError

func noteTo(w io.Writer, format string, args ...any) { msg.Infof(w, format, args...) }

// flagsFirst lets flags follow the filter, as people type them
// ("forgectl resume api --dry-run"): the flag package stops at the first
// word, so for resume and its subcommands (ls, search) the flags are moved
// ahead of the words, and "--" is put before the words so that one
// starting with "-" (after the user's own "--") stays a word.
//
// Which flags take a value is read from the FlagSets the commands declare
// (every flag but a boolean one), so a new flag cannot be missed. A flag
// that takes one keeps the word after it, unless that word starts with
// "-": then the value is missing (bad usage), not "--" or the next flag,
// which would turn "resume --search" into a search for "--" that resumes
// whatever holds it. A value that starts with "-" is written --flag=-x, or
// --flag -- -x (the user's "--" ends the flags, and the flag before it
// takes the first word after it).
func flagsFirst(root *ffcli.Command, args []string) ([]string, error) {
	cmd := subcommand(root, "resume")
	if len(args) == 0 || args[0] != "resume" || cmd == nil {
		return args, nil
	}
	path := []string{"resume"}
	rest := args[1:]
	var flags, words []string
	for k := 0; k < len(rest); k++ {
		w := rest[k]
		if w == "--" {
			words = append(words, rest[k+1:]...)
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			// The first word may name a subcommand, after flags too:
			// "forgectl resume --json ls" is still ls.
			if sub := subcommand(cmd, w); sub != nil && len(path) == 1 && len(words) == 0 {
				path, cmd = append(path, w), sub
				continue
			}
			words = append(words, w)
			continue
		}
		flags = append(flags, w)
		name, _, inline := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-"), "=")
		f := cmd.FlagSet.Lookup(name)
		if f == nil || inline || !takesValue(f) {
			// An unknown flag is the flag package's to report.
			continue
		}
		if k+1 == len(rest) || rest[k+1] == "--" && k+2 == len(rest) {
			return nil, missingValue(name, "")
		}
		switch next := rest[k+1]; {
		case next == "--":
			// The user's "--" ends the flags; the flag before it takes
			// the first word after it.
			flags = append(flags, rest[k+2])
			words = append(words, rest[k+3:]...)
			k = len(rest)
		case strings.HasPrefix(next, "-") && next != "-":
			return nil, missingValue(name, next)
		default:
			flags = append(flags, next)
			k++
		}
	}
	out := append(append(path, flags...), "--")
	return append(out, words...), nil
}

// takesValue says whether a flag reads a value, as the flag package
// decides it: every flag but a boolean one.
func takesValue(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

func subcommand(c *ffcli.Command, name string) *ffcli.Command {
	for _, s := range c.Subcommands {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func missingValue(name, next string) error {
	msg := fmt.Sprintf("flag --%s needs a value", name)
	if next != "" {
		msg += fmt.Sprintf(", and %s starts with \"-\" so it is not taken as one", render.Quoted(next))
	}
	return &cli.UsageError{Msg: msg, Hint: fmt.Sprintf(`give it one: --%s VALUE, or --%s=VALUE for a value that starts with "-"`, name, name)}
}

func (a *app) errorf(format string, args ...any) { msg.Errorf(a.stderr, format, args...) }

func (a *app) hintf(format string, args ...any) { msg.Hintf(a.stderr, format, args...) }

func (a *app) warnf(format string, args ...any) { msg.Warnf(a.stderr, format, args...) }

func (a *app) notef(format string, args ...any) { msg.Infof(a.stderr, format, args...) }

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

func (a *app) rootCommand() *ffcli.Command {
	fs := a.prog.FlagSet("forgectl")
	showVersion := fs.Bool("version", false, "print the version")
	return &ffcli.Command{
		Name:      "forgectl",
		FlagSet:   fs,
		UsageFunc: cli.Text(rootHelp),
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
				a.errorf("unknown command %s", render.Quoted(args[0]))
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
