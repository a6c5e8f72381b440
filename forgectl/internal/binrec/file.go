package binrec

import (
	"bufio"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"forgectl.dev/shared/fsutil"
)

// CRC is the checksum of every forgectl cache: CRC-32C, which the CPU
// computes in hardware on amd64 and arm64.
func CRC(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// NewCRC is CRC as a running hash, for a checksum over several writes.
func NewCRC() hash.Hash32 { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) }

// A record in a cache file is framed as uvarint(len(payload)), the
// payload's CRC (4 bytes, little-endian) and the payload, so that a reader
// finds its end without decoding it and never decodes bytes that changed.

// AppendRecord appends payload, framed, to b.
func AppendRecord(b, payload []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, CRC(payload))
	return append(b, payload...)
}

// RecordAt returns the framing's length and the payload of the record at
// the start of s, checked against its CRC; ok is false for a record that
// runs past s or whose bytes changed. The payload shares s.
func RecordAt(s string) (framed int, payload string, ok bool) {
	n, k := uvarint(s)
	if k <= 0 || n > uint64(len(s)-k) || uint64(len(s)-k)-n < 4 {
		return 0, "", false
	}
	head := k + 4
	payload = s[head : head+int(n)]
	// Viewed, not converted: this runs for every record a warm listing
	// looks up, and a conversion would copy each one.
	if CRC(bytesOf(payload)) != binary.LittleEndian.Uint32(bytesOf(s[k:head])) {
		return 0, "", false
	}
	return head + int(n), payload, true
}

// bytesOf views s as bytes, for reading only.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Writer writes a cache file the way every forgectl cache is written: into
// a temp file beside it, buffered, then renamed over it by Commit, so a
// reader sees the old file or the new one, never a part. A write error
// sticks and is returned by Commit.
type Writer struct {
	path string
	f    *os.File
	w    *bufio.Writer
	off  int64
	err  error
	kept func()
}

// Create starts the next version of the file at path, creating its
// directory (0700). onExit, when not nil, registers a removal of the temp
// file that runs if the process is ended before Commit or Abandon (see
// shared/interrupt); it returns the function that unregisters it. A temp
// file left by a process killed mid-write, older than a minute, is
// removed first.
func Create(path string, onExit func(func()) func()) (*Writer, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fsutil.RemoveStaleTemps(path, time.Minute)
	f, err := os.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10), kept: func() {}}
	if onExit != nil {
		tmp := f.Name()
		w.kept = onExit(func() { os.Remove(tmp) })
	}
	return w, nil
}

// tempPrefix is the name of path's temp files, as fsutil.RemoveStaleTemps
// finds them.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// Offset is how many bytes have been written.
func (w *Writer) Offset() int64 { return w.off }

// Write writes b.
func (w *Writer) Write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	w.err = err
}

// WriteString writes s.
func (w *Writer) WriteString(s string) {
	if w.err != nil {
		return
	}
	n, err := w.w.WriteString(s)
	w.off += int64(n)
	w.err = err
}

// Record writes payload framed as a record and returns its offset.
func (w *Writer) Record(payload []byte) int64 {
	at := w.off
	var head [binary.MaxVarintLen64 + 4]byte
	n := binary.PutUvarint(head[:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(head[n:], CRC(payload))
	w.Write(head[:n+4])
	w.Write(payload)
	return at
}

// Err is the first write error.
func (w *Writer) Err() error { return w.err }

// Commit flushes the file, makes it owner-only and renames it over path;
// on any error the temp file is removed and path is left as it was.
func (w *Writer) Commit() error {
	defer w.kept()
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if err := w.f.Chmod(fsutil.FilePerm); err != nil && w.err == nil {
		w.err = err
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	if w.err == nil {
		w.err = os.Rename(w.f.Name(), w.path)
	}
	if w.err != nil {
		os.Remove(w.f.Name())
	}
	return w.err
}

// Abandon removes the temp file; path is left as it was.
func (w *Writer) Abandon() {
	w.f.Close()
	os.Remove(w.f.Name())
	w.kept()
}

// IsTemp says whether name (a base name in path's directory) is one of
// path's temp files.
func IsTemp(path, name string) bool { return strings.HasPrefix(name, tempPrefix(path)) }
