package jsonl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func collect(t *testing.T, r io.Reader, max int) (lines []string, s *Scanner) {
	t.Helper()
	s = NewScanner(r, 0)
	if max > 0 {
		s.MaxLine = max
	}
	for {
		l, ok := s.Next()
		if !ok {
			break
		}
		lines = append(lines, string(l))
	}
	return lines, s
}

func TestScanner(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		name     string
		in       string
		max      int
		want     []string
		consumed int64
		skipped  int
	}{
		{"empty", "", 0, nil, 0, 0},
		{"two lines", "a\nbb\n", 0, []string{"a", "bb"}, 5, 0},
		{"cut mid-write", "a\n{\"ty", 0, []string{"a"}, 2, 0},
		{"long line", long + "\nz\n", 0, []string{long, "z"}, int64(len(long) + 3), 0},
		{"over cap skipped", "a\n" + long + "\nz\n", 1000, []string{"a", "z"}, int64(len(long) + 5), 1},
		{"over cap unfinished", "a\n" + long, 1000, []string{"a"}, 2, 0},
		{"blank lines", "\n\nq\n", 0, []string{"", "", "q"}, 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in)), iotest.HalfReader(strings.NewReader(tc.in))} {
				got, s := collect(t, r, tc.max)
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Fatalf("lines (-want +got):\n%.400s", d)
				}
				if s.Consumed() != tc.consumed || s.Skipped != tc.skipped {
					t.Fatalf("consumed %d skipped %d, want %d %d", s.Consumed(), s.Skipped, tc.consumed, tc.skipped)
				}
			}
		})
	}
}

func TestScannerBaseAndOffsets(t *testing.T) {
	s := NewScanner(bytes.NewReader([]byte("ab\ncd\n")), 100)
	s.Next()
	l, _ := s.Next()
	if string(l) != "cd" || s.LineOffset() != 103 || s.Consumed() != 106 {
		t.Fatalf("got %q off %d consumed %d", l, s.LineOffset(), s.Consumed())
	}
}

func TestScannerReadError(t *testing.T) {
	s := NewScanner(iotest.ErrReader(io.ErrUnexpectedEOF), 0)
	if _, ok := s.Next(); ok || s.Err() == nil {
		t.Fatal("want error surfaced")
	}
}

// A closed Done ends the scan at the next read, however much is left.
func TestScannerDone(t *testing.T) {
	done := make(chan struct{})
	r := &countingReader{line: []byte(strings.Repeat("x", 1000) + "\n")}
	sc := NewScanner(r, 0)
	sc.Done = done
	n := 0
	for {
		_, ok := sc.Next()
		if !ok {
			break
		}
		if n++; n == 10 {
			close(done)
		}
	}
	if !errors.Is(sc.Err(), context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", sc.Err())
	}
	if r.reads > 3 {
		t.Errorf("%d reads after the scan was done, want it to stop at the next", r.reads)
	}
	sc.Reset(strings.NewReader("a\n"), 0)
	if sc.Done == nil {
		t.Error("Reset dropped Done")
	}
}

// countingReader is an endless stream of one line.
type countingReader struct {
	line  []byte
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	n := 0
	for n < len(p) {
		n += copy(p[n:], c.line)
	}
	return n, nil
}
