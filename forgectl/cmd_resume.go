package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/shellword"
	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/tasks"
)

func resumeCommand() *command {
	return &command{
		name: "resume", desc: "pick or match a session and resume it",
		usage:        []usageLine{{"forgectl resume [FILTER]", "pick a recent session from any repo and resume it in place"}},
		help:         func() string { return resumeHelp },
		interspersed: true,
		words:        completeFilter,
		subs: []*command{lsCommand(), searchCommand(), renameCommand(), archiveCommand(), unarchiveCommand(), rmCommand(), trashCommand(),
			snapshotCommand(), outdatedCommand(), restartCommand(), hooksCommand()},
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			dryRun := fs.Bool("dry-run", false, "print the resolved cwd, argv and environment; exec nothing, never prompt")
			fork := fs.Bool("fork", false, "branch a new session off the transcript (--fork-session)")
			all := fs.Bool("all", false, "include hidden sessions (print-mode, sidechains) and archived ones")
			archived := fs.Bool("archived", false, "pick or match among the archived sessions only (forgectl's archive, Codex's archived_sessions/)")
			a.harnessFlag(fs)
			verbose := fs.Bool("verbose", false, "report files that could not be read")
			asJSON := fs.Bool("json", false, "with --dry-run: print one verdict object (see VERDICT)")
			stopped := fs.Int("assume-stopped", 0, "with --dry-run: resolve as though live `pid` had exited")
			query := fs.String("search", "", "resolve to the sessions whose conversation holds QUERY (see 'resume search --help')")
			dates := dateFlags(a, fs, "resume ")
			color := colorFlag(a, fs, "resume ")
			return func(ctx context.Context, args []string) error {
				active, err := dates()
				if err != nil {
					return err
				}
				out, err := color()
				if err != nil {
					return err
				}
				searching := false
				fs.Visit(func(f *flag.Flag) { searching = searching || f.Name == "search" })
				o := resumeOpts{filter: strings.Join(args, " "), dryRun: *dryRun, fork: *fork, all: *all || *archived, verbose: *verbose,
					search: *query, searching: searching, active: active, out: out, archived: *archived}
				if *asJSON || *stopped != 0 {
					return a.resumeVerdict(ctx, o, *asJSON, *stopped)
				}
				return a.resume(ctx, o)
			}
		},
	}
}

type resumeOpts struct {
	filter                     string
	dryRun, fork, all, verbose bool
	// archived: only the archive's sessions (--archived).
	archived bool
	// search is --search's query; searching says the flag was given (an
	// empty query is bad usage, not "no search").
	search    string
	searching bool
	// prices and warnContext are [resume.prices] and [resume]
	// warn_context_tokens, for the picker and the dry run.
	prices      render.Prices
	warnContext int64
	// active is --since and --until: the picker, a FILTER and --search see
	// only the sessions last active inside it.
	active when.Window
	// out is how candidates and the preview are drawn (--color).
	out output
}

// plan is everything a resume will do, resolved before anything is done.
type plan struct {
	session *harness.Session
	binary  string
	argv    []string
	env     []string // additions only
	tasks   []tasks.Task
	// highWater is the task-id mark the snapshot saw, restored with them.
	highWater int
}

func (a *app) resume(ctx context.Context, o resumeOpts) error {
	cfg, err := a.loadConfig()
	if err != nil {
		a.why("config_invalid")
		return err
	}
	// A bad launch_profile is refused before anything else, dry run included,
	// so the dry run's exit code is the one the real run would give.
	proxyEnv, err := cfg.ProxyEnv()
	if err != nil {
		a.why("bad_launch_profile")
		a.refuseProxy(err)
		return exit(exitcode.Refused)
	}
	o.prices, o.warnContext = pricesOf(cfg), cfg.Resume.WarnContextTokens
	if o.searching {
		s, err := a.resolveSearch(ctx, o)
		if err != nil {
			return err
		}
		return a.resumeSession(ctx, cfg, proxyEnv, s, o)
	}
	if o.filter == "" && !o.dryRun && a.stdinTTY && a.stdoutTTY {
		s, err := a.pickWhileListing(ctx, o)
		if err != nil {
			return err
		}
		return a.resumeSession(ctx, cfg, proxyEnv, s, o)
	}
	hits, err := a.matching(ctx, o)
	if err != nil {
		return err
	}
	if len(hits) == 0 {
		a.why("no_match")
		if o.filter == "" {
			e, h := a.noneFound().NoneFound()
			a.errorf("%s", e)
			a.hintf("%s", h)
		} else {
			a.errorf("no session matches %s", msg.Quoted(o.filter))
			a.hintf("'forgectl resume ls' lists every session; --all includes hidden ones")
		}
		return exit(exitcode.Failed)
	}
	if len(hits) > 1 {
		a.why("ambiguous")
		// Ambiguous, and either a filter was meant to be unique or nobody can
		// answer a picker: list the candidates rather than prompt (not in a
		// verdict, which is one object).
		if a.verdict == nil {
			t := a.table(o.out, false, render.Listing)
			t.Mark = a.markRows()
			for _, s := range hits {
				t.Add(s)
			}
			if err := t.Close(); err != nil {
				return err
			}
		}
		if o.filter != "" {
			a.errorf("%d sessions match %s", len(hits), msg.Quoted(o.filter))
			a.hintf("narrow the filter, or pass a session id from the first column")
		} else {
			a.errorf("%d sessions and no terminal to pick one in", len(hits))
			a.hintf("pass a filter or a session id from the first column")
		}
		return exit(exitcode.Failed)
	}
	s := hits[0]
	return a.resumeSession(ctx, cfg, proxyEnv, s, o)
}

func (a *app) resumeSession(ctx context.Context, cfg *config.Config, proxyEnv []string, s *harness.Session, o resumeOpts) error {
	if a.verdict != nil {
		a.verdict.found(s, o)
	}
	archived := a.inArchive(s)
	if archived && !o.dryRun { // a fork reads the transcript too
		// Restored first, then resumed as any other: the plan is made
		// from the row the restored transcript lists as.
		var err error
		if s, err = a.restoreForResume(ctx, s); err != nil {
			return err
		}
	}
	p, err := a.plan(cfg, proxyEnv, s, o.fork)
	if err != nil {
		return err
	}
	if o.dryRun {
		if a.verdict != nil {
			a.verdict.fill(p)
			return nil
		}
		a.printPlan(p, o)
		if archived {
			fmt.Fprintf(a.stdout, "archived: would be restored from %s first\n", a.store(archiveKind).Dir)
		}
		return nil
	}
	s, release, err := a.holdForResume(ctx, s)
	if err != nil {
		return err
	}
	defer release()
	if s != p.session {
		if p, err = a.plan(cfg, proxyEnv, s, o.fork); err != nil {
			return err
		}
	}
	a.restoreTasks(ctx, p, o.fork)
	if ctx.Err() != nil { // Ctrl-C while waiting for claude's task lock: nothing is started
		return exit(exitcode.Interrupted)
	}
	if err := a.chdir(s.Cwd); err != nil {
		a.errorf("cannot enter %s: %v", s.Cwd, err)
		return exit(exitcode.Failed)
	}
	// exec only returns on failure (a test's recording exec returns nil).
	if err := a.exec(p.binary, p.argv, withEnv(a.environ(), p.env)); err != nil {
		a.errorf("cannot exec %s: %v", p.binary, err)
		return exit(exitcode.Failed)
	}
	return nil
}

func (a *app) refuseProxy(err error) {
	a.errorf("%v", err)
	var pe *config.ProxyError
	if errors.As(err, &pe) && pe.Hint != "" {
		a.hintf("%s", pe.Hint)
	} else {
		a.hintf("define the profile under [proxy.profiles.<name>] or remove launch_profile")
	}
}

// plan resolves a resume without side effects, refusing what the real run
// would refuse, with the same exit code. Never two writers on one
// session: a live one is refused unless its harness lets another attach
// (harness.Busy); a fork writes a new session, and is always allowed. A
// harness with a binary of its own (harness.Binary) runs it in the
// session's directory; else the [launch] profile's binary, flags and
// environment start it.
func (a *app) plan(cfg *config.Config, proxyEnv []string, s *harness.Session, fork bool) (plan, error) {
	h := a.harnessOf(s)
	if s.Live && !fork && (a.assumeStopped == 0 || s.Pid != a.assumeStopped) {
		if e, hint := h.Busy(s); e != "" {
			a.why("live")
			a.errorf("%s", e)
			a.hintf("%s", hint)
			return plan{}, exit(exitcode.Refused)
		}
	}
	if err := a.checkCwd(s); err != nil {
		return plan{}, err
	}
	if b, ok := harness.As[harness.Binary](h); ok {
		bin, err := b.Binary(a.getenv, cfg, a.lookPath)
		if err != nil {
			a.why(h.Name() + "_not_found")
			a.errorf("%v", err)
			var be *config.BinaryError
			if errors.As(err, &be) && be.Hint != "" {
				a.hintf("%s", be.Hint)
			}
			return plan{}, exit(exitcode.Failed)
		}
		argv := append([]string{bin}, h.ResumeArgs(s, fork)...)
		return plan{session: s, binary: bin, argv: argv}, nil
	}
	prof, bin, err := a.profileFor(cfg, s.Cwd)
	if err != nil {
		return plan{}, err
	}
	argv := append([]string{bin}, prof.Args(a.stdoutTTY)...)
	argv = append(argv, h.ResumeArgs(s, fork)...)
	p := plan{session: s, binary: bin, argv: argv, env: prof.Environ(proxyEnv)}
	if s.Snapshot != nil {
		p.tasks = s.Snapshot.TaskBodies()
		p.highWater = s.Snapshot.HighWater
	}
	return p, nil
}

// noneFound is the harness whose empty home a resume that found no
// session at all names: the first of the roster that is listed.
func (a *app) noneFound() harness.Harness {
	names := a.harnessNames()
	for _, e := range harnessRoster() {
		if slices.Contains(names, e.name) {
			return a.harnessNamed(e.name)
		}
	}
	return a.primary()
}

// checkCwd refuses a session whose directory is unknown or gone: the
// agent would start somewhere else, or ask.
func (a *app) checkCwd(s *harness.Session) error {
	if s.Cwd == "" {
		a.why("no_cwd")
		a.errorf("the transcript of session %s records no working directory", s.ID)
		a.hintf("run '%s %s' from the directory it belongs to", a.harnessOf(s).About().ByHand, s.ID)
		return exit(exitcode.Failed)
	}
	if !s.CwdExists {
		a.why("cwd_gone")
		a.errorf("the session's directory %s no longer exists", s.Cwd)
		a.hintf("recreate it (for a deleted worktree: 'git worktree add %s <branch>') and run this again", s.Cwd)
		return exit(exitcode.Failed)
	}
	return nil
}

func (a *app) printPlan(p plan, o resumeOpts) {
	fork := o.fork
	w := a.stdout
	s := p.session
	fmt.Fprintf(w, "session: %s\n", s.ID)
	fmt.Fprintf(w, "cwd: %s\n", s.Cwd)
	fmt.Fprintf(w, "argv: %s\n", shellword.Join(p.argv))
	for _, kv := range p.env {
		fmt.Fprintf(w, "env: %s\n", shellword.Quote(kv))
	}
	if c := render.CostLine(s, a.now(), o.prices); c != "" {
		fmt.Fprintf(w, "context: %s\n", c)
		fmt.Fprintf(w, "used: %s tokens so far\n", render.Tokens(s.TokensUsed))
	}
	if overWarn(s, o) {
		fmt.Fprintf(w, "warning: %s\n", warnText(s, o))
	}
	if len(p.tasks) == 0 {
		return
	}
	if fork {
		fmt.Fprintf(w, "tasks: %d snapshotted, not restored into a fork (it starts with its own empty list)\n", len(p.tasks))
		return
	}
	dir := a.claudePaths().TaskList(p.session.ID)
	present := map[string]bool{}
	if l, err := tasks.ReadList(dir); err == nil {
		for _, t := range l.Tasks {
			present[t.ID] = true
		}
	}
	var write, keep []string
	for _, t := range p.tasks {
		if present[t.ID] {
			keep = append(keep, t.ID)
		} else {
			write = append(write, t.ID)
		}
	}
	fmt.Fprintf(w, "tasks: would restore %d into %s%s\n", len(write), dir, idList(write))
	if len(keep) > 0 {
		fmt.Fprintf(w, "tasks: %d already present, left alone%s\n", len(keep), idList(keep))
	}
}

func idList(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (" + strings.Join(ids, " ") + ")"
}

// restoreTasks writes snapshotted tasks back before the exec. A failure is
// reported but does not stop the resume: the snapshot still holds them.
func (a *app) restoreTasks(ctx context.Context, p plan, fork bool) {
	if len(p.tasks) == 0 {
		return
	}
	if fork {
		a.notef("%d snapshotted task(s) not restored: a fork starts with its own empty task list", len(p.tasks))
		return
	}
	r, err := tasks.Restore(ctx, a.claudePaths().TaskList(p.session.ID), p.tasks, p.highWater)
	if err != nil {
		if ctx.Err() == nil { // else interrupted: the resume stops here
			a.warnf("tasks not restored: %v", err)
		}
		return
	}
	if len(r.Written) > 0 {
		a.notef("restored %d task(s)%s", len(r.Written), idList(r.Written))
	}
	if len(r.Skipped) > 0 {
		a.warnf("%d snapshotted task(s) have ids that cannot name a task file and were not restored%s", len(r.Skipped), idList(r.Skipped))
	}
}

const resumeHelp = `
forgectl resume — get back into a Claude Code session or a Codex thread after a
terminal restart

USAGE
  forgectl resume [--fork] [--dry-run] [--all] [--since WHEN] [--until WHEN]
                  [FILTER]
  forgectl resume --dry-run --json [--assume-stopped PID] FILTER
  forgectl resume --search QUERY [--fork] [--dry-run] [--all] [FILTER]
  forgectl resume ls [--json] [--all] [--tree | --roots] [FILTER]
  forgectl resume search [--json] [--all] [--limit N] QUERY...
  forgectl resume snapshot [--quiet]         the Stop hook (resume-snapshot's code, in-process)
  forgectl resume outdated [--json]          runs resume-restart
  forgectl resume restart --outdated ...     runs resume-restart
  forgectl resume hooks run|install|status   runs resume-hooks
  Each of these has its own --help.

Lists recent sessions across every repo — name, repo, branch, last activity —
and resumes the one you pick: it changes to the session's recorded directory,
restores its snapshotted task list, and execs claude there with that
directory's [launch] profile. It never returns; every subcommand does.

FILTER matches, in this order, the first rule with any hit winning:
  the exact session id; an id prefix (4+ characters); an exact session name;
  a case-insensitive substring of the name, the repo or the cwd.
One hit resumes it. Several print one candidate row per line on stdout (full
id first) and exit 1 instead of prompting. Without a filter, a terminal opens
the fuzzy finder; without a terminal (or with --dry-run) the candidates are
printed and it exits 1. So: candidates on stdout means ambiguous, empty
stdout means no match, exit 0 means it resumed.

THE PICKER
  Newest first; type to filter every session at once, Enter resumes the row
  under the cursor, Esc or Ctrl-C leaves (exit 130). It opens at once and
  rows arrive as the listing finds them, newest first (a first run reads the
  newest transcripts first); rows are only ever added below, so the cursor
  stays on its session while they come, with or without a query typed.
  Enter during the fill resumes the highlighted session, once the registry
  and the disk are checked again: a session that started running since is
  refused (exit 2), one whose transcript is gone is an error (exit 1).
  The preview shows the session under the cursor: its facts, what resuming
  it costs ("context 182k tokens · cache cold (3 h) · opus": the context
  the resume sends again, whether the prompt cache has likely expired by
  Claude Code's own rule, the model; a dollar figure with [resume.prices]),
  then the end of its conversation, newest at the bottom, as far as the
  pane allows: each prompt after "> ", the opening lines of each reply, a
  tool call as one line after "· ", a run of them folded into a count. It
  is read from the transcript's end only. With [resume] warn_context_tokens
  set, choosing a session above it asks once before resuming ([y/N]; a no
  leaves as Esc does, exit 130).
  The finder keeps the list to the left half of the terminal; a row gives
  its name what the repo and branch columns can spare (they narrow to 8
  columns first; on a narrow terminal the name leads, then "repo @
  branch"). What you type matches whole values, also those a row shows
  cut (they follow the row, past the ".."). The rows are not coloured:
  the finder draws them as plain text. With --search, the preview's hits
  show the words found highlighted (--color as for the tables).

FLAGS
  --dry-run   print the resolved session, cwd, argv, added environment,
              what resuming costs ("context:", "used:", and a "warning:"
              naming the figure above [resume] warn_context_tokens) and
              tasks to restore, as "key: value" lines; exec nothing, never
              prompt; exit with the code the real run would give
  --fork      pass --fork-session: branch a new session off the transcript.
              The only way into a running session. Snapshotted tasks are
              reported, not restored: a fork starts with an empty list.
  --all       include hidden sessions (print-mode, sidechains, continued)
              and archived ones ('resume archive --help'); an exact id
              finds an archived session without it
  --archived  pick or match among the archived sessions only: Claude
              Code sessions in forgectl's archive and Codex threads in
              archived_sessions/. One in forgectl's archive is restored
              first ('resume unarchive --help' says what that does to its
              mtimes), then resumed; with --dry-run it is only reported
              ("archived: would be restored from DIR first"). A Codex thread
              is resumed where it is.
  --harness H only H's sessions: claude or codex (repeatable; see 'resume ls
              --help'). [resume] harnesses in the config sets the default.
  --verbose   report transcripts and registry files that could not be read
` + datesHelp + colorHelp + `  --json      with --dry-run: print one verdict object instead (VERDICT)
  --assume-stopped PID
              with --dry-run: resolve as though the live claude PID had
              exited, so a session it runs is not refused as running (what
              resume restart asks before it stops a session)
  --search QUERY
              resolve to the sessions whose conversation holds every word of
              QUERY ("quote" a phrase) instead of matching names: one hit
              resumes, several open the picker over the hits (their snippets
              in the preview) or, with no terminal or --dry-run, print the
              candidates and exit 1; a FILTER narrows the hits. See 'forgectl
              resume search --help' for what is searched.
  Flags may come after the FILTER. A flag's value is the next word, unless
  that word starts with "-": then the value is missing (exit 2), so a
  forgotten value never becomes a query. Write --search=-x, or --search --
  -x (after "--" no word is a flag, and the flag before it takes the first).

CODEX THREADS
  A Codex thread resumes as 'codex resume ID' (--fork: 'codex fork ID') in
  the thread's recorded directory, so Codex never asks which one to use. The
  codex run is FORGECTL_CODEX_BIN, else [resume] codex_binary_path, else
  codex on PATH. The [launch] profile is Claude Code's: none of its flags
  or environment is given to codex. Never two writers on one thread: a
  thread whose write lock a codex TUI without the background daemon, or a
  running codex exec, holds is refused (exit 2, naming the pid); one the
  daemon holds is attached to, as 'codex resume' does. restart, outdated,
  task restore and [[resume.on_update]] are Claude Code's alone: harness =
  "codex" there is refused with "not supported yet".

REFUSALS (exit 2)
  A running session (two claude processes on one transcript corrupt it): the
  error names its pid and, when known, its tmux pane. Use --fork, or check
  first with 'forgectl resume ls --json' (fields live, pid).
  A [proxy] launch_profile naming an undefined or empty profile: refused
  before anything else, --dry-run included.

With stdout not a terminal, --allow-dangerously-skip-permissions is withheld
from the argv (as launch does), so a piped --dry-run never shows it.

` + verdictFields + `

` + exitcode.Table + `
`

// pricesOf is [resume.prices] for rendering; nil when it prices nothing.
func pricesOf(cfg *config.Config) render.Prices {
	if len(cfg.Resume.Prices) == 0 {
		return nil
	}
	return func(model string) (float64, float64, bool) {
		p, ok := cfg.Resume.PriceFor(model)
		return p.CacheWrite, p.CacheRead, ok
	}
}

// overWarn says a resume of s would reload more context than [resume]
// warn_context_tokens allows without asking (0: never).
func overWarn(s *harness.Session, o resumeOpts) bool {
	return o.warnContext > 0 && s.ContextTokens > o.warnContext
}

// warnText names the figure: what the resume reloads, and the threshold.
func warnText(s *harness.Session, o resumeOpts) string {
	state := "its prompt cache is likely still warm"
	if s.CacheExpired {
		state = "its prompt cache has likely expired, so all of it is written to the cache again"
	}
	return fmt.Sprintf("resuming reloads %s tokens of context, above [resume] warn_context_tokens (%s); %s",
		render.Tokens(s.ContextTokens), render.Tokens(o.warnContext), state)
}
