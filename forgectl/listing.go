package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/forgectl/internal/harness/codex"
	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/snapstore"
)

// listing is how a command reads the sessions: streamed to each, newest
// first, with problems reported to w (stderr, or held back while the
// picker owns the terminal).
type listing struct {
	w          io.Writer
	verbose    bool
	countTasks bool
	// bounded says the caller keeps no more than a window of sessions,
	// so the heap can be held small (see List).
	bounded bool
	// paths lists just these transcripts, by harness (see
	// sessions.Options.Paths); nil walks every harness's tree.
	paths map[string][]string
	// active narrows the listing to the sessions last active inside it
	// (--since, --until), on the walk's mtimes.
	active when.Window
	// harnesses, when not nil, lists only these of the harnesses listed.
	harnesses []string
}

// list runs one listing. A listing allocates many short-lived summaries:
// collecting garbage less often saves a third of a warm listing, and for a
// caller that keeps nothing the memory limit holds the peak under 64 MB
// when a cold scan runs. 40 MB: a warm listing of 100,000 sessions holds
// about 22, and at 32 it spent 40% of its time collecting (177 cycles).
func (a *app) list(ctx context.Context, l listing, fn func(*harness.Session) error) (sessions.Stats, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	if l.bounded {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(40 << 20))
	}
	broken := 0
	archive := a.store(archiveKind)
	var opts []sessions.Options
	for _, h := range a.harnesses() {
		if l.harnesses != nil && !slices.Contains(l.harnesses, h.Name()) {
			continue
		}
		o := sessions.Options{
			Harness:   h,
			IndexPath: a.indexPath(h.Name()),
			SkipTasks: !l.countTasks,
			Home:      a.home,
			Now:       a.now(),
			Active:    l.active,
		}
		if l.paths != nil {
			o.Paths = l.paths[h.Name()]
			if len(o.Paths) == 0 {
				continue
			}
		}
		opts = append(opts, o)
	}
	st, err := sessions.ListAll(ctx, opts, func(s *harness.Session) error {
		if s.BrokenLines > 0 && l.verbose {
			msg.Warnf(l.w, "%s: %d line(s) that are not JSON or are over the size cap were skipped", s.Transcript, s.BrokenLines)
			broken++
		}
		// A parent moved into the archive still exists (one lstat, for
		// the few rows whose parent the tree does not hold).
		if s.ParentID != "" && !s.ParentExists && archive.Has(s.ParentID) {
			s.ParentExists = true
		}
		return fn(s)
	})
	if err != nil {
		if ctx.Err() != nil {
			return st, exit(exitcode.Interrupted)
		}
		var ce *codeError
		if errors.As(err, &ce) {
			return st, err
		}
		msg.Errorf(l.w, "cannot list sessions: %v", err)
		if p := a.projectsProblem(); p != "" {
			msg.Hintf(l.w, "%s", p)
		}
		return st, exit(exitcode.Failed)
	}
	if l.verbose {
		for _, p := range st.Problems {
			msg.Warnf(l.w, "%v", p)
		}
		noteTo(l.w, "%d transcripts read, %d from the index", st.Scanned, st.Reused)
	} else if n := len(st.Problems); n > 0 {
		noteTo(l.w, "%d file(s) could not be read fully; --verbose lists them", n)
	}
	return st, nil
}

// noSessionsWhy says, for an empty listing, which of the harnesses listed
// has no sessions to find and why: a missing or unreadable home.
func (a *app) noSessionsWhy() []string {
	var out []string
	for _, name := range a.harnessNames() {
		switch name {
		case claude.Name:
			if p := a.projectsProblem(); p != "" {
				out = append(out, p)
			}
		case codex.Name:
			root := a.codexPaths().Root
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				out = append(out, fmt.Sprintf("there are no Codex threads: %s is not a folder (CODEX_HOME moves it)", root))
			}
		}
	}
	return out
}

// projectsProblem is a hint when Claude Code's projects directory, where
// the sessions are, is missing, is not a directory, or cannot be read ("" when
// it is a directory this user can open).
func (a *app) projectsProblem() string {
	dir := a.claudePaths().Projects()
	st, err := os.Stat(dir)
	if err == nil && st.IsDir() {
		// A stat needs no read permission on the folder itself: opening
		// it is what a mode 000 or another owner refuses.
		var f *os.File
		if f, err = fsutil.OpenDir(dir); err == nil {
			f.Close()
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("there are no Claude Code sessions: %s does not exist (CLAUDE_CONFIG_DIR moves the tree)", dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("check its owner and mode (ls -ld %s): Claude Code keeps its sessions there, and forgectl cannot read them", dir)
	case err != nil:
		return fmt.Sprintf("cannot read %s, where Claude Code keeps its sessions: %v", dir, err)
	case !st.IsDir():
		return fmt.Sprintf("%s is not a directory; Claude Code keeps its sessions there (CLAUDE_CONFIG_DIR moves the tree)", dir)
	}
	return ""
}

// harnesses are the agents whose sessions are listed, searched and
// resumed: those --harness names, else [resume] harnesses in the config,
// else every one whose home exists (Claude Code always: its messages say
// where its sessions are expected). Each tree is walked once per
// invocation, however many listings and searches run.
func (a *app) harnesses() []harness.Harness {
	names := a.harnessNames()
	out := make([]harness.Harness, 0, len(names))
	for _, n := range names {
		out = append(out, a.harnessNamed(n))
	}
	return out
}

// harnessNames are the names of the harnesses (see harnesses), decided
// once per invocation after the flags are parsed.
func (a *app) harnessNames() []string {
	if a.only != nil {
		return a.only
	}
	if a.defaults == nil {
		a.defaults = a.defaultHarnesses()
	}
	return a.defaults
}

// defaultHarnesses are [resume] harnesses, else every harness whose home
// exists. A config that does not load names none: that is said, once,
// for the listing goes on without it (the commands that need the rest of
// the config refuse it themselves).
func (a *app) defaultHarnesses() []string {
	cfg, err := config.Load(a.forgectlPaths().Config())
	if err != nil {
		a.warnf("[resume] harnesses is not used, since the config cannot be: %s", configProblem(err))
		a.hintf("fix the config file, or run 'forgectl doctor' for a full report")
	} else if len(cfg.Resume.Harnesses) > 0 {
		return slices.Compact(slices.Sorted(slices.Values(cfg.Resume.Harnesses)))
	}
	names := []string{claude.Name}
	if st, err := os.Stat(a.codexPaths().Root); err == nil && st.IsDir() {
		names = append(names, codex.Name)
	}
	return names
}

// harnessNamed is the harness of that name, made once per invocation;
// nil for a name forgectl does not know.
func (a *app) harnessNamed(name string) harness.Harness {
	if h := a.walked[name]; h != nil {
		return h
	}
	var h harness.Harness
	switch name {
	case claude.Name:
		// Claude Code's rows are joined with forgectl's snapshots.
		h = claude.New(a.claudePaths(), snapstore.Store{Dir: a.forgectlPaths().Snapshots()})
	case codex.Name:
		h = codex.New(a.codexPaths())
	default:
		return nil
	}
	if a.walked == nil {
		a.walked = map[string]harness.Harness{}
	}
	a.walked[name] = harness.WalkOnce(h)
	return a.walked[name]
}

// harnessOf is the harness a listed session belongs to.
func (a *app) harnessOf(s *harness.Session) harness.Harness {
	if h := a.harnessNamed(s.Harness); h != nil {
		return h
	}
	return a.harnessNamed(claude.Name)
}

// indexPath is the listing's index of a harness: Claude Code's keeps the
// name it always had.
func (a *app) indexPath(name string) string {
	if name == claude.Name {
		return filepath.Join(a.forgectlPaths().Cache(), "transcripts.idx")
	}
	return filepath.Join(a.forgectlPaths().Cache(), name+"-threads.idx")
}

func (a *app) codexPaths() codex.Paths { return codex.PathsFrom(a.getenv, a.home) }

// marks says rows carry a harness mark: the list holds more than one
// harness, counting those whose walk found a file (an empty ~/.codex
// costs a Claude Code user nothing). The walk is the listing's own, done
// once per invocation (harness.WalkOnce).
func (a *app) marks() bool {
	if a.marked == nil {
		n := 0
		if hs := a.harnesses(); len(hs) > 1 {
			for _, h := range hs {
				if files, _, err := h.Walk(context.Background()); err == nil && len(files) > 0 {
					n++
				}
			}
		}
		m := n > 1
		a.marked = &m
	}
	return *a.marked
}

// matching lists the sessions filter selects.
func (a *app) matching(ctx context.Context, o resumeOpts) ([]*harness.Session, error) {
	m := match.New(o.filter, o.all)
	_, err := a.list(ctx, listing{w: a.stderr, verbose: o.verbose, countTasks: true, active: o.active}, func(s *harness.Session) error {
		if !o.archived || s.HiddenReason == archivedReason {
			m.Add(s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// An archived session is hidden: an exact id finds it, --all any tier.
	filter := strings.TrimSpace(o.filter)
	want := func(id string) bool { return strings.EqualFold(id, filter) }
	if o.all {
		want = nil
	}
	if o.all || filter != "" {
		for _, s := range a.archivedRows(ctx, want, o.active) {
			m.Add(s)
		}
	}
	hits, _ := m.Hits()
	return hits, nil
}

// pickRow is a session's picker row for a terminal of cols columns (see
// render.PickRowIn), with its harness mark when the list holds more than
// one harness: the mark's three columns come off the row's half of the
// screen, so the row is laid out for a terminal six narrower.
func (a *app) pickRow(now time.Time, s *harness.Session, cols int) string {
	if a.marks() {
		if cols > 0 {
			cols = max(1, cols-6)
		}
		return render.HarnessMark(s) + " " + render.PickRowIn(now, s, cols)
	}
	return render.PickRowIn(now, s, cols)
}

// narrowTo adds a --harness value, as the flag does; one forgectl does not
// know is left out.
func (a *app) narrowTo(v string) {
	if slices.Contains(config.KnownHarnesses, v) && !slices.Contains(a.only, v) {
		a.only = append(a.only, v)
		slices.Sort(a.only)
	}
}

// harnessFlag registers --harness, repeatable: each names one agent whose
// sessions the command covers (see harnesses).
func (a *app) harnessFlag(fs *flag.FlagSet) {
	fs.Func("harness", "only this agent's sessions: claude or codex (repeatable)", func(v string) error {
		if !slices.Contains(config.KnownHarnesses, v) {
			return fmt.Errorf("unknown harness %q (the harnesses are %s)", v, strings.Join(config.KnownHarnesses, ", "))
		}
		a.narrowTo(v)
		return nil
	})
}

// configProblem is the first of a config's errors, on one line.
func configProblem(err error) string {
	var list config.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return list[0].Error()
	}
	return err.Error()
}
