package codex

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
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
				if _, _, err := h.readSegment(sc, p, now, nil, h.openParent); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	_ = fresh.File{}
	_ = time.Second
}

// BenchmarkTail100MB is the picker's preview of a 100 MB rollout, warm:
// turns of a prompt, shell calls whose outputs run to hundreds of
// kilobytes, and a reply. Never a timed assertion.
func BenchmarkTail100MB(b *testing.B) {
	p := filepath.Join(b.TempDir(), "rollout.jsonl")
	var buf bytes.Buffer
	buf.Write(codextest.MetaLine(pmeta(idTUI, t0)))
	out := string(bytes.Repeat([]byte("ok  \tforgectl.dev/x/pkg\t0.012s  \"quoted\" path/to/file.go:12\n"), 4000))
	for k := 1; buf.Len() < 100<<20; k += 3 {
		buf.Write(codextest.User(t0, k, fmt.Sprintf("prompt %d", k)))
		buf.Write(codextest.Tool(t0, k+1, "go test ./...", out, "thinking about it"))
		buf.Write(codextest.Agent(t0, k+2, "the tests pass\nand the rounding is right"))
	}
	hm := &home{t: &testing.T{}, root: filepath.Dir(p)}
	hm.write(p, buf.Bytes(), t0)
	h := New(Paths{})
	s := &harness.Session{ID: idTUI, Transcript: p}
	if turns, err := h.Tail(s, 28); err != nil || len(turns) < 10 {
		b.Fatalf("%d turns, %v", len(turns), err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := h.Tail(s, 28); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/(1<<20), "file-MB")
}
