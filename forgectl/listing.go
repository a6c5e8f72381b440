package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/sessions"
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
	// paths lists just these transcripts (see sessions.Options.Paths).
	paths []string
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
	fp := a.forgectlPaths()
	broken := 0
	archive := a.store(archiveKind)
	st, err := sessions.List(ctx, sessions.Options{
		Harness:   a.harness(),
		IndexPath: filepath.Join(fp.Cache(), "transcripts.idx"),
		SkipTasks: !l.countTasks,
		Home:      a.home,
		Paths:     l.paths,
	}, func(s *harness.Session) error {
		if s.BrokenLines > 0 && l.verbose {
			noteTo(l.w, "warning: %s: %d line(s) that are not JSON or are over the size cap were skipped", s.Transcript, s.BrokenLines)
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
			noteTo(l.w, "warning: %v", p)
		}
		noteTo(l.w, "%d transcripts read, %d from the index", st.Scanned, st.Reused)
	} else if n := len(st.Problems); n > 0 {
		noteTo(l.w, "%d file(s) could not be read fully; --verbose lists them", n)
	}
	return st, nil
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

// harness is the agent whose sessions are listed, searched and resumed:
// Claude Code, the one harness forgectl has so far, its rows joined with
// forgectl's snapshots of its sessions. Its tree is walked once per
// invocation, however many listings and searches run.
func (a *app) harness() harness.Harness {
	if a.walked == nil {
		a.walked = harness.WalkOnce(claude.New(a.claudePaths(), snapstore.Store{Dir: a.forgectlPaths().Snapshots()}))
	}
	return a.walked
}

// matching lists the sessions filter selects.
func (a *app) matching(ctx context.Context, o resumeOpts) ([]*harness.Session, error) {
	m := match.New(o.filter, o.all)
	_, err := a.list(ctx, listing{w: a.stderr, verbose: o.verbose, countTasks: true}, func(s *harness.Session) error {
		if !o.archived {
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
		for _, s := range a.archivedRows(ctx, want) {
			m.Add(s)
		}
	}
	hits, _ := m.Hits()
	return hits, nil
}
