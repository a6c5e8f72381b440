package harness

import (
	"bytes"
	"io"
)

// TailBlock is a backward read's first block; each further read doubles,
// up to tailBlockMax, so a tail of small lines costs one read and one of
// huge tool outputs few.
const (
	TailBlock    = 64 << 10
	tailBlockMax = 2 << 20
)

// BigLine is the length over which Backward first shows a line's head to
// the caller's passOver, before putting it together.
const BigLine = 64 << 10

// passOverHead is how much of a long line's start passOver is shown at
// least, where the line has that much.
const passOverHead = 4 << 10

// Backward hands the lines of f before size to line, newest first, until
// line says to stop, the file's start, or budget bytes read. It is how a
// harness reads a session's tail for the preview (Tail), whatever its
// lines hold.
//
// Each block is searched once, forwards (a vectorised search) for its
// newlines: in JSON lines a newline is only ever a line's end, so they are
// few. A line is put together only when its start is found, so a
// megabyte-long tool output costs one copy; a line longer than lineCap is
// never handed over, nor kept whole while it is read. A line longer than
// BigLine is first shown to passOver by its first bytes: when passOver
// says it holds nothing the caller wants, its megabytes are never copied
// together. A last line still being written has no newline yet: it is
// handed over like the others, and the caller drops it when it is not
// whole.
func Backward(f io.ReaderAt, size, budget int64, lineCap int, passOver func(head []byte) bool, line func([]byte) bool) error {
	hand := func(l []byte) bool {
		if len(l) > lineCap {
			return true
		}
		return line(l)
	}
	pos := size
	// pieces are the parts read so far of the newest line not yet whole,
	// oldest first; skipping says that line is over the cap and dropped.
	var pieces [][]byte
	pending, skipping := 0, false
	block, read := int64(TailBlock), int64(0)
	var nls []int
	for pos > 0 && read < budget {
		n := min(block, pos, budget-read)
		block = min(block*2, tailBlockMax)
		pos -= n
		chunk := make([]byte, n)
		if _, err := f.ReadAt(chunk, pos); err != nil && err != io.EOF {
			return err
		}
		read += n
		nls = newlines(chunk, nls[:0])
		if len(nls) == 0 {
			// All of the block is inside one line.
			if !skipping {
				pieces = append([][]byte{chunk}, pieces...)
				if pending += len(chunk); pending > lineCap {
					pieces, pending, skipping = nil, 0, true
				}
			}
			if pos == 0 && !skipping {
				hand(join(nil, pieces))
			}
			continue
		}
		// The block's newest line runs on into the pieces.
		last := nls[len(nls)-1]
		more := true
		if !skipping && !long(chunk[last+1:], pieces, pending, passOver) {
			more = hand(join(chunk[last+1:], pieces))
		}
		pieces, pending, skipping = nil, 0, false
		end := last
		for k := len(nls) - 2; k >= 0 && more; k-- {
			more = hand(chunk[nls[k]+1 : end])
			end = nls[k]
		}
		if !more {
			break
		}
		// The block's oldest bytes begin a line that starts before it.
		head := chunk[:nls[0]]
		if pos == 0 {
			hand(head)
			break
		}
		pieces, pending = [][]byte{head}, len(head)
	}
	return nil
}

// long says a line over BigLine is to be passed over, asking passOver
// with its first bytes: first, and the start of the pieces after it when
// first is short.
func long(first []byte, pieces [][]byte, pending int, passOver func([]byte) bool) bool {
	if len(first)+pending <= BigLine {
		return false
	}
	head := first
	if len(head) < passOverHead && len(pieces) > 0 {
		head = append(append([]byte(nil), first...), pieces[0][:min(len(pieces[0]), passOverHead)]...)
	}
	return passOver(head)
}

// newlines appends the offsets of b's newlines to nls, in order.
func newlines(b []byte, nls []int) []int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return nls
		}
		nls = append(nls, i+j)
		i += j + 1
	}
}

// join is first followed by the pieces, copied only when there are any.
func join(first []byte, pieces [][]byte) []byte {
	if len(pieces) == 0 {
		return first
	}
	n := len(first)
	for _, p := range pieces {
		n += len(p)
	}
	out := make([]byte, 0, n)
	out = append(out, first...)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out
}
