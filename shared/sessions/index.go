package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"forgectl.dev/shared/binrec"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
)

// The index caches one transcript.Summary per transcript, keyed by path and
// validated by (inode, size, mtime). It is a cache: any doubt (a format
// change, a torn file) means it is rebuilt, never trusted.
//
// The format is a hand-rolled binary one because the warm path of a listing
// of 10,000 sessions is dominated by loading it; JSON would cost several
// times the whole stat walk.

const indexMagic = "FCTIDX"

// indexFormat changes with the encoding below and with the parser's meaning.
const indexFormat = 5<<16 | transcript.ParserVersion

type indexEntry struct {
	Ino     uint64
	Size    int64
	MtimeNs int64
	Sum     transcript.Summary
	// Side is what the session's sidecar title file said, valid while the
	// file keeps its size and mtime.
	Side sideEntry
}

// sideEntry is a sidecar custom-title.json, read; Size is -1 when there is
// none and Title "" when it names nobody.
type sideEntry struct {
	Size, MtimeNs int64
	Title, By     string
}

type index map[string]*indexEntry

// taskIndex caches the status counts of each task list directory, valid
// while its *.json files keep the same names, sizes and mtimes. Claude Code
// rewrites task files in place, so the directory's own mtime is not enough.
type taskIndex map[string]*taskEntry

type taskEntry struct {
	Files  []taskFile
	Counts tasks.Counts
}

type taskFile struct {
	Name    string
	Size    int64
	MtimeNs int64
}

func (e *taskEntry) same(files []taskFile) bool {
	if e == nil || len(e.Files) != len(files) {
		return false
	}
	for i := range files {
		if e.Files[i] != files[i] {
			return false
		}
	}
	return true
}

func summaryStrings(s *transcript.Summary) []*string {
	return []*string{&s.SessionID, &s.Cwd, &s.LastCwd, &s.Relocated, &s.GitBranch, &s.Version,
		&s.Entrypoint, &s.TeamName, &s.FirstPrompt, &s.LastPrompt, &s.LastHuman, &s.CustomTitle, &s.AgentName,
		&s.AITitle, &s.SummaryText, &s.ContinuedIn,
		&s.CopiedFrom, &s.CopiedBy, &s.ClearedAt, &s.ProcessSession}
}

func summaryInts(s *transcript.Summary) []*int64 {
	return []*int64{&s.Offset, &s.LastUserOff, &s.LastUserLen}
}

func saveIndex(path string, ix index, tix taskIndex, hist *historyIndex) error {
	e := binrec.Encoder{B: make([]byte, 0, 600*len(ix)+64*len(tix)+64)}
	e.B = append(e.B, indexMagic...)
	e.Uint(indexFormat)
	e.Uint(uint64(len(ix)))
	for p, ent := range ix {
		e.String(p)
		e.Uint(ent.Ino)
		e.Int(ent.Size)
		e.Int(ent.MtimeNs)
		for _, f := range summaryStrings(&ent.Sum) {
			e.String(*f)
		}
		for _, f := range summaryInts(&ent.Sum) {
			e.Int(*f)
		}
		e.Int(int64(ent.Sum.Messages))
		e.Int(int64(ent.Sum.BrokenLines))
		e.Bool(ent.Sum.Sidechain)
		e.Int(ent.Side.Size)
		e.Int(ent.Side.MtimeNs)
		e.String(ent.Side.Title)
		e.String(ent.Side.By)
	}
	e.Uint(uint64(len(tix)))
	for dir, te := range tix {
		e.String(dir)
		e.Uint(uint64(len(te.Files)))
		for _, f := range te.Files {
			e.String(f.Name)
			e.Int(f.Size)
			e.Int(f.MtimeNs)
		}
		for _, n := range []int{te.Counts.Pending, te.Counts.InProgress, te.Counts.Completed, te.Counts.Total} {
			e.Int(int64(n))
		}
	}
	e.Uint(hist.Ino)
	e.Int(hist.Size)
	e.Int(hist.Offset)
	e.Uint(uint64(len(hist.Sessions)))
	for id, h := range hist.Sessions {
		e.String(id)
		e.Int(h.LastAtMs)
		e.String(h.Last)
	}
	e.Uint(uint64(len(hist.Clears)))
	for _, c := range hist.Clears {
		e.String(c.SessionID)
		e.Int(c.AtMs)
	}
	// A process that exits mid-listing (a picker left during a cold scan)
	// may have been cut short mid-write.
	fsutil.RemoveStaleTemps(path, time.Minute)
	return fsutil.WriteAtomic(path, e.B, fsutil.FilePerm)
}

// loadIndex returns empty indexes for a missing, foreign or damaged file.
func loadIndex(path string) (index, taskIndex, *historyIndex, error) {
	ix, tix, hist, err := decodeIndex(path)
	if err != nil || ix == nil {
		return index{}, taskIndex{}, &historyIndex{}, err
	}
	return ix, tix, hist, nil
}

func decodeIndex(path string) (index, taskIndex, *historyIndex, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil, nil
		}
		return nil, nil, nil, err
	}
	if !bytes.HasPrefix(b, []byte(indexMagic)) {
		return nil, nil, nil, fmt.Errorf("%s: not an index", path)
	}
	d := binrec.Decoder{S: string(b[len(indexMagic):])}
	if d.Uint() != indexFormat {
		return nil, nil, nil, nil // another parser version: rebuild silently
	}
	n := d.Count()
	if d.Err() != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
	}
	ix := make(index, n)
	for range n {
		p := d.String()
		ent := &indexEntry{Ino: d.Uint(), Size: d.Int(), MtimeNs: d.Int()}
		for _, f := range summaryStrings(&ent.Sum) {
			*f = d.String()
		}
		for _, f := range summaryInts(&ent.Sum) {
			*f = d.Int()
		}
		ent.Sum.Messages = int(d.Int())
		ent.Sum.BrokenLines = int(d.Int())
		ent.Sum.Sidechain = d.Bool()
		ent.Side = sideEntry{Size: d.Int(), MtimeNs: d.Int(), Title: d.String(), By: d.String()}
		if d.Err() != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
		}
		ix[p] = ent
	}
	nt := d.Count()
	if d.Err() != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
	}
	tix := make(taskIndex, nt)
	for range nt {
		dir := d.String()
		nf := d.Count()
		if d.Err() != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
		}
		te := &taskEntry{Files: make([]taskFile, nf)}
		for k := range te.Files {
			te.Files[k] = taskFile{Name: d.String(), Size: d.Int(), MtimeNs: d.Int()}
		}
		te.Counts = tasks.Counts{Pending: int(d.Int()), InProgress: int(d.Int()), Completed: int(d.Int()), Total: int(d.Int())}
		if d.Err() != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
		}
		tix[dir] = te
	}
	hist := &historyIndex{Ino: d.Uint(), Size: d.Int(), Offset: d.Int()}
	nh := d.Count()
	if d.Err() != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
	}
	hist.Sessions = make(map[string]histEntry, nh)
	for range nh {
		id := d.String()
		hist.Sessions[id] = histEntry{LastAtMs: d.Int(), Last: d.String()}
	}
	nc := d.Count()
	if d.Err() != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
	}
	if nc > 0 {
		hist.Clears = make([]lineage.ClearEvent, nc)
		for k := range hist.Clears {
			hist.Clears[k] = lineage.ClearEvent{SessionID: d.String(), AtMs: d.Int()}
		}
	}
	if d.Err() != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, d.Err())
	}
	if d.Rest() != 0 {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, io.ErrUnexpectedEOF)
	}
	return ix, tix, hist, nil
}
