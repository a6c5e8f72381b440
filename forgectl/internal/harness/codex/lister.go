package codex

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

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
	threads map[string]bool   // every thread id the listing has, made by Group
	now     time.Time         // whether a prompt cache is warm is judged at it
	folders folders           // where legacy forks' parents are looked for
	heads   map[string]string // by path: the thread ids Group read first lines for
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
	read := make([]bool, len(files))
	parallel.For(context.Background(), len(files), max(2, runtime.GOMAXPROCS(0)), 16, func(k int) {
		if old := stored(k); old.OK && old.Ino == files[k].Ino && old.Size <= files[k].Size {
			if id, ok := storedID(old.Payload); ok {
				ids[k] = id
				return
			}
		}
		ids[k], _ = l.h.readHead(files[k].Path())
		read[k] = ids[k] != ""
	})
	l.heads = map[string]string{}
	for k, id := range ids {
		if read[k] {
			l.heads[files[k].Path()] = id
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

// headPrefix is how much of a segment Group reads for its thread id.
// Codex writes the id among session_meta's first members, a few hundred
// bytes in; the rest of the 22 KB line (the instructions) is read once,
// by the row's read of the whole file.
const headPrefix = 2 << 10

// readHead reads the thread id a segment's first line names
// (session_meta.payload.id), from the line's first headPrefix bytes when
// they hold it, else from the whole line. The row's read decodes the line
// whole and checks the id (RowGroup): a line whose later bytes say
// otherwise (a second "id") is caught there.
func (h *Harness) readHead(path string) (string, error) {
	_, r, done, err := h.openSegment(path)
	if err != nil {
		return "", err
	}
	defer done()
	bp, _ := h.heads.Get().(*[headPrefix]byte)
	if bp == nil {
		bp = new([headPrefix]byte)
	}
	defer h.heads.Put(bp)
	n, err := io.ReadFull(r, bp[:])
	if err != nil && err != io.ErrUnexpectedEOF {
		return "", err
	}
	prefix := bp[:n]
	whole := false
	if i := bytes.IndexByte(prefix, '\n'); i >= 0 {
		prefix, whole = prefix[:i], true
	}
	if id, ok := prefixID(prefix); ok {
		return id, nil
	}
	if !whole && n == headPrefix {
		return h.readWholeHead(path)
	}
	return "", fmt.Errorf("%s: the first line is not a session_meta with an id", path)
}

// readWholeHead is readHead for a first line whose id is not in its
// first bytes.
func (h *Harness) readWholeHead(path string) (string, error) {
	_, r, done, err := h.openSegment(path)
	if err != nil {
		return "", err
	}
	defer done()
	br := bufio.NewReaderSize(r, 32<<10)
	line, err := br.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) {
		var more []byte
		more, err = br.ReadSlice('\n')
		line = append(append([]byte(nil), line...), more...)
		if len(line) > jsonl.DefaultMaxLine {
			return "", fmt.Errorf("%s: first line over %d bytes", path, jsonl.DefaultMaxLine)
		}
	}
	if err != nil {
		return "", err // no complete first line yet: being written
	}
	line = line[:len(line)-1]
	if typ, _, _ := envelope(line); typ == "session_meta" {
		if m, ok := decodeMeta(line); ok && m.ID != "" {
			return m.ID, nil
		}
	}
	return "", fmt.Errorf("%s: the first line is not a session_meta with an id", path)
}

// prefixID finds session_meta.payload.id in b, the start of a first
// line (it may be cut anywhere), member by member as decodeMeta does:
// the top-level type must say session_meta before the payload comes, and
// only the payload's own "id" counts. ok is false when b ends first.
func prefixID(b []byte) (id string, ok bool) {
	var typ string
	walk := func(v int, fn func(key []byte, v int) (int, bool)) {
		if v < len(b) && b[v] == '{' {
			jsonl.Members(b, v, fn)
		}
	}
	walk(jsonl.SkipSpace(b, 0), func(key []byte, v int) (int, bool) {
		switch member(key, []string{"type", "payload"}) {
		case 0:
			s, rest, sok := jsonl.String(b[v:])
			if !sok {
				return v, false
			}
			typ = s
			return len(b) - len(rest), true
		case 1:
			if typ != "session_meta" {
				return v, false
			}
			walk(v, func(key []byte, v int) (int, bool) {
				if member(key, metaKeys) != 0 {
					return jsonl.Skip(b, v)
				}
				s, _, sok := jsonl.String(b[v:])
				id, ok = s, sok && s != ""
				return v, false // found, or not a string: either way, done
			})
			return v, false
		}
		return jsonl.Skip(b, v)
	})
	return id, ok
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
		g, scanned, err := l.h.readSegment(sc, paths[k], f.File, prev, l.openParent)
		rows[k].Scanned = scanned
		if err != nil {
			rows[k].Problem = err
			continue
		}
		if want, ok := l.heads[paths[k]]; ok && g.ID != "" && g.ID != want {
			// Grouped by the id the line's first bytes named; the whole
			// line names another. Left out of this thread, and recorded
			// as it is: the next listing groups it by its record.
			rows[k].Record = g
			rows[k].Problem = fmt.Errorf("%s: its first line names thread %s past its first bytes, not %s", paths[k], g.ID, want)
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
