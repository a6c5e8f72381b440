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
	// below puts the extra columns (the snippet) on a line of their own
	// under each row: a terminal too narrow for the name and the snippet
	// side by side.
	below bool
	// Mark, when set, is the mark of a row's harness ("cc"), put before
	// its title: set when the list holds more than one harness. A person
	// who uses one harness never sees it, and it costs no column.
	Mark func(*harness.Session) string
	// pending is what a table for a pipe holds back, written flushAt at a
	// time as the JSON array is: a write per row was a tenth of a warm
	// listing to a pipe. A terminal's rows are written one by one, as
	// they come.
	pending []byte
	// MarkLater, when set, gives Mark at the first row instead: knowing
	// whether the list holds more than one harness means walking every
	// harness's tree, which the listing does side by side with reading
	// the first rows; a table that asked before the listing began waited
	// for the walks alone.
	MarkLater func() func(*harness.Session) string
}

// resolveMark sets Mark from MarkLater, once.
func (t *Table) resolveMark() {
	if t.MarkLater != nil {
		t.Mark, t.MarkLater = t.MarkLater(), nil
	}
}

// Fit makes the table fit a terminal of width columns (0: no limit, as
// for a pipe) and colour it with st. Columns are measured in display
// columns, wide runes counting two; the title and extra columns shrink
// first, then repo and branch, cut values ending in "…", and where that
// would leave the name or the snippet too little to read, columns make
// way (layoutFor). The id is never cut; a line that still does not fit (a
// terminal narrower than the id and the counts) is cut at width. Without
// Fit the table is what a pipe gets: full values, widths counted in
// runes, every column, no escapes. marks, when not nil, finds the ranges
// of an extra column's text to highlight.
func (t *Table) Fit(width int, st Style, marks func(string) [][2]int) {
	t.fit, t.style, t.highlite = width, st, marks
}

// Layout is what differs between the tables: how much of the title shows
// and the columns after it.
type Layout struct {
	// Title is the NAME / LAST PROMPT column's width in a streamed
	// layout (Stream), which cannot measure its rows.
	Title int
	// Extra are the columns after the title, each filled by the value
	// Add is given for it.
	Extra []Column
}

// Column is an extra column. Its cells come as the caller made them and
// are cleaned of control characters; only a terminal cuts them, to fit.
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
	t.resolveMark()
	c := make([]string, len(t.heads))
	c[colID] = s.ID
	c[colAge] = Age(t.now, s.LastActivity)
	// Values are whole: a pipe keeps them so, and a terminal cuts them
	// to the columns its width leaves (shrink).
	c[colRepo] = Clean(OrDash(s.Repo))
	c[colBranch] = Clean(OrDash(s.Branch))
	c[colTasks] = TaskCell(s)
	c[colLive] = LiveCell(s)
	c[colTitle] = Clean(Title(s))
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
	nat := make([]int, len(t.heads))
	for k := range nat {
		if t.header {
			nat[k] = t.measure(t.heads[k])
		}
		for _, r := range t.sample {
			nat[k] = max(nat[k], t.measure(r.cell(k)))
		}
		nat[k] = max(nat[k], 1)
	}
	t.widths = nat
	if t.fit > 0 {
		// A TASKS or LIVE column that is "-" on every row says nothing a
		// reader needs: on a terminal its room goes to the name. A pipe
		// keeps every column, for scripts. Only when every row is known:
		// past the sample, a later row's tasks would be lost (a live
		// mark is written after its title anyway).
		var blank []int
		for _, k := range []int{colTasks, colLive} {
			if t.allDash(k) && (k == colLive || len(t.sample) < TableSample) {
				blank = append(blank, k)
			}
		}
		t.layoutFor(nat, blank)
	}
	if t.header {
		t.row(row{cells: t.heads})
	}
	for _, r := range t.sample {
		t.row(r)
	}
	t.sample = nil
}

// allDash says every sampled row's column k is "-".
func (t *Table) allDash(k int) bool {
	for _, r := range t.sample {
		if r.cells[k] != "-" {
			return false
		}
	}
	return true
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
// layout depends on the width alone, so that a first search leaves on the
// screen what a warm one prints. Since it cannot know whether any row has
// tasks or is live, it has no TASKS or LIVE column (a live row says so
// after its title); repo and branch get the room usual values take, the
// title its layout's width and the extra columns (the snippet) the rest,
// all shrunk as Fit shrinks them. Without a width it does nothing.
func (t *Table) Stream() {
	if t.fit <= 0 || t.widths != nil {
		return
	}
	t.resolveMark()
	title := t.layout.Title
	if t.Mark != nil {
		title += 3
	}
	nat := append([]int{36, 8, 20, 30, 5, 4, title}, make([]int, len(t.layout.Extra))...)
	for k := fixedCols; k < len(nat); k++ {
		nat[k] = t.fit
	}
	t.layoutFor(nat, []int{colTasks, colLive})
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

// The floors a terminal table keeps before it gives up a column: a name
// cut under nameFloor columns (past its harness mark) and a snippet under
// snippetFloor (its role, "prompt: ", takes 8) no longer say what a
// session was; repo and branch read as far down as repoFloor.
const (
	nameFloor    = 20
	snippetFloor = 36
	repoFloor    = 7
)

// dropped is a column's width when the layout leaves it out.
const dropped = -1

// layoutFor sets t.widths from the natural widths nat (what the values
// take) for t.fit. It tries, in turn, until a line fits with every kept
// column at or above its floor: every column (less blank, the columns
// that say nothing); then without TASKS and LIVE (a live row then says
// so after its title); then with the extra columns (the snippet) on a
// line of their own under each row; then without BRANCH; then without
// REPO. Each try shrinks the title and the snippet first, to 40 columns,
// then repo and branch to 16, then the title and the snippet to their
// floors, then repo and branch to theirs. The last try that still does
// not fit shrinks further, every cut column to 4; a line that still does
// not fit is cut at the edge. The id is never cut.
func (t *Table) layoutFor(nat []int, blank []int) {
	tries := [][]int{blank, {colTasks, colLive}, {}, {colBranch}, {colRepo}}
	var drop []int
	for n, try := range tries {
		drop = append(drop, try...)
		below := n >= 2 && len(t.layout.Extra) > 0
		if n == 2 && !below {
			continue
		}
		w := append([]int(nil), nat...)
		for _, k := range drop {
			w[k] = dropped
		}
		if below {
			for k := fixedCols; k < len(w); k++ {
				w[k] = dropped
			}
		}
		t.widths, t.below = w, below
		if t.shrink(n == len(tries)-1) {
			return
		}
	}
}

// shrink narrows t.widths to fit t.fit, as layoutFor says, and reports
// whether the line fits with every column at or above its floor; past
// them only when last.
func (t *Table) shrink(last bool) bool {
	total := func() int {
		n := 0
		for _, w := range t.widths {
			if w != dropped {
				n += w + 2
			}
		}
		return n - 2
	}
	titleFloor := nameFloor
	if t.Mark != nil {
		titleFloor += 3 // "cc "
	}
	text := func(k int) bool { return k == colTitle || k >= fixedCols }
	repo := func(k int) bool { return k == colRepo || k == colBranch }
	floorOf := func(k int) int {
		if k == colTitle {
			return titleFloor
		}
		if k >= fixedCols {
			return snippetFloor
		}
		return repoFloor
	}
	steps := []struct {
		which func(int) bool
		floor func(int) int
	}{
		{text, func(int) int { return 40 }},
		{repo, func(int) int { return 16 }},
		{text, floorOf},
		{repo, floorOf},
	}
	if last {
		steps = append(steps, struct {
			which func(int) bool
			floor func(int) int
		}{func(k int) bool { return text(k) || repo(k) }, func(int) int { return 4 }})
	}
	for _, st := range steps {
		for over := total() - t.fit; over > 0; over = total() - t.fit {
			// Take a column from the widest of the set above its floor.
			widest := -1
			for k, w := range t.widths {
				if st.which(k) && w > st.floor(k) && (widest < 0 || w > t.widths[widest]) {
					widest = k
				}
			}
			if widest < 0 {
				break
			}
			t.widths[widest]--
		}
	}
	return total() <= t.fit
}

// row writes one line; on a pipe every value is whole, a value wider than
// its column pushing the rest of its line right (two spaces still part
// it from the next).
func (t *Table) row(r row) {
	if t.fit > 0 || t.style.On {
		t.styledRow(r)
		return
	}
	b := t.pending
	last := len(r.cells) - 1
	for k, v := range r.cells {
		if k == colTitle {
			v += r.mark
		}
		if k == last {
			b = append(b, v...)
			break
		}
		b = Pad(b, v, max(t.widths[k], utf8.RuneCountInString(v))+2)
	}
	t.pending = append(b, '\n')
	if len(t.pending) >= flushAt {
		t.flush()
	}
}

// flush writes the rows a pipe's table holds back.
func (t *Table) flush() {
	if t.err == nil && len(t.pending) > 0 {
		_, t.err = t.w.Write(t.pending)
	}
	t.pending = t.pending[:0]
}

// seg is a run of a line's text with its style (an SGR code, "" for
// none).
type seg struct{ text, code string }

// shown is the columns a line prints, in order.
func (t *Table) shown() []int {
	ks := make([]int, 0, len(t.widths))
	for k, w := range t.widths {
		if w != dropped {
			ks = append(ks, k)
		}
	}
	return ks
}

// styledRow is row for a terminal: each cell cut to its column (the last
// too), coloured, and the line cut at the terminal's width; with the
// extra columns below, each follows on a line of its own, indented. With
// no width (colour to a pipe) values are whole, as row keeps them.
func (t *Table) styledRow(r row) {
	segs := t.segs[:0]
	ks := t.shown()
	for n, k := range ks {
		v := r.cells[k]
		w := t.widths[k]
		last := n == len(ks)-1
		start := len(segs)
		switch {
		case r.s == nil: // the header, cut as its column is
			if t.fit > 0 {
				v = t.cut(v, w)
			}
			segs = append(segs, seg{text: v})
		case k == colTitle:
			segs = t.titleSegs(segs, r, v, w)
		case k == colAge:
			segs = append(segs, seg{v, sgrDim})
		case k == colLive:
			segs = append(segs, seg{v, liveCode(r.s)})
		case k == colRepo || k == colBranch:
			if t.fit > 0 {
				v = t.cut(v, w)
			}
			segs = append(segs, seg{v, ""})
		case k >= fixedCols:
			if t.fit > 0 {
				v = t.cut(v, w)
			}
			segs = t.marked(segs, v)
		default:
			segs = append(segs, seg{v, ""})
		}
		if last {
			break
		}
		n := 0
		for _, sg := range segs[start:] {
			n += t.measure(sg.text)
		}
		segs = append(segs, seg{text: spaces(max(w-n, 0) + 2)})
	}
	b := t.line(t.buf[:0], segs)
	if t.below && r.s != nil {
		for k := fixedCols; k < len(r.cells); k++ {
			if r.cells[k] == "" {
				continue
			}
			segs = append(segs[:0], seg{text: "  "})
			segs = t.marked(segs, r.cells[k])
			b = t.line(b, segs)
		}
	}
	t.segs = segs
	t.buf = b
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

// titleSegs are the title cell's segments: the title cut to its column
// before its lineage mark, which is never cut. A column too narrow for
// the name's floor beside the whole mark gets the mark's relation alone
// ("[fork]"; the preview spells it out). When the layout has no LIVE
// column, a live row says so after its mark.
func (t *Table) titleSegs(segs []seg, r row, v string, w int) []seg {
	mark := r.mark
	live := ""
	if t.widths[colLive] == dropped && r.s.Live {
		live = "  " + LiveCell(r.s)
	}
	if t.fit > 0 {
		if mark != "" && w-t.measure(mark+live) < nameFloor {
			mark = "  [" + shortRelation(r.s.Relation) + "]"
		}
		v = t.cut(v, max(1, w-t.measure(mark+live)))
	}
	code := ""
	if r.s.Name != "" {
		code = sgrBold
	}
	return append(segs, seg{v, code}, seg{mark, sgrMark}, seg{live, liveCode(r.s)})
}

// line appends one line of segs to b: coloured, cut at the terminal's
// width with "…" standing for what is left out, ending in a newline.
func (t *Table) line(b []byte, segs []seg) []byte {
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
	return append(trimSpaces(b), '\n')
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
	t.flush()
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
