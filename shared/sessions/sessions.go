// Package sessions builds the list of Claude Code sessions on this machine:
// every transcript under projects/, summarised (through a cache that reads
// only appended bytes), joined with the live registry, the prompt history
// (when each session was last prompted), the task lists and forgectl's
// snapshot store. A session is a transcript: one that exists only in the
// history cannot be resumed, so it is not listed.
//
// Claude Code stays the source of truth: everything here is re-derived from
// its files on every listing, except what only the snapshot store still
// holds once a session has exited (its /rename name and tasks).
package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
	"golang.org/x/sys/unix"
)

// Session is one row of the listing.
type Session struct {
	ID          string
	Name        string
	NameSource  string // agent-name, custom-title, ai-title, summary, snapshot, or ""
	FirstPrompt string
	LastPrompt  string
	// LastPromptAt is when the newest prompt was submitted, from the prompt
	// history; zero when history has no line for the session.
	LastPromptAt time.Time
	Cwd          string
	CwdExists    bool
	Repo         string
	Branch       string
	LastActivity time.Time
	Entrypoint   string
	Version      string
	Size         int64
	Transcript   string
	Messages     int
	BrokenLines  int

	Live      bool
	Pid       int
	Tmux      string
	Status    string // the registry's status for a live session
	LiveState registry.State

	Tasks       tasks.Counts
	TasksSource string // "live" (tasks/<id>/), "snapshot", or "none"

	Hidden       bool
	HiddenReason string // sidechain, print-mode (sdk-*), continued, team, empty

	Snapshot *snapstore.Record

	// ParentID is the session this one was branched or forked from, or
	// continued after /clear (Relation says which: lineage.Branch, Fork,
	// Clear); "" for none. ParentExists says its transcript is listed.
	ParentID     string
	Relation     string
	ParentExists bool
}

// Options configures a listing.
type Options struct {
	Claude    paths.Claude
	Snapshots snapstore.Store
	// IndexPath is the cache file; "" disables caching (every file is read).
	IndexPath string
	// Workers bounds parallel transcript reads; 0 means GOMAXPROCS.
	Workers int
	// Home bounds the search for a repository: a .git at or above the home
	// directory (a dotfiles repo) does not name the sessions below it.
	Home string
	// SkipTasks leaves task counts out (TasksSource ""), for a caller that
	// reads them for one session later: the picker's preview.
	SkipTasks bool
}

// Result is a listing: sessions newest first, and what could not be read.
type Result struct {
	Sessions []Session
	// Problems are per-file failures (a transcript that cannot be opened, a
	// corrupt registry file). They never fail the listing.
	Problems []error
	// Scanned and Reused count transcripts parsed now and taken from the cache.
	Scanned, Reused int
}

type fileRef struct {
	path string
	ino  uint64
	size int64
	mt   int64
	// folder says the session has its own folder beside the transcript
	// (subagents, tool results, the sidecar title of a /rename).
	folder bool
}

// List reads every session.
func List(opt Options) (Result, error) {
	var res Result
	// Decoding the index and walking the tree are independent: overlap them.
	ix, tix, hist := index{}, taskIndex{}, &historyIndex{}
	var ixErr, histErr error
	var histChanged bool
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		if opt.IndexPath != "" {
			ix, tix, hist, ixErr = loadIndex(opt.IndexPath)
		}
		histChanged, histErr = hist.update(opt.Claude.History())
	}()
	files, problems, err := walk(opt.Claude.Projects())
	<-loaded
	if err != nil {
		return res, err
	}
	res.Problems = append(res.Problems, problems...)
	if ixErr != nil {
		res.Problems = append(res.Problems, ixErr)
	}
	if histErr != nil {
		res.Problems = append(res.Problems, histErr)
	}
	sums, changed, scanned, perr := summarise(files, ix, opt.Workers)
	res.Problems = append(res.Problems, perr...)
	sidesChanged, sproblems := readSidecars(files, sums, opt.Workers)
	res.Problems = append(res.Problems, sproblems...)
	changed = changed || sidesChanged
	res.Scanned, res.Reused = scanned, len(files)-scanned

	live, rproblems := liveSessions(opt.Claude.Registry())
	res.Problems = append(res.Problems, rproblems...)
	snaps := map[string]*snapstore.Record{}
	if opt.Snapshots.Dir != "" {
		recs, sproblems := opt.Snapshots.All()
		res.Problems = append(res.Problems, sproblems...)
		for i := range recs {
			snaps[recs[i].SessionID] = &recs[i]
		}
	}
	taskDirs := listDirs(opt.Claude.Tasks())
	repos := repoCache{home: opt.Home, names: map[string]repoInfo{}}

	// Build the rows newest first: sorting the small file records here is
	// cheaper than sorting (or copying) the large rows afterwards.
	order := make([]int, 0, len(files))
	for i := range files {
		if sums[i] != nil {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool {
		fa, fb := &files[order[a]], &files[order[b]]
		if fa.mt != fb.mt {
			return fa.mt > fb.mt
		}
		return sessionID(fa.path) < sessionID(fb.path)
	})
	res.Sessions = make([]Session, 0, len(order))
	for _, i := range order {
		f := files[i]
		s := build(f, sums[i])
		if e, ok := live[s.ID]; ok {
			s.Live, s.Pid, s.Tmux, s.Status, s.LiveState = true, e.Pid, e.Tmux, e.Status, registry.Check(e)
			if derivedName(s.NameSource) && e.UserNamed() {
				s.Name, s.NameSource = e.Name, "registry"
			}
		}
		if h, ok := hist.Sessions[s.ID]; ok {
			s.LastPromptAt = time.UnixMilli(h.LastAtMs).UTC()
			if s.LastPrompt == "" {
				s.LastPrompt = h.Last
			}
		}
		if rec := snaps[s.ID]; rec != nil {
			s.Snapshot = rec
			if derivedName(s.NameSource) && rec.Name != "" {
				s.Name, s.NameSource = rec.Name, "snapshot"
			}
		}
		s.Repo, s.CwdExists = repos.repo(s.Cwd)
		res.Sessions = append(res.Sessions, s)
	}
	setLineage(res.Sessions, order, sums, hist.Clears)
	// Task lists are many small files: read them in parallel, and only
	// those whose files changed since the cached counts.
	nextTasks := make([]*taskEntry, len(res.Sessions))
	var tasksChanged atomicFlag
	Parallel(len(res.Sessions), opt.Workers, func(i int) {
		s := &res.Sessions[i]
		if opt.SkipTasks {
			if te := tix[paths.SanitizeListID(s.ID)]; te != nil {
				nextTasks[i] = te // keep the cache as it is
			}
			return
		}
		var te *taskEntry
		s.Tasks, s.TasksSource, te = countTasks(opt.Claude, taskDirs, tix, s.ID, s.Snapshot)
		if te != nil {
			nextTasks[i] = te
			if te != tix[paths.SanitizeListID(s.ID)] {
				tasksChanged.set()
			}
		}
	})
	if opt.IndexPath != "" {
		var nIx, nT int
		for _, e := range sums {
			if e != nil {
				nIx++
			}
		}
		for _, te := range nextTasks {
			if te != nil {
				nT++
			}
		}
		// Rewrite the cache only when it would change: on a warm listing it
		// is read, never written.
		if changed || histChanged || tasksChanged.get() || len(ix) != nIx || len(tix) != nT {
			next := make(index, nIx)
			for i, f := range files {
				if sums[i] != nil {
					next[f.path] = sums[i]
				}
			}
			nextT := make(taskIndex, nT)
			for i, te := range nextTasks {
				if te != nil {
					nextT[paths.SanitizeListID(res.Sessions[i].ID)] = te
				}
			}
			if err := os.MkdirAll(filepath.Dir(opt.IndexPath), 0o700); err == nil {
				if err := saveIndex(opt.IndexPath, next, nextT, hist); err != nil {
					res.Problems = append(res.Problems, err)
				}
			}
		}
	}
	return res, nil
}

// setLineage decides every session's parent from its transcript's markers;
// list[k] was built from sums[order[k]]. Hidden sessions count: a fork of
// a print-mode session still names it. Only sessions with a marker are
// handed to lineage.Decide (in most homes a few among thousands), so a
// warm listing pays for lineage in proportion to it.
func setLineage(list []Session, order []int, sums []*indexEntry, clears []lineage.ClearEvent) {
	var nodes []lineage.Node
	var at []int
	for k := range list {
		if m := sums[order[k]].Sum.Marks; m != (lineage.Marks{}) {
			nodes = append(nodes, lineage.Node{ID: list[k].ID, Marks: m})
			at = append(at, k)
		}
	}
	if len(nodes) == 0 {
		return
	}
	parents := map[string]bool{}
	for n, l := range lineage.Decide(nodes, clears) {
		k := at[n]
		list[k].ParentID, list[k].Relation = l.Parent, l.Relation
		if l.Parent != "" {
			parents[l.Parent] = false
		}
	}
	for k := range list {
		if _, ok := parents[list[k].ID]; ok {
			parents[list[k].ID] = true
		}
	}
	for _, k := range at {
		list[k].ParentExists = parents[list[k].ParentID]
	}
}

// sessionID is the id a transcript's file name carries.
func sessionID(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

func build(f fileRef, ent *indexEntry) Session {
	sum := &ent.Sum
	s := Session{
		ID:           sessionID(f.path),
		FirstPrompt:  sum.FirstPrompt,
		LastPrompt:   sum.Latest(),
		Cwd:          sum.ProjectCwd(),
		Branch:       sum.GitBranch,
		LastActivity: time.Unix(0, f.mt).UTC(),
		Entrypoint:   sum.Entrypoint,
		Version:      sum.Version,
		Size:         f.size,
		Transcript:   f.path,
		Messages:     sum.Messages,
		BrokenLines:  sum.BrokenLines,
	}
	s.Name, s.NameSource = sum.Name()
	// Claude Code's precedence: an agent name, then the custom title from
	// the transcript, else from the sidecar file, then the AI title.
	if ent.Side.Title != "" && sum.AgentName == "" && sum.CustomTitle == "" {
		s.Name, s.NameSource = ent.Side.Title, "custom-title-file"
	}
	if s.LastPrompt == "" {
		s.LastPrompt = s.FirstPrompt
	}
	switch {
	case sum.Sidechain:
		s.Hidden, s.HiddenReason = true, "sidechain"
	case strings.HasPrefix(sum.Entrypoint, "sdk-"):
		s.Hidden, s.HiddenReason = true, "print-mode"
	case sum.TeamName != "":
		s.Hidden, s.HiddenReason = true, "team"
	case sum.ContinuedIn != "":
		s.Hidden, s.HiddenReason = true, "continued"
	case sum.Messages == 0 && s.Name == "":
		s.Hidden, s.HiddenReason = true, "empty"
	}
	return s
}

// walk lists projects/*/*.jsonl with size, mtime and inode.
func walk(root string) ([]fileRef, []error, error) {
	dirs, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	type out struct {
		files    []fileRef
		problems []error
	}
	results := make([]out, len(dirs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d := dirs[i]
				if !d.IsDir() {
					continue
				}
				dir := filepath.Join(root, d.Name())
				files, err := statDir(dir)
				if err != nil {
					results[i].problems = append(results[i].problems, err)
				}
				results[i].files = files
			}
		}()
	}
	for i := range dirs {
		next <- i
	}
	close(next)
	wg.Wait()
	var files []fileRef
	var problems []error
	for _, r := range results {
		files = append(files, r.files...)
		problems = append(problems, r.problems...)
	}
	return files, problems, nil
}

// derivedName reports a name no person gave (or none at all): a name the
// user gave, kept by the registry or the snapshot store, takes its place.
func derivedName(source string) bool {
	return source == "" || source == "ai-title" || source == "summary"
}

// statDir lists dir's *.jsonl regular files with their size, mtime and
// inode. It reads the directory unsorted and stats relative to its fd, as
// find does, which matters at 10,000 files.
func statDir(dir string) ([]fileRef, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	// A session's folder sits beside its transcript: the directory listing
	// already says which exist, so only those are looked into for a
	// sidecar title (see readSidecars).
	var folders map[string]bool
	for _, e := range ents {
		if e.IsDir() {
			if folders == nil {
				folders = map[string]bool{}
			}
			folders[e.Name()] = true
		}
	}
	var out []fileRef
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") || e.IsDir() {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue // removed since the listing: not a session any more
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		out = append(out, fileRef{path: filepath.Join(dir, name), ino: uint64(st.Ino), size: st.Size, mt: unixMtimeNs(&st),
			folder: folders[strings.TrimSuffix(name, ".jsonl")]})
	}
	return out, nil
}

// readSidecars brings the sidecar title up to date for each session that
// could use one: a session with a folder whose transcript carries no title
// row (a row wins over the file, so most renamed sessions need no look).
// Only files whose size or mtime changed are read. It reports whether any
// summary changed.
func readSidecars(files []fileRef, sums []*indexEntry, workers int) (bool, []error) {
	var changed atomicFlag
	problems := make([]error, len(files))
	Parallel(len(files), workers, func(i int) {
		f, e := &files[i], sums[i]
		if e == nil || e.Sum.CustomTitle != "" || e.Sum.AgentName != "" {
			return
		}
		p := transcript.SidecarPath(f.path, sessionID(f.path))
		side := sideEntry{Size: -1}
		var st unix.Stat_t
		// No folder, no file: nothing to stat, but a title remembered from
		// a folder since removed must be forgotten.
		if f.folder && unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			side.Size, side.MtimeNs = st.Size, unixMtimeNs(&st)
		}
		if side.Size == e.Side.Size && side.MtimeNs == e.Side.MtimeNs {
			return
		}
		if side.Size >= 0 {
			b, err := fsutil.ReadFile(p)
			if err != nil {
				// Unreadable now: not cached, so the next listing tries again.
				problems[i] = err
				side = sideEntry{Size: -2}
			} else {
				side.Title, side.By, _ = transcript.ParseSidecar(b)
			}
		}
		next := *e // the loaded index's entry is left as it was
		next.Side = side
		sums[i] = &next
		changed.set()
	})
	var errs []error
	for _, p := range problems {
		if p != nil {
			errs = append(errs, p)
		}
	}
	return changed.get(), errs
}

// summarise fills one summary per file, reusing cached ones that are still
// valid and reading only appended bytes of those that grew.
func summarise(files []fileRef, ix index, workers int) ([]*indexEntry, bool, int, []error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sums := make([]*indexEntry, len(files))
	var todo []int
	for i, f := range files {
		if e := ix[f.path]; e != nil && e.Ino == f.ino && e.Size == f.size && e.MtimeNs == f.mt {
			sums[i] = e
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return sums, false, 0, nil
	}
	problems := make([]error, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := jsonl.NewScanner(nil, 0)
			for i := range next {
				f := files[i]
				ent := &indexEntry{Ino: f.ino, Size: f.size, MtimeNs: f.mt}
				// Append-only: a file that kept its inode and did not shrink
				// below what was parsed is read from where the cache stopped.
				if old := ix[f.path]; old != nil && old.Ino == f.ino && f.size >= old.Size && old.Sum.Offset <= f.size {
					ent.Sum = old.Sum
				}
				if err := ent.Sum.UpdateWith(sc, f.path); err != nil {
					// Unreadable now (gone, permissions, I/O): leave it out
					// of this listing and out of the cache, so the next
					// listing reads it again. Fixing a permission changes
					// no mtime, so a cached empty summary would stick.
					problems[i] = err
					continue
				}
				sums[i] = ent
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	var errs []error
	for _, p := range problems {
		if p != nil {
			errs = append(errs, p)
		}
	}
	return sums, true, len(todo), errs
}

func liveSessions(dir string) (map[string]registry.Entry, []error) {
	entries, problems := registry.Read(dir)
	live := map[string]registry.Entry{}
	for _, e := range entries {
		if e.SessionID == "" || e.ParkedJobID != "" {
			continue
		}
		// An entry whose start time cannot be verified still counts as live:
		// refusing a resume wrongly costs a retry, allowing it wrongly
		// corrupts a transcript.
		if st := registry.Check(e); st != registry.Stale {
			live[e.SessionID] = e
		}
	}
	return live, problems
}

func listDirs(root string) map[string]bool {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	m := make(map[string]bool, len(ents))
	for _, e := range ents {
		if e.IsDir() {
			m[e.Name()] = true
		}
	}
	return m
}

// TaskCounts counts one session's tasks: its task list on disk, else its
// snapshot. The source is "live", "snapshot" or "none".
func TaskCounts(c paths.Claude, id string, rec *snapstore.Record) (tasks.Counts, string) {
	n, src, _ := countTasks(c, map[string]bool{paths.SanitizeListID(id): true}, nil, id, rec)
	return n, src
}

func countTasks(c paths.Claude, dirs map[string]bool, tix taskIndex, id string, rec *snapstore.Record) (tasks.Counts, string, *taskEntry) {
	name := paths.SanitizeListID(id)
	if dirs[name] {
		if te := readTaskCounts(c.TaskList(id), tix[name]); te != nil && te.Counts.Total > 0 {
			return te.Counts, "live", te
		}
	}
	if rec != nil && len(rec.Tasks) > 0 {
		return rec.Counts(), "snapshot", nil
	}
	return tasks.Counts{}, "none", nil
}

// readTaskCounts returns the cached entry when every task file still has
// the size and mtime it had, else reads the list again.
func readTaskCounts(dir string, cached *taskEntry) *taskEntry {
	// A thousand task lists are read on every listing: stat relative to
	// the directory's descriptor, as statDir does for transcripts.
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil
	}
	fd := int(d.Fd())
	files := make([]taskFile, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, n, &st, 0) != nil {
			continue
		}
		files = append(files, taskFile{Name: n, Size: st.Size, MtimeNs: unixMtimeNs(&st)})
	}
	// Directory order is arbitrary; the cached list is in name order.
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	if cached.same(files) {
		return cached
	}
	l, err := tasks.ReadList(dir)
	if err != nil {
		return nil
	}
	te := &taskEntry{Files: files}
	for _, t := range l.Tasks {
		te.Counts.Add(t.Status)
	}
	return te
}

type atomicFlag struct{ v atomic.Bool }

func (f *atomicFlag) set()      { f.v.Store(true) }
func (f *atomicFlag) get() bool { return f.v.Load() }

// repoCache names the repository a cwd belongs to: the git top level's base
// name (the main checkout's name for a linked worktree), else the cwd's own
// base name. Many sessions share a cwd, so each is resolved once per run.
type repoCache struct {
	home  string
	names map[string]repoInfo
}

type repoInfo struct {
	name   string
	exists bool
}

func (rc repoCache) repo(cwd string) (string, bool) {
	if cwd == "" {
		return "", false
	}
	if r, ok := rc.names[cwd]; ok {
		return r.name, r.exists
	}
	r := repoInfo{name: filepath.Base(cwd)}
	if st, err := os.Stat(cwd); err == nil && st.IsDir() {
		r.exists = true
		r.name = RepoName(cwd, rc.home)
	}
	rc.names[cwd] = r
	return r.name, r.exists
}

// RepoName walks up from dir to the nearest .git and names the repository,
// stopping below home (when home is not empty); without one it is dir's
// own base name.
func RepoName(dir, home string) string {
	if home != "" {
		home = filepath.Clean(home)
	}
	for d := dir; d != home || home == ""; {
		gp := filepath.Join(d, ".git")
		if st, err := os.Lstat(gp); err == nil {
			if st.IsDir() {
				return filepath.Base(d)
			}
			// A linked worktree's .git is a file: "gitdir: <main>/.git/worktrees/<name>".
			if b, err := os.ReadFile(gp); err == nil {
				line := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
				if i := strings.Index(line, string(filepath.Separator)+".git"+string(filepath.Separator)+"worktrees"+string(filepath.Separator)); i > 0 {
					return filepath.Base(line[:i])
				}
			}
			return filepath.Base(d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return filepath.Base(dir)
}

// Parallel calls fn(0..n-1) on up to workers goroutines (GOMAXPROCS when
// 0), handing out indexes in chunks so that cheap calls are not dominated
// by the hand-out.
func Parallel(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const chunk = 64
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for k := start; k < min(start+chunk, n); k++ {
					fn(k)
				}
			}
		}()
	}
	wg.Wait()
}
