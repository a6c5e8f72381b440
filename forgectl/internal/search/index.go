// Package search is forgectl's full-text search over the sessions of
// every harness: what a person typed and read in a session (prompts, replies,
// the inputs of tool calls, names), decoded from the JSON so that quotes,
// backslashes, newlines and non-ASCII match as they were shown, kept in an
// incremental index under forgectl's cache directory.
//
// The index is a cache. Deleting it loses nothing; a damaged one is
// noticed, reported and rebuilt, never trusted.
package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/parallel"
)

// Options says where the transcripts and the index are.
type Options struct {
	// Harness is the agent whose session files are indexed.
	Harness harness.Harness
	// Dir holds the index (forgectl's cache/search); it is created.
	Dir string
	// Workers bounds parallel transcript reads; 0 means GOMAXPROCS.
	Workers int
	// LockWait bounds the wait for another search updating the index; 0
	// means a minute (a first build of a large home takes seconds).
	LockWait time.Duration
	// OnExit, when set, registers the removal of a segment being written
	// for as long as it is a temp file (interrupt.OnExit, bound to the
	// command's context): a second Ctrl-C ends the process mid-build.
	OnExit func(cleanup func()) (remove func())
	// Early, when set, is told each session that holds the query as a
	// build from nothing reads it, newest first (the listing's order),
	// with the hits Search will return for it: a first search can show
	// them while the index is built. An update of an index that exists
	// calls it for nothing (the query over the index is as quick). It is
	// called on Search's goroutine; it must not wait for long.
	Early func(path string, hits []Hit)
	// Passed, when set with Early, is told the mtime (Unix ns) of each
	// transcript the build that calls Early has read, hit or not, in the
	// order it reads them (newest first), before Early hears of its hits:
	// a caller merging the early hits of several indexes then knows that
	// no hit still to come from this one is newer. Like Early, it is not
	// called for an index that exists.
	Passed func(mtimeNs int64)
	// Keep says the entry of a transcript the walk no longer finds stays
	// in the index as it is: one forgectl moved into its archive, whose
	// text stays searchable while its file is away.
	Keep func(path string) bool
}

// maxSegments and the dead-record share bound how fragmented the index may
// get before an update folds every segment into one.
const maxSegments = 8

// index is the catalog and its mapped segments, under the lock.
type index struct {
	dir  string
	cat  *catalog
	segs map[uint64]*segment
}

func (ix *index) close() {
	for _, s := range ix.segs {
		s.unmap()
	}
	ix.segs = nil
}

func (ix *index) catalogPath() string { return filepath.Join(ix.dir, "catalog") }

func segName(id uint64) string { return "seg-" + strconv.FormatUint(id, 10) }

// Stats says what an update did.
type Stats struct {
	Read, Reused, Removed int
	// Rebuilt is the reason the index was rebuilt from nothing ("" when it
	// was not): missing, damaged (and how).
	Rebuilt string
}

// open loads the catalog and maps its segments.
func open(dir string) (*index, error) {
	ix := &index{dir: dir, segs: map[uint64]*segment{}}
	cat, err := loadCatalog(ix.catalogPath())
	if err != nil {
		return nil, err
	}
	ix.cat = cat
	for _, s := range cat.Segs {
		seg, err := openSegment(filepath.Join(dir, segName(s.ID)), s.Size, s.CRC)
		if err != nil {
			ix.close()
			return nil, err
		}
		if seg.nrec != s.Recs {
			seg.unmap()
			ix.close()
			return nil, damaged("a segment holds %d records, the catalog says %d", seg.nrec, s.Recs)
		}
		ix.segs[s.ID] = seg
	}
	return ix, nil
}

// wipe removes every index file but the lock.
func wipe(dir string) error {
	ents, err := fsutil.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		if e.Name() == "lock" {
			continue
		}
		// RemoveAll: a folder where a segment or the catalog should be is
		// damage too, and this folder is the index's own cache.
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

type fileRef struct {
	path string
	fresh.File
}

// job is a transcript to read: on from its entry when fresh.Decide says
// it was appended to, else from the start.
type job struct {
	f       fileRef
	old     *entry // nil: no record, or one whose text version is not the file's now
	version uint64 // the harness's TextVersion of the file now
}

type jobResult struct {
	j      *job
	hits   []Hit // for Options.Early
	msgs   []harness.Message
	tokens []string
	e      entry
	same   bool // appended nothing searchable: the old record stays
	err    error
}

// update brings the index in line with the transcripts on disk, in four
// steps: open what is there (or start afresh), plan which transcripts to
// read, write what they hold now into a new segment, and fold segments
// when too many of their records are dead.
func update(ctx context.Context, opt Options, q Query, st *Stats) (*index, []error, error) {
	ix, err := openOrStart(opt.Dir, st)
	if err != nil {
		return nil, nil, err
	}
	files, problems, err := walk(ctx, opt.Harness)
	if err != nil {
		ix.close()
		return nil, nil, err
	}
	p := ix.plan(opt.Harness, files, st, opt.Keep)
	if len(p.jobs) == 0 && st.Removed == 0 {
		return ix, problems, nil
	}
	if len(p.kept) > 0 {
		opt.Early, opt.Passed = nil, nil // see Options.Early
	}
	cat, readProblems, err := ix.readChanged(ctx, opt, q, p, st)
	problems = append(problems, readProblems...)
	if err == nil {
		err = ix.foldIfFragmented(ctx, opt, cat)
	}
	if err == nil {
		err = ix.commit(cat)
	}
	if err != nil {
		ix.close()
		return nil, nil, err
	}
	return ix, problems, nil
}

// openOrStart opens the index, wiping one of another format first.
func openOrStart(dir string, st *Stats) (*index, error) {
	ix, err := open(dir)
	if errors.Is(err, errOldFormat) {
		if err := wipe(dir); err != nil {
			return nil, err
		}
		st.Rebuilt = "it was written by another version"
		ix, err = open(dir)
	}
	if err != nil {
		return nil, err
	}
	if len(ix.cat.Segs) == 0 && st.Rebuilt == "" {
		st.Rebuilt = "there was none"
	}
	return ix, nil
}

// plan is what an update does: the entries kept as they are, and the
// transcripts to read (on from their entry when they grew).
type plan struct {
	kept []entry
	jobs []*job
}

func (ix *index) plan(h harness.Harness, files []fileRef, st *Stats, keep func(string) bool) plan {
	tv, _ := harness.As[harness.TextVersioner](h)
	old := make(map[string]*entry, len(ix.cat.Entries))
	for i := range ix.cat.Entries {
		old[ix.cat.Entries[i].Path] = &ix.cat.Entries[i]
	}
	p := plan{kept: make([]entry, 0, len(files))}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.path] = true
		var version uint64
		if tv != nil {
			version = tv.TextVersion(f.path)
		}
		e := old[f.path]
		if e != nil && e.Version != version {
			e = nil // text from beside the file changed: read it whole
		}
		if e != nil && e.Same(f.File) {
			p.kept = append(p.kept, *e)
		} else {
			p.jobs = append(p.jobs, &job{f: f, old: e, version: version})
		}
	}
	for path, e := range old {
		switch {
		case seen[path]:
		case keep != nil && keep(path):
			p.kept = append(p.kept, *e)
		default:
			st.Removed++
		}
	}
	st.Reused = len(p.kept)
	return p
}

// readChanged reads the planned transcripts in parallel and writes the
// sessions that changed into a new segment as they come, so that a first
// build never holds more than a few sessions' text; it returns the next
// catalog.
func (ix *index) readChanged(ctx context.Context, opt Options, q Query, p plan, st *Stats) (*catalog, []error, error) {
	next := p.kept
	var problems []error
	var w *segWriter
	newID := ix.cat.NextSeg
	scratch := sync.Pool{New: func() any {
		sc := jsonl.NewScanner(nil, 0)
		sc.Done = ctx.Done() // a cancelled build leaves a huge transcript at once
		return &readScratch{sc: sc, set: new(tokenSet)}
	}}
	err := parallel.Ordered(ctx, len(p.jobs), workers(opt), 2*workers(opt), func(i int) jobResult {
		rs := scratch.Get().(*readScratch)
		defer scratch.Put(rs)
		r := ix.read(opt.Harness, rs, p.jobs[i])
		if opt.Early != nil && r.err == nil && !r.same && mayHold(r.tokens, q) {
			r.hits = matchSession(r.msgs, q)
		}
		return r
	}, func(_ int, r jobResult) error {
		if opt.Early != nil && opt.Passed != nil {
			opt.Passed(r.j.f.MtimeNs)
		}
		switch {
		case errors.Is(r.err, errDamaged):
			return r.err
		case r.err != nil:
			// Unreadable now (gone, permissions): left out of the index
			// so the next search reads it again.
			if !errors.Is(r.err, fs.ErrNotExist) {
				problems = append(problems, r.err)
			}
			return nil
		}
		st.Read++
		if r.hits != nil {
			opt.Early(r.j.f.path, r.hits)
		}
		if r.same {
			next = append(next, r.e)
			return nil
		}
		if w == nil {
			var err error
			if w, err = newSegWriter(filepath.Join(opt.Dir, segName(newID)), opt.OnExit); err != nil {
				return err
			}
		}
		r.e.Seg, r.e.Rec = newID, int(w.add(r.msgs, r.tokens))
		next = append(next, r.e)
		return nil
	})
	if err != nil {
		if w != nil {
			w.abandon()
		}
		return nil, nil, err
	}
	cat := &catalog{NextSeg: ix.cat.NextSeg, Entries: next}
	if w != nil {
		if err := ix.addSegment(opt.Dir, cat, newID, w); err != nil {
			return nil, nil, err
		}
	}
	return cat, problems, nil
}

// mayHold says whether a session whose tokens are these is a candidate a
// query over the index would check (index.query): for every term, some
// token holds its key token. The others cannot match, and checking them
// would mean normalizing all their text during a first build.
func mayHold(tokens []string, q Query) bool {
	for _, t := range q.Terms {
		if t.key == "" {
			continue
		}
		held := false
		for _, tok := range tokens {
			if strings.Contains(tok, t.key) {
				held = true
				break
			}
		}
		if !held {
			return false
		}
	}
	return true
}

// addSegment finishes w as segment id and names it in cat.
func (ix *index) addSegment(dir string, cat *catalog, id uint64, w *segWriter) error {
	size, crc, err := w.finish()
	if err != nil {
		return err
	}
	seg, err := openSegment(filepath.Join(dir, segName(id)), size, crc)
	if err != nil {
		return err
	}
	ix.segs[id] = seg
	cat.NextSeg = id + 1
	cat.Segs = append(cat.Segs, segInfo{ID: id, Size: size, CRC: crc, Recs: seg.nrec})
	return nil
}

// foldIfFragmented keeps in cat the old segments that still hold live
// records, and folds segments into one when most records are dead (all of
// them) or there are too many (all but the largest, the last full build
// usually, which costs only the small ones' records).
func (ix *index) foldIfFragmented(ctx context.Context, opt Options, cat *catalog) error {
	live := map[uint64]int{}
	for _, e := range cat.Entries {
		live[e.Seg]++
	}
	total, alive := 0, 0
	for _, s := range cat.Segs { // the new segment, if any
		total += s.Recs
		alive += live[s.ID]
	}
	for _, s := range ix.cat.Segs {
		if live[s.ID] > 0 {
			cat.Segs = append(cat.Segs, s)
			total += s.Recs
			alive += live[s.ID]
		}
	}
	if fold := foldSet(cat.Segs, total > 2*alive); fold != nil {
		return ix.compact(ctx, opt, cat, fold)
	}
	return nil
}

// commit makes cat the catalog and removes the segments it no longer names.
func (ix *index) commit(cat *catalog) error {
	fsutil.RemoveStaleTemps(ix.catalogPath(), time.Minute)
	if err := fsutil.WriteAtomic(ix.catalogPath(), encodeCatalog(cat), fsutil.FilePerm); err != nil {
		return err
	}
	keep := map[string]bool{"catalog": true, "lock": true}
	for _, s := range cat.Segs {
		keep[segName(s.ID)] = true
	}
	ents, _ := fsutil.ReadDir(ix.dir)
	for _, e := range ents {
		name := e.Name()
		if keep[name] {
			continue
		}
		if strings.HasPrefix(name, "seg-") {
			os.Remove(filepath.Join(ix.dir, name))
		} else if strings.HasPrefix(name, ".seg-") {
			// Left by a search that was killed mid-write; it held the lock
			// then, and this one holds it now.
			os.Remove(filepath.Join(ix.dir, name))
		}
	}
	for id, s := range ix.segs {
		if !keep[segName(id)] {
			s.unmap()
			delete(ix.segs, id)
		}
	}
	ix.cat = cat
	return nil
}

// foldSet says which segments to fold into one, or nil for none.
func foldSet(segs []segInfo, mostlyDead bool) map[uint64]bool {
	if !mostlyDead && len(segs) <= maxSegments {
		return nil
	}
	fold := map[uint64]bool{}
	largest := 0
	for i, s := range segs {
		fold[s.ID] = true
		if s.Recs > segs[largest].Recs {
			largest = i
		}
	}
	if !mostlyDead {
		delete(fold, segs[largest].ID)
	}
	return fold
}

// compact rewrites the live records of the segments in fold into one.
func (ix *index) compact(ctx context.Context, opt Options, cat *catalog, fold map[uint64]bool) error {
	id := cat.NextSeg
	w, err := newSegWriter(filepath.Join(opt.Dir, segName(id)), opt.OnExit)
	if err != nil {
		return err
	}
	var moved []int // entries whose records move
	for i := range cat.Entries {
		if fold[cat.Entries[i].Seg] {
			moved = append(moved, i)
		}
	}
	type out struct {
		msgs   []harness.Message
		tokens []string
		err    error
	}
	sets := sync.Pool{New: func() any { return new(tokenSet) }}
	err = parallel.Ordered(ctx, len(moved), workers(opt), 2*workers(opt), func(k int) out {
		e := &cat.Entries[moved[k]]
		msgs, _, err := ix.segs[e.Seg].record(e.Rec, nil)
		if err != nil {
			return out{err: err}
		}
		set := sets.Get().(*tokenSet)
		defer sets.Put(set)
		return out{msgs: msgs, tokens: tokensOf(msgs, set)}
	}, func(k int, o out) error {
		if o.err != nil {
			return o.err
		}
		e := &cat.Entries[moved[k]]
		e.Seg, e.Rec = id, int(w.add(o.msgs, o.tokens))
		return nil
	})
	if err != nil {
		w.abandon()
		return err
	}
	var kept []segInfo
	for _, s := range cat.Segs {
		if !fold[s.ID] {
			kept = append(kept, s)
		}
	}
	cat.Segs = kept
	return ix.addSegment(opt.Dir, cat, id, w)
}

func workers(opt Options) int {
	if opt.Workers > 0 {
		return opt.Workers
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// readScratch is one worker's reusable buffers.
type readScratch struct {
	sc  *jsonl.Scanner
	set *tokenSet
}

// read brings one transcript's record up to date.
func (ix *index) read(h harness.Harness, rs *readScratch, j *job) jobResult {
	f, err := fsutil.OpenRegular(j.f.path)
	if err != nil {
		return jobResult{j: j, err: err}
	}
	defer f.Close()
	var base []harness.Message
	var from, lastAt int64
	if j.old != nil && fresh.Decide(&j.old.Stamp, j.f.File, f) == fresh.Appended {
		seg := ix.segs[j.old.Seg]
		if seg == nil {
			return jobResult{j: j, err: damaged("an entry names a segment that is not open")}
		}
		msgs, _, err := seg.record(j.old.Rec, nil)
		if err != nil {
			return jobResult{j: j, err: err}
		}
		base, from, lastAt = msgs, j.old.Offset, j.old.LastAt
	}
	r, err := h.Text(rs.sc, f, from, j.f.Size, lastAt, base)
	if err != nil {
		return jobResult{j: j, err: err}
	}
	stamp, err := fresh.Take(j.f.File, r.Offset, f, rs.sc.Spare())
	if err != nil {
		return jobResult{j: j, err: err}
	}
	e := entry{Path: j.f.path, Stamp: stamp, LastAt: r.LastAt, Version: j.version}
	if from > 0 && len(r.Msgs) == 0 {
		e.Seg, e.Rec = j.old.Seg, j.old.Rec
		return jobResult{j: j, e: e, same: true}
	}
	msgs := r.Msgs
	if len(base) > 0 {
		msgs = append(append(make([]harness.Message, 0, len(base)+len(r.Msgs)), base...), r.Msgs...)
	}
	return jobResult{j: j, msgs: msgs, tokens: tokensOf(msgs, rs.set), e: e}
}

// walk lists the session files the harness's walk finds.
func walk(ctx context.Context, h harness.Harness) ([]fileRef, []error, error) {
	hf, problems, err := h.Walk(ctx)
	// Newest first, as the listing orders them: a build reads (and
	// Options.Early hears of) the sessions a person wants first first.
	harness.SortNewestFirst(hf)
	files := make([]fileRef, len(hf))
	for k := range hf {
		files[k] = fileRef{path: hf[k].Path(), File: hf[k].File}
	}
	return files, problems, err
}

// lockIndex takes the index's lock, waiting for another search.
func lockIndex(opt Options) (*fsutil.Lock, error) {
	if err := fsutil.MkdirPrivate(opt.Dir); err != nil {
		return nil, err
	}
	wait := opt.LockWait
	if wait == 0 {
		wait = time.Minute
	}
	l, err := fsutil.LockWait(filepath.Join(opt.Dir, "lock"), wait)
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("another search has held the index lock for %s", wait)
	}
	return l, err
}

// Update brings the index up to date without a query, building it when
// there is none: what archive runs before it moves sessions, so their text
// is in the index that keeps their entries while they are away.
func Update(ctx context.Context, opt Options) error {
	lock, err := lockIndex(opt)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	var st Stats
	opt.Early = nil // no query: nothing to hear of
	ix, _, err := update(ctx, opt, Query{}, &st)
	if err != nil {
		return err
	}
	ix.close()
	return nil
}

// Forget drops the entries of paths, so that the next search reads those
// files again from the start: for a change their text depends on that
// their own stamps do not show (a Codex thread's name lives in
// session_index.jsonl, not in its rollout). Their records stay in their
// segments as dead ones, for a later fold. An index that is not there, or
// of another version (the next search rebuilds it), has nothing to drop.
func Forget(opt Options, paths []string) error {
	if _, err := os.Stat(opt.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	lock, err := lockIndex(opt)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	path := filepath.Join(opt.Dir, "catalog")
	cat, err := loadCatalog(path)
	if errors.Is(err, errOldFormat) {
		return nil
	}
	if err != nil {
		return err
	}
	drop := make(map[string]bool, len(paths))
	for _, p := range paths {
		drop[p] = true
	}
	kept := cat.Entries[:0]
	for _, e := range cat.Entries {
		if !drop[e.Path] {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(cat.Entries) {
		return nil
	}
	cat.Entries = kept
	return fsutil.WriteAtomic(path, encodeCatalog(cat), fsutil.FilePerm)
}
