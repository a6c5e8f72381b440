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
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
)

// Options says where the transcripts and the index are.
type Options struct {
	// Projects is Claude Code's projects directory.
	Projects string
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
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
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
	f   fileRef
	old *entry // nil: no record
}

type jobResult struct {
	j      *job
	msgs   []Message
	tokens []string
	e      entry
	same   bool // appended nothing searchable: the old record stays
	err    error
}

// update brings the index in line with the transcripts on disk.
func update(opt Options, st *Stats) (*index, []error, error) {
	ix, err := open(opt.Dir)
	if errors.Is(err, errOldFormat) {
		if err := wipe(opt.Dir); err != nil {
			return nil, nil, err
		}
		st.Rebuilt = "it was written by another version"
		ix, err = open(opt.Dir)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(ix.cat.Segs) == 0 && st.Rebuilt == "" {
		st.Rebuilt = "there was none"
	}
	files, problems, err := walk(opt.Projects)
	if err != nil {
		ix.close()
		return nil, nil, err
	}
	old := make(map[string]*entry, len(ix.cat.Entries))
	for i := range ix.cat.Entries {
		old[ix.cat.Entries[i].Path] = &ix.cat.Entries[i]
	}
	next := make([]entry, 0, len(files))
	var jobs []*job
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.path] = true
		if e := old[f.path]; e != nil && e.Same(f.File) {
			next = append(next, *e)
		} else {
			jobs = append(jobs, &job{f: f, old: e})
		}
	}
	for p := range old {
		if !seen[p] {
			st.Removed++
		}
	}
	st.Reused = len(next)
	if len(jobs) == 0 && st.Removed == 0 {
		return ix, problems, nil
	}
	// Write the sessions that changed into a new segment as they are read,
	// so that a first build never holds more than a few sessions' text.
	var w *segWriter
	newID := ix.cat.NextSeg
	err = ix.run(opt, jobs, func(r *jobResult) error {
		if r.err != nil {
			// Unreadable now (gone, permissions): left out of the index
			// so the next search reads it again.
			if !errors.Is(r.err, fs.ErrNotExist) {
				problems = append(problems, r.err)
			}
			return nil
		}
		st.Read++
		if r.same {
			next = append(next, r.e)
			return nil
		}
		if w == nil {
			var err error
			if w, err = newSegWriter(opt.Dir, opt.OnExit); err != nil {
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
		ix.close()
		return nil, nil, err
	}
	cat := &catalog{NextSeg: ix.cat.NextSeg, Entries: next}
	if w != nil {
		size, crc, err := w.finish(segName(newID))
		if err != nil {
			ix.close()
			return nil, nil, err
		}
		seg, err := openSegment(filepath.Join(opt.Dir, segName(newID)), size, crc)
		if err != nil {
			ix.close()
			return nil, nil, err
		}
		ix.segs[newID] = seg
		cat.NextSeg = newID + 1
		cat.Segs = append(cat.Segs, segInfo{ID: newID, Size: size, CRC: crc, Recs: seg.nrec})
	}
	live := map[uint64]int{}
	for _, e := range next {
		live[e.Seg]++
	}
	total, alive := 0, 0
	for _, s := range ix.cat.Segs {
		if live[s.ID] > 0 {
			cat.Segs = append(cat.Segs, s)
			total += s.Recs
			alive += live[s.ID]
		}
	}
	if w != nil {
		total += ix.segs[newID].nrec
		alive += live[newID]
	}
	// Most records dead: fold everything into one segment. Too many
	// segments: fold all but the largest (the last full build, usually),
	// which costs only the small ones' records.
	if fold := foldSet(cat.Segs, total > 2*alive); fold != nil {
		if err := ix.compact(opt, cat, fold); err != nil {
			ix.close()
			return nil, nil, err
		}
	}
	if err := ix.commit(cat); err != nil {
		ix.close()
		return nil, nil, err
	}
	return ix, problems, nil
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
		} else if strings.HasPrefix(name, ".seg.tmp-") {
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
func (ix *index) compact(opt Options, cat *catalog, fold map[uint64]bool) error {
	w, err := newSegWriter(opt.Dir, opt.OnExit)
	if err != nil {
		return err
	}
	id := cat.NextSeg
	type out struct {
		msgs   []Message
		tokens []string
		err    error
	}
	var moved []int // entries whose records move
	for i := range cat.Entries {
		if fold[cat.Entries[i].Seg] {
			moved = append(moved, i)
		}
	}
	outs := make([]chan out, len(moved))
	for i := range outs {
		outs[i] = make(chan out, 1)
	}
	sem := make(chan struct{}, 2*workers(opt))
	go func() {
		var wg sync.WaitGroup
		pool := sync.Pool{New: func() any { return map[string]struct{}{} }}
		for k, i := range moved {
			sem <- struct{}{}
			wg.Add(1)
			go func(k, i int) {
				defer wg.Done()
				e := &cat.Entries[i]
				msgs, _, err := ix.segs[e.Seg].record(e.Rec, nil)
				var toks []string
				if err == nil {
					set := pool.Get().(map[string]struct{})
					toks = tokensOf(msgs, set)
					pool.Put(set)
				}
				outs[k] <- out{msgs, toks, err}
			}(k, i)
		}
		wg.Wait()
	}()
	for k, i := range moved {
		o := <-outs[k]
		<-sem
		if o.err != nil {
			// Drain the rest so no goroutine is left blocked.
			for j := k + 1; j < len(outs); j++ {
				<-outs[j]
				<-sem
			}
			w.abandon()
			return o.err
		}
		cat.Entries[i].Seg, cat.Entries[i].Rec = id, int(w.add(o.msgs, o.tokens))
	}
	size, crc, err := w.finish(segName(id))
	if err != nil {
		return err
	}
	seg, err := openSegment(filepath.Join(opt.Dir, segName(id)), size, crc)
	if err != nil {
		return err
	}
	ix.segs[id] = seg
	cat.NextSeg = id + 1
	var kept []segInfo
	for _, s := range cat.Segs {
		if !fold[s.ID] {
			kept = append(kept, s)
		}
	}
	cat.Segs = append(kept, segInfo{ID: id, Size: size, CRC: crc, Recs: seg.nrec})
	return nil
}

func workers(opt Options) int {
	if opt.Workers > 0 {
		return opt.Workers
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// run reads the transcripts of jobs in parallel and hands each result to
// consume, on the calling goroutine, in the order they complete. The first
// error consume returns, or a damaged record, ends the run.
func (ix *index) run(opt Options, jobs []*job, consume func(*jobResult) error) error {
	n := workers(opt)
	results := make(chan *jobResult, 2*n)
	next := make(chan *job)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := jsonl.NewScanner(nil, 0)
			set := map[string]struct{}{}
			for j := range next {
				r := ix.read(sc, j, set)
				select {
				case results <- &r:
				case <-stop:
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for _, j := range jobs {
			select {
			case next <- j:
			case <-stop:
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var first error
	for r := range results {
		if first != nil {
			continue
		}
		if errors.Is(r.err, errDamaged) {
			first = r.err
		} else {
			first = consume(r)
		}
		if first != nil {
			close(stop)
		}
	}
	return first
}

// read brings one transcript's record up to date.
func (ix *index) read(sc *jsonl.Scanner, j *job, set map[string]struct{}) jobResult {
	f, err := fsutil.OpenRegular(j.f.path)
	if err != nil {
		return jobResult{j: j, err: err}
	}
	defer f.Close()
	var base []Message
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
	r, err := readFile(sc, f, from, j.f.Size, lastAt, base)
	if err != nil {
		return jobResult{j: j, err: err}
	}
	stamp, err := fresh.Take(j.f.File, r.offset, f)
	if err != nil {
		return jobResult{j: j, err: err}
	}
	e := entry{Path: j.f.path, Stamp: stamp, LastAt: r.lastAt}
	if from > 0 && len(r.msgs) == 0 {
		e.Seg, e.Rec = j.old.Seg, j.old.Rec
		return jobResult{j: j, e: e, same: true}
	}
	msgs := r.msgs
	if len(base) > 0 {
		msgs = append(append(make([]Message, 0, len(base)+len(r.msgs)), base...), r.msgs...)
	}
	return jobResult{j: j, msgs: msgs, tokens: tokensOf(msgs, set), e: e}
}

// walk lists the transcripts the listing's walk finds.
func walk(root string) ([]fileRef, []error, error) {
	ts, problems, err := sessions.Walk(context.Background(), root)
	files := make([]fileRef, len(ts))
	for k, t := range ts {
		files[k] = fileRef{path: t.Path, File: fresh.File{Ino: t.Ino, Size: t.Size, MtimeNs: t.MtimeNs}}
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
