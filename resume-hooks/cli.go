package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"forgectl.dev/resume-hooks/internal/hookrun"
	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/version"
)

// app holds every dependency on the outside world; run builds the real
// ones and tests build their own.
type app struct {
	getenv   func(string) string
	environ  []string
	home     string
	goos     string
	uid      int
	pid      int
	self     string // this executable
	lookPath func(string) (string, error)
	now      func() time.Time
	// runner runs launchctl, systemctl and osascript.
	runner hookstate.Runner
	sleep  func(ctx context.Context, d time.Duration) error
	stdout io.Writer
	stderr io.Writer
	// prog is the finish path: messages, the manual, the exit code.
	prog *cli.Program
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	home, err := os.UserHomeDir()
	if err != nil {
		msg.Errorf(stderr, "cannot find the home directory: %v", err)
		return exitcode.Failed
	}
	self, _ := os.Executable()
	a := &app{
		getenv:   os.Getenv,
		environ:  os.Environ(),
		home:     home,
		goos:     runtime.GOOS,
		uid:      os.Getuid(),
		pid:      os.Getpid(),
		self:     self,
		lookPath: exec.LookPath,
		now:      time.Now,
		runner:   hookstate.ExecRunner(30 * time.Second),
		sleep:    sleepCtx,
		stdout:   stdout,
		stderr:   stderr,
	}
	return a.main(ctx, args)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (a *app) main(ctx context.Context, args []string) int {
	a.prog = &cli.Program{Command: "forgectl resume hooks", Stdout: a.stdout, Stderr: a.stderr}
	root := a.rootCommand()
	return a.prog.Run(ctx, root, args)
}

func (a *app) errorf(format string, args ...any) { msg.Errorf(a.stderr, format, args...) }

func (a *app) hintf(format string, args ...any) { msg.Hintf(a.stderr, format, args...) }

func noArgs(args []string) error {
	if len(args) > 0 {
		return cli.Usagef("unexpected argument %q", args[0])
	}
	return nil
}

func (a *app) rootCommand() *ffcli.Command {
	fs := a.prog.FlagSet("resume-hooks")
	showVersion := fs.Bool("version", false, "print the version")
	return &ffcli.Command{
		Name:       "resume-hooks",
		ShortUsage: "forgectl resume hooks <run|status|install|uninstall> [flags]",
		LongHelp:   rootHelp,
		FlagSet:    fs,
		UsageFunc:  helpText,
		Subcommands: []*ffcli.Command{
			a.runCommand(), a.statusCommand(), a.installCommand(), a.uninstallCommand(),
		},
		Exec: func(ctx context.Context, args []string) error {
			if *showVersion {
				fmt.Fprintf(a.stdout, "resume-hooks %s\n", version.String())
				return nil
			}
			if len(args) == 0 {
				return cli.Usagef("name a subcommand: run, status, install or uninstall")
			}
			return cli.Usagef("unknown subcommand %q (run, status, install, uninstall)", args[0])
		},
	}
}

func (a *app) forgectlPaths() paths.Forgectl {
	return paths.ForgectlFrom(a.getenv, a.home, a.goos)
}

// loadConfig reads config.toml; every problem is printed and is exit 2.
func (a *app) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(a.forgectlPaths().Config())
	if err == nil {
		return cfg, nil
	}
	a.printConfigErrors(err)
	return cfg, cli.Exit(exitcode.Refused)
}

func (a *app) printConfigErrors(err error) { config.Report(a.stderr, err) }

// hooks converts the config's entries, keeping their positions.
func hooks(cfg *config.Config) []hookrun.Hook {
	var hs []hookrun.Hook
	for i, o := range cfg.Resume.OnUpdate {
		hs = append(hs, hookrun.Hook{Position: i + 1, Kind: o.Kind(), Command: o.Command, Timeout: o.Timeout()})
	}
	return hs
}

// trigger is the watcher that started this run, or manual.
func (a *app) trigger() string {
	switch t := a.getenv("FORGECTL_HOOKS_TRIGGER"); t {
	case hookstate.TriggerLaunchd, hookstate.TriggerSystemd, hookstate.TriggerCron:
		return t
	}
	return hookstate.TriggerManual
}

func (a *app) runCommand() *ffcli.Command {
	fs := a.prog.FlagSet("run")
	dryRun := fs.Bool("dry-run", false, "show what would fire now; start nothing, record nothing")
	return &ffcli.Command{
		Name:       "run",
		ShortUsage: "forgectl resume hooks run [--dry-run]",
		ShortHelp:  "fire the [[resume.on_update]] hooks if claude changed version",
		LongHelp:   runHelp,
		FlagSet:    fs,
		UsageFunc:  helpText,
		Exec: func(ctx context.Context, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			r, err := a.hookRunner(cfg)
			if err != nil {
				return err
			}
			if code := r.Run(ctx, *dryRun); code != 0 {
				return cli.Exit(code)
			}
			return nil
		},
	}
}

func (a *app) hookRunner(cfg *config.Config) (*hookrun.Runner, error) {
	fp := a.forgectlPaths()
	settle := hookrun.DefaultSettle
	if s := a.getenv("FORGECTL_HOOKS_SETTLE"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, cli.Usagef("FORGECTL_HOOKS_SETTLE=%q is not a duration", s)
		}
		settle = d
	}
	// "" lets the finder fall back to ~/.local/bin/claude, as outdated does.
	claude, _ := config.ClaudeBinary(a.getenv, cfg, a.lookPath)
	finder := claudever.Finder{Getenv: a.getenv, Home: a.home, Binary: claude}
	procStart, _ := proc.StartTime(a.pid)
	r := &hookrun.Runner{
		Files:       hookstate.FilesFor(fp),
		RestartLock: fp.RestartLock(),
		Harness:     "claude",
		Hooks:       hooks(cfg),
		ReadVersion: func(ctx context.Context) (string, error) {
			in, err := finder.Find(ctx)
			if err != nil {
				return "", err
			}
			return in.Version.String(), nil
		},
		Settle:    settle,
		Trigger:   a.trigger(),
		Env:       a.environ,
		Now:       a.now,
		Stdout:    a.stdout,
		Stderr:    a.stderr,
		Pid:       a.pid,
		ProcStart: procStart,
	}
	bin, err := a.restartBinary()
	if err != nil {
		r.RestartErr = err
	} else {
		r.RestartArgv = []string{bin, "restart", "--outdated"}
	}
	if a.goos == "darwin" {
		r.Notify = a.notify
	}
	return r, nil
}

// restartBinary is resume-restart: $FORGECTL_RESTART_BIN, else beside this
// executable, else on PATH.
func (a *app) restartBinary() (string, error) {
	return paths.Program{Name: "resume-restart", EnvVar: "FORGECTL_RESTART_BIN", Self: a.self, SkipGoRun: true}.Find(a.getenv, a.lookPath)
}

// notify posts a macOS notification. The texts travel as osascript's
// arguments, never inside the script, so nothing in them needs quoting.
func (a *app) notify(ctx context.Context, title, message string) error {
	res := a.runner(ctx, "osascript",
		"-e", "on run argv",
		"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
		"-e", "end run",
		title, message)
	if res.Err != nil {
		return res.Err
	}
	if res.Code != 0 {
		return fmt.Errorf("osascript exited %d: %s", res.Code, strings.TrimSpace(string(res.Stderr)))
	}
	return nil
}
