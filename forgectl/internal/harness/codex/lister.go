package codex

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/parallel"
)

// Subagent is the relation of a subagent thread to the thread that
// spawned it.
const Subagent = "subagent"

// lister is one listing of Codex's threads (see harness.Lister and
// harness.Grouper).
type lister struct {
	h       *Harness
	joined  *joined // session_index.jsonl's names and history.jsonl's times
	live    map[string]holder
	threads map[string]bool  // every thread id the listing has, made by Group
	now     time.Time        // whether a prompt cache is warm is judged at it
	folders folders          // where legacy forks' parents are looked for
	heads   map[string]*head // by path: the first lines Group decoded
}

// Open starts a listing.
func (h *Harness) Open(o harness.OpenOptions) harness.Lister { return &lister{h: h, now: o.Now} }

// Join reads the write locks.
func (l *lister) Join() []error {
	var problems []error
	var err error
	if l.live, err = l.h.holders(); err != nil {
		problems = append(problems, err)
	}
	return problems
}

// ReadAux brings the thread names and the prompt history up to date (see
// history.go).
func (l *lister) ReadAux(stored harness.Aux) (bool, error) {
	var changed bool
	var problems []error
	l.joined, changed, problems = readJoined(l.h.paths, stored)
	return changed, errors.Join(problems...)
}

// WriteAux writes them.
func (l *lister) WriteAux(w harness.AuxWriter, _ []harness.File) ([]byte, error) {
	return l.joined.write(w)
}

func (l *lister) Begin([]harness.File) {}

// Row is RowGroup for a thread of one segment (the engine calls RowGroup;
// this is the Lister's contract).
func (l *lister) Row(sc *jsonl.Scanner, f *harness.File, path string, old harness.Stored) harness.Row {
	return l.RowGroup(sc, []*harness.File{f}, []string{path}, []harness.Stored{old})[0]
}

// Group gathers segments into threads by the id their session_meta names:
// the stored record's while the file keeps its inode and has not shrunk
// (Codex only appends), else the file's first line. Files come newest
// first, so each thread's segments do too, and the thread sorts by its
// newest segment.
func (l *lister) Group(files []harness.File, stored func(int) harness.Stored) [][]int {
	ids := make([]string, len(files))
	heads := make([]*head, len(files))
	parallel.For(context.Background(), len(files), max(2, runtime.GOMAXPROCS(0)), 16, func(k int) {
		if old := stored(k); old.OK && old.Ino == files[k].Ino && old.Size <= files[k].Size {
			if id, ok := storedID(old.Payload); ok {
				ids[k] = id
				return
			}
		}
		heads[k], _ = l.h.readHead(files[k].Path())
		if heads[k] != nil {
			ids[k] = heads[k].seg.ID
		}
	})
	l.heads = map[string]*head{}
	for k, hd := range heads {
		if hd != nil {
			l.heads[files[k].Path()] = hd
		}
	}
	at := map[string]int{}
	var groups [][]int
	l.threads = make(map[string]bool, len(files))
	for k, id := range ids {
		if id == "" {
			groups = append(groups, []int{k}) // its row says why it is left out
			continue
		}
		l.threads[id] = true
		if g, ok := at[id]; ok {
			groups[g] = append(groups[g], k)
			continue
		}
		at[id] = len(groups)
		groups = append(groups, []int{k})
	}
	return groups
}

// head is what a segment's first line, its session_meta, decoded to when
// Group read it, kept for the row's read of the whole file so that the
// 22 KB line is decoded once. The row's read takes it only for a first
// line of the same length and checksum: a file rewritten in between is
// decoded again.
type head struct {
	seg segment // meta of the line on a new segment
	n   int
	sum uint32
	ms  int64      // the line's timestamp, Unix ms (0 for none)
	end int64      // where the second line starts, in a plain file
	of  fresh.File // the file read, as its descriptor said
}

// matches says line is the line the head was decoded from.
func (hd *head) matches(line []byte) bool {
	return hd != nil && len(line) == hd.n && binrec.CRC(line) == hd.sum
}

// unchangedIn says the file opened now, as its descriptor says, is the
// one the head was read from, unchanged since.
func (hd *head) unchangedIn(opened fresh.File) bool {
	return hd != nil && hd.end > 0 && hd.of == opened
}

// readHead reads a segment's first line for its thread id.
func (h *Harness) readHead(path string) (*head, error) {
	_, r, done, opened, err := h.openSegment(path)
	if err != nil {
		return nil, err
	}
	defer done()
	br, _ := h.heads.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReaderSize(r, 32<<10)
	} else {
		br.Reset(r)
	}
	defer func() { br.Reset(nil); h.heads.Put(br) }() // line is read before it goes back
	line, err := br.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) {
		var more []byte
		more, err = br.ReadSlice('\n')
		line = append(append([]byte(nil), line...), more...)
		if len(line) > jsonl.DefaultMaxLine {
			return nil, fmt.Errorf("%s: first line over %d bytes", path, jsonl.DefaultMaxLine)
		}
	}
	if err != nil {
		return nil, err // no complete first line yet: being written
	}
	hd := &head{of: opened}
	if !compressed(path) {
		hd.end = int64(len(line))
	}
	line = line[:len(line)-1] // as the row's read sees it
	hd.n, hd.sum = len(line), binrec.CRC(line)
	typ, ts, _ := envelope(line)
	hd.ms = millis(ts)
	if typ == "session_meta" {
		hd.seg.meta(line)
	}
	if hd.seg.ID == "" {
		return nil, fmt.Errorf("%s: the first line is not a session_meta with an id", path)
	}
	return hd, nil
}

// RowGroup reads a thread's segments (newest first) and makes its row.
func (l *lister) RowGroup(sc *jsonl.Scanner, files []*harness.File, paths []string, old []harness.Stored) []harness.Row {
	rows := make([]harness.Row, len(files))
	segs := make([]*segment, 0, len(files))
	var segFiles []*harness.File
	var segPaths []string
	for k, f := range files {
		var prev *segment
		if old[k].OK {
			prev, _ = decodeSegment(old[k].File, old[k].Payload) // one that does not decode is read again
		}
		g, scanned, err := l.h.readSegment(sc, paths[k], f.File, prev, l.heads[paths[k]], l.openParent)
		rows[k].Scanned = scanned
		if err != nil {
			rows[k].Problem = err
			continue
		}
		if g == prev {
			rows[k].Keep = true
		} else {
			rows[k].Record = g
		}
		if g.ID == "" {
			rows[k].Problem = fmt.Errorf("%s: no session_meta", paths[k])
			continue
		}
		segs, segFiles, segPaths = append(segs, g), append(segFiles, f), append(segPaths, paths[k])
	}
	if len(segs) == 0 {
		return rows
	}
	s := l.h.thread(segs, segFiles, segPaths)
	l.join(&s)
	rows[0].Session = &s
	return rows
}

// openParent is Harness.openParent with the listing's folder names.
func (l *lister) openParent(id, created string) *parentFile {
	return l.h.openRollout(l.h.findRollout(id, created, l.folders.get))
}

// join fills in what the thread's files do not say.
func (l *lister) join(s *harness.Session) {
	if n, ok := l.joined.names.get(s.ID); ok {
		s.Name, s.NameSource = n, "session-index"
	}
	if p, ok := l.joined.history.get(s.ID); ok {
		if at, ok := decodeTs(p); ok {
			s.LastPromptAt = time.Unix(at, 0).UTC()
		}
	}
	if hd, ok := l.live[s.ID]; ok {
		s.Live, s.Pid, s.LiveHolder = true, hd.pid, hd.kind(s)
	}
	if s.ParentID != "" {
		s.ParentExists = l.threads[s.ParentID]
	}
	s.CacheExpired = s.CacheWarmUntil.IsZero() || !l.now.Before(s.CacheWarmUntil)
}

// thread makes a thread's row from its segments, newest first: the newest
// is the live one (its cwd, branch, version, last prompt), the one created
// first gives the creation, the first prompt and what kind of thread it
// is.
func (h *Harness) thread(segs []*segment, files []*harness.File, paths []string) harness.Session {
	newest := segs[0]
	// By creation (session_meta.timestamp, one format, so the strings
	// order as the times do); of two made at once, the one that does not
	// continue the thread (a rewind's history_base names the thread
	// itself) came first.
	byCreation := slices.Clone(segs)
	slices.SortStableFunc(byCreation, func(a, b *segment) int {
		if c := strings.Compare(a.Created, b.Created); c != 0 {
			return c
		}
		return cmpBool(a.BaseThread == a.ID, b.BaseThread == b.ID)
	})
	origin := byCreation[0]
	s := harness.Session{
		ID:           newest.ID,
		Cwd:          firstOf(newest.Cwd, origin.Cwd),
		Branch:       firstOf(newest.Branch, origin.Branch),
		Version:      newest.Version,
		Entrypoint:   origin.Originator,
		LastActivity: time.Unix(0, files[0].MtimeNs).UTC(),
		Transcript:   paths[0],
	}
	if len(paths) > 1 {
		s.Segments = paths
	}
	// The first prompt from the first segment that has one, the last from
	// the newest.
	for _, g := range byCreation {
		if s.FirstPrompt = g.First; s.FirstPrompt != "" {
			break
		}
	}
	for _, g := range segs {
		if s.LastPrompt = g.Last; s.LastPrompt != "" {
			break
		}
	}
	if s.FirstPrompt == "" {
		for _, g := range byCreation {
			if s.FirstPrompt = g.FallbackFirst; s.FirstPrompt != "" {
				break
			}
		}
		for _, g := range segs {
			if s.LastPrompt = g.FallbackLast; s.LastPrompt != "" {
				break
			}
		}
	}
	if s.LastPrompt == "" {
		s.LastPrompt = s.FirstPrompt
	}
	// The cost of a resume from the newest segment a response was metered
	// in.
	for _, g := range segs {
		if g.UsageMs != 0 {
			s.ContextTokens, s.TokensUsed, s.Model = g.ContextTokens, g.Tokens, g.Model
			s.LastReplyAt = time.UnixMilli(g.UsageMs).UTC()
			s.CacheWarmUntil = s.LastReplyAt.Add(cacheTTL)
			break
		}
	}
	for k, g := range segs {
		s.Size += files[k].Size
		s.Messages += g.Messages
		s.BrokenLines += g.Broken
		if s.Name == "" && g.NameEvent != "" {
			s.Name, s.NameSource = g.NameEvent, "thread-name-event"
		}
	}
	switch {
	case origin.Parent != "" || origin.Source == "subagent" || origin.ThreadSource == "subagent":
		s.ParentID, s.Relation = origin.Parent, Subagent
	case origin.ForkedFrom != "" && origin.ForkedFrom != origin.ID:
		s.ParentID, s.Relation = origin.ForkedFrom, lineage.Fork
	}
	switch {
	case h.archived(paths[0]):
		s.Hidden, s.HiddenReason = true, "archived"
	case s.Relation == Subagent:
		s.Hidden, s.HiddenReason = true, "subagent"
	case origin.Originator == "codex_exec" || origin.Source == "exec":
		s.Hidden, s.HiddenReason = true, "print-mode"
	}
	return s
}

func (h *Harness) archived(path string) bool {
	return filepath.Dir(path) == h.archivedDir
}

// cacheTTL is how long after a thread's newest response forgectl takes
// its prompt cache to stay warm. Codex asks for no cache retention (its
// requests carry a prompt_cache_key, the thread's id, and no
// prompt_cache_retention), so OpenAI's default in-memory caching holds:
// its documentation gives "5 to 10 minutes of inactivity, up to one hour"
// and no rule forgectl could cite for one thread. forgectl takes the low
// end, as for Claude Code's 5-minute cache: a resume past it is called
// cold (docs/codex.md).
const cacheTTL = 5 * time.Minute

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Indexed makes a row from one segment's stored record alone, for shell
// completion: a rewind's later segments are left out, so a thread is
// offered once, as its first segment says.
func (h *Harness) Indexed(f *harness.File, path string, stored harness.Stored) (harness.Session, bool) {
	g, err := decodeSegment(stored.File, stored.Payload)
	if err != nil || g.ID == "" || g.BaseThread == g.ID {
		return harness.Session{}, false
	}
	s := h.thread([]*segment{g}, []*harness.File{f}, []string{path})
	// Names live beside the rollouts; the small index file is read once.
	if n := h.indexNames()[s.ID]; n != "" {
		s.Name, s.NameSource = n, "session-index"
	}
	return s, true
}

// Refresh brings liveness up to date before a resume, and reports a
// thread whose newest segment is gone.
func (h *Harness) Refresh(s *harness.Session) (gone bool) {
	if _, err := os.Stat(s.Transcript); errors.Is(err, os.ErrNotExist) {
		return true
	}
	live, _ := h.holders()
	s.Live, s.Pid, s.LiveHolder = false, 0, ""
	if hd, ok := live[s.ID]; ok {
		s.Live, s.Pid, s.LiveHolder = true, hd.pid, hd.kind(s)
	}
	return false
}

// readNames reads session_index.jsonl whole, for search and completion,
// which do not go through the listing's aux section.
func readNames(path string) (map[string]string, error) {
	names := map[string]string{}
	fh, err := fsutil.OpenRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return names, nil
		}
		return names, err
	}
	defer fh.Close()
	_, err = (&folded{rule: namesRule, path: path}).read(fh, 0, names)
	return names, err
}
