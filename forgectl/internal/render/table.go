package render

import (
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/msg"
	"github.com/mattn/go-runewidth"
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
	// fit is the terminal's width (0: a pipe, values kept whole) and
	// style its colours; see Fit.
	fit      int
	style    Style
	segs     []seg
	highlite func(string) [][2]int
	// Mark, when set, is the mark of a row's harness ("cc"), put before
	// its title: set when the list holds more than one harness. A person
	// who uses one harness never sees it, and it costs no column.
	Mark func(*harness.Session) string
}

// Fit makes the table fit a terminal of width columns (0: no limit, as
// for a pipe) and colour it with st. Columns are measured in display
// columns, wide runes counting two; the title and extra columns shrink
// first, then repo and branch, cut values ending in "…"; a line that
// still does not fit (a terminal narrower than the id and the counts) is
// cut at width. Without Fit the table is what a pipe gets: full values,
// widths counted in runes, no escapes. marks, when not nil, finds the
// ranges of an extra column's text to highlight.
func (t *Table) Fit(width int, st Style, marks func(string) [][2]int) {
	t.fit, t.style, t.highlite = width, st, marks
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
	s     *harness.Session // nil for the header
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
	if t.Mark != nil {
		c[colTitle] = t.Mark(s) + " " + c[colTitle]
	}
	for k := range t.layout.Extra {
		if k < len(extra) {
			c[fixedCols+k] = Clean(extra[k])
		}
	}
	return row{cells: c, mark: string(AppendMark(nil, s)), s: s}
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
			t.widths[k] = t.measure(t.heads[k])
		}
		for _, r := range t.sample {
			t.widths[k] = max(t.widths[k], t.measure(r.cell(k)))
		}
		t.widths[k] = max(t.widths[k], 1)
	}
	if t.fit > 0 {
		t.shrink()
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

// Stream lays the columns out for the terminal Fit named, at once rather
// than from a sample, and writes the header: each row is then written as
// it is added (a first search's hits, while the index is built). The
// title keeps its layout's width and the extra columns (the snippet) take
// the rest, shrunk as Fit shrinks them. Without a width it does nothing.
func (t *Table) Stream() {
	if t.fit <= 0 || t.widths != nil {
		return
	}
	t.widths = append([]int{36, 8, 12, 14, 5, 4, t.layout.Title}, make([]int, len(t.layout.Extra))...)
	for k := fixedCols; k < len(t.widths); k++ {
		t.widths[k] = t.fit
	}
	t.shrink()
	if t.header {
		t.row(row{cells: t.heads})
	}
}

// measure is a cell's width: display columns on a terminal, runes for a
// pipe (what the table always counted).
func (t *Table) measure(s string) int {
	if t.fit > 0 {
		return Width(s)
	}
	return utf8.RuneCountInString(s)
}

// cut cuts a cell to n, as measure counts.
func (t *Table) cut(s string, n int) string {
	if t.fit > 0 {
		return CutWidth(s, n)
	}
	return msg.Cut(s, n)
}

// shrink narrows the columns until a line fits t.fit: the extra columns
// (the snippet) and the title first, to a floor each, then repo and
// branch; then all of them further, to their minimum.
func (t *Table) shrink() {
	total := func() int {
		n := 0
		for _, w := range t.widths {
			n += w + 2
		}
		return n - 2
	}
	shrinkable := func(k int) bool { return k == colTitle || k >= fixedCols }
	steps := []struct {
		which func(int) bool
		floor int
	}{
		{shrinkable, 24},
		{func(k int) bool { return k == colRepo || k == colBranch }, 10},
		{shrinkable, 12},
		{func(k int) bool { return k == colRepo || k == colBranch }, 4},
		{shrinkable, 4},
	}
	for _, st := range steps {
		for over := total() - t.fit; over > 0; over = total() - t.fit {
			// Take a column from the widest of the set above its floor.
			widest := -1
			for k, w := range t.widths {
				if st.which(k) && w > st.floor && (widest < 0 || w > t.widths[widest]) {
					widest = k
				}
			}
			if widest < 0 {
				break
			}
			t.widths[widest]--
		}
	}
}

// row writes one line; a later row's repo, branch or title longer than
// its column is cut to fit, the title before its mark.
func (t *Table) row(r row) {
	if t.fit > 0 || t.style.On {
		t.styledRow(r)
		return
	}
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

// seg is a run of a line's text with its style (an SGR code, "" for
// none).
type seg struct{ text, code string }

// styledRow is row for a terminal: each cell cut to its column (the last
// too), coloured, and the line cut at the terminal's width.
func (t *Table) styledRow(r row) {
	segs := t.segs[:0]
	last := len(r.cells) - 1
	for k, v := range r.cells {
		w := t.widths[k]
		start := len(segs)
		switch {
		case r.s == nil: // the header, cut as its column is
			if t.fit > 0 {
				v = t.cut(v, w)
			}
			segs = append(segs, seg{text: v})
		case k == colTitle:
			mark := r.mark
			title := v
			if k != last || t.fit > 0 {
				title = t.cut(v, max(1, w-t.measure(mark)))
			}
			code := ""
			if r.s.Name != "" {
				code = sgrBold
			}
			segs = append(segs, seg{title, code}, seg{mark, sgrMark})
		case k == colAge:
			segs = append(segs, seg{v, sgrDim})
		case k == colLive:
			segs = append(segs, seg{v, liveCode(r.s)})
		case k == colRepo || k == colBranch:
			segs = append(segs, seg{t.cut(v, w), ""})
		case k >= fixedCols:
			if t.fit > 0 {
				v = t.cut(v, w)
			}
			segs = t.marked(segs, v)
		default:
			segs = append(segs, seg{v, ""})
		}
		if k == last {
			break
		}
		n := 0
		for _, sg := range segs[start:] {
			n += t.measure(sg.text)
		}
		if pad := w + 2 - n; pad > 0 {
			segs = append(segs, seg{text: spaces(pad)})
		}
	}
	t.segs = segs
	b := t.buf[:0]
	room := t.fit
	for i, sg := range segs {
		text := sg.text
		if t.fit > 0 {
			n := t.measure(text)
			if n > room || (n == room && anyText(segs[i+1:])) {
				// Cut here, "…" standing for what is left out.
				text = runewidth.Truncate(text, room-1, "") + "…"
				room = 0
			} else {
				room -= n
			}
		}
		b = append(b, t.style.wrap(sg.code, text)...)
		if t.fit > 0 && room == 0 {
			break
		}
	}
	b = append(trimSpaces(b), '\n')
	t.buf = b
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

// marked is an extra cell's segments, its matches highlighted.
func (t *Table) marked(segs []seg, v string) []seg {
	if t.highlite == nil || !t.style.On {
		return append(segs, seg{v, ""})
	}
	at := 0
	for _, m := range t.highlite(v) {
		if m[0] < at || m[1] > len(v) || m[0] >= m[1] {
			continue
		}
		segs = append(segs, seg{v[at:m[0]], ""}, seg{v[m[0]:m[1]], sgrMatch})
		at = m[1]
	}
	return append(segs, seg{v[at:], ""})
}

// anyText says a later segment holds more than padding.
func anyText(segs []seg) bool {
	for _, s := range segs {
		for i := 0; i < len(s.text); i++ {
			if s.text[i] != ' ' {
				return true
			}
		}
	}
	return false
}

func spaces(n int) string {
	const blank = "                                                                "
	for len(blank) < n {
		return blank + spaces(n-len(blank))
	}
	return blank[:n]
}

// trimSpaces drops the padding a cut line may end in.
func trimSpaces(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
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
