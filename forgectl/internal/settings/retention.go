package settings

import (
	"bytes"
	"math"
	"strconv"
)

// Retention is what one settings document says about cleanupPeriodDays,
// the days Claude Code keeps a transcript before its retention sweep
// deletes it (default 30).
type Retention struct {
	// Present says the document sets the key (the last of duplicates
	// counts, as for JSON.parse).
	Present bool
	// Valid says the value passes Claude Code's schema (2.1.333:
	// number().int().positive()): a JSON number that is a whole number of
	// at least 1. 0, a negative, a fraction or a string is a validation
	// error, which pauses the sweep.
	Valid bool
	// Days is the value when Valid.
	Days float64
	// Raw is the value's JSON text, for a message.
	Raw string
}

// ReadRetention reads cleanupPeriodDays from a settings document as
// Claude Code reads it. Empty data (or only white space) is a document
// that sets nothing, as it is for Claude Code; one that does not parse, or
// is not a JSON object, is an error.
func ReadRetention(data []byte) (Retention, error) {
	var r Retention
	text, _ := decodeText(data)
	if len(bytes.TrimSpace(text)) == 0 {
		return r, nil
	}
	root, err := parse(text)
	if err != nil {
		return r, err
	}
	if root.kind != '{' {
		return r, &ShapeError{"the document is not a JSON object"}
	}
	_, v := root.last("cleanupPeriodDays")
	if v == nil {
		return r, nil
	}
	r.Present, r.Raw = true, string(text[v.start:v.end])
	if v.kind != 'v' || r.Raw == "true" || r.Raw == "false" || r.Raw == "null" {
		return r, nil
	}
	f, err := strconv.ParseFloat(r.Raw, 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < 1 {
		return r, nil
	}
	r.Valid, r.Days = true, f
	return r, nil
}
