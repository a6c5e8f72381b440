// Package jsonl reads JSON-lines files the way Claude Code's files need:
// lines of any length up to a cap, a final line cut off mid-write left for
// later, and a running offset so an index can resume from where it stopped.
package jsonl

import (
	"bytes"
	"context"
	"io"
)

// DefaultMaxLine bounds the memory one line may take. Claude Code writes
// attachment rows of several megabytes; a line past this cap is skipped
// (counted in Skipped) rather than failing the read.
const DefaultMaxLine = 16 << 20

// Scanner yields complete, newline-terminated lines. Unlike bufio.Scanner it
// has no fixed token size: the buffer grows up to MaxLine, and longer lines
// are discarded in a streaming way.
type Scanner struct {
	r       io.Reader
	buf     []byte
	start   int // first unread byte in buf
	end     int // end of valid data in buf
	base    int64
	scanned int // bytes from start already known to hold no newline
	eof     bool
	err     error
	MaxLine int
	// Done, when not nil, ends the scan before the next read once it is
	// closed (a context's Done): Next then reports false and Err is
	// context.Canceled. A listing cancelled in the middle of a huge
	// transcript leaves within one read instead of at the file's end.
	Done <-chan struct{}

	lineStart int64
	consumed  int64 // offset just past the last complete line returned or skipped
	Skipped   int   // lines over MaxLine
}

// initialBuf is the buffer a scanner starts with; it grows for long lines.
const initialBuf = 256 << 10

// NewScanner reads from r, whose first byte is at file offset base.
func NewScanner(r io.Reader, base int64) *Scanner {
	return &Scanner{r: r, buf: make([]byte, initialBuf), base: base, consumed: base, MaxLine: DefaultMaxLine}
}

// Reset makes s read from r as a new scanner would, reusing its buffer so a
// worker reading thousands of files does not allocate one per file. A
// buffer grown for an unusually long line is dropped rather than kept.
func (s *Scanner) Reset(r io.Reader, base int64) {
	buf := s.buf
	if cap(buf) > 4*initialBuf || cap(buf) < initialBuf {
		buf = make([]byte, initialBuf)
	}
	*s = Scanner{r: r, buf: buf[:cap(buf)], base: base, consumed: base, MaxLine: s.MaxLine, Done: s.Done}
	if s.MaxLine == 0 {
		s.MaxLine = DefaultMaxLine
	}
}

// Next returns the next complete line without its newline, or ok=false at
// the end of the input. The slice is valid until the next call.
func (s *Scanner) Next() (line []byte, ok bool) {
	for {
		if i := bytes.IndexByte(s.buf[s.start+s.scanned:s.end], '\n'); i >= 0 {
			i += s.scanned
			line = s.buf[s.start : s.start+i]
			s.lineStart = s.base + int64(s.start)
			s.start += i + 1
			s.scanned = 0
			s.consumed = s.base + int64(s.start)
			return line, true
		}
		// Remember how far we looked so slow readers do not make this quadratic.
		s.scanned = s.end - s.start
		if s.eof || s.err != nil {
			return nil, false
		}
		if s.end-s.start >= s.MaxLine {
			if !s.discardLine() {
				return nil, false
			}
			continue
		}
		s.fill()
	}
}

// fill makes room (compacting, then growing up to MaxLine) and reads once.
func (s *Scanner) fill() {
	if s.start > 0 && (s.end == len(s.buf) || s.start > len(s.buf)/2) {
		n := copy(s.buf, s.buf[s.start:s.end])
		s.base += int64(s.start)
		s.start, s.end = 0, n
	}
	if s.end == len(s.buf) {
		size := 2 * len(s.buf)
		if size > s.MaxLine+1 {
			size = s.MaxLine + 1
		}
		nb := make([]byte, size)
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	if s.cancelled() {
		return
	}
	n, err := s.r.Read(s.buf[s.end:])
	s.end += n
	if err == io.EOF {
		s.eof = true
	} else if err != nil {
		s.err = err
	}
}

// discardLine drops bytes up to and including the next newline. It reports
// false when the input ends first: then the over-long tail is an unfinished
// line and stays unconsumed.
func (s *Scanner) discardLine() bool {
	s.scanned = 0
	for {
		if i := bytes.IndexByte(s.buf[s.start:s.end], '\n'); i >= 0 {
			s.start += i + 1
			s.consumed = s.base + int64(s.start)
			s.Skipped++
			return true
		}
		s.base += int64(s.end)
		s.start, s.end = 0, 0
		if s.eof || s.err != nil {
			return false
		}
		if s.cancelled() {
			return false
		}
		n, err := s.r.Read(s.buf)
		s.end = n
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.err = err
		}
	}
}

// cancelled reports whether Done is closed, making it the scan's error.
func (s *Scanner) cancelled() bool {
	if s.Done == nil {
		return false
	}
	select {
	case <-s.Done:
		s.err = context.Canceled
		return true
	default:
		return false
	}
}

// LineOffset is the file offset of the line Next last returned.
func (s *Scanner) LineOffset() int64 { return s.lineStart }

// Consumed is the offset just past the last complete line: where a later
// read of an append-only file should resume.
func (s *Scanner) Consumed() int64 { return s.consumed }

// Spare lends the scanner's buffer to a caller done with the scan, as
// scratch space for one more read of the same file (a checksum of its
// bytes): the next Next or Reset overwrites what it holds.
func (s *Scanner) Spare() []byte { return s.buf[:cap(s.buf)] }

// Err is the first read error other than EOF.
func (s *Scanner) Err() error { return s.err }
