package main

import (
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
)

// tableSample is how many rows set the table's column widths. The rest
// are written as they come, cut to those widths: measuring every row of a
// 100,000-session listing first would hold the whole listing.
const tableSample = 200

// table writes sessions as aligned columns as a listing streams. Candidate
// lists (an ambiguous filter) use the same rows with the full id first and
// no header, so `awk '{print $1}'` yields ids.
type table struct {
	w      io.Writer
	now    time.Time
	header bool
	sample [][7]string
	widths [7]int // 0 until the sample is written
	buf    []byte
	err    error
}

var tableHeader = [7]string{"SESSION", "ACTIVITY", "REPO", "BRANCH", "TASKS", "LIVE", "NAME / LAST PROMPT"}

// cutTo caps the columns a session's own text fills (repo, branch, name);
// the others are never cut.
var cutTo = [7]int{0, 0, 24, 24, 0, 0, 60}

func newTable(w io.Writer, now time.Time, header bool) *table {
	return &table{w: w, now: now, header: header}
}

// cells are a session's columns; a child's title ends with its lineage
// mark ("[fork of b3b98d6c]"), which is never cut.
func (t *table) cells(s *harness.Session) [7]string {
	name := clean(cut(title(s), cutTo[6]))
	if s.ParentID != "" {
		name = string(appendMark([]byte(name), s))
	}
	return [7]string{s.ID, age(t.now, s.LastActivity), clean(cut(orDash(s.Repo), cutTo[2])), clean(cut(orDash(s.Branch), cutTo[3])),
		taskCell(s), liveCell(s), name}
}

func (t *table) add(s *harness.Session) { t.addCells(t.cells(s)) }

func (t *table) addCells(c [7]string) {
	if t.widths[0] == 0 {
		t.sample = append(t.sample, c)
		if len(t.sample) == tableSample {
			t.flushSample()
		}
		return
	}
	t.row(c)
}

func (t *table) flushSample() {
	for k := range t.widths {
		if t.header {
			t.widths[k] = utf8.RuneCountInString(tableHeader[k])
		}
		for _, c := range t.sample {
			t.widths[k] = max(t.widths[k], utf8.RuneCountInString(c[k]))
		}
		t.widths[k] = max(t.widths[k], 1)
	}
	if t.header {
		t.row(tableHeader)
	}
	for _, c := range t.sample {
		t.row(c)
	}
	t.sample = nil
}

// row writes one line; a later row's repo, branch or name longer than its
// column is cut to fit.
func (t *table) row(c [7]string) {
	b := t.buf[:0]
	for k, v := range c {
		if k == len(c)-1 {
			b = append(b, v...)
			break
		}
		if cutTo[k] > 0 {
			v = cut(v, t.widths[k])
		}
		b = pad(b, v, t.widths[k]+2)
	}
	b = append(b, '\n')
	t.buf = b
	t.write(b)
}

func (t *table) write(b []byte) {
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

// close writes what the sample still holds.
func (t *table) close() error {
	if t.widths[0] == 0 && len(t.sample) > 0 {
		t.flushSample()
	}
	return t.err
}

func taskCell(s *harness.Session) string {
	if s.Tasks.Total == 0 {
		return "-"
	}
	return strconv.Itoa(s.Tasks.Completed) + "/" + strconv.Itoa(s.Tasks.Total)
}

func liveCell(s *harness.Session) string {
	if s.Live {
		return "live:" + strconv.Itoa(s.Pid)
	}
	return "-"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
