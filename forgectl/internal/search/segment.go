package search

import (
	"encoding/binary"
	"errors"
	"fmt"

	"os"
	"path/filepath"
	"slices"
	"strings"

	"unsafe"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
)

// A segment is an immutable file holding the searchable text of some
// sessions (one record each) and a term index over them. The index is a set
// of segments named by the catalog: an update writes the sessions that
// changed into a new segment instead of rewriting everything, and a
// compaction folds them back into one when enough records are dead.
//
// Layout (integers in tables are little-endian, fixed width, so a query
// reads only the pages it needs of a mapped file):
//
//	"FCTSRCHS"
//	records: per record, framed as binrec.Record: uvarint length, CRC-32C
//	         (4 bytes), then binrec: Uint messages, then per message a byte
//	         role, Int at, String text
//	tables:  record offsets   (nrec+1) × uint64   (the last is where tables start)
//	         term index       (nterms+1) × (uint32 term start, uint32 postings start)
//	         terms            "\x00term\x00term…\x00", sorted
//	         postings         per term, record numbers as delta uvarints
//	footer:  uint64 tables offset, uint32 nrec, uint32 nterms, uint64 terms
//	         length, uint64 postings length, uint32 CRC-32C of the tables,
//	         "FCTSEND1"
//
// Terms hold no NUL (they are runs of letters and digits), so a query token
// is found inside every term holding it with one byte search over the
// terms.

const (
	segMagic    = "FCTSRCHS"
	segEndMagic = "FCTSEND1"
	footerLen   = 8 + 4 + 4 + 8 + 8 + 4 + 8
)

// errDamaged marks an index file that does not read back as written.
var errDamaged = errors.New("damaged search index")

func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errDamaged, fmt.Sprintf(format, args...))
}

// segWriter writes one segment.
type segWriter struct {
	out  *binrec.Writer
	recs []uint64
	// dict numbers each term; posts[k] lists the records holding term k.
	dict  map[string]int32
	posts [][]uint32
	rec   binrec.Encoder
}

// newSegWriter starts the segment that will be path (see binrec.Create
// for onExit).
func newSegWriter(path string, onExit func(func()) func()) (*segWriter, error) {
	out, err := binrec.Create(path, onExit)
	if err != nil {
		return nil, err
	}
	s := &segWriter{out: out, dict: map[string]int32{}}
	s.out.WriteString(segMagic)
	return s, nil
}

// add writes a record and indexes its tokens (unique, any order); it
// returns the record's number.
func (s *segWriter) add(msgs []harness.Message, tokens []string) uint32 {
	n := uint32(len(s.recs))
	e := &s.rec
	e.B = e.B[:0]
	e.Uint(uint64(len(msgs)))
	for _, m := range msgs {
		e.B = append(e.B, byte(m.Role))
		e.Int(m.At)
		e.String(m.Text)
	}
	s.recs = append(s.recs, uint64(s.out.Record(e.B)))
	if cap(e.B) > 4<<20 {
		e.B = nil // one huge session's buffer is not kept for the rest
	}
	for _, t := range tokens {
		k, ok := s.dict[t]
		if !ok {
			// A copy: t shares one string with the rest of its session's
			// tokens, which a key would keep alive.
			k = int32(len(s.posts))
			s.dict[strings.Clone(t)] = k
			s.posts = append(s.posts, nil)
		}
		s.posts[k] = append(s.posts[k], n)
	}
	return n
}

// finish writes the tables and renames the segment into place.
func (s *segWriter) finish() (size int64, crc uint32, err error) {
	terms := make([]string, 0, len(s.dict))
	for t := range s.dict {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	tablesOff := uint64(s.out.Offset())
	tab := make([]byte, 0, 8*(len(s.recs)+1)+8*(len(terms)+1))
	for _, o := range s.recs {
		tab = binary.LittleEndian.AppendUint64(tab, o)
	}
	tab = binary.LittleEndian.AppendUint64(tab, tablesOff)
	var blob, post []byte
	blob = append(blob, 0)
	idx := make([]byte, 0, 8*(len(terms)+1))
	for _, t := range terms {
		idx = binary.LittleEndian.AppendUint32(idx, uint32(len(blob)))
		idx = binary.LittleEndian.AppendUint32(idx, uint32(len(post)))
		blob = append(blob, t...)
		blob = append(blob, 0)
		prev := uint32(0)
		for k, r := range s.posts[s.dict[t]] {
			if k == 0 {
				post = binary.AppendUvarint(post, uint64(r))
			} else {
				post = binary.AppendUvarint(post, uint64(r-prev))
			}
			prev = r
		}
	}
	idx = binary.LittleEndian.AppendUint32(idx, uint32(len(blob)))
	idx = binary.LittleEndian.AppendUint32(idx, uint32(len(post)))
	if uint64(len(blob)) > 1<<32-1 || uint64(len(post)) > 1<<32-1 {
		s.out.Abandon()
		return 0, 0, errors.New("search index segment too large")
	}
	h := binrec.NewCRC()
	for _, part := range [][]byte{tab, idx, blob, post} {
		h.Write(part)
		s.out.Write(part)
	}
	crc = h.Sum32()
	var foot []byte
	foot = binary.LittleEndian.AppendUint64(foot, tablesOff)
	foot = binary.LittleEndian.AppendUint32(foot, uint32(len(s.recs)))
	foot = binary.LittleEndian.AppendUint32(foot, uint32(len(terms)))
	foot = binary.LittleEndian.AppendUint64(foot, uint64(len(blob)))
	foot = binary.LittleEndian.AppendUint64(foot, uint64(len(post)))
	foot = binary.LittleEndian.AppendUint32(foot, crc)
	foot = append(foot, segEndMagic...)
	s.out.Write(foot)
	size = s.out.Offset()
	if err := s.out.Commit(); err != nil {
		return 0, 0, err
	}
	return size, crc, nil
}

// abandon removes an unfinished segment.
func (s *segWriter) abandon() { s.out.Abandon() }

// segment is a mapped segment file.
type segment struct {
	// m maps the file; nil for a segment parsed from memory (tests). The
	// strings below share it: they are read only inside s.read.
	m      *fsutil.Mapping
	name   string
	f      *os.File // records are read from it; nil: from data
	data   string
	nrec   int
	recTab string
	termIx string
	terms  string
	posts  string
}

// openSegment maps path and checks it is the segment the catalog recorded
// (its size and the CRC of its tables).
func openSegment(path string, size int64, crc uint32) (*segment, error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, damaged("%s is missing", filepath.Base(path))
		}
		if nr, ok := errors.AsType[*fsutil.NotRegularError](err); ok {
			return nil, damaged("%s %v", filepath.Base(path), nr)
		}
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() != size || size < int64(len(segMagic)+footerLen) || size > 1<<40 {
		return nil, damaged("%s has the wrong size", filepath.Base(path))
	}
	// Mapped, not read: a query touches only the pages of the terms,
	// postings and records it needs. forgectl never writes a segment in
	// place (it is replaced by rename, removed under the lock), but
	// another program may truncate it: every read of the mapping is
	// inside s.read, which makes that a damaged index, rebuilt, instead of
	// a crash.
	m, err := fsutil.Map(f)
	if err != nil {
		return nil, err
	}
	var s *segment
	if rerr := m.Read(func(data string) { s, err = parseSegment(data, size, crc) }); rerr != nil {
		err = shrunk(filepath.Base(path))
	}
	if err != nil {
		m.Close()
		return nil, err
	}
	s.m, s.f, s.name = m, f, filepath.Base(path)
	ok = true
	return s, nil
}

func shrunk(name string) error {
	return damaged("%s was truncated while it was read", name)
}

// read runs fn, which may read the mapping; a fault on it (the file was
// truncated) stops fn and is a damaged index. fn runs on the calling
// goroutine and keeps nothing of the mapping that it did not copy.
func (s *segment) read(fn func()) error {
	if s.m == nil {
		fn()
		return nil
	}
	if err := s.m.Read(func(string) { fn() }); err != nil {
		return shrunk(s.name)
	}
	return nil
}

// unmap releases the mapping; nothing read from the segment may be used
// after it.
func (s *segment) unmap() {
	if s.m != nil {
		s.m.Close()
		s.m = nil
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

func parseSegment(data string, size int64, crc uint32) (*segment, error) {
	if int64(len(data)) != size || len(data) < len(segMagic)+footerLen || data[:len(segMagic)] != segMagic {
		return nil, damaged("a segment has the wrong size or no header")
	}
	foot := data[len(data)-footerLen:]
	if foot[footerLen-8:] != segEndMagic {
		return nil, damaged("a segment has no footer")
	}
	le := binary.LittleEndian
	tablesOff := le.Uint64(bytesOf(foot[0:8]))
	nrec := uint64(le.Uint32(bytesOf(foot[8:12])))
	nterms := uint64(le.Uint32(bytesOf(foot[12:16])))
	blobLen := le.Uint64(bytesOf(foot[16:24]))
	postLen := le.Uint64(bytesOf(foot[24:32]))
	want := le.Uint32(bytesOf(foot[32:36]))
	body := uint64(len(data) - footerLen)
	tabLen := 8*(nrec+1) + 8*(nterms+1)
	if tablesOff < uint64(len(segMagic)) || tablesOff > body || nrec > body || nterms > body ||
		blobLen > body || postLen > body || tablesOff+tabLen+blobLen+postLen != body {
		return nil, damaged("a segment's tables do not add up")
	}
	tables := data[tablesOff:body]
	if got := binrec.CRC(bytesOf(tables)); got != want || got != crc {
		return nil, damaged("a segment's checksum does not match")
	}
	s := &segment{data: data, nrec: int(nrec)}
	s.recTab = tables[:8*(nrec+1)]
	s.termIx = tables[8*(nrec+1) : tabLen]
	s.terms = tables[tabLen : tabLen+blobLen]
	s.posts = tables[tabLen+blobLen:]
	// The tables' own offsets must stay inside their regions and ascend.
	prev := uint64(len(segMagic))
	for i := uint64(0); i <= nrec; i++ {
		o := le.Uint64(bytesOf(s.recTab[8*i:]))
		if o < prev || o > tablesOff {
			return nil, damaged("a segment's record table is out of order")
		}
		prev = o
	}
	if prev != tablesOff {
		return nil, damaged("a segment's record table does not end at its tables")
	}
	var pt, pp uint32
	for i := uint64(0); i <= nterms; i++ {
		t := le.Uint32(bytesOf(s.termIx[8*i:]))
		p := le.Uint32(bytesOf(s.termIx[8*i+4:]))
		if t < pt || p < pp || uint64(t) > blobLen || uint64(p) > postLen {
			return nil, damaged("a segment's term index is out of order")
		}
		pt, pp = t, p
	}
	if uint64(pt) != blobLen || uint64(pp) != postLen {
		return nil, damaged("a segment's term index does not cover its terms")
	}
	return s, nil
}

// record decodes record n, checking its CRC. It is read into buf (grown
// as needed and returned) rather than through the mapping, so a query over
// many large sessions does not hold their pages: the messages' strings
// share buf, which the caller must not reuse while it uses them.
func (s *segment) record(n int, buf []byte) ([]harness.Message, []byte, error) {
	if n < 0 || n >= s.nrec {
		return nil, buf, damaged("a record number is out of range")
	}
	le := binary.LittleEndian
	var start, end uint64
	if err := s.read(func() { start, end = le.Uint64(bytesOf(s.recTab[8*n:])), le.Uint64(bytesOf(s.recTab[8*n+8:])) }); err != nil {
		return nil, buf, err
	}
	if end < start+5 || end > uint64(len(s.data)) {
		return nil, buf, damaged("a record is too short")
	}
	size := int(end - start)
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	raw := buf[:size]
	if s.f != nil {
		if _, err := s.f.ReadAt(raw, int64(start)); err != nil {
			return nil, buf, damaged("a record cannot be read: %v", err)
		}
	} else if err := s.read(func() { copy(raw, s.data[start:end]) }); err != nil {
		return nil, buf, err
	}
	framed, payload, ok := binrec.RecordAt(unsafe.String(unsafe.SliceData(raw), len(raw)))
	if !ok || framed != size {
		return nil, buf, damaged("a record's checksum does not match")
	}
	d := binrec.Decoder{S: payload} // shares buf, as the messages' strings do
	cnt := d.Count()
	msgs := make([]harness.Message, 0, cnt)
	for range cnt {
		if d.Rest() == 0 {
			return nil, buf, damaged("a record does not decode")
		}
		role := harness.Role(d.S[0])
		d.S = d.S[1:]
		m := harness.Message{Role: role, At: d.Int(), Text: d.String()}
		msgs = append(msgs, m)
	}
	if d.Err() != nil || d.Rest() != 0 {
		return nil, buf, damaged("a record does not decode")
	}
	return msgs, buf, nil
}

// bytesOf views s as bytes, for reading only (checksums, fixed-width
// integers) without copying a mapped table.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// match marks in recs (one bool per record) every record holding a term
// that contains token.
func (s *segment) match(token string, recs []bool) error {
	var err error
	if rerr := s.read(func() { err = s.matchMapped(token, recs) }); rerr != nil {
		return rerr
	}
	return err
}

// matchMapped is match, reading the mapping: call it inside s.read.
func (s *segment) matchMapped(token string, recs []bool) error {
	le := binary.LittleEndian
	nterms := len(s.termIx)/8 - 1
	if token == "" {
		return nil
	}
	for from := 0; ; {
		i := strings.Index(s.terms[from:], token)
		if i < 0 {
			return nil
		}
		i += from
		start := strings.LastIndexByte(s.terms[:i], 0) + 1
		end := i + strings.IndexByte(s.terms[i:], 0)
		if end < i {
			return damaged("a segment's terms are not terminated")
		}
		from = end
		// Binary search for the term starting at start.
		k, ok := slicesSearch(nterms, func(k int) int { return int(le.Uint32(bytesOf(s.termIx[8*k:]))) - start })
		if !ok {
			return damaged("a term is not in the term index")
		}
		p0, p1 := le.Uint32(bytesOf(s.termIx[8*k+4:])), le.Uint32(bytesOf(s.termIx[8*k+12:]))
		if p0 > p1 || int(p1) > len(s.posts) {
			// Checked when the segment was opened; the file changed since.
			return damaged("a segment's term index is out of order")
		}
		list := s.posts[p0:p1]
		r := uint64(0)
		for j := 0; len(list) > 0; j++ {
			v, n := uvarintString(list)
			if n <= 0 {
				return damaged("a posting list does not decode")
			}
			list = list[n:]
			if j == 0 {
				r = v
			} else {
				r += v
			}
			if r >= uint64(len(recs)) {
				return damaged("a posting names a record out of range")
			}
			recs[r] = true
		}
	}
}

// slicesSearch finds k in [0,n) with cmp(k) == 0, cmp ascending in k.
func slicesSearch(n int, cmp func(int) int) (int, bool) {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := cmp(m)
		switch {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false
}

func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
