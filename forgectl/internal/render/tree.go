package render

import (
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/lineage"
)

// LineageMark is what a child's row says of its parent: its relation word
// and the parent's 8-character id prefix ("fork of b3b98d6c"), with
// "(gone)" when the parent's transcript is no longer on disk; "" for a
// session with no parent.
func LineageMark(s *harness.Session) string {
	if s.ParentID == "" {
		return ""
	}
	var b strings.Builder
	switch s.Relation {
	case lineage.Clear:
		b.WriteString("after /clear of ")
	case lineage.Branch:
		b.WriteString("branch of ")
	case "subagent": // a Codex subagent thread
		b.WriteString("subagent of ")
	default:
		b.WriteString("fork of ")
	}
	b.WriteString(ShortID(s.ParentID))
	if !s.ParentExists {
		b.WriteString(" (gone)")
	}
	return b.String()
}

// AppendMark appends a row's lineage mark after its title, "  [fork of
// b3b98d6c]"; nothing for a session with no parent.
func AppendMark(b []byte, s *harness.Session) []byte {
	if m := LineageMark(s); m != "" {
		b = append(b, "  ["...)
		b = append(b, Clean(m)...)
		b = append(b, ']')
	}
	return b
}

// ShortID is an id's 8-character prefix, as marks name a parent.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Kin is the one rule for a session's relatives, used by the preview and
// the tree: a session's parent is the listed session its ParentID names
// (the first listed of two transcripts with one id, the newest, as resume
// picks it; never itself), and its children are the listed sessions that
// name it, in the order they were added (newest first, as listed). Rows
// are added as a listing hands them on; the picker's previews read it
// meanwhile, so it is safe for concurrent use.
type Kin struct {
	mu       sync.Mutex
	rows     []*harness.Session
	byID     map[string]int
	children map[string][]int // by parent id
}

// NewKin holds the sessions of list, in its order.
func NewKin(list []harness.Session) *Kin {
	k := &Kin{byID: make(map[string]int, len(list)), children: map[string][]int{}}
	for i := range list {
		k.Add(&list[i])
	}
	return k
}

// Add adds a listed session.
func (k *Kin) Add(s *harness.Session) {
	k.mu.Lock()
	defer k.mu.Unlock()
	i := len(k.rows)
	k.rows = append(k.rows, s)
	if _, dup := k.byID[s.ID]; !dup {
		k.byID[s.ID] = i
	}
	if s.ParentID != "" && s.ParentID != s.ID {
		k.children[s.ParentID] = append(k.children[s.ParentID], i)
	}
}

// parentRow is row i's parent row, -1 for none.
func (k *Kin) parentRow(i int) int {
	s := k.rows[i]
	if s.ParentID == "" || s.ParentID == s.ID {
		return -1
	}
	if p, ok := k.byID[s.ParentID]; ok {
		return p
	}
	return -1
}

// Parent is the listed session s names as its parent, nil for none.
func (k *Kin) Parent(s *harness.Session) *harness.Session {
	if k == nil || s.ParentID == "" || s.ParentID == s.ID {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.byID[s.ParentID]; ok {
		return k.rows[p]
	}
	return nil
}

// Children are the listed sessions that name s as their parent.
func (k *Kin) Children(s *harness.Session) []*harness.Session {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []*harness.Session
	for _, c := range k.children[s.ID] {
		out = append(out, k.rows[c])
	}
	return out
}

// family is a listing's lineage as the tree walks it: each row's parent
// row (by Kin's rule) and the rows in cycles. Every walk along it is
// linear in the listing's length, however deep its chains: a home can
// hold a chain of thousands (a /clear loop, a script forking again and
// again), and damaged or hand-made files can make parents name each other.
type family struct {
	list   []harness.Session
	up     []int  // each row's parent row, -1 for none
	cyclic []bool // rows whose parents lead back to them
	cycles [][]int
	// steps counts the parent links the walks followed, so that a test
	// can check they stay linear (a timing could not say so reliably).
	steps int
}

func newFamily(list []harness.Session) *family {
	k := NewKin(list)
	f := &family{list: list, up: make([]int, len(list)), cyclic: make([]bool, len(list))}
	for i := range list {
		f.up[i] = k.parentRow(i)
	}
	f.findCycles()
	return f
}

// findCycles marks the rows whose parents lead back to them (only damaged
// or hand-made files can say so; such a session is shown as a root rather
// than lost). Each row has one parent, so following parents from every row
// in turn, and stopping at a row an earlier walk finished, visits each
// row once.
func (f *family) findCycles() {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(f.list))
	at := make([]int, len(f.list)) // a row's place in the current path
	var path []int
	for i := range f.list {
		path = path[:0]
		k := i
		for k >= 0 && state[k] == unseen {
			f.steps++
			state[k], at[k] = onPath, len(path)
			path = append(path, k)
			k = f.up[k]
		}
		if k >= 0 && state[k] == onPath {
			// The path came back to itself: from k on it is a cycle.
			c := append([]int(nil), path[at[k]:]...)
			for _, m := range c {
				f.cyclic[m] = true
			}
			f.cycles = append(f.cycles, c)
		}
		for _, m := range path {
			state[m] = done
		}
	}
}

// shownParents gives each row's nearest ancestor that shown holds, or -1:
// a hidden or filtered-out parent is stepped over, so a child stays under
// the line of work it belongs to. A row in a cycle has none. Each row's
// answer is worked out once and reused by the rows below it.
func (f *family) shownParents(shown []bool) []int {
	const unknown = -2
	// through[k] is the nearest of k and its ancestors that is shown.
	through := make([]int, len(f.list))
	for k := range through {
		through[k] = unknown
	}
	// Around a cycle, the nearest shown member following parents: start
	// from a shown one and go round against the parent links.
	for _, c := range f.cycles {
		s := -1
		for k, m := range c {
			if shown[m] {
				s = k
				break
			}
		}
		if s < 0 {
			for _, m := range c {
				through[m] = -1
			}
			continue
		}
		// c[k]'s parent is c[k+1] (and the last one's is c[0]).
		through[c[s]] = c[s]
		for n := 1; n < len(c); n++ {
			f.steps++
			k := (s - n + len(c)) % len(c)
			if shown[c[k]] {
				through[c[k]] = c[k]
			} else {
				through[c[k]] = through[c[(k+1)%len(c)]]
			}
		}
	}
	var path []int
	for i := range f.list {
		path = path[:0]
		v := -1
		for k := i; ; {
			f.steps++
			if through[k] != unknown {
				v = through[k]
				break
			}
			if shown[k] {
				through[k], v = k, k
				break
			}
			path = append(path, k)
			if k = f.up[k]; k < 0 {
				break
			}
		}
		for _, m := range path {
			through[m] = v
		}
	}
	out := make([]int, len(f.list))
	for i := range out {
		out[i] = -1
		if p := f.up[i]; p >= 0 && !f.cyclic[i] {
			out[i] = through[p]
		}
	}
	return out
}

// shownSet marks the listed rows idx names.
func shownSet(n int, idx []int) []bool {
	shown := make([]bool, n)
	for _, i := range idx {
		shown[i] = true
	}
	return shown
}

// Roots keeps the hits that are nobody's child among the sessions the
// listing shows (hidden ones count only with --all): one row per line of
// work. A session whose parent's transcript is gone is a root.
func Roots(list []harness.Session, hits, visible []int) []int {
	return newFamily(list).roots(hits, visible)
}

func (f *family) roots(hits, visible []int) []int {
	parent := f.shownParents(shownSet(len(f.list), visible))
	out := make([]int, 0, len(hits))
	for _, i := range hits {
		if parent[i] < 0 {
			out = append(out, i)
		}
	}
	return out
}

// Node is one printed session and the printed sessions below it.
type Node struct {
	i        int
	children []*Node
	newest   time.Time // the newest activity in this subtree
}

// Tree arranges hits (newest first) as a forest: each under its
// nearest printed ancestor, children newest first, and the tree whose
// newest activity is latest first.
func Tree(list []harness.Session, hits []int) []*Node {
	return newFamily(list).tree(hits)
}

func (f *family) tree(hits []int) []*Node {
	parent := f.shownParents(shownSet(len(f.list), hits))
	nodes := make(map[int]*Node, len(hits))
	for _, i := range hits {
		nodes[i] = &Node{i: i, newest: f.list[i].LastActivity}
	}
	var top []*Node
	for _, i := range hits { // newest first, so children come out in order
		if p := parent[i]; p >= 0 {
			nodes[p].children = append(nodes[p].children, nodes[i])
		} else {
			top = append(top, nodes[i])
		}
	}
	// A subtree's newest activity: children before their parents, which
	// is the reverse of the order a walk from the top meets them in.
	order := preorder(top)
	for k := len(order) - 1; k >= 0; k-- {
		n := order[k].n
		for _, c := range n.children {
			if c.newest.After(n.newest) {
				n.newest = c.newest
			}
		}
	}
	sort.SliceStable(top, func(a, b int) bool { return top[a].newest.After(top[b].newest) })
	return top
}

// placed is a node met by a walk of the forest, with its depth (a root's
// is 0) and whether it is its parent's last child.
type placed struct {
	n     *Node
	depth int
	last  bool
}

// preorder lists the forest as it is printed, parents before their
// children. It keeps its own stack: a chain thousands deep is thousands
// of levels.
func preorder(forest []*Node) []placed {
	var out []placed
	stack := make([]placed, 0, len(forest))
	for k := len(forest) - 1; k >= 0; k-- {
		stack = append(stack, placed{forest[k], 0, k == len(forest)-1})
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, p)
		for k := len(p.n.children) - 1; k >= 0; k-- {
			stack = append(stack, placed{p.n.children[k], p.depth + 1, k == len(p.n.children)-1})
		}
	}
	return out
}

// TreeIndent is how many levels the text tree indents: 8 levels of glyphs
// take 24 columns before the 36 of the id, so an 80-column terminal still
// shows the id whole. A deeper row stays at that indentation and says its
// depth instead, "…(12) " where its glyph would be.
const TreeIndent = 8

// WriteTree prints the forest as the ls table, each child below its parent
// behind tree glyphs at the start of its line.
func WriteTree(w io.Writer, now time.Time, list []harness.Session, forest []*Node) error {
	return WriteTreeTable(NewTable(w, now, true, Listing), list, forest)
}

// WriteTreeTable is WriteTree into a table made (and fitted) by the caller.
func WriteTreeTable(t *Table, list []harness.Session, forest []*Node) error {
	// lead[d] is what stands before the glyph of a row d deep: a column
	// per ancestor below the roots, "│  " while that ancestor has a later
	// sibling still to come. Capped at TreeIndent columns, it costs each
	// row a bounded copy.
	var lead []string
	for _, p := range preorder(forest) {
		d := p.depth
		glyph := "├─ "
		if p.last {
			glyph = "└─ "
		}
		at := ""
		switch {
		case d == 0:
			lead = lead[:0]
		case d <= TreeIndent:
			at = lead[d-1] + glyph
		default:
			at = lead[TreeIndent] + "…(" + strconv.Itoa(d) + ") "
		}
		t.add(t.cells(&list[p.n.i], nil), at)
		if d < TreeIndent+1 {
			// The lead of this row's children.
			next := ""
			switch {
			case d == 0:
			case p.last:
				next = lead[d-1] + "   "
			default:
				next = lead[d-1] + "│  "
			}
			lead = append(lead[:d], next)
		}
	}
	return t.Close()
}

// TreeJSONDepth is the deepest --tree --json nests an object below its
// root (a root is at depth 0). jq 1.6 to 1.7.1 refuse input nested more
// than 256 deep, counting an object twice (for the key being read), and
// each level of the tree costs three: its object, the "children" key and
// the array; jq 1.6 failed on a chain 86 long. At 64, the deepest value
// is 197 deep, which leaves room for a consumer that wraps the array
// again. The sessions deeper in the tree are listed flat, in tree order,
// in the children of their ancestor at depth 63, each with children []
// and its parent_session_id naming the session it came from.
const TreeJSONDepth = 64

// WriteTreeJSON prints the forest as the ls --json array, each object with
// a "children" array of the same objects ([] for none).
func WriteTreeJSON(w io.Writer, list []harness.Session, forest []*Node) error {
	// The recursion stops at TreeJSONDepth; below it, the walk is flat.
	var children func(n *Node, depth int) func([]byte) []byte
	children = func(n *Node, depth int) func([]byte) []byte {
		return func(b []byte) []byte {
			b = append(b, `,"children":[`...)
			if depth+1 < TreeJSONDepth {
				for k, c := range n.children {
					if k > 0 {
						b = append(b, ',')
					}
					b = AppendSession(b, &list[c.i], children(c, depth+1))
				}
			} else {
				for k, p := range preorder(n.children) {
					if k > 0 {
						b = append(b, ',')
					}
					b = AppendSession(b, &list[p.n.i], noChildren)
				}
			}
			return append(b, ']')
		}
	}
	j := NewJSONArray(w)
	for _, n := range forest {
		j.Add(&list[n.i], children(n, 0))
	}
	return j.Close()
}

func noChildren(b []byte) []byte { return append(b, `,"children":[]`...) }
