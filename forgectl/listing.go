package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/msg"
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
			IndexPath: a.indexPath(h),
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
		if p := a.primary().HomeProblem(); p != "" {
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
	for _, h := range a.harnesses() {
		if p := h.HomeProblem(); p != "" {
			out = append(out, p)
		}
	}
	return out
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
// exists (harness.Present). A config that does not load names none:
// that is said, once, for the listing goes on without it (the commands
// that need the rest of the config refuse it themselves).
func (a *app) defaultHarnesses() []string {
	cfg, err := config.Load(a.forgectlPaths().Config())
	if err != nil {
		a.warnf("[resume] harnesses is not used, since the config cannot be: %s", configProblem(err))
		a.hintf("fix the config file, or run 'forgectl doctor' for a full report")
	} else if len(cfg.Resume.Harnesses) > 0 {
		return slices.Compact(slices.Sorted(slices.Values(cfg.Resume.Harnesses)))
	}
	var names []string
	for _, e := range harnessRoster() {
		if a.harnessNamed(e.name).Present() {
			names = append(names, e.name)
		}
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
	for _, e := range harnessRoster() {
		if e.name == name {
			h = e.make(a)
		}
	}
	if h == nil {
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
	return a.primary()
}

// primary is the roster's first harness, Claude Code (see harnessRoster).
func (a *app) primary() harness.Harness { return a.harnessNamed(harnessRoster()[0].name) }

// knownHarnesses are the roster's names, in its order.
func knownHarnesses() []string {
	var names []string
	for _, e := range harnessRoster() {
		names = append(names, e.name)
	}
	return names
}

// indexPath is the listing's index of a harness, in forgectl's cache.
func (a *app) indexPath(h harness.Harness) string {
	return filepath.Join(a.forgectlPaths().Cache(), h.About().Index)
}

// harnessMark is the mark of s's harness (harness.About's Mark).
func (a *app) harnessMark(s *harness.Session) string { return a.harnessOf(s).About().Mark }

// markRows is a table's Mark: set when rows carry a harness mark (marks).
func (a *app) markRows() func(*harness.Session) string {
	if a.marks() {
		return a.harnessMark
	}
	return nil
}

// marks says rows carry a harness mark: the list holds more than one
// harness, counting those whose walk found a file (an empty ~/.codex
// costs a Claude Code user nothing). The walk is the listing's own, done
// once per invocation (harness.WalkOnce).
func (a *app) marks() bool {
	if a.marked == nil {
		var n atomic.Int32
		if hs := a.harnesses(); len(hs) > 1 {
			// Side by side, as the listing itself walks them: a table
			// asks before its first row, and walking one tree after the
			// other was a tenth of a warm listing.
			var wg sync.WaitGroup
			for _, h := range hs {
				wg.Go(func() {
					if files, _, err := h.Walk(context.Background()); err == nil && len(files) > 0 {
						n.Add(1)
					}
				})
			}
			wg.Wait()
		}
		m := n.Load() > 1
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
		return a.harnessMark(s) + " " + render.PickRowIn(now, s, cols)
	}
	return render.PickRowIn(now, s, cols)
}

// narrowTo adds a --harness value, as the flag does; one forgectl does not
// know is left out.
func (a *app) narrowTo(v string) {
	if slices.Contains(knownHarnesses(), v) && !slices.Contains(a.only, v) {
		a.only = append(a.only, v)
		slices.Sort(a.only)
	}
}

// harnessFlag registers --harness, repeatable: each names one agent whose
// sessions the command covers (see harnesses).
func (a *app) harnessFlag(fs *flag.FlagSet) {
	known := knownHarnesses()
	fs.Func("harness", "only this agent's sessions: "+orList(known)+" (repeatable)", func(v string) error {
		if !slices.Contains(known, v) {
			return fmt.Errorf("unknown harness %q (the harnesses are %s)", v, strings.Join(known, ", "))
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

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
