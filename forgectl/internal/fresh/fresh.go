// Package fresh is the one rule by which forgectl's indexes (the listing's
// transcripts.idx and its record of history.jsonl, search's catalog, and
// any later one) decide whether what they remember of a file still holds.
//
// An index records, for each file it read, a Stamp: the inode, size and
// mtime the file had, how far it was read (Offset, just past the last
// complete line) and CRC-32C checksums of the first Span bytes and of the
// Span bytes just before Offset. Against what a stat says now, Decide gives
// one of three verdicts:
//
//   - Unchanged: the inode, size and mtime are all as recorded. The record
//     is used as it is and the file is not opened. This is the index's
//     contract: a rewrite that keeps the size and lands within the file
//     system's mtime granularity of the last write (a few milliseconds on
//     Linux, which stamps files from a coarse clock) is not seen. Any mtime
//     change at the same size is.
//   - Appended: the inode is the same, the file grew, and the bytes before
//     the old Offset still check out (its first Span bytes and the Span
//     bytes before Offset). Reading goes on from Offset.
//   - Reread: anything else (a new inode, the same size with another
//     mtime, a shrunk file, a grown one whose checked bytes differ, or no
//     record): the file is read again whole.
//
// Claude Code only appends to a transcript, so growth is what an index
// sees nearly always. The checksums catch a rewrite that grew the file and
// moved or changed bytes near its start or just before the old end (an
// editor, a sync tool, an inserted line, which shifts everything after
// it). What they cannot catch without reading the whole old part is a
// same-length edit deep inside the file followed by growth before the index
// looked again (an edit made, then an append, with no listing or search in
// between): such a file is read on from its old end.
package fresh

import (
	"forgectl.dev/forgectl/internal/binrec"
	"io"
)

// Span is how many bytes of a file's start, and of what comes just before
// the offset an index stopped at, are checksummed.
const Span = 4096

// File is what a stat says of a file.
type File struct {
	Ino     uint64
	Size    int64
	MtimeNs int64
}

// Sums are the checksums of the bytes before an offset: the first Span of
// them, and the last Span (the same bytes when there are fewer).
type Sums struct {
	Head, Tail uint32
}

// Stamp is what an index remembers of a file it read.
type Stamp struct {
	File         // as it was when read
	Offset int64 // the bytes before it were read
	Sums         // of the bytes before Offset
}

// Verdict says how an index brings its record of a file up to date.
type Verdict int

const (
	// Unchanged: use the record as it is.
	Unchanged Verdict = iota
	// Appended: read on from the record's Offset.
	Appended
	// Reread: read the whole file again.
	Reread
)

func (v Verdict) String() string {
	switch v {
	case Unchanged:
		return "unchanged"
	case Appended:
		return "appended"
	}
	return "reread"
}

// Same reports whether the stat now is the one the record was taken at:
// the file is then Unchanged. A caller may ask it before opening the file,
// which Decide needs only otherwise.
func (s *Stamp) Same(now File) bool { return s != nil && s.File == now }

// Decide is the rule. r is the file, opened after the stat that gave now;
// it is read only when the file grew, to check the bytes before the old
// Offset. A read error means Reread.
func Decide(old *Stamp, now File, r io.ReaderAt) Verdict {
	switch {
	case old == nil:
		return Reread
	case old.Same(now):
		return Unchanged
	case now.Ino != old.Ino || now.Size <= old.Size || now.Size < old.Offset:
		// The same size with another mtime is a rewrite in place (a
		// redaction, dd conv=notrunc); a smaller file was rewritten or
		// cut; a new inode is another file.
		return Reread
	case old.Offset == 0:
		return Reread // nothing was read before: reading on is reading whole
	}
	sums, err := sumsOf(r, old.Offset, nil)
	if err != nil || sums != old.Sums {
		return Reread
	}
	return Appended
}

// Take is the stamp of a file read up to offset, with now the stat it was
// read after. scratch, when it has room for 2*Span bytes, holds the bytes
// read: a cold listing stamps every transcript, and a new buffer each was a
// third of what it allocated. A scanner done with its file lends its own.
func Take(now File, offset int64, r io.ReaderAt, scratch []byte) (Stamp, error) {
	sums, err := sumsOf(r, offset, scratch)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{File: now, Offset: offset, Sums: sums}, nil
}

// sumsOf checksums r's first min(Span, offset) bytes and the as many
// before offset.
func sumsOf(r io.ReaderAt, offset int64, scratch []byte) (Sums, error) {
	n := min(Span, offset)
	if n <= 0 {
		return Sums{}, nil
	}
	buf := scratch
	if int64(len(buf)) < 2*n {
		buf = make([]byte, 2*n)
	}
	buf = buf[:2*n]
	if err := readFull(r, buf[:n], 0); err != nil {
		return Sums{}, err
	}
	if err := readFull(r, buf[n:], offset-n); err != nil {
		return Sums{}, err
	}
	return Sums{Head: binrec.CRC(buf[:n]), Tail: binrec.CRC(buf[n:])}, nil
}

func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil // io.ReaderAt may say io.EOF with every byte read
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}
