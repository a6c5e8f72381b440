package harness

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// backward runs Backward over data and reports the lines handed over
// (newest first, cut to 20 bytes) and the heads passOver was shown.
func backward(t *testing.T, data string, lineCap int, stopAt int, pass func([]byte) bool) (lines []string, heads int) {
	t.Helper()
	err := Backward(strings.NewReader(data), int64(len(data)), 64<<20, lineCap, func(h []byte) bool {
		heads++
		if len(h) < passOverHead {
			t.Errorf("passOver shown %d bytes, want at least %d", len(h), passOverHead)
		}
		return pass(h)
	}, func(l []byte) bool {
		lines = append(lines, string(l[:min(len(l), 20)]))
		return len(lines) < stopAt
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, heads
}

// Lines come newest first, a last line with no newline included and the
// first line too; a line over the cap is never handed over; a long line
// is shown to passOver first, and what it passes over is not handed over;
// false from the callback stops the walk.
func TestBackward(t *testing.T) {
	long := "L" + strings.Repeat("x", 3*TailBlock)
	huge := "H" + strings.Repeat("y", 5*tailBlockMax)
	data := "first\n" + huge + "\n" + long + "\nshort\n" + "cut mid-wri"
	never := func([]byte) bool { return false }
	got, heads := backward(t, data, 4*tailBlockMax, 100, never)
	want := []string{"cut mid-wri", "short", long[:20], "first"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if heads != 1 {
		t.Errorf("passOver asked %d times, want once (for the long line; the huge one is over the cap)", heads)
	}
	got, _ = backward(t, data, 8*tailBlockMax, 100, func(h []byte) bool { return bytes.HasPrefix(h, []byte("L")) })
	if d := cmp.Diff([]string{"cut mid-wri", "short", huge[:20], "first"}, got); d != "" {
		t.Errorf("passing over the long line, under a higher cap (-want +got):\n%s", d)
	}
	if got, _ = backward(t, data, 4*tailBlockMax, 2, never); len(got) != 2 {
		t.Errorf("stopped after 2, handed %q", got)
	}
}
