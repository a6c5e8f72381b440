package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/interrupt"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/paths"
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
	// walked are the harnesses by name, each made once per invocation (see
	// harnessNamed); only is what --harness narrowed them to (nil: none).
	walked   map[string]harness.Harness
	only     []string
	defaults []string // the harnesses without --harness, once known
	marked   *bool    // rows carry harness marks (see marks), once known
	// searchSeam, when set, adjusts each search's options: a test holds a
	// first build inside Options.Early to see the hits printed meanwhile.
	searchSeam func(*search.Options)
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
	cs := roster()
	root := a.rootCommand(cs)
	return a.prog.Run(ctx, root, flagsFirst(root, cs, args))
}

// exit ends a command with code once its messages are printed (cli.Exit).
func exit(code int) error { return cli.Exit(code) }

// codeError and noteTo are the names listing.go still calls: cli's exit
// carrier, and an information line.
type codeError = cli.ExitError

func noteTo(w io.Writer, format string, args ...any) { msg.Infof(w, format, args...) }

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
