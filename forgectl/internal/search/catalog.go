package search

import (
	"encoding/binary"
	"errors"
	"os"
	"unsafe"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/fsutil"
)

// The catalog names the live segments and, per transcript, what was read
// of it and where its record is. It is small (a line's worth per session)
// and rewritten whole, atomically, by every update that changed anything.
//
//	"FCTSRCHC", binrec: Uint format, Uint next segment id,
//	Count segments: Uint id, Int size, Uint tables CRC, Uint records
//	Count entries:  String path, Uint inode, Int size, Int mtime (ns),
//	                Int offset read to, Uint CRC of the head and Uint CRC
//	                of the tail before it (fresh.Sums), Int last
//	                timestamp, Uint segment id, Uint record
//	then the CRC-32C of everything before it (4 bytes).

const (
	catalogMagic = "FCTSRCHC"
	// catalogFormat changes with the layout of the catalog or the segments,
	// with what the extractor takes from a transcript, and with how text
	// is folded into tokens. 2: entries carry the freshness stamp (head and
	// tail checksums); full case folding and NFC; rows read by
	// transcript.Classify. 3: segment records framed as binrec.Record.
	// 4: entries carry the harness's TextVersion.
	catalogFormat = 4
)

type segInfo struct {
	ID   uint64
	Size int64
	CRC  uint32
	Recs int
}

type entry struct {
	Path string
	// Stamp is the transcript as it was read: its stat, the offset just
	// past the last complete line read, and the checksums fresh.Decide
	// checks before reading on from there.
	fresh.Stamp
	LastAt int64
	Seg    uint64
	Rec    int
	// Version is the harness's TextVersion of the file when it was read
	// (0 for a harness without one).
	Version uint64
}

type catalog struct {
	NextSeg uint64
	Segs    []segInfo
	Entries []entry
}

func encodeCatalog(c *catalog) []byte { return encodeCatalogAs(c, catalogFormat) }

// encodeCatalogAs writes c in format (3 has no text versions; a test
// writes one, as an older forgectl did).
func encodeCatalogAs(c *catalog, format uint64) []byte {
	e := binrec.Encoder{B: make([]byte, 0, 64+160*len(c.Entries))}
	e.B = append(e.B, catalogMagic...)
	e.Uint(format)
	e.Uint(c.NextSeg)
	e.Uint(uint64(len(c.Segs)))
	for _, s := range c.Segs {
		e.Uint(s.ID)
		e.Int(s.Size)
		e.Uint(uint64(s.CRC))
		e.Uint(uint64(s.Recs))
	}
	e.Uint(uint64(len(c.Entries)))
	for _, x := range c.Entries {
		e.String(x.Path)
		e.Uint(x.Ino)
		e.Int(x.Size)
		e.Int(x.MtimeNs)
		e.Int(x.Offset)
		e.Uint(uint64(x.Head))
		e.Uint(uint64(x.Tail))
		e.Int(x.LastAt)
		e.Uint(x.Seg)
		e.Uint(uint64(x.Rec))
		if format >= 4 {
			e.Uint(x.Version)
		}
	}
	return binary.LittleEndian.AppendUint32(e.B, binrec.CRC(e.B))
}

// errOldFormat is a catalog another version of forgectl wrote: rebuilt
// without a note.
var errOldFormat = errors.New("search index from another version")

func decodeCatalog(b string) (*catalog, error) {
	if len(b) < len(catalogMagic)+4 || b[:len(catalogMagic)] != catalogMagic {
		return nil, damaged("the catalog has no header")
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	d := binrec.Decoder{S: body[len(catalogMagic):]}
	if binrec.CRC(bytesOf(body)) != binary.LittleEndian.Uint32(bytesOf(sum)) {
		return nil, damaged("the catalog's checksum does not match")
	}
	format := d.Uint()
	// Format 3 is 4 without the entries' text versions: read as version
	// 0, so an upgrade keeps the index (and the text of archived
	// sessions, which only it still holds) and rereads only what a
	// version now says moved.
	if format != catalogFormat && format != 3 {
		return nil, errOldFormat
	}
	c := &catalog{NextSeg: d.Uint()}
	ns := d.Count()
	ids := map[uint64]int{}
	for range ns {
		s := segInfo{ID: d.Uint(), Size: d.Int(), CRC: uint32(d.Uint()), Recs: int(d.Uint())}
		if d.Err() != nil {
			break
		}
		if _, dup := ids[s.ID]; dup || s.ID >= c.NextSeg || s.Recs < 0 {
			return nil, damaged("the catalog's segment list is inconsistent")
		}
		ids[s.ID] = s.Recs
		c.Segs = append(c.Segs, s)
	}
	ne := d.Count()
	c.Entries = make([]entry, 0, ne)
	for range ne {
		x := entry{Path: d.String(), Stamp: fresh.Stamp{File: fresh.File{Ino: d.Uint(), Size: d.Int(), MtimeNs: d.Int()}, Offset: d.Int(),
			Sums: fresh.Sums{Head: uint32(d.Uint()), Tail: uint32(d.Uint())}}, LastAt: d.Int(), Seg: d.Uint(), Rec: int(d.Uint())}
		if format >= 4 {
			x.Version = d.Uint()
		}
		if d.Err() != nil {
			break
		}
		recs, ok := ids[x.Seg]
		if !ok || x.Rec < 0 || x.Rec >= recs || x.Offset < 0 || x.Offset > x.Size {
			return nil, damaged("a catalog entry names no record")
		}
		c.Entries = append(c.Entries, x)
	}
	if d.Err() != nil || d.Rest() != 0 {
		return nil, damaged("the catalog does not decode")
	}
	return c, nil
}

func loadCatalog(path string) (*catalog, error) {
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &catalog{}, nil
		}
		if nr, ok := errors.AsType[*fsutil.NotRegularError](err); ok {
			return nil, damaged("the catalog %v", nr)
		}
		return nil, err
	}
	// The entries' strings share b, which is never written again.
	return decodeCatalog(unsafe.String(unsafe.SliceData(b), len(b)))
}
