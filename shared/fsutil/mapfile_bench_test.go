package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the guard against a truncated mapping costs (issue 21): Read sets
// the fault mode and defers a recover around each call. The listing calls
// it about once per record (a warm listing of 10,000 sessions: some
// 10,000 calls), search once per segment read. Measured on the 2-core VM
// (2026-12-02, three runs): 53-95 ns a guarded read of a 700-byte record
// against 48-79 unguarded, and 306-383 with the record copied out: about
// 0.3 ms of guard and 3 ms of copies in a 10,000-session warm listing
// that takes 150-200 ms.
func BenchmarkMappingRead(b *testing.B) {
	p := filepath.Join(b.TempDir(), "ix")
	data := make([]byte, 7<<20) // the size of a 10,000-session listing index
	for i := range data {
		data[i] = byte(i)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	m, err := MapFile(p)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	const record = 700 // bytes a listing record decodes, about
	var sink byte
	touch := func(d string, off int) {
		for k := off; k < off+record; k += 64 {
			sink += d[k]
		}
	}
	b.Run("guarded", func(b *testing.B) {
		off := 0
		for b.Loop() {
			m.Read(func(d string) { touch(d, off) })
			off = (off + record) % (len(data) - record)
		}
	})
	b.Run("unguarded", func(b *testing.B) {
		raw := m.b
		off := 0
		for b.Loop() {
			for k := off; k < off+record; k += 64 {
				sink += raw[k]
			}
			off = (off + record) % (len(data) - record)
		}
	})
	// The listing copies what it keeps of a record out of the mapping
	// (nothing may outlive Read): the copy on top of the guard.
	var kept []string
	b.Run("guarded+copy", func(b *testing.B) {
		off := 0
		for b.Loop() {
			m.Read(func(d string) { kept = append(kept[:0], strings.Clone(d[off:off+record])) })
			off = (off + record) % (len(data) - record)
		}
	})
	_ = sink
}
