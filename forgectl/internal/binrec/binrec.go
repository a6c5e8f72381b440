// Package binrec writes and reads the compact binary records of forgectl's
// transcript index: varints and
// length-prefixed strings appended to one byte slice, read back from one
// string.
//
// A cache is read on the hot path of every listing, so decoding avoids
// allocation: the whole file is held as one string and every decoded string
// is a substring sharing its memory. The first error sticks, so a caller
// decodes a whole record and checks Err once.
package binrec

import (
	"encoding/binary"
	"errors"
)

// ErrCorrupt is the error of a record that ends early or lies about a length.
var ErrCorrupt = errors.New("corrupt cache record")

// Encoder appends to B; the whole file is written at once.
type Encoder struct{ B []byte }

// Uint appends an unsigned varint.
func (e *Encoder) Uint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Int appends a signed (zig-zag) varint.
func (e *Encoder) Int(v int64) { e.B = binary.AppendVarint(e.B, v) }

// String appends a length-prefixed string.
func (e *Encoder) String(v string) { e.Uint(uint64(len(v))); e.B = append(e.B, v...) }

// Bool appends one byte, 0 or 1.
func (e *Encoder) Bool(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// Decoder reads what an Encoder wrote, from the front of S.
type Decoder struct {
	S   string
	err error
}

// Err is the first error met, or nil.
func (d *Decoder) Err() error { return d.err }

// Rest is how many bytes are left.
func (d *Decoder) Rest() int { return len(d.S) }

// Uint reads an unsigned varint.
func (d *Decoder) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := uvarint(d.S)
	if n <= 0 {
		d.err = ErrCorrupt
		return 0
	}
	d.S = d.S[n:]
	return v
}

// Int reads a signed varint.
func (d *Decoder) Int() int64 {
	ux := d.Uint()
	v := int64(ux >> 1)
	if ux&1 != 0 {
		v = ^v
	}
	return v
}

// Count reads a count of things that follow, refusing one larger than the
// bytes left (each thing takes at least one byte), so a corrupt count
// cannot make the caller allocate gigabytes.
func (d *Decoder) Count() int {
	n := d.Uint()
	if d.err == nil && n > uint64(len(d.S)) {
		d.err = ErrCorrupt
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

// String reads a length-prefixed string, sharing the decoder's memory.
func (d *Decoder) String() string {
	n := d.Uint()
	if d.err != nil || n > uint64(len(d.S)) {
		d.err = ErrCorrupt
		return ""
	}
	v := d.S[:n]
	d.S = d.S[n:]
	return v
}

// Bool reads one byte.
func (d *Decoder) Bool() bool {
	if d.err != nil || len(d.S) == 0 {
		d.err = ErrCorrupt
		return false
	}
	v := d.S[0] == 1
	d.S = d.S[1:]
	return v
}

// uvarint is binary.Uvarint for a string (no copy to a []byte).
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -(i + 1)
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
