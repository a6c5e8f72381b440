package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/lineage"
)

// lineageMark is what a child's row says of its parent: its relation word
// and the parent's 8-character id prefix ("fork of b3b98d6c"), with
// "(gone)" when the parent's transcript is no longer on disk; "" for a
// session with no parent.
func lineageMark(s *sessions.Session) string {
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
func appendMark(b []byte, s *sessions.Session) []byte {
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
// row and its children (newest first, as listed).
type family struct {
	list     []sessions.Session
	byID     map[string]int
	children map[int][]int
}

func newFamily(list []sessions.Session) *family {
	f := &family{list: list, byID: make(map[string]int, len(list)), children: map[int][]int{}}
	for i := range list {
		// The newest of two transcripts with one id (a copy under another
		// project) stands for it, as resume picks it.
		if _, dup := f.byID[list[i].ID]; !dup {
			f.byID[list[i].ID] = i
		}
	}
	for i := range list {
		if p, ok := f.parent(i); ok {
			f.children[p] = append(f.children[p], i)
		}
	}
	return f
}

// parent is the listed row of i's parent.
func (f *family) parent(i int) (int, bool) {
	id := f.list[i].ParentID
	if id == "" {
		return 0, false
	}
	p, ok := f.byID[id]
	return p, ok && p != i
}

// inCycle reports whether following parents from i comes back to i (only
// damaged or hand-made files can say so; such a session is shown as a root
// rather than lost).
func (f *family) inCycle(i int) bool {
	seen := map[int]bool{}
	for k := i; ; {
		p, ok := f.parent(k)
		if !ok {
			return false
		}
		if p == i {
			return true
		}
		if seen[p] {
			return false // a cycle above i, not through it
		}
		seen[p] = true
		k = p
	}
}

// shownParent is the nearest ancestor of i that shown holds, or -1: a
// hidden or filtered-out parent is stepped over, so a child stays under
// the line of work it belongs to.
func (f *family) shownParent(i int, shown map[int]bool) int {
	if f.inCycle(i) {
		return -1
	}
	seen := map[int]bool{}
	for k := i; ; {
		p, ok := f.parent(k)
		if !ok || seen[p] {
			return -1
		}
		if shown[p] {
			return p
		}
		seen[p] = true
		k = p
	}
}

// roots keeps the hits that are nobody's child among the sessions the
// listing shows (hidden ones count only with --all): one row per line of
// work. A session whose parent's transcript is gone is a root.
func roots(list []sessions.Session, hits, visible []int) []int {
	f := newFamily(list)
	shown := make(map[int]bool, len(visible))
	for _, i := range visible {
		shown[i] = true
	}
	out := make([]int, 0, len(hits))
	for _, i := range hits {
		if f.shownParent(i, shown) < 0 {
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
func buildTree(list []sessions.Session, hits []int) []*treeNode {
	f := newFamily(list)
	shown := make(map[int]bool, len(hits))
	for _, i := range hits {
		shown[i] = true
	}
	nodes := make(map[int]*treeNode, len(hits))
	for _, i := range hits {
		nodes[i] = &treeNode{i: i, newest: list[i].LastActivity}
	}
	var top []*treeNode
	for _, i := range hits { // newest first, so children come out in order
		if p := f.shownParent(i, shown); p >= 0 {
			nodes[p].children = append(nodes[p].children, nodes[i])
		} else {
			top = append(top, nodes[i])
		}
	}
	var newest func(n *treeNode) time.Time
	newest = func(n *treeNode) time.Time {
		for _, c := range n.children {
			if t := newest(c); t.After(n.newest) {
				n.newest = t
			}
		}
		return n.newest
	}
	for _, n := range top {
		newest(n)
	}
	sort.SliceStable(top, func(a, b int) bool { return top[a].newest.After(top[b].newest) })
	return top
}

// writeTree prints the forest as the ls table, each child below its parent
// behind tree glyphs at the start of its line.
func writeTree(w io.Writer, now time.Time, list []sessions.Session, forest []*treeNode) error {
	t := newTable(w, now, true)
	var walk func(n *treeNode, lead, glyph string)
	walk = func(n *treeNode, lead, glyph string) {
		c := t.cells(&list[n.i])
		c[0] = lead + glyph + c[0]
		t.addCells(c)
		next := lead
		switch glyph {
		case "├─ ":
			next += "│  "
		case "└─ ":
			next += "   "
		}
		for k, c := range n.children {
			g := "├─ "
			if k == len(n.children)-1 {
				g = "└─ "
			}
			walk(c, next, g)
		}
	}
	for _, n := range forest {
		walk(n, "", "")
	}
	return t.close()
}

// writeTreeJSON prints the forest as the ls --json array, each object with
// a "children" array of the same objects ([] for none).
func writeTreeJSON(w io.Writer, list []sessions.Session, forest []*treeNode) error {
	if len(forest) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	var add func(b []byte, n *treeNode) []byte
	add = func(b []byte, n *treeNode) []byte {
		b = appendSession(b, toJSON(&list[n.i]))
		b = append(b[:len(b)-1], `,"children":[`...)
		for k, c := range n.children {
			if k > 0 {
				b = append(b, ',')
			}
			b = add(b, c)
		}
		return append(b, "]}"...)
	}
	b := make([]byte, 0, 64<<10)
	b = append(b, "[\n"...)
	for k, n := range forest {
		b = append(b, "  "...)
		b = add(b, n)
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
	parentOf(s *sessions.Session) *sessions.Session
	childrenOf(s *sessions.Session) []*sessions.Session
}

func (f *family) parentOf(s *sessions.Session) *sessions.Session {
	if p, ok := f.byID[s.ParentID]; ok && s.ParentID != "" {
		return &f.list[p]
	}
	return nil
}

func (f *family) childrenOf(s *sessions.Session) []*sessions.Session {
	i, ok := f.byID[s.ID]
	if !ok {
		return nil
	}
	var out []*sessions.Session
	for _, c := range f.children[i] {
		out = append(out, &f.list[c])
	}
	return out
}

// growingFamily is the picker's kin: rows are added as the listing hands
// them on, and previews read it meanwhile.
type growingFamily struct {
	mu       sync.Mutex
	byID     map[string]*sessions.Session
	children map[string][]*sessions.Session
}

func newGrowingFamily() *growingFamily {
	return &growingFamily{byID: map[string]*sessions.Session{}, children: map[string][]*sessions.Session{}}
}

func (g *growingFamily) add(s *sessions.Session) {
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

func (g *growingFamily) parentOf(s *sessions.Session) *sessions.Session {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.ParentID == "" {
		return nil
	}
	return g.byID[s.ParentID]
}

func (g *growingFamily) childrenOf(s *sessions.Session) []*sessions.Session {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*sessions.Session(nil), g.children[s.ID]...)
}

// lineageLines are the preview's lines about where a session came from and
// what came from it.
func lineageLines(k kin, s *sessions.Session, now time.Time, line func(k, v string)) {
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
