package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/forgectl/internal/shellword"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/tasks"
	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) resumeCommand() *ffcli.Command {
	fs := a.prog.FlagSet("resume")
	dryRun := fs.Bool("dry-run", false, "print the resolved cwd, argv and environment; exec nothing, never prompt")
	fork := fs.Bool("fork", false, "branch a new session off the transcript (--fork-session)")
	all := fs.Bool("all", false, "include hidden sessions (print-mode, sidechains)")
	verbose := fs.Bool("verbose", false, "report files that could not be read")
	asJSON := fs.Bool("json", false, "with --dry-run: print one verdict object (see VERDICT)")
	stopped := fs.Int("assume-stopped", 0, "with --dry-run: resolve as though live `pid` had exited")
	query := fs.String("search", "", "resolve to the sessions whose conversation holds QUERY (see 'resume search --help')")
	return &ffcli.Command{
		Name:        "resume",
		FlagSet:     fs,
		UsageFunc:   cli.Text(resumeHelp),
		Subcommands: []*ffcli.Command{a.lsCommand(), a.searchCommand()},
		Exec: func(ctx context.Context, args []string) error {
			searching := false
			fs.Visit(func(f *flag.Flag) { searching = searching || f.Name == "search" })
			o := resumeOpts{filter: strings.Join(args, " "), dryRun: *dryRun, fork: *fork, all: *all, verbose: *verbose,
				search: *query, searching: searching}
			if *asJSON || *stopped != 0 {
				return a.resumeVerdict(ctx, o, *asJSON, *stopped)
			}
			return a.resume(ctx, o)
		},
	}
}

type resumeOpts struct {
	filter                     string
	dryRun, fork, all, verbose bool
	// search is --search's query; searching says the flag was given (an
	// empty query is bad usage, not "no search").
	search    string
	searching bool
}

// plan is everything a resume will do, resolved before anything is done.
type plan struct {
	session *sessions.Session
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
			a.errorf("no session matches %s", render.Quoted(o.filter))
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
			a.errorf("%d sessions match %s", len(hits), render.Quoted(o.filter))
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

func (a *app) resumeSession(ctx context.Context, cfg *config.Config, proxyEnv []string, s *sessions.Session, o resumeOpts) error {
	if a.verdict != nil {
		a.verdict.found(s)
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
		return nil
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
func (a *app) plan(cfg *config.Config, proxyEnv []string, s *sessions.Session, fork bool) (plan, error) {
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
	argv = append(argv, "--resume", s.ID)
	if fork {
		argv = append(argv, "--fork-session")
	}
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

func (a *app) lsCommand() *ffcli.Command {
	fs := a.prog.FlagSet("resume ls")
	asJSON := fs.Bool("json", false, "print a JSON array (see the field table in --help)")
	all := fs.Bool("all", false, "include hidden sessions (print-mode, sidechains)")
	verbose := fs.Bool("verbose", false, "report files that could not be read")
	tree := fs.Bool("tree", false, "print children below their parent (branches, forks, /clear continuations)")
	rootsOnly := fs.Bool("roots", false, "only sessions that are nobody's child: one row per line of work")
	return &ffcli.Command{
		Name:      "ls",
		FlagSet:   fs,
		UsageFunc: cli.Text(lsHelp),
		Exec: func(ctx context.Context, args []string) error {
			if *tree && *rootsOnly {
				a.errorf("--tree and --roots cannot be combined")
				a.hintf("--tree already starts each line of work at its root; --roots lists the roots alone")
				return exit(exitcode.Refused)
			}
			if *tree || *rootsOnly {
				return a.lsLineage(ctx, strings.Join(args, " "), *all, *verbose, *asJSON, *tree)
			}
			m := match.New(strings.Join(args, " "), *all)
			out, closeOut := a.sessionWriter(*asJSON)
			filtered := strings.TrimSpace(strings.Join(args, " ")) != ""
			var total, shown, hidden, live int
			_, err := a.list(ctx, listing{w: a.stderr, verbose: *verbose, countTasks: true, bounded: !filtered}, func(s *sessions.Session) error {
				total++
				if s.Hidden {
					hidden++
				}
				if s.Live {
					live++
				}
				// Without a filter every visible row is written as it
				// comes, and kept by nobody; a filter's tier is known
				// only at the end.
				if filtered {
					m.Add(s)
				} else if !s.Hidden || *all {
					shown++
					out(s)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if filtered {
				hits, _ := m.Hits()
				for _, s := range hits {
					out(s)
				}
				shown = len(hits)
			}
			if err := closeOut(); err != nil {
				return err
			}
			a.notef("%d shown of %d sessions (%d hidden, %d live)", shown, total, hidden, live)
			return nil
		},
	}
}

// lsLineage is ls --tree and ls --roots: both need the whole listing (a
// child can be listed before its parent), so the sessions are collected
// first.
func (a *app) lsLineage(ctx context.Context, filter string, all, verbose, asJSON, tree bool) error {
	var list []sessions.Session
	_, err := a.list(ctx, listing{w: a.stderr, verbose: verbose, countTasks: true}, func(s *sessions.Session) error {
		list = append(list, *s)
		return nil
	})
	if err != nil {
		return err
	}
	m := match.New(filter, all)
	at := make(map[*sessions.Session]int, len(list))
	var visible []int
	for i := range list {
		at[&list[i]] = i
		if all || !list[i].Hidden {
			visible = append(visible, i)
		}
		m.Add(&list[i])
	}
	matched, _ := m.Hits()
	hits := make([]int, len(matched))
	for k, s := range matched {
		hits[k] = at[s]
	}
	if !tree {
		hits = render.Roots(list, hits, visible)
		out, closeOut := a.sessionWriter(asJSON)
		for _, i := range hits {
			out(&list[i])
		}
		err = closeOut()
	} else {
		forest := render.Tree(list, hits)
		if asJSON {
			err = render.WriteTreeJSON(a.stdout, list, forest)
		} else if len(hits) > 0 {
			err = render.WriteTree(a.stdout, a.now(), list, forest)
		}
	}
	if err != nil {
		return err
	}
	a.notef("%d shown of %d sessions", len(hits), len(list))
	return nil
}

// sessionWriter is ls's output as it streams: the JSON array or the table.
func (a *app) sessionWriter(asJSON bool) (add func(*sessions.Session), close func() error) {
	if asJSON {
		j := render.NewJSONArray(a.stdout)
		return func(s *sessions.Session) { j.Add(s, nil) }, j.Close
	}
	t := render.NewTable(a.stdout, a.now(), true, render.Listing)
	return func(s *sessions.Session) { t.Add(s) }, t.Close
}
