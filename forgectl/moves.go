package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/forgectl/internal/shellword"
	"forgectl.dev/forgectl/internal/vault"
	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/interrupt"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/parallel"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/snapstore"
	"golang.org/x/sys/unix"
)

// The archive and the trash: forgectl's two stores of whole sessions moved
// out of Claude Code's tree (internal/vault does the moving). This file
// holds what the archive, unarchive, rm and trash commands share: the
// stores, the lock, the selection, the refusals and the report.

const (
	archiveKind = "archive"
	trashKind   = "trash"
	// archivedReason and trashedReason are a stored row's hidden_reason.
	archivedReason = "archived"
)

// store is the archive or the trash.
func (a *app) store(kind string) *vault.Store {
	fp := a.forgectlPaths()
	dir := fp.Archive()
	if kind == trashKind {
		dir = fp.Trash()
	}
	return &vault.Store{Dir: dir, Kind: kind, Now: a.now, Crash: a.crashAt(), Pack: packRow}
}

// packRow is a stored row as the store's index keeps it: the fields a
// listing shows, in binrec, so that listing 10,000 archived sessions costs
// what listing them from Claude Code's index does. unpackRow reads it.
func packRow(row json.RawMessage) ([]byte, error) {
	var s harness.Session
	if err := json.Unmarshal(row, &s); err != nil {
		return nil, err
	}
	e := binrec.Encoder{}
	e.Uint(rowFormat)
	for _, v := range []string{s.Harness, s.ID, s.Name, s.NameSource, s.FirstPrompt, s.LastPrompt, s.Cwd, s.Repo, s.Branch,
		s.Entrypoint, s.Version, s.Transcript, s.TasksSource, s.ParentID, s.Relation} {
		e.String(v)
	}
	for _, v := range []int64{s.LastPromptAt.UnixNano(), s.LastActivity.UnixNano(), s.Size, int64(s.Messages),
		int64(s.Tasks.Pending), int64(s.Tasks.InProgress), int64(s.Tasks.Completed), int64(s.Tasks.Total)} {
		e.Int(v)
	}
	e.Bool(s.LastPromptAt.IsZero())
	return e.B, nil
}

const rowFormat = 1

func unpackRow(p string) (harness.Session, error) {
	d := binrec.Decoder{S: p}
	if d.Uint() != rowFormat {
		return harness.Session{}, binrec.ErrCorrupt
	}
	var s harness.Session
	for _, v := range []*string{&s.Harness, &s.ID, &s.Name, &s.NameSource, &s.FirstPrompt, &s.LastPrompt, &s.Cwd, &s.Repo, &s.Branch,
		&s.Entrypoint, &s.Version, &s.Transcript, &s.TasksSource, &s.ParentID, &s.Relation} {
		*v = strings.Clone(d.String())
	}
	var lastPrompt, last, size, msgs, pend, prog, done, total int64
	for _, v := range []*int64{&lastPrompt, &last, &size, &msgs, &pend, &prog, &done, &total} {
		*v = d.Int()
	}
	noPrompt := d.Bool()
	if d.Err() != nil {
		return harness.Session{}, d.Err()
	}
	if !noPrompt {
		s.LastPromptAt = time.Unix(0, lastPrompt).UTC()
	}
	s.LastActivity, s.Size, s.Messages = time.Unix(0, last).UTC(), size, int(msgs)
	s.Tasks.Pending, s.Tasks.InProgress, s.Tasks.Completed, s.Tasks.Total = int(pend), int(prog), int(done), int(total)
	return s, nil
}

// crashAt is the test hook FORGECTL_TEST_CRASH_AT=<step>: the process
// kills itself with SIGKILL at that step of a move (vault.Steps), as a
// power cut or kill -9 would, so a test can check the next run finishes
// or rolls back what it left. Unset, it costs nothing.
func (a *app) crashAt() func(string) {
	at := a.getenv("FORGECTL_TEST_CRASH_AT")
	if at == "" {
		return nil
	}
	return func(step string) {
		if step == at {
			unix.Kill(os.Getpid(), unix.SIGKILL)
		}
	}
}

// lockMoves takes the lock every mover holds, waiting for another run,
// then finishes or rolls back whatever a killed run left in either store.
func (a *app) lockMoves(ctx context.Context) (*fsutil.Lock, error) {
	fp := a.forgectlPaths()
	if err := fsutil.MkdirPrivate(fp.Root); err != nil {
		a.errorf("cannot create %s: %v", fp.Root, err)
		return nil, exit(exitcode.Failed)
	}
	l, err := fsutil.TryLock(fp.MovesLock())
	if errors.Is(err, fsutil.ErrLocked) {
		a.notef("waiting for another archive, rm or restore run to finish")
		l, err = fsutil.LockWait(fp.MovesLock(), 10*time.Minute)
	}
	if err != nil {
		a.errorf("cannot lock %s: %v", fp.MovesLock(), err)
		a.hintf("another forgectl run may be stuck moving sessions; check 'ps', then run this again")
		return nil, exit(exitcode.Failed)
	}
	if ctx.Err() != nil {
		l.Unlock()
		return nil, exit(exitcode.Interrupted)
	}
	for _, st := range []*vault.Store{a.store(archiveKind), a.store(trashKind)} {
		done, problems := st.Recover()
		for _, d := range done {
			a.notef("%s", d)
		}
		for _, p := range problems {
			a.storeProblem(st, p)
		}
	}
	return l, nil
}

// storeProblem reports an entry of a store that cannot be used: the
// session is named, and the rest of the store is unaffected.
func (a *app) storeProblem(st *vault.Store, err error) {
	var de *vault.DamagedError
	if errors.As(err, &de) {
		a.warnf("the %s: %v", st.Kind, de)
		if de.SessionID != "?" {
			a.hintf("the session's other files are listed in %s; move %s out of %s to silence this", filepath.Join(st.Dir, de.SessionID, "manifest.json"), de.SessionID, st.Dir)
		}
		return
	}
	a.warnf("the %s: %v", st.Kind, err)
}

// sessionRoots are the files of session s that move together: the
// transcript, its sidecar folder, its task list, its file-history and
// session-env folders, and forgectl's snapshot record. The transcript and
// the folders Claude Code's sweep judges by their own mtime are restored
// with a fresh one.
func (a *app) sessionRoots(s *harness.Session) []vault.Root {
	cp := a.claudePaths()
	return []vault.Root{
		{Path: s.Transcript, Fresh: true, Required: true},
		{Path: strings.TrimSuffix(s.Transcript, ".jsonl")},
		{Path: cp.TaskList(s.ID), Fresh: true},
		{Path: filepath.Join(cp.Root, "file-history", s.ID), Fresh: true},
		{Path: filepath.Join(cp.Root, "session-env", s.ID), Fresh: true},
		{Path: snapstore.Store{Dir: a.forgectlPaths().Snapshots()}.Path(s.ID)},
	}
}

// rowJSON is the listing row a store keeps for a session: as it was listed
// when it moved, less what is only true while it is in Claude Code's tree.
func rowJSON(s *harness.Session) json.RawMessage {
	c := *s
	c.Live, c.Pid, c.Tmux, c.Status, c.LiveState, c.Snapshot = false, 0, "", "", 0, nil
	b, _ := json.Marshal(&c)
	return b
}

// storedSessions are the rows of a store's sessions, newest activity
// first; want, when not nil, picks the ids to decode.
func (a *app) storedSessions(st *vault.Store, want func(id string) bool) []*harness.Session {
	ents, problems := st.Entries()
	for _, p := range problems {
		a.storeProblem(st, p)
	}
	out := make([]*harness.Session, 0, len(ents))
	cwds := map[string]bool{}
	for _, e := range ents {
		if want != nil && !want(e.ID) {
			continue
		}
		var s harness.Session
		var err error
		if e.Packed != "" {
			s, err = unpackRow(e.Packed)
		} else {
			err = json.Unmarshal(e.Row, &s)
		}
		if err != nil || s.ID != e.ID {
			a.storeProblem(st, &vault.DamagedError{SessionID: e.ID, Path: filepath.Join(st.Dir, e.ID, "manifest.json"), Reason: "its listing row cannot be read"})
			continue
		}
		s.Hidden, s.HiddenReason, s.Transcript = true, archivedReason, e.Transcript
		if s.Cwd != "" {
			exists, ok := cwds[s.Cwd]
			if !ok {
				fi, err := os.Stat(s.Cwd)
				exists = err == nil && fi.IsDir()
				cwds[s.Cwd] = exists
			}
			s.CwdExists = exists
		}
		if st.Kind == trashKind {
			s.HiddenReason = "trashed"
		}
		out = append(out, &s)
	}
	sortNewest(out)
	return out
}

func sortNewest(ss []*harness.Session) {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].LastActivity.After(ss[j].LastActivity) })
}

// walkedIDs are the session ids the walk found in Claude Code's tree: a
// stored row whose session is back there (a restore, or a move killed
// before its originals went) is not listed twice.
func (a *app) walkedIDs(ctx context.Context) map[string]bool {
	files, _, err := a.primary().Walk(ctx)
	if err != nil {
		return nil
	}
	ids := make(map[string]bool, len(files))
	for i := range files {
		ids[strings.TrimSuffix(files[i].Name, ".jsonl")] = true
	}
	return ids
}

// archivedRows are the archive's rows not also in Claude Code's tree.
func (a *app) archivedRows(ctx context.Context, want func(id string) bool, active when.Window) []*harness.Session {
	if !slices.Contains(a.harnessNames(), a.primary().Name()) {
		return nil // the archive holds Claude Code's sessions; --harness left it out
	}
	st := a.store(archiveKind)
	if _, err := os.Lstat(st.Dir); err != nil {
		return nil // nothing ever archived: the listing costs nothing more
	}
	walked := a.walkedIDs(ctx)
	rows := a.storedSessions(st, func(id string) bool { return !walked[id] && (want == nil || want(id)) })
	if !active.Open() {
		// --since and --until narrow the archive as they narrow the tree.
		kept := rows[:0]
		for _, s := range rows {
			if active.HoldsNs(s.LastActivity.UnixNano()) {
				kept = append(kept, s)
			}
		}
		rows = kept
	}
	// A parent exists when its transcript is in the tree or in the
	// archive: the row was made by a listing that may not have seen it.
	archived := make(map[string]bool, len(rows))
	for _, s := range rows {
		archived[s.ID] = true
	}
	for _, s := range rows {
		if s.ParentID != "" {
			s.ParentExists = walked[s.ParentID] || archived[s.ParentID] || st.Has(s.ParentID)
		}
	}
	return rows
}

// archivedSessions are what --archived lists: the rows of every harness
// listed whose hidden_reason is "archived", newest activity first. For
// Claude Code those are forgectl's archive, read from its index (nothing
// is decompressed, and Claude Code's own listing has none); for the other
// harnesses (Codex: archived_sessions/) they come from their listing.
func (a *app) archivedSessions(ctx context.Context, verbose bool, active when.Window) ([]*harness.Session, error) {
	rows := a.archivedRows(ctx, nil, active)
	var others []string
	for _, n := range a.harnessNames() {
		if n != a.primary().Name() {
			others = append(others, n)
		}
	}
	if len(others) > 0 {
		_, err := a.list(ctx, listing{w: a.stderr, verbose: verbose, active: active, harnesses: others}, func(s *harness.Session) error {
			if s.HiddenReason == archivedReason {
				c := *s
				rows = append(rows, &c)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].LastActivity.After(rows[j].LastActivity) })
	return rows, nil
}

// inArchive says a row is a session in forgectl's archive, which a resume
// restores first; a Codex thread in archived_sessions/ is resumed where
// it is.
func (a *app) inArchive(s *harness.Session) bool {
	return s.HiddenReason == archivedReason && a.store(archiveKind).Has(s.ID)
}

// selection is what archive and rm act on.
type selection struct {
	filters   []string
	olderThan time.Duration
	empty     bool
}

// selectSessions resolves a selection against every harness's listing
// (Codex threads included, archived ones too) and, with stored, against
// forgectl's archive's rows. Each FILTER must
// match something; together they are a union, and --older-than and
// --empty narrow it.
func (a *app) selectSessions(ctx context.Context, sel selection, cmd string, stored bool) ([]*harness.Session, error) {
	if len(sel.filters) == 0 && sel.olderThan == 0 && !sel.empty {
		a.errorf("name the sessions to %s", cmd)
		a.hintf("pass FILTER (an id, a name, a repo), --older-than DUR or --empty; see 'forgectl resume %s --help'", cmd)
		return nil, exit(exitcode.Usage)
	}
	var all []*harness.Session
	// Named by full ids (a script's form, and the benchmark's), only
	// those transcripts are listed: the rest of the tree is stat'ed, not
	// read.
	l := listing{w: a.stderr, countTasks: true}
	if ps := a.pathsOfIDs(ctx, sel); ps != nil {
		l.paths = map[string][]string{a.primary().Name(): ps}
	}
	_, err := a.list(ctx, l, func(s *harness.Session) error {
		// Codex threads are selected too: archive and unarchive hand them
		// to codex itself, rm moves their rollouts (agentmoves.go).
		all = append(all, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if stored {
		all = append(all, a.archivedRows(ctx, nil, when.Window{})...)
	}
	picked := all
	if len(sel.filters) > 0 {
		seen := map[*harness.Session]bool{}
		picked = nil
		for _, f := range sel.filters {
			m := match.New(f, false)
			for _, s := range all {
				m.Add(s)
			}
			hits, _ := m.Hits()
			if len(hits) == 0 {
				a.errorf("no session matches %s", msg.Quoted(f))
				a.hintf("'forgectl resume ls --all' lists every session; nothing was moved")
				return nil, exit(exitcode.Failed)
			}
			for _, s := range hits {
				if !seen[s] {
					seen[s] = true
					picked = append(picked, s)
				}
			}
		}
	}
	cutoff := a.now().Add(-sel.olderThan)
	out := picked[:0:0]
	for _, s := range picked {
		if sel.olderThan > 0 && !s.LastActivity.Before(cutoff) {
			continue
		}
		if sel.empty && s.HiddenReason != "empty" {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// refuseLive refuses a run that would move a running session: two
// programs on one transcript corrupt it, and the running one keeps
// appending to a file that would be gone.
func (a *app) refuseLive(ss []*harness.Session, cmd string) error {
	n := 0
	for _, s := range ss {
		pid := s.Pid
		if !s.Live {
			pid = a.claimedBy(s.ID) // being resumed: claude has not registered yet
		}
		if pid != 0 {
			a.errorf("session %s is running (pid %d)", s.ID, pid)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	var agents []string
	daemon := false
	for _, s := range ss {
		if s.Live || a.claimedBy(s.ID) != 0 {
			if !slices.Contains(agents, s.Harness) {
				agents = append(agents, s.Harness)
			}
			daemon = daemon || s.LiveHolder == "daemon"
		}
	}
	if daemon {
		// Codex's background server holds a thread for about a minute
		// after its last client quits (facts/codex.md §5).
		a.hintf("exit that %s first (its background server lets go of a thread about a minute after the last one quits), then run '%s' again; nothing was moved", strings.Join(agents, " and "), cmd)
	} else {
		a.hintf("exit that %s first, then run '%s' again; nothing was moved", strings.Join(agents, " and "), cmd)
	}
	return exit(exitcode.Refused)
}

// planned is one session of a run, with its files. own: a session its
// harness archives itself (harness.Archiver), not the store.
type planned struct {
	s     *harness.Session
	files []vault.File
	own   bool
}

func (p *planned) bytes() (n int64) {
	for _, f := range p.files {
		n += f.Size
	}
	return n
}

// writePlan is --dry-run's answer on stdout: each session, each file that
// would move with its size, and the total.
func (a *app) writePlan(verb string, ps []planned, bins map[string]string) {
	w := bufio.NewWriter(a.stdout)
	defer w.Flush()
	var total int64
	files := 0
	for _, p := range ps {
		fmt.Fprintf(w, "would %s %s  %s  (%d files, %s)\n", verb, p.s.ID, render.Title(p.s), len(p.files), humanBytes(p.bytes()))
		if p.own {
			ar, _ := a.archiverOf(p.s)
			fmt.Fprintf(w, "  by running: %s  (in %s; %s moves it to %s)\n", shellword.Join(a.ownArgv(bins[p.s.Harness], p.s, false)), a.ownDir(p.s), p.s.Harness, ar.ArchiveDir())
		}
		for _, f := range p.files {
			if f.Type == "dir" {
				fmt.Fprintf(w, "  %s/\n", f.Path)
			} else {
				fmt.Fprintf(w, "  %s  %d\n", f.Path, f.Size)
			}
		}
		total += p.bytes()
		files += len(p.files)
	}
	fmt.Fprintf(w, "total: %d sessions, %d files, %d bytes (%s)\n", len(ps), files, total, humanBytes(total))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return strconv.FormatInt(n, 10) + " B"
}

// confirm asks before a run that acts on several sessions: on the
// terminal when there is one, else --yes must have been given.
func (a *app) confirm(n int, what string, yes bool) error {
	if n <= 1 || yes {
		return nil
	}
	if !a.stdinTTY {
		a.errorf("%d sessions selected and no terminal to confirm %s", n, what)
		a.hintf("pass --yes to %s them, or --dry-run to see what would move", what)
		return exit(exitcode.Refused)
	}
	fmt.Fprintf(a.stderr, "%s %d sessions? [y/N] ", what, n)
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		a.notef("nothing was moved")
		return exit(exitcode.Refused)
	}
	return nil
}

// moveInto moves the sessions into st, one at a time, each verified
// before its originals go. A session that fails is reported and left
// where it was; the others still move.
func (a *app) moveInto(ctx context.Context, st *vault.Store, ps []planned, verb string) error {
	failed, refused := 0, 0
	var moved, stored int64
	n := 0
	// Sessions move independently, each journalled on its own, so they
	// are compressed on every core; reports come in the plan's order.
	type outcome struct {
		err    error
		stored int64
	}
	parallel.Ordered(ctx, len(ps), max(2, runtime.GOMAXPROCS(0)), 8, func(i int) outcome {
		if err := a.moveOne(st, ps[i]); err != nil {
			return outcome{err: err}
		}
		m, err := st.Manifest(ps[i].s.ID)
		if err != nil {
			return outcome{}
		}
		return outcome{stored: m.StoredBytes()}
	}, func(i int, o outcome) error {
		p := ps[i]
		if o.err != nil {
			failed++
			var le *liveError
			if errors.As(o.err, &le) {
				refused++
			}
			a.moveFailed(st, p.s, o.err)
			return nil
		}
		n++
		moved += p.bytes()
		stored += o.stored
		fmt.Fprintln(a.stdout, p.s.ID)
		return nil
	})
	if err := st.WriteIndex(); err != nil {
		a.warnf("cannot write %s's index: %v", st.Kind, err)
	}
	a.notef("%s %d of %d sessions: %s in %s as %s", verb, n, len(ps), humanBytes(moved), st.Dir, humanBytes(stored))
	if ctx.Err() != nil {
		return exit(exitcode.Interrupted)
	}
	if failed > 0 && failed == refused {
		return exit(exitcode.Refused) // only running sessions were left: a refusal
	}
	if failed > 0 {
		return exit(exitcode.Failed)
	}
	return nil
}

func (a *app) moveOne(st *vault.Store, p planned) error {
	if archived := a.store(archiveKind); st.Kind == trashKind && a.inStore(p.s) {
		return archived.Move(p.s.ID, st) // already stored whole: one rename
	}
	m := &vault.Manifest{SessionID: p.s.ID, Harness: p.s.Harness, Files: p.files, Row: rowJSON(p.s)}
	return st.Put(m, func() error {
		// The listing is as old as the listing: the session may have been
		// resumed while its files were copied.
		s := *p.s
		if gone := a.harnessOf(&s).Refresh(&s); gone {
			return fmt.Errorf("session %s: its transcript went away while it was being moved", s.ID)
		}
		if s.Live {
			return &liveError{id: s.ID, pid: s.Pid}
		}
		if pid := a.claimedBy(s.ID); pid != 0 {
			return &liveError{id: s.ID, pid: pid}
		}
		return nil
	})
}

type liveError struct {
	id  string
	pid int
}

func (e *liveError) Error() string {
	return fmt.Sprintf("session %s started running (pid %d) while it was being moved; it was left in place", e.id, e.pid)
}

func (a *app) moveFailed(st *vault.Store, s *harness.Session, err error) {
	a.errorf("%v", err)
	var le *liveError
	switch {
	case errors.As(err, &le) && s.LiveHolder != "" || errors.As(err, &le) && s.Harness != a.primary().Name():
		a.hintf("quit that %s, then run this again once it lets go of the thread", s.Harness)
	case errors.As(err, &le):
		a.hintf("exit that claude first, then run this again")
	case errors.Is(err, unix.ENOSPC):
		a.hintf("no space left for %s; the session is where it was: free space, then run this again", st.Dir)
	case errors.Is(err, vault.ErrChanged):
		a.hintf("the session was written to meanwhile and was left in place; run this again once it is quiet")
	case errors.Is(err, vault.ErrExists):
		a.hintf("'forgectl resume trash list' and 'forgectl resume ls --archived' show what the stores hold")
	case errors.Is(err, fs.ErrPermission):
		a.hintf("check the owner and mode of the session's files and of %s", st.Dir)
	default:
		a.hintf("the session is where it was; run this again, or --dry-run to see its files")
	}
}

// inStore says a selected row is a session in forgectl's archive: one
// whose hidden_reason is "archived" comes from there (Claude's own mark is
// "archived-in-claude"), unless its harness archives its own (a Codex
// thread in archived_sessions/).
func (a *app) inStore(s *harness.Session) bool {
	return s.HiddenReason == archivedReason && !a.selfArchived(s)
}

// plan collects the files of each session. Those of a harness that
// archives its own sessions are its session files (a Codex thread's
// rollouts); for an archive they are only listed, its program moves them.
func (a *app) planMoves(ss []*harness.Session, kind string) ([]planned, error) {
	ps := make([]planned, 0, len(ss))
	for _, s := range ss {
		if _, own := a.archiverOf(s); own {
			files, err := vault.Collect(ownRoots(s))
			if err != nil {
				a.errorf("%s thread %s: %v", s.Harness, s.ID, err)
				a.hintf("'forgectl resume ls --all %s' lists it again; nothing was moved", s.ID)
				return nil, exit(exitcode.Failed)
			}
			ps = append(ps, planned{s: s, files: files, own: kind == archiveKind})
			continue
		}
		if a.inStore(s) {
			m, err := a.store(archiveKind).Manifest(s.ID)
			if err != nil {
				a.storeProblem(a.store(archiveKind), err)
				return nil, exit(exitcode.Failed)
			}
			ps = append(ps, planned{s: s, files: m.Files})
			continue
		}
		files, err := vault.Collect(a.sessionRoots(s))
		if err != nil {
			a.errorf("session %s: %v", s.ID, err)
			a.hintf("the store keeps regular files and folders only; nothing was moved")
			return nil, exit(exitcode.Failed)
		}
		ps = append(ps, planned{s: s, files: files})
	}
	return ps, nil
}

// restoreFrom restores the sessions the filters pick from st. Each
// filter must match one of its sessions (every tier, hidden or not).
func (a *app) restoreFrom(ctx context.Context, st *vault.Store, filters []string, keepMtime, dryRun bool, cmd string) error {
	if len(filters) == 0 {
		a.errorf("name the sessions to restore")
		a.hintf("pass FILTER (an id, a name, a repo); '%s' shows what is there", cmd)
		return exit(exitcode.Usage)
	}
	if !dryRun {
		l, err := a.lockMoves(ctx)
		if err != nil {
			return err
		}
		defer l.Unlock()
	}
	rows := a.storedSessions(st, nil)
	if st.Kind == archiveKind {
		// Codex's archived threads are unarchived by codex itself.
		threads, err := a.selfArchivedRows(ctx)
		if err != nil {
			return err
		}
		rows = append(rows, threads...)
	}
	var picked []*harness.Session
	seen := map[string]bool{}
	for _, f := range filters {
		m := match.New(f, true)
		for _, s := range rows {
			m.Add(s)
		}
		hits, _ := m.Hits()
		if len(hits) == 0 && a.walkedIDs(ctx)[strings.ToLower(strings.TrimSpace(f))] {
			// Restored already: by an earlier run, or by the recovery
			// of one that was killed.
			a.notef("session %s is not in the %s: it is in Claude Code's tree", strings.TrimSpace(f), st.Kind)
			continue
		}
		if len(hits) == 0 && isFullID(strings.TrimSpace(f)) {
			if h, at := a.ownSessionAt(ctx, strings.ToLower(strings.TrimSpace(f))); at != "" {
				a.notef("%s thread %s is not in the %s: it is at %s", h, strings.TrimSpace(f), st.Kind, at)
				continue
			}
		}
		if len(hits) == 0 {
			a.errorf("no session in the %s matches %s", st.Kind, msg.Quoted(f))
			a.hintf("'%s' lists what it holds", cmd)
			return exit(exitcode.Failed)
		}
		for _, s := range hits {
			if !seen[s.ID] {
				seen[s.ID] = true
				picked = append(picked, s)
			}
		}
	}
	var own []*harness.Session
	for _, s := range picked {
		if a.selfArchived(s) {
			own = append(own, s)
		}
	}
	bins, err := a.archiverBinaries(own)
	if err != nil {
		return err
	}
	if dryRun {
		w := bufio.NewWriter(a.stdout)
		for _, s := range picked {
			if a.selfArchived(s) {
				fmt.Fprintf(w, "would unarchive %s  %s  by running: %s  (in %s)\n", s.ID, render.Title(s), shellword.Join(a.ownArgv(bins[s.Harness], s, true)), a.ownDir(s))
				continue
			}
			fmt.Fprintf(w, "would restore %s  %s  to %s\n", s.ID, render.Title(s), s.Transcript)
		}
		return w.Flush()
	}
	code := 0
	var threads []*harness.Session
	for _, s := range picked {
		if a.selfArchived(s) {
			threads = append(threads, s)
			continue
		}
		if err := a.restoreOne(st, s.ID, keepMtime); err != nil {
			code = max(code, a.restoreFailed(st, s.ID, err))
			continue
		}
		fmt.Fprintln(a.stdout, s.ID)
	}
	if err := st.WriteIndex(); err != nil {
		a.warnf("cannot write %s's index: %v", st.Kind, err)
	}
	err = nil
	if code != 0 {
		err = exit(code)
	}
	if len(threads) > 0 {
		err = worse(err, a.archiveOwn(ctx, bins, threads, true))
	}
	return err
}

// ownSessionAt is the harness and newest file of session id when a
// harness that archives its own sessions has it there to resume (not
// archived), else "", "".
func (a *app) ownSessionAt(ctx context.Context, id string) (name, at string) {
	own := a.archivers()
	if len(own) == 0 {
		return "", ""
	}
	a.list(ctx, listing{w: io.Discard, harnesses: own}, func(s *harness.Session) error {
		if s.ID == id && s.HiddenReason != archivedReason {
			name, at = s.Harness, s.Transcript
		}
		return nil
	})
	return name, at
}

// selfArchivedRows are the sessions their own harness archived (Codex's
// archived_sessions/), as listed.
func (a *app) selfArchivedRows(ctx context.Context) ([]*harness.Session, error) {
	own := a.archivers()
	if len(own) == 0 {
		return nil, nil
	}
	var out []*harness.Session
	_, err := a.list(ctx, listing{w: a.stderr, harnesses: own}, func(s *harness.Session) error {
		if s.HiddenReason == archivedReason {
			c := *s
			out = append(out, &c)
		}
		return nil
	})
	return out, err
}

func (a *app) restoreOne(st *vault.Store, id string, keepMtime bool) error {
	_, err := st.Restore(id, vault.RestoreOptions{KeepMtime: keepMtime})
	return err
}

// restoreFailed reports a restore that did not happen, and its exit code.
func (a *app) restoreFailed(st *vault.Store, id string, err error) int {
	var ce *vault.ConflictError
	var de *vault.DamagedError
	switch {
	case errors.As(err, &ce):
		a.errorf("%v", err)
		a.hintf("the session was started again or copied back meanwhile, and nothing was overwritten; move %s aside to restore the stored copy", ce.Path)
		return exitcode.Refused
	case errors.As(err, &de):
		a.errorf("the %s: %v", st.Kind, de)
		a.hintf("nothing was restored and the stored copy is untouched: check %s", filepath.Join(st.Dir, id))
	case errors.Is(err, unix.ENOSPC):
		a.errorf("session %s: %v", id, err)
		a.hintf("no space left to restore it; the stored copy is untouched: free space, then run this again")
	default:
		a.errorf("session %s: %v", id, err)
		a.hintf("the stored copy is untouched; run this again")
	}
	return exitcode.Failed
}

// parseAge reads --older-than: a Go duration, or a whole number of days
// or weeks ("30d", "2w").
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v <= 0 {
				return 0, fmt.Errorf("--older-than %s: not a positive whole number of %s", msg.Quoted(s), map[string]string{"d": "days", "w": "weeks"}[suffix])
			}
			return time.Duration(v) * unit, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--older-than %s: not a duration (30d, 2w, 36h)", msg.Quoted(s))
	}
	return d, nil
}

// keepSearchText brings search's index up to date before sessions move,
// so the text of an archived session stays searchable (search keeps the
// entries of the archive's transcripts).
func (a *app) keepSearchText(ctx context.Context) {
	opt := a.searchOptions()
	// A second Ctrl-C during a first build removes the segment being
	// written, as search does.
	opt.OnExit = func(fn func()) func() { return interrupt.OnExit(ctx, fn) }
	if err := search.Update(ctx, opt); err != nil && ctx.Err() == nil {
		a.warnf("cannot bring the search index up to date: %v", err)
		a.hintf("the sessions still move; 'forgectl resume search' finds one whose text did not reach the index by its name only ('resume ls --archived')")
	}
}

// archivedTranscripts are the original paths of the archive's transcripts.
func (a *app) archivedTranscripts() map[string]bool {
	st := a.store(archiveKind)
	if _, err := os.Lstat(st.Dir); err != nil {
		return nil
	}
	ents, _ := st.Entries()
	out := make(map[string]bool, len(ents))
	for _, e := range ents {
		out[e.Transcript] = true
	}
	return out
}

// restoreForResume restores an archived session so that claude can
// resume it, and lists it again from its restored transcript. The
// transcript gets the restore's time as its mtime: Claude Code's sweep
// runs minutes after the resumed claude's first prompt and deletes by
// mtime.
func (a *app) restoreForResume(ctx context.Context, s *harness.Session) (*harness.Session, error) {
	l, err := a.lockMoves(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	st := a.store(archiveKind)
	if st.Has(s.ID) { // the recovery, or another run, may have restored it
		if err := a.restoreOne(st, s.ID, false); err != nil {
			return nil, exit(a.restoreFailed(st, s.ID, err))
		}
		if err := st.WriteIndex(); err != nil {
			a.warnf("cannot write the archive's index: %v", err)
		}
		a.notef("restored session %s from the archive", s.ID)
	}
	var back *harness.Session
	_, err = a.list(ctx, listing{w: a.stderr, countTasks: true, paths: map[string][]string{a.primary().Name(): {s.Transcript}}}, func(r *harness.Session) error {
		if r.ID == s.ID {
			back = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if back == nil {
		a.errorf("session %s was restored, but its transcript %s does not list", s.ID, s.Transcript)
		a.hintf("run 'forgectl resume ls --all %s' to see it", s.ID)
		return nil, exit(exitcode.Failed)
	}
	return back, nil
}

// A claim is what a resume leaves for the archive before it execs claude:
// its pid, which claude keeps across the exec, and its start time. Claude
// Code writes its registry file only once it has started, so without the
// claim an archive run in that gap would see the session as not running
// and move the transcript claude is about to open. A claim whose process
// is gone, or whose pid was reused (another start time), is ignored.
type claim struct {
	Pid       int    `json:"pid"`
	ProcStart string `json:"proc_start"`
}

func (a *app) claimPath(id string) string {
	return filepath.Join(a.forgectlPaths().Root, "resume-claims", id+".json")
}

// claimSession records that this process is about to become claude on
// session id; the caller holds the moves lock.
func (a *app) claimSession(id string) error {
	pid := os.Getpid()
	start, err := proc.StartTime(pid)
	if err != nil {
		return nil // no /proc or sysctl answer: the registry is all there is
	}
	b, _ := json.Marshal(claim{Pid: pid, ProcStart: start})
	dir := filepath.Dir(a.claimPath(id))
	if err := fsutil.MkdirPrivate(dir); err != nil {
		return err
	}
	return fsutil.WriteAtomic(a.claimPath(id), b, fsutil.FilePerm)
}

// claimedBy is the pid of a live process that claimed session id, or 0.
func (a *app) claimedBy(id string) int {
	b, err := fsutil.ReadRegular(a.claimPath(id))
	if err != nil {
		return 0
	}
	var c claim
	if json.Unmarshal(b, &c) != nil || c.Pid <= 0 || c.Pid == os.Getpid() || !proc.Alive(c.Pid) {
		return 0 // a zombie's start time still answers: the resume is over
	}
	if start, err := proc.StartTime(c.Pid); err != nil || start != c.ProcStart {
		return 0
	}
	return c.Pid
}

// holdForResume is a resume's side of the race with archive and rm: under
// the moves lock it checks that the session is still in Claude Code's tree
// (restoring it from the archive if a run moved it meanwhile) and leaves
// its claim. The lock goes with the exec (it is close-on-exec).
func (a *app) holdForResume(ctx context.Context, s *harness.Session) (*harness.Session, func(), error) {
	fp := a.forgectlPaths()
	if err := fsutil.MkdirPrivate(fp.Root); err != nil {
		return s, func() {}, nil // forgectl keeps no stores here: nothing moves sessions
	}
	l, err := fsutil.TryLock(fp.MovesLock())
	if errors.Is(err, fsutil.ErrLocked) {
		// A run is moving sessions. The claim goes first: a run that
		// has not started on this session yet checks claims before it
		// removes anything (an entry is made before that check), so with
		// no entry for it in either store this resume need not wait for
		// a run that may take minutes over other sessions.
		if err := a.claimSession(s.ID); err == nil && !a.store(archiveKind).Has(s.ID) && !a.store(trashKind).Has(s.ID) {
			if _, err := os.Lstat(s.Transcript); err == nil {
				return s, func() {}, nil
			}
		}
		a.notef("waiting for an archive, rm or restore run to finish")
		l, err = fsutil.LockWait(fp.MovesLock(), 10*time.Minute)
	}
	if err != nil {
		a.errorf("cannot lock %s: %v", fp.MovesLock(), err)
		return nil, nil, exit(exitcode.Failed)
	}
	release := func() { l.Unlock() }
	if _, err := os.Lstat(s.Transcript); err != nil && a.store(archiveKind).Has(s.ID) {
		release()
		a.notef("session %s was archived meanwhile; restoring it", s.ID)
		back, err := a.restoreForResume(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		return a.holdForResume(ctx, back)
	}
	if err := a.claimSession(s.ID); err != nil {
		a.warnf("cannot record this resume for archive runs: %v", err)
	}
	return s, release, nil
}

// pathsOfIDs are the transcripts of the sessions a selection names, when
// it names them all by full id and nothing else; nil otherwise (list all).
func (a *app) pathsOfIDs(ctx context.Context, sel selection) []string {
	if len(sel.filters) == 0 {
		return nil
	}
	want := map[string]bool{}
	for _, f := range sel.filters {
		if !isFullID(f) {
			return nil
		}
		want[strings.ToLower(f)+".jsonl"] = true
	}
	files, _, err := a.primary().Walk(ctx)
	if err != nil {
		return nil
	}
	paths := []string{}
	for i := range files {
		if want[files[i].Name] {
			paths = append(paths, files[i].Path())
		}
	}
	if len(paths) < len(want) {
		// An id no transcript has may be another agent's thread, or a
		// session in the archive: everything is listed, to say which.
		return nil
	}
	return paths
}

// isFullID says s is a whole session id: 36 characters, hex digits and
// dashes at the UUID's places.
func isFullID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'):
			return false
		}
	}
	return true
}

// storedCompletion completes unarchive's and trash restore's FILTER: the
// ids of the store's sessions that start with cur, each described by its
// repo and name (read from the store's index, nothing decompressed).
func storedCompletion(kind string) func(a *app, cur string) []candidate {
	return func(a *app, cur string) []candidate {
		st := a.store(kind)
		ents, _ := st.Entries()
		var out []candidate
		for _, e := range ents {
			if !strings.HasPrefix(e.ID, cur) {
				continue
			}
			desc := ""
			if e.Packed != "" {
				if s, err := unpackRow(e.Packed); err == nil {
					desc = s.Repo
					if s.Name != "" && !render.HasControl(s.Name) {
						desc += ": " + s.Name
					}
				}
			}
			out = append(out, candidate{value: e.ID, desc: desc})
		}
		for _, name := range a.archivers() {
			if kind != archiveKind {
				break
			}
			// unarchive takes the threads in Codex's archived_sessions/
			// too, from the listing's index (none before a first listing).
			h := a.harnessNamed(name)
			sessions.Indexed(sessions.Options{Harness: h, IndexPath: a.indexPath(h), Home: a.home}, func(s *harness.Session) {
				if s.HiddenReason != archivedReason || !strings.HasPrefix(s.ID, cur) {
					return
				}
				desc := s.Repo
				if s.Name != "" && !render.HasControl(s.Name) {
					desc += ": " + s.Name
				}
				out = append(out, candidate{value: s.ID, desc: desc})
			})
		}
		return out
	}
}
