package sessions

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
)

// The index caches what a listing learns of each session file, keyed by
// path and valid while the file keeps its inode, size and mtime: the
// engine stores the path and that stat, and the harness the rest (a
// payload it alone decodes: for Claude Code the transcript's summary, its
// sidecar title and its task counts). Beside the files' records it keeps
// the harness's aux section (Claude Code's prompt history), which the
// engine stores and maps but does not read. It is a cache: any doubt (a
// format change, a record whose checksum does not match, offsets out of
// bounds) means the record, or the file, is rebuilt, never trusted.
//
// The file is mapped, not read, and nothing is decoded up front: a listing
// looks each file up in a sorted table of path hashes and copies out and
// decodes just that record. So a warm listing of 100,000 sessions neither
// builds a map of them nor holds their summaries. The mapping is read only
// through storedIndex.read, and nothing decoded shares it: a file
// truncated under the listing is then an error the listing recovers from
// (see fsutil.Mapping), not a crash wherever a string of it is used.
//
//	header   "FCTIX\n" uvarint(indexFormat<<16 | the harness's Format)
//	records  file records, then aux records, then the aux state record,
//	         each uvarint(len) crc32c(payload, 4 bytes LE) payload. A file
//	         record's payload is string(path) uvarint(ino) varint(size)
//	         varint(mtime ns) then the harness's; an aux record's is
//	         string(key) then the harness's; the state record's is the
//	         harness's alone
//	tables   for each section n × (fnv64(key), offset of record) sorted
//	trailer  files table offset, count; aux table offset, count; aux
//	         state offset; crc32c of the tables and the trailer's fields,
//	         all 8-byte LE but the crc; "FCTEND"

const (
	indexMagic    = "FCTIX\n"
	indexEndMagic = "FCTEND"
	trailerSize   = 5*8 + 4 + len(indexEndMagic)
	tableEntry    = 16
)

// indexFormat changes with the framing above; the harness's Format, folded
// in below it, with what the harness stores.
const indexFormat = 6

// formatOf is the header's format for a harness's index.
func formatOf(h harness.Harness) uint64 { return indexFormat<<16 | h.Format() }

// keyHash is FNV-1a over k, written out so that a lookup (one for every
// file of every listing) copies nothing.
func keyHash(k string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(k); i++ {
		h ^= uint64(k[i])
		h *= prime
	}
	return h
}

// storedIndex is a mapped index file. Its zero value is an empty index.
type storedIndex struct {
	path string
	m    *fsutil.Mapping
	// data and the two tables share the mapping: read them only inside
	// read.
	data         string
	files, aux   string
	nFiles, nAux int
	auxState     string      // a copy, as every payload handed out
	shrunk       atomic.Bool // the file was truncated under the listing
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
		ix.m, ix.data, ix.files, ix.aux, ix.nFiles, ix.nAux = nil, "", "", "", 0, 0
	}
}

// openIndex maps the index at path, written in format (see formatOf). A
// missing file, or one written in another format, is an empty index and no
// error; a damaged one is an empty index and an error saying so (the
// caller reports it once and the listing rebuilds the file).
func openIndex(path string, format uint64) (*storedIndex, error) {
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
	if err := ix.read(func() { why = ix.parse(format) }); err != nil {
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

// parse checks the mapped file and finds its tables and aux state; it
// returns why it is not a usable index, or "".
func (ix *storedIndex) parse(format uint64) string {
	data := ix.data
	if len(data) < len(indexMagic) || data[:len(indexMagic)] != indexMagic {
		return "not an index"
	}
	d := binrec.Decoder{S: data[len(indexMagic):]}
	if d.Uint() != format || d.Err() != nil {
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
	filesOff, nFiles, auxOff, nAux, stateOff := u(0), u(1), u(2), u(3), u(4)
	size := uint64(len(data) - trailerSize)
	if nFiles > size/tableEntry || nAux > size/tableEntry ||
		filesOff > size || filesOff+nFiles*tableEntry != auxOff || auxOff+nAux*tableEntry != size || stateOff >= filesOff {
		return "tables out of bounds"
	}
	sum := binrec.CRC([]byte(data[filesOff : len(data)-4-len(indexEndMagic)]))
	if sum != binary.LittleEndian.Uint32([]byte(t[40:44])) {
		return "tables fail their checksum"
	}
	ix.files, ix.nFiles = data[filesOff:auxOff], int(nFiles)
	ix.aux, ix.nAux = data[auxOff:size], int(nAux)
	state, err := ix.record(int64(stateOff))
	if err != nil {
		return "history state" // what --verbose has always called it
	}
	ix.auxState = state
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

// fileRecord splits a file record's payload into the file's path, its stat
// and the harness's payload.
func fileRecord(payload string) (string, harness.Stored, error) {
	d := binrec.Decoder{S: payload}
	path := d.String()
	f := fresh.File{Ino: d.Uint(), Size: d.Int(), MtimeNs: d.Int()}
	if d.Err() != nil {
		return "", harness.Stored{}, d.Err()
	}
	return path, harness.Stored{File: f, Payload: d.S, OK: true}, nil
}

// lookup returns the record of the file at path and its offset; the
// record is not OK when there is none. A record that fails its checks
// counts as damaged and is not used; so does every record of an index
// that shrank under the listing.
func (ix *storedIndex) lookup(path string) (harness.Stored, int64) {
	var found harness.Stored
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
			p, rec, err := fileRecord(payload)
			if err != nil || p != path {
				continue
			}
			found, at = rec, off
			return
		}
	})
	return found, at
}

// auxRecord splits the aux record at off into its key and the harness's
// payload.
func (ix *storedIndex) auxRecord(off int64) (key, payload string, ok bool) {
	rec, err := ix.record(off)
	if err != nil {
		return "", "", false
	}
	d := binrec.Decoder{S: rec}
	key = d.String()
	return key, d.S, d.Err() == nil
}

// State, Len, Get and Each are the aux section, as harness.Aux.

func (ix *storedIndex) State() string { return ix.auxState }

func (ix *storedIndex) Len() int { return ix.nAux }

func (ix *storedIndex) Get(key string) (string, bool, error) {
	var payload string
	ok := false
	err := ix.read(func() {
		i, h := find(ix.aux, ix.nAux, key)
		for ; i < ix.nAux; i++ {
			kh, off := tableAt(ix.aux, i)
			if kh != h {
				break
			}
			if k, p, rok := ix.auxRecord(off); rok && k == key {
				payload, ok = p, true
				return
			}
		}
	})
	return payload, ok, err
}

// Each runs fn inside read: it must not read the mapping itself.
func (ix *storedIndex) Each(fn func(key, payload string)) error {
	return ix.read(func() {
		for i := range ix.nAux {
			_, off := tableAt(ix.aux, i)
			if k, p, ok := ix.auxRecord(off); ok {
				fn(k, p)
			}
		}
	})
}

// indexWriter writes the next index, record by record, to a temp file
// beside it, so that a rewrite never holds the whole index in memory.
type indexWriter struct {
	out   *binrec.Writer
	files []tableRow
	aux   []tableRow
	enc   binrec.Encoder
	// failed is an error that is not a write's (an old record that can no
	// longer be copied): the index is not committed.
	failed error
}

type tableRow struct {
	hash uint64
	off  int64
}

// newIndexWriter starts the next index at path, in format; onExit
// registers the removal of its temp file should the process be ended
// mid-listing (see binrec.Create).
func newIndexWriter(path string, format uint64, onExit func(func()) func()) (*indexWriter, error) {
	out, err := binrec.Create(path, onExit)
	if err != nil {
		return nil, err
	}
	w := &indexWriter{out: out}
	var e binrec.Encoder
	e.B = append(e.B, indexMagic...)
	e.Uint(format)
	out.Write(e.B)
	return w, nil
}

// entry writes a file's record: its path and stat, then the harness's.
func (w *indexWriter) entry(path string, f fresh.File, rec harness.Record) {
	w.enc.B = w.enc.B[:0]
	w.enc.String(path)
	w.enc.Uint(f.Ino)
	w.enc.Int(f.Size)
	w.enc.Int(f.MtimeNs)
	rec.Encode(&w.enc)
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

// Put writes an aux record, as harness.AuxWriter.
func (w *indexWriter) Put(key string, payload []byte) {
	w.enc.B = w.enc.B[:0]
	w.enc.String(key)
	w.enc.B = append(w.enc.B, payload...)
	w.aux = append(w.aux, tableRow{keyHash(key), w.out.Record(w.enc.B)})
}

// finish writes the aux state, the tables and the trailer, and renames
// the file into place.
func (w *indexWriter) finish(state []byte) error {
	if w.failed != nil {
		w.out.Abandon()
		return w.failed
	}
	stateOff := w.out.Record(state)
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
	auxOff := table(w.aux)
	var t [5 * 8]byte
	for k, v := range []uint64{uint64(filesOff), uint64(len(w.files)), uint64(auxOff), uint64(len(w.aux)), uint64(stateOff)} {
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
