package sessions

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"sort"
	"strings"
	"sync/atomic"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
)

// The index caches what a listing learns of each transcript: its summary,
// its sidecar title and its task counts, keyed by path and valid while the
// file keeps its inode, size and mtime. It also folds in the prompt
// history. It is a cache: any doubt (a format change, a record whose
// checksum does not match, offsets out of bounds) means the record, or the
// file, is rebuilt, never trusted.
//
// The file is mapped, not read, and nothing is decoded up front: a listing
// looks each transcript up in a sorted table of path hashes and copies out
// and decodes just that record. So a warm listing of 100,000 sessions
// neither builds a map of them nor holds their summaries. The mapping is
// read only through storedIndex.read, and nothing decoded shares it: a
// file truncated under the listing is then an error the listing recovers
// from (see fsutil.Mapping), not a crash wherever a string of it is used.
//
//	header   "FCTIX\n" uvarint(format)
//	records  transcript records, then history records, each
//	         uvarint(len) crc32c(payload, 4 bytes LE) payload; a payload
//	         starts with its key (path, or session id)
//	tables   for each section n × (fnv64(key), offset of record) sorted
//	trailer  transcripts table offset, count; history table offset, count;
//	         history file state offset; crc32c of the tables and the
//	         trailer's fields, all 8-byte LE but the crc; "FCTEND"

const (
	indexMagic    = "FCTIX\n"
	indexEndMagic = "FCTEND"
	trailerSize   = 5*8 + 4 + len(indexEndMagic)
	tableEntry    = 16
)

// indexFormat changes with the encoding below and with the parser's meaning.
const indexFormat = 6<<16 | transcript.ParserVersion

// indexEntry is one transcript's record.
type indexEntry struct {
	fresh.File // the transcript as it was when read
	Sum        transcript.Summary
	// Sums are the checksums of the bytes before Sum.Offset that the
	// summary was built from, which fresh.Decide checks before the file is
	// read on from there.
	Sums fresh.Sums
	// Side is what the session's sidecar title file said, valid while the
	// file keeps its size and mtime.
	Side sideEntry
	// Tasks caches the counts of the session's task list; nil when the
	// listing did not count them.
	Tasks *taskEntry
}

// sideEntry is a sidecar custom-title.json, read; Size is -1 when there is
// none and Title "" when it names nobody.
type sideEntry struct {
	Size, MtimeNs int64
	Title, By     string
}

// taskEntry caches the status counts of a task list directory, valid while
// its *.json files keep the same names, sizes and mtimes. Claude Code
// rewrites task files in place, so the directory's own mtime is not enough.
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

// stamp is the entry as fresh.Decide judges it.
func (e *indexEntry) stamp() *fresh.Stamp {
	return &fresh.Stamp{File: e.File, Offset: e.Sum.Offset, Sums: e.Sums}
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

func encodeEntry(e *binrec.Encoder, path string, ent *indexEntry) {
	e.String(path)
	e.Uint(ent.Ino)
	e.Int(ent.Size)
	e.Int(ent.MtimeNs)
	e.Uint(uint64(ent.Sums.Head))
	e.Uint(uint64(ent.Sums.Tail))
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
	e.Bool(ent.Tasks != nil)
	if te := ent.Tasks; te != nil {
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
}

func decodeEntry(payload string) (string, *indexEntry, error) {
	d := binrec.Decoder{S: payload}
	path := d.String()
	ent := &indexEntry{File: fresh.File{Ino: d.Uint(), Size: d.Int(), MtimeNs: d.Int()}}
	ent.Sums = fresh.Sums{Head: uint32(d.Uint()), Tail: uint32(d.Uint())}
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
	if d.Bool() {
		n := d.Count()
		if d.Err() != nil {
			return "", nil, d.Err()
		}
		te := &taskEntry{Files: make([]taskFile, n)}
		for k := range te.Files {
			te.Files[k] = taskFile{Name: d.String(), Size: d.Int(), MtimeNs: d.Int()}
		}
		te.Counts = tasks.Counts{Pending: int(d.Int()), InProgress: int(d.Int()), Completed: int(d.Int()), Total: int(d.Int())}
		ent.Tasks = te
	}
	if d.Err() != nil {
		return "", nil, d.Err()
	}
	if d.Rest() != 0 {
		return "", nil, binrec.ErrCorrupt
	}
	if ent.Sum.Offset < 0 || ent.Sum.Offset > ent.Size {
		return "", nil, binrec.ErrCorrupt
	}
	return path, ent, nil
}

// histEntry is one session's newest prompt in the prompt history.
type histEntry struct {
	LastAtMs int64  // epoch ms of the newest prompt
	Last     string // its display text, one line
}

// histFile is how far the prompt history was read, and its /clear lines
// (few), which tell a /clear continuation which session it continued
// (see lineage.Decide).
type histFile struct {
	fresh.Stamp
	Clears []lineage.ClearEvent
}

func keyHash(k string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k))
	return h.Sum64()
}

// storedIndex is a mapped index file. Its zero value is an empty index.
type storedIndex struct {
	path string
	m    *fsutil.Mapping
	// data and the two tables share the mapping: read them only inside
	// read.
	data          string
	files, hist   string
	nFiles, nHist int
	histState     histFile
	shrunk        atomic.Bool // the file was truncated under the listing
}

// errShrunk is the index truncated while the listing read it.
var errShrunk = errors.New("the listing's index shrank while it was read (another program truncated it); this listing read the transcripts instead, and the next one rebuilds the index")

// read runs fn, which may read the mapping, and returns an error when the
// file shrank under it (fn then stopped where it was). After that every
// read fails at once: what is left of the file is not the index the
// listing opened. fn runs on the calling goroutine (see fsutil.Mapping).
func (ix *storedIndex) read(fn func()) error {
	if ix.m == nil {
		fn() // an empty index: nothing is mapped
		return nil
	}
	if ix.shrunk.Load() {
		return ix.failure()
	}
	if err := ix.m.Read(func(string) { fn() }); err != nil {
		ix.shrunk.Store(true)
		return ix.failure()
	}
	return nil
}

// failure is the error of an index that shrank under the listing, or nil.
func (ix *storedIndex) failure() error {
	if !ix.shrunk.Load() {
		return nil
	}
	return fmt.Errorf("%s: %w", ix.path, errShrunk)
}

// release lets the pages read so far go (see fsutil.Mapping.Release).
func (ix *storedIndex) release() {
	if ix.m != nil {
		ix.m.Release()
	}
}

// close unmaps the index; nothing decoded from it shares the mapping.
func (ix *storedIndex) close() {
	if ix.m != nil {
		ix.m.Close()
		ix.m, ix.data, ix.files, ix.hist, ix.nFiles, ix.nHist = nil, "", "", "", 0, 0
	}
}

// openIndex maps the index at path. A missing file, or one written by
// another format, is an empty index and no error; a damaged one is an
// empty index and an error saying so (the caller reports it once and the
// listing rebuilds the file).
func openIndex(path string) (*storedIndex, error) {
	if path == "" {
		return &storedIndex{}, nil
	}
	m, err := fsutil.MapFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &storedIndex{}, nil
		}
		return &storedIndex{}, err
	}
	if m.Len() > 1<<30 {
		m.Close()
		return &storedIndex{}, fmt.Errorf("%s: the listing's index is damaged (too large); it is rebuilt", path)
	}
	ix := &storedIndex{path: path, m: m}
	// The view of the mapping that parse, lookup and the rest slice; it is
	// read only inside ix.read.
	m.Read(func(data string) { ix.data = data })
	var why string
	if err := ix.read(func() { why = ix.parse() }); err != nil {
		why = "it shrank while it was read"
	}
	switch why {
	case "":
		return ix, nil
	case "another format":
		ix.close()
		return &storedIndex{}, nil // rebuilt silently
	}
	ix.close()
	return &storedIndex{}, fmt.Errorf("%s: the listing's index is damaged (%s); it is rebuilt", path, why)
}

// parse checks the mapped file and finds its tables and history state; it
// returns why it is not a usable index, or "".
func (ix *storedIndex) parse() string {
	data := ix.data
	if len(data) < len(indexMagic) || data[:len(indexMagic)] != indexMagic {
		return "not an index"
	}
	d := binrec.Decoder{S: data[len(indexMagic):]}
	if d.Uint() != indexFormat || d.Err() != nil {
		return "another format"
	}
	if len(data) < len(indexMagic)+trailerSize {
		return "too short"
	}
	t := data[len(data)-trailerSize:]
	if t[trailerSize-len(indexEndMagic):] != indexEndMagic {
		return "no trailer"
	}
	u := func(k int) uint64 { return binary.LittleEndian.Uint64([]byte(t[8*k : 8*k+8])) }
	filesOff, nFiles, histOff, nHist, stateOff := u(0), u(1), u(2), u(3), u(4)
	size := uint64(len(data) - trailerSize)
	if nFiles > size/tableEntry || nHist > size/tableEntry ||
		filesOff > size || filesOff+nFiles*tableEntry != histOff || histOff+nHist*tableEntry != size || stateOff >= filesOff {
		return "tables out of bounds"
	}
	sum := binrec.CRC([]byte(data[filesOff : len(data)-4-len(indexEndMagic)]))
	if sum != binary.LittleEndian.Uint32([]byte(t[40:44])) {
		return "tables fail their checksum"
	}
	ix.files, ix.nFiles = data[filesOff:histOff], int(nFiles)
	ix.hist, ix.nHist = data[histOff:size], int(nHist)
	state, err := ix.record(int64(stateOff))
	if err != nil {
		return "history state"
	}
	sd := binrec.Decoder{S: state}
	ix.histState = histFile{Stamp: fresh.Stamp{File: fresh.File{Ino: sd.Uint(), Size: sd.Int(), MtimeNs: sd.Int()},
		Offset: sd.Int(), Sums: fresh.Sums{Head: uint32(sd.Uint()), Tail: uint32(sd.Uint())}}}
	if n := sd.Count(); sd.Err() == nil && n > 0 {
		ix.histState.Clears = make([]lineage.ClearEvent, n)
		for k := range ix.histState.Clears {
			ix.histState.Clears[k] = lineage.ClearEvent{SessionID: sd.String(), AtMs: sd.Int()}
		}
	}
	if sd.Err() != nil || sd.Rest() != 0 {
		return "history state"
	}
	return ""
}

// record returns a copy of the payload of the record at off, checked.
// Call it inside read.
func (ix *storedIndex) record(off int64) (string, error) {
	if off < 0 || off >= int64(len(ix.data)) {
		return "", binrec.ErrCorrupt
	}
	d := binrec.Decoder{S: ix.data[off:]}
	n := d.Uint()
	if d.Err() != nil || n > uint64(len(d.S)) || len(d.S) < 4+int(n) {
		return "", binrec.ErrCorrupt
	}
	// Copied out once, then checked: the checksum vouches for the bytes
	// that are decoded, which the mapping's may not stay.
	head := len(ix.data[off:]) - len(d.S)
	rec := strings.Clone(ix.data[off : off+int64(head)+4+int64(n)])
	_, payload, ok := binrec.RecordAt(rec)
	if !ok {
		return "", binrec.ErrCorrupt
	}
	return payload, nil
}

// copyRecord writes the whole record at off (length, checksum and
// payload) into w unchanged, for a record the next index keeps.
func (ix *storedIndex) copyRecord(w *binrec.Writer, off int64) error {
	var err error
	if rerr := ix.read(func() {
		n, _, ok := binrec.RecordAt(ix.data[off:])
		if !ok {
			err = binrec.ErrCorrupt
			return
		}
		w.WriteString(ix.data[off : off+int64(n)])
	}); rerr != nil {
		return rerr
	}
	return err
}

// find returns the offsets of the records whose key hashes like key.
func find(table string, n int, key string) (first int, h uint64) {
	h = keyHash(key)
	at := func(i int) uint64 { return binary.LittleEndian.Uint64([]byte(table[i*tableEntry:])) }
	return sort.Search(n, func(i int) bool { return at(i) >= h }), h
}

func tableAt(table string, i int) (uint64, int64) {
	e := table[i*tableEntry:]
	return binary.LittleEndian.Uint64([]byte(e[:8])), int64(binary.LittleEndian.Uint64([]byte(e[8:16])))
}

// lookup returns the record of the transcript at path and its offset, or
// nil. A record that fails its checks counts as damaged and is not used;
// so does every record of an index that shrank under the listing.
func (ix *storedIndex) lookup(path string) (*indexEntry, int64) {
	var found *indexEntry
	at := int64(-1)
	ix.read(func() {
		i, h := find(ix.files, ix.nFiles, path)
		for ; i < ix.nFiles; i++ {
			kh, off := tableAt(ix.files, i)
			if kh != h {
				break
			}
			payload, err := ix.record(off)
			if err != nil {
				continue
			}
			p, ent, err := decodeEntry(payload)
			if err != nil || p != path {
				continue
			}
			found, at = ent, off
			return
		}
	})
	return found, at
}

// history returns a session's entry in the stored history; an error says
// the index shrank under the listing, and with it what it held.
func (ix *storedIndex) history(id string) (histEntry, bool, error) {
	var e histEntry
	ok := false
	err := ix.read(func() {
		i, h := find(ix.hist, ix.nHist, id)
		for ; i < ix.nHist; i++ {
			kh, off := tableAt(ix.hist, i)
			if kh != h {
				break
			}
			if k, he, hok := ix.histRecord(off); hok && k == id {
				e, ok = he, true
				return
			}
		}
	})
	return e, ok, err
}

// histRecord decodes the history record at off.
func (ix *storedIndex) histRecord(off int64) (string, histEntry, bool) {
	payload, err := ix.record(off)
	if err != nil {
		return "", histEntry{}, false
	}
	d := binrec.Decoder{S: payload}
	k := d.String()
	e := histEntry{LastAtMs: d.Int(), Last: d.String()}
	return k, e, d.Err() == nil && d.Rest() == 0
}

// eachHistory calls fn for every stored history entry, for a rewrite. fn
// runs inside read: it must not keep reading the mapping itself.
func (ix *storedIndex) eachHistory(fn func(id string, e histEntry)) error {
	return ix.read(func() {
		for i := range ix.nHist {
			_, off := tableAt(ix.hist, i)
			if k, e, ok := ix.histRecord(off); ok {
				fn(k, e)
			}
		}
	})
}

// indexWriter writes the next index, record by record, to a temp file
// beside it, so that a rewrite never holds the whole index in memory.
type indexWriter struct {
	out   *binrec.Writer
	files []tableRow
	hist  []tableRow
	enc   binrec.Encoder
	// failed is an error that is not a write's (an old record that can no
	// longer be copied): the index is not committed.
	failed error
}

type tableRow struct {
	hash uint64
	off  int64
}

// newIndexWriter starts the next index at path; onExit registers the
// removal of its temp file should the process be ended mid-listing (see
// binrec.Create).
func newIndexWriter(path string, onExit func(func()) func()) (*indexWriter, error) {
	out, err := binrec.Create(path, onExit)
	if err != nil {
		return nil, err
	}
	w := &indexWriter{out: out}
	var e binrec.Encoder
	e.B = append(e.B, indexMagic...)
	e.Uint(indexFormat)
	out.Write(e.B)
	return w, nil
}

// entry writes a transcript's record.
func (w *indexWriter) entry(path string, ent *indexEntry) {
	w.enc.B = w.enc.B[:0]
	encodeEntry(&w.enc, path, ent)
	w.files = append(w.files, tableRow{keyHash(path), w.out.Record(w.enc.B)})
}

// copied writes the record at off of the old index unchanged.
func (w *indexWriter) copied(path string, ix *storedIndex, off int64) {
	w.files = append(w.files, tableRow{keyHash(path), w.out.Offset()})
	if err := ix.copyRecord(w.out, off); err != nil {
		w.fail(err)
	}
}

// fail keeps the first such error.
func (w *indexWriter) fail(err error) {
	if w.failed == nil {
		w.failed = err
	}
}

func (w *indexWriter) history(id string, e histEntry) {
	w.enc.B = w.enc.B[:0]
	w.enc.String(id)
	w.enc.Int(e.LastAtMs)
	w.enc.String(e.Last)
	w.hist = append(w.hist, tableRow{keyHash(id), w.out.Record(w.enc.B)})
}

// finish writes the history state, the tables and the trailer, and
// renames the file into place.
func (w *indexWriter) finish(state histFile) error {
	if w.failed != nil {
		w.out.Abandon()
		return w.failed
	}
	w.enc.B = w.enc.B[:0]
	w.enc.Uint(state.Ino)
	w.enc.Int(state.Size)
	w.enc.Int(state.MtimeNs)
	w.enc.Int(state.Offset)
	w.enc.Uint(uint64(state.Head))
	w.enc.Uint(uint64(state.Tail))
	w.enc.Uint(uint64(len(state.Clears)))
	for _, c := range state.Clears {
		w.enc.String(c.SessionID)
		w.enc.Int(c.AtMs)
	}
	stateOff := w.out.Record(w.enc.B)
	crc := binrec.NewCRC()
	var row [tableEntry]byte
	table := func(rows []tableRow) int64 {
		at := w.out.Offset()
		sort.Slice(rows, func(i, j int) bool { return rows[i].hash < rows[j].hash })
		for _, r := range rows {
			binary.LittleEndian.PutUint64(row[:8], r.hash)
			binary.LittleEndian.PutUint64(row[8:], uint64(r.off))
			crc.Write(row[:])
			w.out.Write(row[:])
		}
		return at
	}
	filesOff := table(w.files)
	histOff := table(w.hist)
	var t [5 * 8]byte
	for k, v := range []uint64{uint64(filesOff), uint64(len(w.files)), uint64(histOff), uint64(len(w.hist)), uint64(stateOff)} {
		binary.LittleEndian.PutUint64(t[8*k:], v)
	}
	crc.Write(t[:])
	w.out.Write(t[:])
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	w.out.Write(sum[:])
	w.out.WriteString(indexEndMagic)
	return w.out.Commit()
}

// abandon removes the temp file.
func (w *indexWriter) abandon() { w.out.Abandon() }
