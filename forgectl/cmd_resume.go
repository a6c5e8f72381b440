package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/shellword"
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
		subs: []*command{lsCommand(), searchCommand(), archiveCommand(), unarchiveCommand(), rmCommand(), trashCommand(),
			snapshotCommand(), outdatedCommand(), restartCommand(), hooksCommand()},
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			dryRun := fs.Bool("dry-run", false, "print the resolved cwd, argv and environment; exec nothing, never prompt")
			fork := fs.Bool("fork", false, "branch a new session off the transcript (--fork-session)")
			all := fs.Bool("all", false, "include hidden sessions (print-mode, sidechains) and archived ones")
			archived := fs.Bool("archived", false, "pick or match among the archived sessions only (restored, then resumed)")
			verbose := fs.Bool("verbose", false, "report files that could not be read")
			asJSON := fs.Bool("json", false, "with --dry-run: print one verdict object (see VERDICT)")
			stopped := fs.Int("assume-stopped", 0, "with --dry-run: resolve as though live `pid` had exited")
			query := fs.String("search", "", "resolve to the sessions whose conversation holds QUERY (see 'resume search --help')")
			return func(ctx context.Context, args []string) error {
				searching := false
				fs.Visit(func(f *flag.Flag) { searching = searching || f.Name == "search" })
				o := resumeOpts{filter: strings.Join(args, " "), dryRun: *dryRun, fork: *fork, all: *all || *archived, verbose: *verbose,
					search: *query, searching: searching, archived: *archived}
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
			a.errorf("no Claude Code sessions found under %s", a.claudePaths().Projects())
			a.hintf("sessions appear once a claude session has received a prompt; CLAUDE_CONFIG_DIR moves the tree")
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
			t := render.NewTable(a.stdout, a.now(), false, render.Listing)
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
		a.verdict.found(s)
	}
	archived := s.HiddenReason == archivedReason
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
		a.printPlan(p, o.fork)
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
// would refuse, with the same exit code.
func (a *app) plan(cfg *config.Config, proxyEnv []string, s *harness.Session, fork bool) (plan, error) {
	if s.Live && !fork && (a.assumeStopped == 0 || s.Pid != a.assumeStopped) {
		a.why("live")
		where := fmt.Sprintf("pid %d", s.Pid)
		if s.Tmux != "" {
			where += ", tmux pane " + s.Tmux
		}
		a.errorf("session %s is running (%s)", s.ID, where)
		a.hintf("two claude processes on one transcript corrupt it: switch to the running one, or pass --fork to branch a new session off it")
		return plan{}, exit(exitcode.Refused)
	}
	if s.Cwd == "" {
		a.why("no_cwd")
		a.errorf("the transcript of session %s records no working directory", s.ID)
		a.hintf("run 'claude --resume %s' from the directory it belongs to", s.ID)
		return plan{}, exit(exitcode.Failed)
	}
	if !s.CwdExists {
		a.why("cwd_gone")
		a.errorf("the session's directory %s no longer exists", s.Cwd)
		a.hintf("recreate it (for a deleted worktree: 'git worktree add %s <branch>') and run this again", s.Cwd)
		return plan{}, exit(exitcode.Failed)
	}
	prof, bin, err := a.profileFor(cfg, s.Cwd)
	if err != nil {
		return plan{}, err
	}
	argv := append([]string{bin}, prof.Args(a.stdoutTTY)...)
	argv = append(argv, a.harness().ResumeArgs(s, fork)...)
	p := plan{session: s, binary: bin, argv: argv, env: prof.Environ(proxyEnv)}
	if s.Snapshot != nil {
		p.tasks = s.Snapshot.TaskBodies()
		p.highWater = s.Snapshot.HighWater
	}
	return p, nil
}

func (a *app) printPlan(p plan, fork bool) {
	w := a.stdout
	fmt.Fprintf(w, "session: %s\n", p.session.ID)
	fmt.Fprintf(w, "cwd: %s\n", p.session.Cwd)
	fmt.Fprintf(w, "argv: %s\n", shellword.Join(p.argv))
	for _, kv := range p.env {
		fmt.Fprintf(w, "env: %s\n", shellword.Quote(kv))
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
forgectl resume — get back into a Claude Code session after a terminal restart

USAGE
  forgectl resume [--fork] [--dry-run] [--all] [FILTER]
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

FLAGS
  --dry-run   print the resolved session, cwd, argv, added environment and
              tasks to restore, as "key: value" lines; exec nothing, never
              prompt; exit with the code the real run would give
  --fork      pass --fork-session: branch a new session off the transcript.
              The only way into a running session. Snapshotted tasks are
              reported, not restored: a fork starts with an empty list.
  --all       include hidden sessions (print-mode, sidechains, continued)
              and archived ones ('resume archive --help'); an exact id
              finds an archived session without it
  --archived  pick or match among the archived sessions only
              An archived session is restored first ('resume unarchive
              --help' says what that does to its mtimes), then resumed;
              with --dry-run it is only reported ("archived: would be
              restored from DIR first").
  --verbose   report transcripts and registry files that could not be read
  --json      with --dry-run: print one verdict object instead (VERDICT)
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
