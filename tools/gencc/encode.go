package gencc

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// maxProjectDirLen is the length above which Claude Code (2.1.332) shortens an
// encoded project directory name and appends a hash of the raw cwd.
const maxProjectDirLen = 200

// EncodeProjectDir returns the directory name Claude Code 2.1.332 uses under
// projects/ for a session whose cwd is cwd.
//
// Claude Code runs a JavaScript regexp over UTF-16 code units, so a character
// outside the Basic Multilingual Plane (an emoji, say) becomes two dashes, not
// one. Names longer than 200 units are cut to 200 and suffixed with "-" and
// the base-36 absolute value of a Java-style 32-bit hash of the raw cwd.
func EncodeProjectDir(cwd string) string {
	var b strings.Builder
	b.Grow(len(cwd))
	for _, r := range cwd {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	enc := b.String()
	if len(enc) <= maxProjectDirLen {
		return enc
	}
	return enc[:maxProjectDirLen] + "-" + strconv.FormatInt(abs64(int64(javaHash(cwd))), 36)
}

// javaHash is `h = (h<<5) - h + charCodeAt(i) | 0` over UTF-16 code units.
func javaHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = h*31 + int32(u)
	}
	return h
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
