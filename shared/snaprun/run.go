// Package snaprun is `resume snapshot`: the Stop-hook snapshotter's whole
// command, shared by the resume-snapshot binary and by forgectl, which runs
// it in-process rather than exec'ing the sibling binary. A second process
// start costs more than the snapshot itself (measured with tools/benchsnap),
// and the hook runs on every Claude Code turn.
//
// It links only the standard library, x/sys and shared's hot-safe packages.
package snaprun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"forgectl.dev/shared/capture"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
)

// noPruneEnv disables pruning when set to any non-empty value.
const noPruneEnv = "FORGECTL_RESUME_NO_PRUNE"

const usage = `Usage:
  forgectl resume snapshot [--quiet]
  resume-snapshot [--quiet]

Capture what a live Claude Code session's exit would destroy: its /rename
name and its task bodies, with the session id, cwd, version and task
folder. Every live session in Claude Code's registry is captured; run as a
Stop hook, the session that just stopped is captured from the hook's stdin
even before the registry shows it. Snapshots merge and never shrink.

Wire it as a Stop hook in ~/.claude/settings.json (user scope):
  "Stop": [{"hooks": [{"type": "command", "command": "forgectl resume snapshot --quiet"}]}]

Flags:
  --quiet     print nothing, not even errors (the form a Stop hook uses)
  --help      show this help
  --version   print the version

Exit status:
  0    always: a failed snapshot must never become a failed turn (for a
       Stop hook, exit 2 would block the turn); problems go to stderr

Environment:
  CLAUDE_CONFIG_DIR           Claude Code's folder (default ~/.claude)
  FORGECTL_CONFIG_DIR         forgectl's folder (default: the user config dir)
  CLAUDE_PID                  the claude running this hook (set by Claude Code)
  CLAUDE_CODE_TASK_LIST_ID    the hook session's task list, when not its id
  FORGECTL_RESUME_NO_PRUNE    any non-empty value disables pruning

Files:
  <forgectl config dir>/resume-sessions/<session id>.json   one per session
  <forgectl config dir>/resume-sessions/.prune-stamp         last daily prune
`

// app is one invocation; Run fills it from the process, tests build their own.
type app struct {
	name, version  string
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	home           func() (string, error)
	now            func() time.Time
	goos           string
	stdinLimits    stdinLimits
}

// Run is the command. name and version are the binary's, for --version.
// It always returns 0: see the exit status in its usage.
func Run(ctx context.Context, name, version string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := app{
		name:    name,
		version: version,
		stdin:   stdin,
		stdout:  stdout,
		stderr:  stderr,
		getenv:  os.Getenv,
		home:    os.UserHomeDir,
		now:     time.Now,
		goos:    runtime.GOOS,
		stdinLimits: stdinLimits{
			keep:  1 << 20,
			drop:  64 << 20,
			idle:  200 * time.Millisecond,
			total: time.Second,
		},
	}
	return a.main(ctx, args)
}

// main never returns anything but 0: for a Stop hook, 2 would block the
// turn and show stderr to the model, and any other failure would mark it.
func (a app) main(ctx context.Context, args []string) (code int) {
	quiet := quietIn(args)
	defer func() {
		if r := recover(); r != nil {
			if !quiet {
				fmt.Fprintf(a.stderr, "forgectl: error: resume snapshot failed unexpectedly: %v\n", r)
				fmt.Fprintf(a.stderr, "forgectl: hint: nothing was lost; please report this with `resume-snapshot --version`\n")
			}
			code = 0
		}
	}()

	fs := flag.NewFlagSet("resume snapshot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&quiet, "quiet", quiet, "print nothing")
	showVersion := fs.Bool("version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(a.stdout, usage)
			return 0
		}
		a.usageError(quiet, err.Error())
		return 0
	}
	if fs.NArg() > 0 {
		a.usageError(quiet, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
		return 0
	}
	if *showVersion {
		fmt.Fprintf(a.stdout, "%s %s\n", a.name, a.version)
		return 0
	}

	report := func(err error) {
		if !quiet {
			fmt.Fprintf(a.stderr, "forgectl: error: %s\n", oneLine(err.Error()))
		}
	}

	raw, err := readStdin(a.stdin, a.stdinLimits)
	if err != nil {
		report(fmt.Errorf("read hook stdin: %w", err))
	}
	hook, err := capture.ParseHook(raw)
	if err != nil {
		report(fmt.Errorf("hook stdin: %w", err))
	}

	claude, fc, err := a.locate()
	if err != nil {
		report(err)
		return 0
	}
	c := capture.Capturer{
		Claude: claude,
		Store:  snapstore.Store{Dir: fc.Snapshots()},
		Now:    a.now,
		Getenv: a.getenv,
	}
	res := c.Run(ctx, hook)
	for _, p := range res.Problems {
		report(p)
	}
	if !quiet {
		for _, r := range res.Sessions {
			fmt.Fprintln(a.stdout, describe(r))
		}
	}

	if a.getenv(noPruneEnv) != "" || ctx.Err() != nil {
		return 0
	}
	live := make(map[string]bool, len(res.Live))
	for _, id := range res.Live {
		live[id] = true
	}
	pr := snapstore.Pruner{
		Store:    c.Store,
		Projects: claude.Projects(),
		Now:      a.now,
		Live:     func(id string) bool { return live[id] },
	}
	rep := pr.Run()
	for _, p := range rep.Problems {
		report(fmt.Errorf("prune: %w", p))
	}
	if quiet || !rep.Ran {
		return 0
	}
	if len(rep.Retired) > 0 {
		fmt.Fprintf(a.stdout, "pruned %d snapshots whose transcript is gone\n", len(rep.Retired))
	}
	if rep.Refused != "" {
		fmt.Fprintf(a.stderr, "forgectl: error: pruning kept %d snapshots: %s\n", rep.Withheld, rep.Refused)
		fmt.Fprintf(a.stderr, "forgectl: hint: check that the Stop hook and this shell see the same CLAUDE_CONFIG_DIR; %s=1 turns pruning off\n", noPruneEnv)
	}
	return 0
}

func (a app) usageError(quiet bool, msg string) {
	if quiet {
		return
	}
	fmt.Fprintf(a.stderr, "forgectl: error: resume snapshot: %s\n", msg)
	fmt.Fprintf(a.stderr, "forgectl: hint: nothing was captured; usage: forgectl resume snapshot [--quiet] (see --help)\n")
}

// locate finds Claude Code's folder and forgectl's. The home directory is
// needed only when an environment variable does not name a folder.
func (a app) locate() (paths.Claude, paths.Forgectl, error) {
	home, herr := a.home()
	if herr != nil {
		home = ""
	}
	claude := paths.ClaudeFrom(a.getenv, home)
	fc := paths.ForgectlFrom(a.getenv, home, a.goos)
	if home == "" && (a.getenv("CLAUDE_CONFIG_DIR") == "" || a.getenv("FORGECTL_CONFIG_DIR") == "") {
		return claude, fc, fmt.Errorf("no home directory to find Claude Code's and forgectl's folders: %v", herr)
	}
	return claude, fc, nil
}

// quietIn finds --quiet before parsing, so that a bad flag ahead of it is
// still silent.
func quietIn(args []string) bool {
	q := false
	for _, arg := range args {
		if arg == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || name != "quiet" {
			continue
		}
		q = true
		if hasVal {
			b, err := strconv.ParseBool(val)
			q = err == nil && b
		}
	}
	return q
}

// describe is the one line printed per session captured.
func describe(c capture.Captured) string {
	name := "(no name)"
	if c.Name != "" {
		name = strconv.Quote(c.Name)
	}
	line := fmt.Sprintf("captured %s %s: %d %s", c.SessionID, name, c.Tasks, plural(c.Tasks, "task", "tasks"))
	if c.Gone > 0 {
		line += fmt.Sprintf(" (%d no longer live)", c.Gone)
	}
	if c.Unchanged {
		line += ", unchanged"
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func oneLine(s string) string {
	return strings.ReplaceAll(s, "\n", "; ")
}
