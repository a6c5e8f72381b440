package sessions

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"forgectl.dev/shared/fsutil"
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
const indexFormat = 1<<16 | transcript.ParserVersion

type indexEntry struct {
	Ino     uint64
	Size    int64
	MtimeNs int64
	Sum     transcript.Summary
}

type index map[string]*indexEntry

type encoder struct {
	w   *bufio.Writer
	buf [binary.MaxVarintLen64]byte
}

func (e *encoder) u(v uint64) {
	n := binary.PutUvarint(e.buf[:], v)
	e.w.Write(e.buf[:n])
}
func (e *encoder) i(v int64) {
	n := binary.PutVarint(e.buf[:], v)
	e.w.Write(e.buf[:n])
}
func (e *encoder) s(v string) { e.u(uint64(len(v))); e.w.WriteString(v) }
func (e *encoder) b(v bool) {
	if v {
		e.w.WriteByte(1)
	} else {
		e.w.WriteByte(0)
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

func (ix index) save(path string) error {
	var out bytes.Buffer
	e := encoder{w: bufio.NewWriter(&out)}
	e.w.WriteString(indexMagic)
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
		e.b(ent.Sum.Sidechain)
	}
	if err := e.w.Flush(); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, out.Bytes(), fsutil.FilePerm)
}

type decoder struct {
	b   []byte
	err error
}

var errCorrupt = errors.New("corrupt index")

func (d *decoder) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
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
	v, n := binary.Varint(d.b)
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

// loadIndex returns an empty index for a missing, foreign or damaged file.
func loadIndex(path string) (index, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return index{}, nil
		}
		return index{}, err
	}
	if !bytes.HasPrefix(b, []byte(indexMagic)) {
		return index{}, fmt.Errorf("%s: not an index", path)
	}
	d := decoder{b: b[len(indexMagic):]}
	if d.u() != indexFormat {
		return index{}, nil // another parser version: rebuild silently
	}
	n := d.u()
	if d.err != nil || n > uint64(len(b)) {
		return index{}, fmt.Errorf("%s: %w", path, errCorrupt)
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
			return index{}, fmt.Errorf("%s: %w", path, d.err)
		}
		ix[p] = ent
	}
	if len(d.b) != 0 {
		return index{}, fmt.Errorf("%s: %w", path, io.ErrUnexpectedEOF)
	}
	return ix, nil
}
