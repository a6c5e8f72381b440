package sessions

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"forgectl.dev/shared/fsutil"
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
const indexFormat = 3<<16 | transcript.ParserVersion

type indexEntry struct {
	Ino     uint64
	Size    int64
	MtimeNs int64
	Sum     transcript.Summary
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

// encoder appends to one byte slice; the whole index is written at once.
type encoder struct{ b []byte }

func (e *encoder) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) i(v int64)  { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) s(v string) { e.u(uint64(len(v))); e.b = append(e.b, v...) }
func (e *encoder) b1(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func summaryStrings(s *transcript.Summary) []*string {
	return []*string{&s.SessionID, &s.Cwd, &s.LastCwd, &s.Relocated, &s.GitBranch, &s.Version,
		&s.Entrypoint, &s.TeamName, &s.FirstPrompt, &s.LastPrompt, &s.LastHuman, &s.CustomTitle, &s.AgentName,
		&s.AITitle, &s.SummaryText, &s.ContinuedIn}
}

func summaryInts(s *transcript.Summary) []*int64 {
	return []*int64{&s.Offset, &s.LastUserOff, &s.LastUserLen}
}

func saveIndex(path string, ix index, tix taskIndex, hist *historyIndex) error {
	e := encoder{b: make([]byte, 0, 600*len(ix)+64*len(tix)+64)}
	e.b = append(e.b, indexMagic...)
	e.u(indexFormat)
	e.u(uint64(len(ix)))
	for p, ent := range ix {
		e.s(p)
		e.u(ent.Ino)
		e.i(ent.Size)
		e.i(ent.MtimeNs)
		for _, f := range summaryStrings(&ent.Sum) {
			e.s(*f)
		}
		for _, f := range summaryInts(&ent.Sum) {
			e.i(*f)
		}
		e.i(int64(ent.Sum.Messages))
		e.i(int64(ent.Sum.BrokenLines))
		e.b1(ent.Sum.Sidechain)
	}
	e.u(uint64(len(tix)))
	for dir, te := range tix {
		e.s(dir)
		e.u(uint64(len(te.Files)))
		for _, f := range te.Files {
			e.s(f.Name)
			e.i(f.Size)
			e.i(f.MtimeNs)
		}
		for _, n := range []int{te.Counts.Pending, te.Counts.InProgress, te.Counts.Completed, te.Counts.Total} {
			e.i(int64(n))
		}
	}
	e.u(hist.Ino)
	e.i(hist.Size)
	e.i(hist.Offset)
	e.u(uint64(len(hist.Sessions)))
	for id, h := range hist.Sessions {
		e.s(id)
		e.i(h.LastAtMs)
		e.s(h.Last)
	}
	return fsutil.WriteAtomic(path, e.b, fsutil.FilePerm)
}

// decoder reads from one string holding the whole file, so every decoded
// string is a substring sharing its memory: loading 10,000 summaries then
// costs one allocation for the text instead of one per field.
type decoder struct {
	b   string
	err error
}

var errCorrupt = errors.New("corrupt index")

func (d *decoder) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}
func (d *decoder) i() int64 {
	if d.err != nil {
		return 0
	}
	ux, n := uvarint(d.b)
	v := int64(ux >> 1)
	if ux&1 != 0 {
		v = ^v
	}
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}
func (d *decoder) s() string {
	n := d.u()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCorrupt
		return ""
	}
	v := string(d.b[:n])
	d.b = d.b[n:]
	return v
}
func (d *decoder) bool() bool {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCorrupt
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
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
	d := decoder{b: string(b[len(indexMagic):])}
	if d.u() != indexFormat {
		return nil, nil, nil, nil // another parser version: rebuild silently
	}
	n := d.u()
	if d.err != nil || n > uint64(len(b)) {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, errCorrupt)
	}
	ix := make(index, n)
	for range n {
		p := d.s()
		ent := &indexEntry{Ino: d.u(), Size: d.i(), MtimeNs: d.i()}
		for _, f := range summaryStrings(&ent.Sum) {
			*f = d.s()
		}
		for _, f := range summaryInts(&ent.Sum) {
			*f = d.i()
		}
		ent.Sum.Messages = int(d.i())
		ent.Sum.BrokenLines = int(d.i())
		ent.Sum.Sidechain = d.bool()
		if d.err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, d.err)
		}
		ix[p] = ent
	}
	nt := d.u()
	if d.err != nil || nt > uint64(len(b)) {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, errCorrupt)
	}
	tix := make(taskIndex, nt)
	for range nt {
		dir := d.s()
		nf := d.u()
		if d.err != nil || nf > uint64(len(b)) {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, errCorrupt)
		}
		te := &taskEntry{Files: make([]taskFile, nf)}
		for k := range te.Files {
			te.Files[k] = taskFile{Name: d.s(), Size: d.i(), MtimeNs: d.i()}
		}
		te.Counts = tasks.Counts{Pending: int(d.i()), InProgress: int(d.i()), Completed: int(d.i()), Total: int(d.i())}
		if d.err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, d.err)
		}
		tix[dir] = te
	}
	hist := &historyIndex{Ino: d.u(), Size: d.i(), Offset: d.i()}
	nh := d.u()
	if d.err != nil || nh > uint64(len(b)) {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, errCorrupt)
	}
	hist.Sessions = make(map[string]histEntry, nh)
	for range nh {
		id := d.s()
		hist.Sessions[id] = histEntry{LastAtMs: d.i(), Last: d.s()}
	}
	if d.err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, d.err)
	}
	if len(d.b) != 0 {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, io.ErrUnexpectedEOF)
	}
	return ix, tix, hist, nil
}

// uvarint is binary.Uvarint for a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -(i + 1)
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
