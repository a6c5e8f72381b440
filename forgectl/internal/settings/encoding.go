package settings

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
)

// bom is the UTF-8 byte-order mark, which Windows editors and PowerShell
// put at the start of a file.
var bom = []byte("\xef\xbb\xbf")

// encoding is how a settings file's text is stored.
type encoding int

const (
	plainUTF8 encoding = iota
	utf8BOM            // UTF-8 behind a byte-order mark
	utf16LE            // UTF-16, little-endian (PowerShell's "Unicode")
)

// decodeText returns the JSON text of a settings file as Claude Code reads it
// (2.1.332, bundle and observed): a file starting FF FE, or whose first 512
// bytes are over a quarter NULs, is UTF-16LE (read from the second byte
// when the NULs fall on even bytes); anything else is UTF-8; and one
// leading U+FEFF is dropped. A BOM elsewhere, or after a space, stays and
// fails to parse, for Claude Code as for forgectl.
func decodeText(data []byte) ([]byte, encoding) {
	if enc, skip := sniffUTF16(data); enc == utf16LE {
		b := data[skip:]
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		text := []byte(string(utf16.Decode(u)))
		return bytes.TrimPrefix(text, bom), utf16LE
	}
	if bytes.HasPrefix(data, bom) {
		return data[len(bom):], utf8BOM
	}
	return data, plainUTF8
}

func sniffUTF16(data []byte) (encoding, int) {
	if len(data) >= 2 && data[0] == 0xff && data[1] == 0xfe {
		return utf16LE, 0
	}
	head := data[:min(len(data), 512)]
	even, odd := 0, 0
	for i, c := range head {
		if c == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	if len(head) >= 8 && (even+odd)*4 > len(head) {
		if even > odd {
			return utf16LE, 1
		}
		return utf16LE, 0
	}
	return plainUTF8, 0
}

// EncodingError is a settings file forgectl reads but does not rewrite.
type EncodingError struct{ Msg string }

func (e *EncodingError) Error() string { return e.Msg }

// editable splits data into what an edit keeps in front (a BOM) and the
// JSON text it edits. UTF-16 is refused: rewriting it means re-encoding
// the whole file, and a byte-exact edit is the point of this package.
func editable(data []byte) (prefix, text []byte, err error) {
	text, enc := decodeText(data)
	switch enc {
	case utf16LE:
		return nil, nil, &EncodingError{"the file is UTF-16 text; Claude Code reads it, but forgectl edits only UTF-8 settings files"}
	case utf8BOM:
		return bom, text, nil
	}
	return nil, data, nil
}

// bomAt names a byte-order mark where a syntax error points, so the
// message is not "invalid character 'ï'".
func bomAt(text []byte, off int) bool {
	return off >= 0 && off < len(text) && bytes.HasPrefix(text[off:], bom)
}

// CheckEditable reports why AddStopHook and RemoveStopHook would refuse
// data for its encoding (an *EncodingError), or nil.
func CheckEditable(data []byte) error {
	_, _, err := editable(data)
	return err
}
