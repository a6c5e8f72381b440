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
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
)

// noPruneEnv disables pruning when set to any non-empty value.
const noPruneEnv = "FORGECTL_RESUME_NO_PRUNE"

// usage is the manual of resume-snapshot and of `forgectl resume snapshot`;
// resume-snapshot's doc.go and man page are generated from it.
const usage = `resume-snapshot — capture what a Claude Code session's exit would destroy

USAGE
  resume-snapshot [--quiet]
  forgectl resume snapshot [--quiet]   (the same code, shared/snaprun, run in-process)

Two things do not survive a Claude Code session's exit: the /rename name,
which lives only in the live-process registry, and the task bodies of
tasks/<list id>/. For every live session in the registry (a
sessions/<pid>.json whose pid is alive and whose procStart matches the
process's real start time) it records the user-given name (the registry
name when nameSource says a person set it, else the custom-title.json
beside the transcript, plus formerNames) and every task file, with the
recovery metadata around them: session id, cwd, claude version, pid and
start time, transcript path, task list id and folder, high-water mark,
capture times.

Run as a Claude Code Stop hook it also reads the hook's stdin JSON
(session_id, transcript_path, cwd) and CLAUDE_PID, so the session that just
stopped is captured even before its registry file says so. Stdin is read
only when it is not a terminal, up to 1 MiB, and for at most a second
(200 ms of silence ends it), so an open but silent stdin never holds up the
turn. No stdin is fine.

WIRING
  forgectl init --stop-hook merges the hook into ~/.claude/settings.json
  (user scope: the point is every repo); by hand, merge this into its
  "hooks" object:
    "Stop": [
      { "hooks": [{ "type": "command", "command": "forgectl resume snapshot --quiet" }] }
    ]
  Hooks do not inherit an interactive shell's PATH; use an absolute path if
  forgectl is not on the system PATH.

FLAGS
  --quiet     print nothing, errors included (the form a Stop hook uses)
  --help      print this manual
  --version   print the version

Without --quiet it prints one line per session captured (id, name, task
count) on stdout, and problems on stderr as "forgectl: error: ...".

EXIT STATUS
  0    always. A bad flag, a corrupt registry file, an unwritable or full
       store, a broken stdin, even a panic, are reported on stderr (nothing
       with --quiet) and the status stays 0: for a Stop hook, exit 2 would
       block the turn and show the message to the model. A bad flag
       captures nothing.

ENVIRONMENT
  CLAUDE_CONFIG_DIR          Claude Code's folder (default ~/.claude)
  FORGECTL_CONFIG_DIR        forgectl's folder (default ~/.config/forgectl, or
                             $XDG_CONFIG_HOME/forgectl, on Linux;
                             ~/Library/Application Support/forgectl on macOS)
  CLAUDE_PID                 the claude running this hook (Claude Code sets it)
  CLAUDE_CODE_TASK_LIST_ID   the hook session's task list when it is not the
                             session id; other sessions' values are read from
                             their own process environment
  FORGECTL_RESUME_NO_PRUNE   any non-empty value disables pruning

FILES
  <claude dir>/sessions/<pid>.json                  read: the live registry
  <claude dir>/tasks/<list id>/<n>.json             read: task bodies
  <claude dir>/projects/<enc cwd>/<id>.jsonl        stat: transcripts
  <forgectl dir>/resume-sessions/<session id>.json  written, 0600 in a 0700 folder
  <forgectl dir>/resume-sessions/<session id>.lock  per-session lock
  <forgectl dir>/resume-sessions/.prune-stamp       last prune pass and its outcome
  <forgectl dir>/resume-sessions/.capture-cache     fingerprints of the last full captures

SNAPSHOTS
  One JSON file per session, written atomically (temp file and rename),
  under a per-session lock file so that several hooks at once lose nothing.
  Snapshots merge by task id: a pass that sees fewer tasks keeps the others
  and marks them gone_since, because the tasks a session just lost are the
  ones worth rescuing. The store never shrinks to follow Claude Code.

PRUNING
  At most once a day (the .prune-stamp file; a fresh stamp costs one stat) a
  record is retired when Claude Code's transcript for its session is gone
  (its recorded transcript_path, else any projects/*/<id>.jsonl). A record
  whose transcript survives is kept however old. A pass that would retire
  more than half the store refuses and says so, as that is what a broken
  transcript lookup looks like; small stores may always retire up to 3
  records, never the last one. Records without a transcript last captured
  more than 180 days ago are retired even then. Live sessions are never
  retired.

SPEED
  It runs on every turn of every session, so a session that has not changed
  since its last full capture is recognised from file metadata and left
  alone: the Stop hook's own session by the size, mtime and inode of each
  task file, every other session by its task folder's mtime (Claude Code's
  locked task writes move it) and at least every 10 minutes in full. Files
  written within 2 seconds of a capture are always read again. The cache is
  only a cache: deleting it costs one full pass.

  Nothing holds up the turn: a FIFO, socket or device where a file should
  be is reported and never opened, and a run gives up after 10 seconds on
  whatever still blocks (a hung network mount, locks other captures hold),
  says so, and exits 0.
`

// app is one invocation; Run fills it from the process, tests build their own.
type app struct {
	name           string
	version        func() string
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	home           func() (string, error)
	now            func() time.Time
	goos           string
	stdinLimits    stdinLimits
	// budget bounds the whole run; past it the hook gives up on whatever
	// still blocks (see SPEED in the usage).
	budget time.Duration
}

// budget is the Stop hook's: far past any capture seen (milliseconds), the
// stdin read (at most a second) and a few contended locks (2 s each), and
// well inside Claude Code's hook timeout.
const budget = 10 * time.Second

// giveUpGrace is how long a capture past the budget has to notice the
// cancel before the hook leaves it behind.
const giveUpGrace = 200 * time.Millisecond

// Run is the command. name and version are the binary's, for --version;
// version is asked only then: reading the build info on every turn would
// cost the hook a tenth of its time.
// It always returns 0: see the exit status in its usage.
func Run(ctx context.Context, name string, version func() string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
		budget: budget,
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
				msg.Errorf(a.stderr, "resume snapshot failed unexpectedly: %v", r)
				msg.Hintf(a.stderr, "nothing was lost; please report this with 'resume-snapshot --version'")
			}
			code = exitcode.OK
		}
	}()

	fs := flag.NewFlagSet("resume snapshot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&quiet, "quiet", quiet, "print nothing")
	showVersion := fs.Bool("version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(a.stdout, usage)
			return exitcode.OK
		}
		a.usageError(quiet, err.Error())
		return exitcode.OK
	}
	if fs.NArg() > 0 {
		a.usageError(quiet, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
		return exitcode.OK
	}
	if *showVersion {
		fmt.Fprintf(a.stdout, "%s %s\n", a.name, a.version())
		return exitcode.OK
	}

	report := func(err error) {
		if !quiet {
			msg.Errorf(a.stderr, "%s", oneLine(err.Error()))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, a.budget)
	defer cancel()
	gaveUp := fmt.Errorf("resume snapshot gave up after %s on what still blocked (a hung file system, locks other captures held); nothing half written is used", a.budget)

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
		return exitcode.OK
	}
	c := capture.Capturer{
		Claude: claude,
		Store:  snapstore.Store{Dir: fc.Snapshots()},
		Now:    a.now,
		Getenv: a.getenv,
	}
	var res capture.Result
	if !a.bounded(ctx, func() { res = c.Run(ctx, hook) }) {
		report(gaveUp)
		return exitcode.OK
	}
	for _, p := range res.Problems {
		if errors.Is(p, context.DeadlineExceeded) {
			p = gaveUp
		}
		report(p)
	}
	if !quiet {
		for _, r := range res.Sessions {
			fmt.Fprintln(a.stdout, describe(r))
		}
	}

	if a.getenv(noPruneEnv) != "" || ctx.Err() != nil {
		return exitcode.OK
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
	var rep snapstore.PruneReport
	if !a.bounded(ctx, func() { rep = pr.Run() }) {
		report(gaveUp)
		return exitcode.OK
	}
	for _, p := range rep.Problems {
		report(fmt.Errorf("prune: %w", p))
	}
	if quiet || !rep.Ran {
		return exitcode.OK
	}
	if len(rep.Retired) > 0 {
		fmt.Fprintf(a.stdout, "pruned %d snapshots whose transcript is gone\n", len(rep.Retired))
	}
	if rep.Refused != "" {
		msg.Errorf(a.stderr, "pruning kept %d snapshots: %s", rep.Withheld, rep.Refused)
		msg.Hintf(a.stderr, "check that the Stop hook and this shell see the same CLAUDE_CONFIG_DIR; %s=1 turns pruning off", noPruneEnv)
	}
	return exitcode.OK
}

// bounded runs fn, and reports false when it is still running
// giveUpGrace after ctx is done: it is then left behind, to die with the
// process (every write is a rename, so nothing half written is used). A
// panic in fn is the caller's, as if fn had run in its goroutine.
func (a app) bounded(ctx context.Context, fn func()) bool {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		fn()
	}()
	var r any
	select {
	case r = <-done:
	case <-ctx.Done():
		select {
		case r = <-done:
		case <-time.After(giveUpGrace):
			return false
		}
	}
	if r != nil {
		panic(r)
	}
	return true
}

func (a app) usageError(quiet bool, text string) {
	if quiet {
		return
	}
	msg.Errorf(a.stderr, "resume snapshot: %s", text)
	msg.Hintf(a.stderr, "nothing was captured; usage: 'forgectl resume snapshot [--quiet]' (see --help)")
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
