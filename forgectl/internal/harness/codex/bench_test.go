package codex

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/shared/jsonl"
	"golang.org/x/sys/unix"
)

// BenchmarkReadSegment reads one rollout of 40 turns, plain and zstd
// compressed: the cost of a cold listing's segment, and of the decoder.
func BenchmarkReadSegment(b *testing.B) {
	t := &testing.T{}
	lines := [][]byte{codextest.MetaLine(pmeta(idTUI, t0))}
	for k := range 40 {
		lines = append(lines, codextest.User(t0, 3*k+1, fmt.Sprintf("prompt %d", k)),
			codextest.Tool(t0, 3*k+2, "ls -la", "output output output", "thinking"),
			codextest.Agent(t0, 3*k+3, "reply"))
	}
	plain := bytes.Join(lines, nil)
	dir := b.TempDir()
	hm := &home{t: t, root: dir}
	for _, c := range []struct {
		name string
		b    []byte
	}{{"plain", plain}, {"zst", zstdOf(t, plain)}} {
		p := filepath.Join(dir, "rollout-x.jsonl")
		if c.name == "zst" {
			p += ".zst"
		}
		hm.write(p, c.b, t0)
		var st unix.Stat_t
		unix.Stat(p, &st)
		now := fileOf(&st)
		h := New(Paths{Root: dir})
		sc := jsonl.NewScanner(nil, 0)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := h.readSegment(sc, p, now, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	_ = fresh.File{}
	_ = time.Second
}
