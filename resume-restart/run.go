package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"forgectl.dev/resume-restart/internal/herdr"
	"forgectl.dev/resume-restart/internal/outdated"
	"forgectl.dev/resume-restart/internal/relaunch"
	"forgectl.dev/resume-restart/internal/restart"
	"forgectl.dev/shared/capture"
	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/version"
)

// app holds a run's dependencies; tests build their own.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	home           func() (string, error)
	lookPath       func(string) (string, error)
	executable     func() (string, error)
	goos           string
	pid            int
	now            func() time.Time
	// prog is the finish path: messages, the manual, the exit code.
	prog *cli.Program
}

func run(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	a := &app{
		stdout: stdout, stderr: stderr,
		getenv: os.Getenv, home: os.UserHomeDir, lookPath: exec.LookPath, executable: os.Executable,
		goos: runtime.GOOS, pid: os.Getpid(), now: time.Now,
	}
	return a.main(ctx, args)
}

func (a *app) errorf(format string, args ...any) { msg.Errorf(a.stderr, format, args...) }

func (a *app) hint(format string, args ...any) { msg.Hintf(a.stderr, format, args...) }

func (a *app) note(format string, args ...any) { msg.Notef(a.stderr, format, args...) }

func (a *app) main(ctx context.Context, args []string) int {
	a.prog = &cli.Program{Command: "forgectl resume", Stdout: a.stdout, Stderr: a.stderr}
	rootFS := a.prog.FlagSet("resume-restart")
	showVersion := rootFS.Bool("version", false, "print this program's version and exit")

	outdatedCmd := a.outdatedCommand()
	restartCmd := a.restartCommand()
	root := &ffcli.Command{
		Name:        "resume-restart",
		ShortHelp:   "resume-restart — list and restart Claude Code sessions running an older claude",
		ShortUsage:  "forgectl resume outdated|restart [flags]",
		LongHelp:    rootHelp,
		FlagSet:     rootFS,
		Subcommands: []*ffcli.Command{outdatedCmd, restartCmd},
		UsageFunc:   helpText,
		Exec: func(ctx context.Context, args []string) error {
			if *showVersion {
				fmt.Fprintf(a.stdout, "resume-restart %s\n", version.String())
				return nil
			}
			if len(args) > 0 {
				return cli.Usagef("unknown command %q: use outdated or restart", args[0])
			}
			return cli.Usagef("missing command: use outdated or restart")
		},
	}

	return a.prog.Run(ctx, root, args)
}

func noArgs(args []string) error {
	if len(args) > 0 {
		return cli.Usagef("unexpected argument %q", args[0])
	}
	return nil
}

func (a *app) outdatedCommand() *ffcli.Command {
	fs := a.prog.FlagSet("outdated")
	jsonOut := fs.Bool("json", false, "print a JSON array (see JSON FIELDS)")
	return &ffcli.Command{
		Name:       "outdated",
		ShortUsage: "forgectl resume outdated [--json]",
		ShortHelp:  "list live sessions running an older claude than the one installed (read-only)",
		LongHelp:   outdatedHelp,
		FlagSet:    fs,
		UsageFunc:  helpText,
		Exec: func(ctx context.Context, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return a.outdated(ctx, *jsonOut)
		},
	}
}

// sessionList is a repeatable --session flag.
type sessionList []string

func (s *sessionList) String() string { return strings.Join(*s, ",") }
func (s *sessionList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty session id")
	}
	*s = append(*s, strings.TrimSpace(v))
	return nil
}

func (a *app) restartCommand() *ffcli.Command {
	fs := a.prog.FlagSet("restart")
	outdatedFlag := fs.Bool("outdated", false, "act on the sessions resume outdated lists (required)")
	var sessions sessionList
	fs.Var(&sessions, "session", "narrow the set to this session `id` (repeatable)")
	timeout := fs.Duration("timeout", restart.DefaultTimeout, "how long to wait for sessions to become safe to stop")
	dryRun := fs.Bool("dry-run", false, "print each session's planned action and what every check says now; reads only")
	jsonOut := fs.Bool("json", false, "print the outcome per session as a JSON array (see JSON FIELDS)")
	return &ffcli.Command{
		Name:       "restart",
		ShortUsage: "forgectl resume restart --outdated [--session ID]... [--timeout D] [--dry-run] [--json]",
		ShortHelp:  "stop and resume outdated sessions in their herdr panes once each is idle",
		LongHelp:   restartHelp,
		FlagSet:    fs,
		UsageFunc:  helpText,
		Exec: func(ctx context.Context, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if !*outdatedFlag {
				return cli.Usagef("restart needs --outdated: it acts only on the sessions `resume outdated` lists")
			}
			if *timeout <= 0 {
				return cli.Usagef("--timeout must be positive, not %s", *timeout)
			}
			return a.restart(ctx, restartOpts{sessions: sessions, timeout: *timeout, dryRun: *dryRun, json: *jsonOut})
		},
	}
}

// locations resolves the home, Claude's tree and forgectl's directory.
func (a *app) locations() (home string, claude paths.Claude, fc paths.Forgectl, err error) {
	home, err = a.home()
	if err != nil || home == "" {
		return "", claude, fc, fmt.Errorf("cannot find the home directory: %v", err)
	}
	return home, paths.ClaudeFrom(a.getenv, home), paths.ForgectlFrom(a.getenv, home, a.goos), nil
}

// installed finds the installed claude version, with claude located the
// way launch locates it. FORGECTL_CLAUDE_BIN and the native installer's
// versions symlink need no config, so the config is loaded only when
// neither settles it, and one that does not load is reported and passed
// over for claude on PATH: the version is undetermined (exit 1) only when
// no claude answers.
func (a *app) installed(ctx context.Context, home string, fc paths.Forgectl) (claudever.Installed, bool) {
	var cfg *config.Config
	if a.getenv("FORGECTL_CLAUDE_BIN") == "" {
		link := filepath.Join(home, ".local", "bin", "claude")
		if v, ok := claudever.VersionFromLink(link); ok {
			return claudever.Installed{Version: v, Binary: link, Source: "symlink"}, true
		}
		loaded, err := config.Load(fc.Config())
		if err != nil {
			config.Report(a.stderr, err)
			a.hint("fix %s; until then claude is looked up on PATH, ignoring its binary_path", fc.Config())
		} else {
			cfg = loaded
		}
	}
	bin, binErr := config.ClaudeBinary(a.getenv, cfg, a.lookPath)
	if binErr != nil {
		bin = ""
	}
	inst, err := claudever.Finder{Getenv: a.getenv, Home: home, Binary: bin}.Find(ctx)
	if err != nil {
		a.errorf("cannot determine the installed claude version: %v", err)
		var be *config.BinaryError
		if errors.As(binErr, &be) && be.Hint != "" {
			a.hint("%s", be.Hint)
		} else {
			a.hint("install Claude Code, or set FORGECTL_CLAUDE_BIN to its path")
		}
		return claudever.Installed{}, false
	}
	return inst, true
}

func (a *app) list(claude paths.Claude, inst claudever.Installed) []outdated.Session {
	sessions, problems := outdated.Lister{RegistryDir: claude.Registry(), ProjectsDir: claude.Projects()}.List(inst.Version)
	for _, p := range problems {
		a.note("skipped an unreadable registry entry: %v", p)
	}
	return sessions
}

func (a *app) outdated(ctx context.Context, jsonOut bool) error {
	home, claude, fc, err := a.locations()
	if err != nil {
		a.errorf("%v", err)
		return cli.Exit(exitcode.Failed)
	}
	inst, ok := a.installed(ctx, home, fc)
	if !ok {
		return cli.Exit(exitcode.Failed)
	}
	sessions := a.list(claude, inst)
	if jsonOut {
		outdated.WriteJSON(a.stdout, sessions)
		return nil
	}
	if len(sessions) == 0 {
		a.note("no live session runs a claude older than the installed %s", inst.Version)
		return nil
	}
	outdated.WriteTable(a.stdout, sessions)
	return nil
}

type restartOpts struct {
	sessions []string
	timeout  time.Duration
	dryRun   bool
	json     bool
}

// durationEnv reads one of the hidden interval overrides used by tests,
// each a Go duration and deliberately absent from --help:
//
//	FORGECTL_RESTART_POLL           re-check period while waiting (default 3s)
//	FORGECTL_RESTART_SETTLE         poll period after the stop (default 200ms)
//	FORGECTL_RESTART_STOP_WAIT      bound on exit, registry file gone, shell back (30s)
//	FORGECTL_RESTART_REGISTER_WAIT  bound on the relaunched session registering (60s)
//	FORGECTL_HERDR_TIMEOUT          bound on each herdr call (10s)
func (a *app) durationEnv(name string) (time.Duration, error) {
	v := a.getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, cli.Usagef("%s=%q is not a positive duration", name, v)
	}
	return d, nil
}

func (a *app) restart(ctx context.Context, o restartOpts) error {
	// A closed terminal or a consumer that stopped reading must not kill a
	// run between the stop and the relaunch; writes just fail.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	var poll, settle, stopWait, registerWait, herdrTimeout, resolveTimeout time.Duration
	for name, dst := range map[string]*time.Duration{
		"FORGECTL_RESTART_POLL": &poll, "FORGECTL_RESTART_SETTLE": &settle,
		"FORGECTL_RESTART_STOP_WAIT": &stopWait, "FORGECTL_RESTART_REGISTER_WAIT": &registerWait,
		"FORGECTL_HERDR_TIMEOUT": &herdrTimeout, "FORGECTL_RESTART_RESOLVE_TIMEOUT": &resolveTimeout,
	} {
		d, err := a.durationEnv(name)
		if err != nil {
			return err
		}
		*dst = d
	}

	home, claude, fc, err := a.locations()
	if err != nil {
		a.errorf("%v", err)
		return cli.Exit(exitcode.Failed)
	}
	if !o.dryRun {
		if err := fsutil.MkdirPrivate(fc.Root); err != nil {
			a.errorf("cannot create %s: %v", fc.Root, err)
			return cli.Exit(exitcode.Failed)
		}
		lock, err := fsutil.TryLock(fc.RestartLock())
		if errors.Is(err, fsutil.ErrLocked) {
			a.errorf("another restart is already running (it holds %s)", fc.RestartLock())
			a.hint("let it finish; it acts on the same sessions")
			return cli.Exit(exitcode.Failed)
		}
		if err != nil {
			a.errorf("cannot take the restart lock: %v", err)
			return cli.Exit(exitcode.Failed)
		}
		defer lock.Unlock()
	}

	inst, ok := a.installed(ctx, home, fc)
	if !ok {
		return cli.Exit(exitcode.Failed)
	}
	all := a.list(claude, inst)
	sessions, unmatched := narrow(all, o.sessions)

	cfg := restart.Config{
		Sessions: sessions, Unmatched: unmatched, Timeout: o.timeout, DryRun: o.dryRun,
		RegistryDir: claude.Registry(), Self: a.pid, Now: a.now,
		Poll: poll, Settle: settle, StopWait: stopWait, RegisterWait: registerWait,
		Progress: a.stderr,
	}
	if bin, err := config.HerdrBinary(a.getenv, a.lookPath); err != nil {
		cfg.HerdrMissing = err
	} else {
		cfg.Herdr = herdr.Client{Binary: bin, Timeout: herdrTimeout}
	}
	cfg.Forgectl, cfg.ForgectlErr = a.forgectlPath()
	cfg.Resolve = relaunch.Resolver{Forgectl: cfg.Forgectl, Timeout: resolveTimeout}.Resolve
	cfg.Capture = a.captureFunc(claude, snapstore.Store{Dir: fc.Snapshots()})

	if len(sessions) == 0 && len(unmatched) == 0 && !o.json {
		a.note("no live session runs a claude older than the installed %s", inst.Version)
		return nil
	}
	rep := restart.Run(ctx, cfg)
	if o.json {
		writeOutcomesJSON(a.stdout, rep.Outcomes)
	} else if o.dryRun {
		writePlan(a.stdout, rep.Outcomes)
	} else {
		writeOutcomes(a.stdout, rep.Outcomes)
	}
	if !o.dryRun && rep.Incomplete() {
		return cli.Exit(exitcode.Failed)
	}
	return nil
}

// captureFunc runs the same capture as `resume snapshot` for one session.
// Only a record that did not reach the store keeps the session from being
// stopped: notes (a half-written task file, a task list it could not read)
// can recur every round and would hold it until the timeout.
func (a *app) captureFunc(claude paths.Claude, store snapstore.Store) func(context.Context, registry.Entry) error {
	capturer := capture.Capturer{
		Claude: claude,
		Store:  store,
		Now:    a.now,
		// Not a hook: nothing in this process's environment describes the
		// session; its own environment is read through its pid.
		Getenv: func(string) string { return "" },
	}
	return func(_ context.Context, e registry.Entry) error {
		_, notes, err := capturer.Session(e)
		if err != nil {
			return err
		}
		for _, n := range notes {
			a.note("snapshot of %s stored, with a warning: %v", e.SessionID, n)
		}
		return nil
	}
}

// narrow keeps the sessions named by ids (all of them when ids is empty)
// and returns the ids that name none.
func narrow(all []outdated.Session, ids []string) ([]outdated.Session, []string) {
	if len(ids) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []outdated.Session
	for _, s := range all {
		if want[s.Entry.SessionID] {
			out = append(out, s)
			delete(want, s.Entry.SessionID)
		}
	}
	var unmatched []string
	for _, id := range ids {
		if want[id] {
			unmatched = append(unmatched, id)
			delete(want, id)
		}
	}
	return out, unmatched
}

// forgectlPath finds the forgectl typed into the pane: FORGECTL_SELF (set
// by forgectl when it dispatches here), else a forgectl beside this
// executable, else forgectl on PATH. A `go run` build lives in a temporary
// directory deleted when it exits, so such a path is passed over.
func (a *app) forgectlPath() (string, error) {
	exe, _ := a.executable()
	return paths.Program{Name: "forgectl", EnvVar: "FORGECTL_SELF", Self: exe, SkipGoRun: true}.Find(a.getenv, a.lookPath)
}
