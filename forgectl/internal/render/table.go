package render

import (
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/msg"
)

// TableSample is how many rows set a table's column widths. The rest are
// written as they come, cut to those widths: measuring every row of a
// 100,000-session listing first would hold the whole listing.
const TableSample = 200

// Table writes sessions as aligned columns as a listing streams: SESSION,
// ACTIVITY, REPO, BRANCH, TASKS, LIVE, NAME / LAST PROMPT, then the
// layout's extra columns (search's snippet). A child's title ends with its
// lineage mark ("[fork of b3b98d6c]"), in every table, and the mark is
// never cut. Candidate lists (an ambiguous filter or search) use the same
// rows with the full id first and no header, so `awk '{print $1}'` yields
// ids.
type Table struct {
	w      io.Writer
	now    time.Time
	header bool
	layout Layout
	heads  []string
	sample []row
	widths []int // nil until the sample is written
	buf    []byte
	err    error
	// Marks puts each row's harness mark before its title (HarnessMark):
	// set when the list holds more than one harness.
	Marks bool
}

// Layout is what differs between the tables: how much of the title shows
// and the columns after it.
type Layout struct {
	// Title caps the NAME / LAST PROMPT column (before its mark).
	Title int
	// Extra are the columns after the title, each filled by the value
	// Add is given for it.
	Extra []Column
}

// Column is an extra column. Its cells come as the caller made them (cut
// to a size of its choosing) and are cleaned of control characters, never
// cut to fit.
type Column struct {
	Header string
}

// Listing is the layout of ls and the candidates of an ambiguous FILTER.
var Listing = Layout{Title: 60}

// Search is the layout of resume search: a shorter title, then the best
// hit ("prompt: …the words…").
var Search = Layout{Title: 40, Extra: []Column{{Header: "SNIPPET"}}}

// The fixed columns and the ones cut to fit (repo, branch, title).
const (
	colID = iota
	colAge
	colRepo
	colBranch
	colTasks
	colLive
	colTitle
	fixedCols
)

var fixedHeads = [fixedCols]string{"SESSION", "ACTIVITY", "REPO", "BRANCH", "TASKS", "LIVE", "NAME / LAST PROMPT"}

// row is one line's cells; mark is the title's lineage mark, kept apart so
// that cutting the title to its column never cuts the mark.
type row struct {
	cells []string
	mark  string
}

// NewTable writes to w, ages measured from now, with a header line or not.
func NewTable(w io.Writer, now time.Time, header bool, l Layout) *Table {
	heads := append(fixedHeads[:fixedCols:fixedCols], make([]string, len(l.Extra))...)
	for k, c := range l.Extra {
		heads[fixedCols+k] = c.Header
	}
	return &Table{w: w, now: now, header: header, layout: l, heads: heads}
}

// Add writes a session's row; extra fills the layout's extra columns, in
// order (a missing one is empty).
func (t *Table) Add(s *harness.Session, extra ...string) { t.add(t.cells(s, extra), "") }

// cells are a session's columns.
func (t *Table) cells(s *harness.Session, extra []string) row {
	c := make([]string, len(t.heads))
	c[colID] = s.ID
	c[colAge] = Age(t.now, s.LastActivity)
	c[colRepo] = Clean(msg.Cut(OrDash(s.Repo), 24))
	c[colBranch] = Clean(msg.Cut(OrDash(s.Branch), 24))
	c[colTasks] = TaskCell(s)
	c[colLive] = LiveCell(s)
	c[colTitle] = Clean(msg.Cut(Title(s), t.layout.Title))
	if t.Marks {
		c[colTitle] = HarnessMark(s) + " " + c[colTitle]
	}
	for k := range t.layout.Extra {
		if k < len(extra) {
			c[fixedCols+k] = Clean(extra[k])
		}
	}
	return row{cells: c, mark: string(AppendMark(nil, s))}
}

// add writes a row, lead (tree glyphs) standing before its id.
func (t *Table) add(r row, lead string) {
	if lead != "" {
		r.cells[colID] = lead + r.cells[colID]
	}
	if t.widths == nil {
		t.sample = append(t.sample, r)
		if len(t.sample) == TableSample {
			t.flushSample()
		}
		return
	}
	t.row(r)
}

func (t *Table) flushSample() {
	t.widths = make([]int, len(t.heads))
	for k := range t.widths {
		if t.header {
			t.widths[k] = utf8.RuneCountInString(t.heads[k])
		}
		for _, r := range t.sample {
			t.widths[k] = max(t.widths[k], utf8.RuneCountInString(r.cell(k)))
		}
		t.widths[k] = max(t.widths[k], 1)
	}
	if t.header {
		t.row(row{cells: t.heads})
	}
	for _, r := range t.sample {
		t.row(r)
	}
	t.sample = nil
}

// cell is column k as printed, the title with its mark.
func (r row) cell(k int) string {
	if k == colTitle {
		return r.cells[k] + r.mark
	}
	return r.cells[k]
}

// row writes one line; a later row's repo, branch or title longer than
// its column is cut to fit, the title before its mark.
func (t *Table) row(r row) {
	b := t.buf[:0]
	last := len(r.cells) - 1
	for k, v := range r.cells {
		if k == colTitle {
			if k != last {
				v = msg.Cut(v, max(1, t.widths[k]-utf8.RuneCountInString(r.mark)))
			}
			v += r.mark
		}
		if k == last {
			b = append(b, v...)
			break
		}
		if k == colRepo || k == colBranch {
			v = msg.Cut(v, t.widths[k])
		}
		b = Pad(b, v, t.widths[k]+2)
	}
	b = append(b, '\n')
	t.buf = b
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

// Close writes what the sample still holds and reports the first write
// error.
func (t *Table) Close() error {
	if t.widths == nil && len(t.sample) > 0 {
		t.flushSample()
	}
	return t.err
}

// TaskCell is the TASKS column: completed/total, "-" for none.
func TaskCell(s *harness.Session) string {
	if s.Tasks.Total == 0 {
		return "-"
	}
	return strconv.Itoa(s.Tasks.Completed) + "/" + strconv.Itoa(s.Tasks.Total)
}

// LiveCell is the LIVE column: live:<pid> when running.
func LiveCell(s *harness.Session) string {
	if s.Live {
		return "live:" + strconv.Itoa(s.Pid)
	}
	return "-"
}
