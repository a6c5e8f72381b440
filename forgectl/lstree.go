package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/lineage"
)

// lineageMark is what a child's row says of its parent: its relation word
// and the parent's 8-character id prefix ("fork of b3b98d6c"), with
// "(gone)" when the parent's transcript is no longer on disk; "" for a
// session with no parent.
func lineageMark(s *harness.Session) string {
	if s.ParentID == "" {
		return ""
	}
	var b strings.Builder
	switch s.Relation {
	case lineage.Clear:
		b.WriteString("after /clear of ")
	case lineage.Branch:
		b.WriteString("branch of ")
	default:
		b.WriteString("fork of ")
	}
	b.WriteString(shortID(s.ParentID))
	if !s.ParentExists {
		b.WriteString(" (gone)")
	}
	return b.String()
}

// appendMark appends a row's lineage mark after its title.
func appendMark(b []byte, s *harness.Session) []byte {
	if m := lineageMark(s); m != "" {
		b = append(b, "  ["...)
		b = append(b, clean(m)...)
		b = append(b, ']')
	}
	return b
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// family is the listing's lineage, indexed both ways: each session's parent
// row and its children (newest first, as listed). Every walk along it is
// linear in the listing's length, however deep its chains: a home can hold
// a chain of thousands (a /clear loop, a script forking again and again),
// and damaged or hand-made files can make parents name each other.
type family struct {
	list     []harness.Session
	byID     map[string]int
	children map[int][]int
	up       []int  // each row's parent row, -1 for none
	cyclic   []bool // rows whose parents lead back to them
	cycles   [][]int
	// steps counts the parent links the walks followed, so that a test
	// can check they stay linear (a timing could not say so reliably).
	steps int
}

func newFamily(list []harness.Session) *family {
	f := &family{list: list, byID: make(map[string]int, len(list)), children: map[int][]int{},
		up: make([]int, len(list)), cyclic: make([]bool, len(list))}
	for i := range list {
		// The newest of two transcripts with one id (a copy under another
		// project) stands for it, as resume picks it.
		if _, dup := f.byID[list[i].ID]; !dup {
			f.byID[list[i].ID] = i
		}
	}
	for i := range list {
		f.up[i] = -1
		if id := list[i].ParentID; id != "" {
			if p, ok := f.byID[id]; ok && p != i {
				f.up[i] = p
				f.children[p] = append(f.children[p], i)
			}
		}
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

// roots keeps the hits that are nobody's child among the sessions the
// listing shows (hidden ones count only with --all): one row per line of
// work. A session whose parent's transcript is gone is a root.
func roots(list []harness.Session, hits, visible []int) []int {
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

// treeNode is one printed session and the printed sessions below it.
type treeNode struct {
	i        int
	children []*treeNode
	newest   time.Time // the newest activity in this subtree
}

// buildTree arranges hits (newest first) as a forest: each under its
// nearest printed ancestor, children newest first, and the tree whose
// newest activity is latest first.
func buildTree(list []harness.Session, hits []int) []*treeNode {
	return newFamily(list).tree(hits)
}

func (f *family) tree(hits []int) []*treeNode {
	parent := f.shownParents(shownSet(len(f.list), hits))
	nodes := make(map[int]*treeNode, len(hits))
	for _, i := range hits {
		nodes[i] = &treeNode{i: i, newest: f.list[i].LastActivity}
	}
	var top []*treeNode
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
	n     *treeNode
	depth int
	last  bool
}

// preorder lists the forest as it is printed, parents before their
// children. It keeps its own stack: a chain thousands deep is thousands
// of levels.
func preorder(forest []*treeNode) []placed {
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

// treeIndent is how many levels the text tree indents: 8 levels of glyphs
// take 24 columns before the 36 of the id, so an 80-column terminal still
// shows the id whole. A deeper row stays at that indentation and says its
// depth instead, "…(12) " where its glyph would be.
const treeIndent = 8

// writeTree prints the forest as the ls table, each child below its parent
// behind tree glyphs at the start of its line.
func writeTree(w io.Writer, now time.Time, list []harness.Session, forest []*treeNode) error {
	t := newTable(w, now, true)
	// lead[d] is what stands before the glyph of a row d deep: a column
	// per ancestor below the roots, "│  " while that ancestor has a later
	// sibling still to come. Capped at treeIndent columns, it costs each
	// row a bounded copy.
	var lead []string
	for _, p := range preorder(forest) {
		c := t.cells(&list[p.n.i])
		d := p.depth
		glyph := "├─ "
		if p.last {
			glyph = "└─ "
		}
		switch {
		case d == 0:
			lead = lead[:0]
		case d <= treeIndent:
			c[0] = lead[d-1] + glyph + c[0]
		default:
			c[0] = lead[treeIndent] + "…(" + strconv.Itoa(d) + ") " + c[0]
		}
		t.addCells(c)
		if d < treeIndent+1 {
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
	return t.close()
}

// treeJSONDepth is the deepest --tree --json nests an object below its
// root (a root is at depth 0). jq 1.6 to 1.7.1 refuse input nested more
// than 256 deep, counting an object twice (for the key being read), and
// each level of the tree costs three: its object, the "children" key and
// the array; jq 1.6 failed on a chain 86 long. At 64, the deepest value
// is 197 deep, which leaves room for a consumer that wraps the array
// again. The sessions deeper in the tree are listed flat, in tree order,
// in the children of their ancestor at depth 63, each with children []
// and its parent_session_id naming the session it came from.
const treeJSONDepth = 64

// writeTreeJSON prints the forest as the ls --json array, each object with
// a "children" array of the same objects ([] for none).
func writeTreeJSON(w io.Writer, list []harness.Session, forest []*treeNode) error {
	if len(forest) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	open := func(b []byte, n *treeNode) []byte {
		b = appendSession(b, toJSON(&list[n.i]))
		return append(b[:len(b)-1], `,"children":[`...)
	}
	// The recursion stops at treeJSONDepth; below it, the walk is flat.
	var add func(b []byte, n *treeNode, depth int) []byte
	add = func(b []byte, n *treeNode, depth int) []byte {
		b = open(b, n)
		if depth+1 < treeJSONDepth {
			for k, c := range n.children {
				if k > 0 {
					b = append(b, ',')
				}
				b = add(b, c, depth+1)
			}
		} else {
			for k, p := range preorder(n.children) {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(open(b, p.n), "]}"...)
			}
		}
		return append(b, "]}"...)
	}
	b := make([]byte, 0, 64<<10)
	b = append(b, "[\n"...)
	for k, n := range forest {
		b = append(b, "  "...)
		b = add(b, n, 0)
		if k < len(forest)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, "]\n"...)
	_, err := w.Write(b)
	return err
}

// kin is what a preview knows of a session's relatives: the listing's
// family for ls, the rows so far for the picker.
type kin interface {
	parentOf(s *harness.Session) *harness.Session
	childrenOf(s *harness.Session) []*harness.Session
}

func (f *family) parentOf(s *harness.Session) *harness.Session {
	if p, ok := f.byID[s.ParentID]; ok && s.ParentID != "" {
		return &f.list[p]
	}
	return nil
}

func (f *family) childrenOf(s *harness.Session) []*harness.Session {
	i, ok := f.byID[s.ID]
	if !ok {
		return nil
	}
	var out []*harness.Session
	for _, c := range f.children[i] {
		out = append(out, &f.list[c])
	}
	return out
}

// growingFamily is the picker's kin: rows are added as the listing hands
// them on, and previews read it meanwhile.
type growingFamily struct {
	mu       sync.Mutex
	byID     map[string]*harness.Session
	children map[string][]*harness.Session
}

func newGrowingFamily() *growingFamily {
	return &growingFamily{byID: map[string]*harness.Session{}, children: map[string][]*harness.Session{}}
}

func (g *growingFamily) add(s *harness.Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	// The newest of two transcripts with one id stands for it, as resume
	// picks it; rows come newest first.
	if _, dup := g.byID[s.ID]; !dup {
		g.byID[s.ID] = s
	}
	if s.ParentID != "" && s.ParentID != s.ID {
		g.children[s.ParentID] = append(g.children[s.ParentID], s)
	}
}

func (g *growingFamily) parentOf(s *harness.Session) *harness.Session {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.ParentID == "" {
		return nil
	}
	return g.byID[s.ParentID]
}

func (g *growingFamily) childrenOf(s *harness.Session) []*harness.Session {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*harness.Session(nil), g.children[s.ID]...)
}

// lineageLines are the preview's lines about where a session came from and
// what came from it.
func lineageLines(k kin, s *harness.Session, now time.Time, line func(k, v string)) {
	if k == nil {
		return
	}
	if s.ParentID != "" {
		v := lineageMark(s)
		if ps := k.parentOf(s); ps != nil {
			v += ": " + cut(title(ps), 50) + ", " + age(now, ps.LastActivity)
		} else {
			v += ": its transcript is no longer on disk"
		}
		line("from", v)
	}
	for n, cs := range k.childrenOf(s) {
		key := ""
		if n == 0 {
			key = "children"
		}
		word := cs.Relation
		if word == lineage.Clear {
			word = "after /clear"
		}
		line(key, fmt.Sprintf("%s %s: %s, %s", word, shortID(cs.ID), cut(title(cs), 50), age(now, cs.LastActivity)))
	}
}
