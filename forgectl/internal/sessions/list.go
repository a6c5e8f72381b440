// Package sessions is the listing's engine: it lists the sessions of a
// harness (see package harness), newest first, through an index that
// keeps what the last listing learnt of each file. It owns what every
// harness shares: the walk's order, the worker pool, the window that
// bounds how far the workers run ahead of a slow reader, the index file
// (its framing, tables, mapping and damage handling, and the rule that
// keeps a record while its file keeps its inode, size and mtime), and
// the repository a row's cwd belongs to. What a file says, what a row is
// joined with and what is hidden are the harness's.
//
// The listing streams: List stats every file, orders them newest first,
// and hands each session on as soon as it is known, reading the newest
// first when they are not in the index. So the first screen of a picker
// never waits for the oldest transcript, and a listing holds no more than
// a window of sessions at a time.
package sessions

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/interrupt"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/parallel"
)

// Options configures a listing.
type Options struct {
	// Harness is the agent whose sessions are listed: its walk, its rows
	// and how its sessions resume.
	Harness harness.Harness
	// IndexPath is the index file; "" disables it (every file is read).
	IndexPath string
	// Workers bounds parallel file reads; 0 means GOMAXPROCS.
	Workers int
	// Home bounds the search for a repository: a .git at or above the home
	// directory (a dotfiles repo) does not name the sessions below it.
	Home string
	// SkipTasks leaves task counts out (TasksSource ""), for a caller that
	// reads them for one session later: the picker's preview.
	SkipTasks bool
	// Paths, when not nil, lists just these files instead of walking the
	// harness's tree (search lists only its hits). The index is read, not
	// written: it holds every session, and this listing saw a few.
	Paths []string
	// Now is the listing's time (see harness.OpenOptions); zero is the
	// time it starts.
	Now time.Time
	// Active keeps only the files last written inside the window, decided
	// on the walk's mtimes, so the others are never opened. A narrowed
	// listing reads the index but does not write it, as with Paths.
	Active when.Window
	// Hold, while open, keeps the listing's reads within holdLead rows
	// of the row it hands on next, not window: ListAll holds every
	// listing until each has handed on its first session, so that one
	// that has its first row already does not take the CPU from one
	// still looking for its own (Codex reads every segment's first line
	// before its first row).
	Hold <-chan struct{}
}

// holdLead is how far ahead a held listing reads: the first screen of a
// picker, and the rows the merge takes next.
const holdLead = 64

// Stats is what a listing did besides handing on sessions.
type Stats struct {
	Listed int // sessions handed on
	// Scanned and Reused count files read now and taken whole from the
	// index.
	Scanned, Reused int
	// Problems are per-file failures (a transcript that cannot be opened, a
	// corrupt registry file, a damaged index). They never fail the listing.
	Problems []error
}

// ErrStop, returned by an emit function, ends the listing early; List then
// returns no error.
var ErrStop = errors.New("stop listing")

// window bounds how far the workers may run ahead of the consumer: a slow
// reader of `ls --json` (a pipe into less) holds at most this many rows.
const window = 1024

// releaseEvery is how many rows pass between releases of the index's pages
// (see fsutil.Mapping.Release): records are looked up about in the order they
// were written, so those released are mostly behind the listing.
const releaseEvery = 4096

// List hands every session to emit, newest first, each as soon as it is
// known. emit is called from one goroutine, in order; it may keep the
// session. An error from emit ends the listing and is returned (ErrStop
// ends it quietly). The index is brought up to date at the end, also when
// the listing was stopped: a picker left early still leaves what it read.
func List(parent context.Context, opt Options, emit func(*harness.Session) error) (Stats, error) {
	var st Stats
	ctx, cancel := context.WithCancel(parent)
	defer cancel()

	// What every row is joined with is read while the tree is walked.
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	l := opt.Harness.Open(harness.OpenOptions{SkipTasks: opt.SkipTasks, Now: now})
	var ix *storedIndex
	var ixErr, auxErr error
	var auxChanged bool
	var joinProblems []error
	var wg sync.WaitGroup
	opened := make(chan struct{}) // ix is set
	wg.Go(func() {
		ix, ixErr = openIndex(opt.IndexPath, formatOf(opt.Harness))
		close(opened)
		auxChanged, auxErr = l.ReadAux(ix)
	})
	wg.Go(func() { joinProblems = l.Join() })
	var files []harness.File
	var problems []error
	var err error
	if opt.Paths != nil {
		files = opt.Harness.Stat(opt.Paths)
	} else {
		files, problems, err = opt.Harness.Walk(ctx)
	}
	harness.SortNewestFirst(files)
	if err != nil {
		wg.Wait()
		return st, err
	}
	// Every file on disk is named to the lister, so that a parent outside
	// the window, or not among the Paths (a search's hits), still counts
	// as on disk. The walk is the invocation's one walk (a search made
	// it already).
	known := files
	if opt.Paths != nil {
		if all, _, werr := opt.Harness.Walk(ctx); werr == nil {
			known = all
		}
	}
	readOnly := opt.Paths != nil
	// A harness whose sessions own several files makes each session's
	// files contiguous; bounds[g] is where group g starts (nil: a file is
	// a session, as for Claude Code). A window then keeps whole sessions
	// by their newest file: an old segment of a thread active inside it
	// is still the thread's.
	var bounds []int
	if g, ok := l.(harness.Grouper); ok {
		// Grouping needs the index but not the aux files, which are read
		// meanwhile: a cold listing of 5,000 Codex threads reads every
		// segment's first line here, and its first row waits for both.
		<-opened
		files, bounds = group(g, files, ix)
		if !opt.Active.Open() {
			files, bounds = activeGroups(files, bounds, opt.Active)
			readOnly = true
		}
	} else if !opt.Active.Open() {
		files = active(files, opt.Active)
		readOnly = true
	}
	wg.Wait()
	l.Begin(known)
	st.Problems = append(st.Problems, problems...)
	st.Problems = append(st.Problems, joinProblems...)
	for _, e := range []error{ixErr, auxErr} {
		if e != nil {
			st.Problems = append(st.Problems, e)
		}
	}

	r := &rows{l: l, ix: ix, name: opt.Harness.Name(), repos: &repoCache{home: opt.Home, names: map[string]repoInfo{}}}
	slots := make([]slot, len(files))
	p := newPipe(len(files), window)
	if opt.Hold != nil {
		p = newPipe(len(files), holdLead)
		go func() {
			select {
			case <-opt.Hold:
				p.widen(window)
			case <-ctx.Done():
			}
		}()
	}
	scanners := sync.Pool{New: func() any {
		sc := jsonl.NewScanner(nil, 0)
		sc.Done = ctx.Done() // a first Ctrl-C leaves a huge transcript at once
		return sc
	}}
	go func() {
		if bounds != nil {
			parallel.For(ctx, len(bounds)-1, opt.Workers, 1, func(g int) {
				from, to := bounds[g], bounds[g+1]
				if !p.enter(from) {
					return
				}
				sc := scanners.Get().(*jsonl.Scanner)
				r.group(sc, files[from:to], slots[from:to])
				scanners.Put(sc)
				for k := from; k < to; k++ {
					p.finish(k)
				}
			})
			p.close()
			return
		}
		parallel.For(ctx, len(files), opt.Workers, 1, func(k int) {
			if !p.enter(k) {
				return
			}
			sc := scanners.Get().(*jsonl.Scanner)
			slots[k] = r.row(sc, &files[k])
			scanners.Put(sc)
			p.finish(k)
		})
		p.close()
	}()

	var emitErr error
	save := &indexSave{path: opt.IndexPath, format: formatOf(opt.Harness), ix: ix, ctx: parent}
	k := 0
	for ; k < len(files); k++ {
		if parent.Err() != nil || !p.await(k) {
			break // cancelled
		}
		sl := &slots[k]
		if opt.IndexPath != "" && !readOnly {
			save.take(files, slots, k)
		}
		if sl.problem != nil {
			st.Problems = append(st.Problems, sl.problem)
		}
		if sl.scanned {
			st.Scanned++
		} else if sl.sess != nil {
			st.Reused++
		}
		if sl.sess == nil {
			continue
		}
		s := sl.sess
		sl.sess = nil // the consumer's now
		st.Listed++
		if st.Listed%releaseEvery == 0 {
			ix.release()
		}
		if emitErr = emit(s); emitErr != nil {
			break
		}
	}
	p.stop()
	cancel()
	p.wait()
	if opt.IndexPath != "" && !readOnly {
		if err := save.finish(files, slots, p.doneUpTo(), l, auxChanged || ixErr != nil); err != nil {
			st.Problems = append(st.Problems, err)
		}
	} else if err := ix.failure(); err != nil {
		st.Problems = append(st.Problems, err)
	}
	ix.close()
	if errors.Is(emitErr, ErrStop) {
		emitErr = nil
	}
	if emitErr == nil && k < len(files) {
		emitErr = parent.Err() // the pipe closes early only when cancelled
	}
	return st, emitErr
}

// active is the files last written inside w, in a new slice: the walk's
// list is shared by the invocation's listings.
func active(files []harness.File, w when.Window) []harness.File {
	var out []harness.File
	for k := range files {
		if w.HoldsNs(files[k].MtimeNs) {
			out = append(out, files[k])
		}
	}
	return out
}

// activeGroups keeps the groups (see group) whose newest file was last
// written inside w, with their bounds.
func activeGroups(files []harness.File, bounds []int, w when.Window) ([]harness.File, []int) {
	var out []harness.File
	var kept []int
	for g := 0; g+1 < len(bounds); g++ {
		var newest int64
		for k := bounds[g]; k < bounds[g+1]; k++ {
			newest = max(newest, files[k].MtimeNs)
		}
		if w.HoldsNs(newest) {
			kept = append(kept, len(out))
			out = append(out, files[bounds[g]:bounds[g+1]]...)
		}
	}
	return out, append(kept, len(out))
}

// slot is one file's outcome, made by a worker.
type slot struct {
	sess    *harness.Session
	rec     harness.Record // the record to store, when it changed
	rawAt   int64          // where the stored record is, when it did not; 0: none
	scanned bool           // the file was read
	stored  bool           // the index had a record for the path
	problem error
}

// rows makes the listing's rows: the harness's, with what is common to
// every harness filled in.
type rows struct {
	l     harness.Lister
	ix    *storedIndex
	name  string // the harness's, for each row
	repos *repoCache
}

// row looks file f up in the index and has the harness make its row.
func (r *rows) row(sc *jsonl.Scanner, f *harness.File) slot {
	path := f.Path() // once: the lookup, the reads and the row share it
	old, off := r.ix.lookup(path)
	return r.slot(r.l.Row(sc, f, path, old), old, off)
}

// group looks the files of one session up in the index and has the
// harness make their rows (see harness.Grouper).
func (r *rows) group(sc *jsonl.Scanner, files []harness.File, slots []slot) {
	fs := make([]*harness.File, len(files))
	paths := make([]string, len(files))
	old := make([]harness.Stored, len(files))
	offs := make([]int64, len(files))
	for k := range files {
		fs[k], paths[k] = &files[k], files[k].Path()
		old[k], offs[k] = r.ix.lookup(paths[k])
	}
	res := r.l.(harness.Grouper).RowGroup(sc, fs, paths, old)
	for k := range slots {
		if k < len(res) {
			slots[k] = r.slot(res[k], old[k], offs[k])
		} else {
			slots[k] = slot{stored: old[k].OK} // no row, no record: read again next time
		}
	}
}

// slot is what the harness's row res of a file becomes, with what is
// common to every harness filled in.
func (r *rows) slot(res harness.Row, old harness.Stored, off int64) slot {
	sl := slot{stored: old.OK, scanned: res.Scanned, problem: res.Problem}
	switch {
	case res.Keep && old.OK:
		sl.rawAt = off
	case res.Record != nil:
		sl.rec = res.Record
	}
	if s := res.Session; s != nil {
		s.Harness = r.name
		s.Repo, s.CwdExists = r.repos.repo(s.Cwd)
		sl.sess = s
	}
	return sl
}

// group has g gather files into sessions and returns the files
// reordered so that each session's are contiguous, the sessions in the
// order of their first file, with where each starts (and the end).
func group(g harness.Grouper, files []harness.File, ix *storedIndex) ([]harness.File, []int) {
	groups := g.Group(files, func(k int) harness.Stored {
		old, _ := ix.lookup(files[k].Path())
		return old
	})
	sort.SliceStable(groups, func(a, b int) bool { return first(groups[a]) < first(groups[b]) })
	out := make([]harness.File, 0, len(files))
	bounds := make([]int, 0, len(groups)+1)
	for _, grp := range groups {
		if len(grp) == 0 {
			continue
		}
		bounds = append(bounds, len(out))
		for _, k := range grp {
			out = append(out, files[k])
		}
	}
	return out, append(bounds, len(out))
}

func first(grp []int) int {
	if len(grp) == 0 {
		return -1
	}
	return grp[0]
}

// indexSave writes the next index as the listing goes, record by record
// in the listing's order, so that a cold listing does not hold every new
// record until its end. It writes only once something changed: on a warm
// listing the index is read, never written.
type indexSave struct {
	path    string
	format  uint64
	ix      *storedIndex
	w       *indexWriter // nil until something changed
	taken   int          // slots before it were handed to take
	changed bool
	stored  int // records of the stored index still in use
	err     error
	ctx     context.Context // for interrupt.OnExit
}

// take notes slot k, the next in order, and writes it if the index is
// being rewritten; a written slot lets go of its record.
func (s *indexSave) take(files []harness.File, slots []slot, k int) {
	sl := &slots[k]
	if sl.stored {
		s.stored++
	}
	if sl.rec != nil || (sl.stored && sl.rawAt == 0) {
		s.changed = true
	}
	if s.changed && s.w == nil && s.err == nil {
		s.open(files, slots, k)
	}
	if s.w != nil {
		s.put(files, slots, k)
	}
	s.taken = k + 1
}

// open starts the rewrite, writing the slots taken so far.
func (s *indexSave) open(files []harness.File, slots []slot, upTo int) {
	// A second Ctrl-C may end the process in the middle of the listing.
	s.w, s.err = newIndexWriter(s.path, s.format, func(fn func()) func() { return interrupt.OnExit(s.ctx, fn) })
	if s.err != nil {
		return
	}
	for k := range upTo {
		s.put(files, slots, k)
	}
}

func (s *indexSave) put(files []harness.File, slots []slot, k int) {
	switch sl := &slots[k]; {
	case sl.rec != nil:
		s.w.entry(files[k].Path(), files[k].File, sl.rec)
	case sl.rawAt != 0:
		s.w.copied(files[k].Path(), s.ix, sl.rawAt)
	}
	slots[k].rec, slots[k].rawAt = nil, 0
}

// finish writes what was not taken (slots the listing, stopped early, did
// not reach: their stored records are kept when still valid), the
// harness's aux section, and renames the new index into place; or leaves
// the old one when nothing changed (changed says the aux section did, or
// the old index was damaged). An index that shrank under the listing is
// not rewritten: the records it kept cannot be copied, and the next
// listing finds it damaged and rebuilds it.
func (s *indexSave) finish(files []harness.File, slots []slot, done int, l harness.Lister, changed bool) error {
	if err := s.ix.failure(); err != nil {
		s.abandon()
		return err
	}
	if s.err != nil {
		return s.err
	}
	for k := s.taken; k < len(files); k++ {
		sl := &slots[k]
		if k >= done && sl.rec == nil {
			if old, off := s.ix.lookup(files[k].Path()); old.OK {
				if old.File == files[k].File {
					sl.rawAt, sl.stored = off, true
				} else {
					s.changed = true // dropped: read whole next time
				}
			}
		}
		s.take(files, slots, k)
		if s.err != nil {
			return s.err
		}
	}
	if s.w == nil {
		if !s.changed && !changed && s.stored == s.ix.nFiles {
			return nil
		}
		s.open(files, slots, len(files))
		if s.err != nil {
			return s.err
		}
	}
	state, err := l.WriteAux(s.w, files)
	if err != nil {
		s.abandon()
		return err
	}
	if err := s.ix.failure(); err != nil {
		s.abandon() // it shrank while the last records were copied
		return err
	}
	return s.w.finish(state)
}

// abandon drops the rewrite, if one was started.
func (s *indexSave) abandon() {
	if s.w != nil {
		s.w.abandon()
		s.w = nil
	}
}

// pipe hands the workers' rows to the consumer in order, and keeps the
// workers at most span rows ahead of it.
type pipe struct {
	mu          sync.Mutex
	ready, room sync.Cond
	done        []bool
	waiting     int // the slot the consumer waits for
	at          int // the slot the consumer waited for last
	span        int
	limit       int // workers may start slots below it
	stopped     bool
	closed      bool
	finished    chan struct{}
}

func newPipe(n, span int) *pipe {
	p := &pipe{done: make([]bool, n), span: span, limit: span, waiting: -1, finished: make(chan struct{})}
	p.ready.L, p.room.L = &p.mu, &p.mu
	return p
}

// enter waits until slot k is within the window; false means stop.
func (p *pipe) enter(k int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k >= p.limit && !p.stopped {
		p.room.Wait()
	}
	return !p.stopped
}

func (p *pipe) finish(k int) {
	p.mu.Lock()
	p.done[k] = true
	if k == p.waiting {
		p.ready.Signal()
	}
	p.mu.Unlock()
}

// close says no slot will be finished any more.
func (p *pipe) close() {
	p.mu.Lock()
	p.closed = true
	p.ready.Broadcast()
	p.mu.Unlock()
	close(p.finished)
}

// await waits for slot k; false means it will never come.
func (p *pipe) await(k int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k+p.span/2 > p.limit {
		p.limit = k + p.span
		p.room.Broadcast()
	}
	p.waiting, p.at = k, k
	for !p.done[k] && !p.closed {
		p.ready.Wait()
	}
	p.waiting = -1
	return p.done[k]
}

// widen lets the workers go span rows ahead from now on.
func (p *pipe) widen(span int) {
	p.mu.Lock()
	p.span = span
	p.limit = max(p.limit, p.at+span)
	p.room.Broadcast()
	p.mu.Unlock()
}

// stop lets waiting workers go.
func (p *pipe) stop() {
	p.mu.Lock()
	p.stopped = true
	p.room.Broadcast()
	p.mu.Unlock()
}

// wait waits for the workers to be done.
func (p *pipe) wait() { <-p.finished }

// doneUpTo is the first slot not finished: every slot before it was. A
// slot after it may have been finished too, out of order.
func (p *pipe) doneUpTo() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := 0
	for k < len(p.done) && p.done[k] {
		k++
	}
	return k
}

// Indexed hands fn a session for every file the index holds, as the last
// listing left it, without looking at the files: no walk, no registry, no
// history. Shell completion reads it, which must answer within a
// keystroke; a session deleted since the last listing can still be
// offered, and one started since is not. Only identity, names, cwd, repo
// and the hidden flag are filled in (see harness.Harness.Indexed). It
// reports how many it handed on.
func Indexed(opt Options, fn func(*harness.Session)) (int, error) {
	ix, err := openIndex(opt.IndexPath, formatOf(opt.Harness))
	if err != nil {
		return 0, err
	}
	defer ix.close()
	n := 0
	name := opt.Harness.Name()
	repos := &repoCache{home: opt.Home, names: map[string]repoInfo{}}
	for i := range ix.nFiles {
		var payload string
		var err error
		if rerr := ix.read(func() {
			_, off := tableAt(ix.files, i)
			payload, err = ix.record(off)
		}); rerr != nil {
			return n, rerr
		}
		if err != nil {
			continue
		}
		path, old, err := fileRecord(payload)
		if err != nil {
			continue
		}
		dir, base := filepath.Split(path)
		dir = filepath.Clean(dir)
		f := harness.File{Dir: &dir, Name: base, File: old.File}
		s, ok := opt.Harness.Indexed(&f, path, old)
		if !ok {
			continue
		}
		s.Harness = name
		s.Repo, s.CwdExists = repos.repo(s.Cwd)
		fn(&s)
		n++
	}
	return n, nil
}
