package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"github.com/google/go-cmp/cmp"
)

var treeNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// A home's worth of lineage, newest first as a listing is: P with a fork F
// (which has a fork FF and a branch BF), a /clear chain C1 -> C2 -> C3, a
// fork O of a deleted session, a hidden print-mode H with a fork HF, and
// two sessions that name each other (damaged files).
func lineageList() []harness.Session {
	at := func(min int) time.Time { return treeNow.Add(-time.Duration(min) * time.Minute) }
	return []harness.Session{
		{ID: "c3333333-0000", Name: "third", LastActivity: at(1), ParentID: "c2222222-0000", Relation: "clear", ParentExists: true},
		{ID: "ff000000-0000", Name: "Parent work", LastActivity: at(2), ParentID: "f0000000-0000", Relation: "fork", ParentExists: true},
		{ID: "hf000000-0000", Name: "fork of print", LastActivity: at(3), ParentID: "h0000000-0000", Relation: "fork", ParentExists: true},
		{ID: "o0000000-0000", Name: "orphan", LastActivity: at(4), ParentID: "deadbeef-0000", Relation: "fork"},
		{ID: "bf000000-0000", Name: "Parent work (Branch)", LastActivity: at(5), ParentID: "f0000000-0000", Relation: "branch", ParentExists: true},
		{ID: "c2222222-0000", Name: "second", LastActivity: at(6), ParentID: "c1111111-0000", Relation: "clear", ParentExists: true},
		{ID: "f0000000-0000", Name: "Parent work", LastActivity: at(7), ParentID: "p0000000-0000", Relation: "fork", ParentExists: true},
		{ID: "x0000000-0000", Name: "loop x", LastActivity: at(8), ParentID: "y0000000-0000", Relation: "fork", ParentExists: true},
		{ID: "y0000000-0000", Name: "loop y", LastActivity: at(9), ParentID: "x0000000-0000", Relation: "fork", ParentExists: true},
		{ID: "c1111111-0000", Name: "first", LastActivity: at(10)},
		{ID: "h0000000-0000", Name: "print", LastActivity: at(11), Hidden: true, HiddenReason: "print-mode"},
		{ID: "p0000000-0000", Name: "Parent work", LastActivity: at(100)},
	}
}

func ids(list []harness.Session, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = list[i].ID[:2]
	}
	return out
}

func visible(list []harness.Session, all bool) []int {
	var out []int
	for i := range list {
		if all || !list[i].Hidden {
			out = append(out, i)
		}
	}
	return out
}

func TestLineageMark(t *testing.T) {
	for _, c := range []struct {
		s    harness.Session
		want string
	}{
		{harness.Session{}, ""},
		{harness.Session{ParentID: "b3b98d6c-1111-2222", Relation: "fork", ParentExists: true}, "fork of b3b98d6c"},
		{harness.Session{ParentID: "b3b98d6c-1111-2222", Relation: "branch", ParentExists: true}, "branch of b3b98d6c"},
		{harness.Session{ParentID: "b3b98d6c-1111-2222", Relation: "clear", ParentExists: true}, "after /clear of b3b98d6c"},
		{harness.Session{ParentID: "b3b98d6c-1111-2222", Relation: "fork"}, "fork of b3b98d6c (gone)"},
	} {
		if got := LineageMark(&c.s); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

func TestRoots(t *testing.T) {
	list := lineageList()
	// Without --all the print-mode parent is not shown, so its fork is a
	// root; a deleted parent makes a root; a loop is shown, not lost.
	got := ids(list, Roots(list, visible(list, false), visible(list, false)))
	if d := cmp.Diff([]string{"hf", "o0", "x0", "y0", "c1", "p0"}, got); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
	got = ids(list, Roots(list, visible(list, true), visible(list, true)))
	if d := cmp.Diff([]string{"o0", "x0", "y0", "c1", "h0", "p0"}, got); d != "" {
		t.Errorf("roots --all (-want +got):\n%s", d)
	}
	// FILTER narrows the roots, never makes a child one.
	hits := []int{1, 6, 11} // the three "Parent work"
	if d := cmp.Diff([]string{"p0"}, ids(list, Roots(list, hits, visible(list, false)))); d != "" {
		t.Errorf("roots of a filter (-want +got):\n%s", d)
	}
}

func TestWriteTree(t *testing.T) {
	list := lineageList()
	var b bytes.Buffer
	if err := WriteTree(&b, treeNow, list, Tree(list, visible(list, false))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n")[1:] {
		f := strings.Fields(l)
		// The glyphs, then the id: keep the glyph prefix and the id's head.
		var lead strings.Builder
		for _, w := range f {
			if strings.ContainsAny(w, "├└│") {
				lead.WriteString(w + " ")
				continue
			}
			lead.WriteString(w[:2])
			break
		}
		got = append(got, strings.TrimSpace(lead.String()))
	}
	// The chain is the newest tree; P's tree is newer than its root's own
	// activity says, because of FF.
	want := []string{
		"c1", "└─ c2", "└─ c3",
		"p0", "└─ f0", "├─ ff", "└─ bf",
		"hf",
		"o0",
		"x0",
		"y0",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tree (-want +got):\n%s\n%s", d, b.String())
	}
	// Indentation: a grandchild sits under its parent's glyph column.
	if !strings.Contains(b.String(), "\n   └─ c3333333-0000") || !strings.Contains(b.String(), "\n   ├─ ff000000-0000") {
		t.Errorf("grandchildren are not indented below their parent:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "Parent work  [fork of f0000000]") || !strings.Contains(b.String(), "orphan  [fork of deadbeef (gone)]") {
		t.Errorf("rows do not carry their lineage marks:\n%s", b.String())
	}
}

func TestWriteTreeJSON(t *testing.T) {
	list := lineageList()
	var b bytes.Buffer
	if err := WriteTreeJSON(&b, list, Tree(list, visible(list, true))); err != nil {
		t.Fatal(err)
	}
	type node struct {
		SessionID string `json:"session_id"`
		ParentID  string `json:"parent_session_id"`
		Relation  string `json:"relation"`
		Exists    bool   `json:"parent_exists"`
		Children  []node `json:"children"`
	}
	var forest []node
	if err := json.Unmarshal(b.Bytes(), &forest); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	var flat func(ns []node, parent string) []string
	flat = func(ns []node, parent string) []string {
		var out []string
		for _, n := range ns {
			if n.Children == nil {
				t.Errorf("%s: children is null, want []", n.SessionID)
			}
			if parent != "" && n.ParentID != parent {
				t.Errorf("%s nested under %s but names %s", n.SessionID, parent, n.ParentID)
			}
			out = append(out, n.SessionID[:2])
			out = append(out, flat(n.Children, n.SessionID)...)
		}
		return out
	}
	got := flat(forest, "")
	want := []string{"c1", "c2", "c3", "p0", "f0", "ff", "bf", "h0", "hf", "o0", "x0", "y0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tree --json, depth first (-want +got):\n%s", d)
	}
	b.Reset()
	WriteTreeJSON(&b, list, nil)
	if b.String() != "[]\n" {
		t.Errorf("empty tree: %q", b.String())
	}
}

func TestPreviewNamesParentAndChildren(t *testing.T) {
	list := lineageList()
	fam := NewKin(list)
	f := &list[6]
	got := Preview(f, treeNow, 0, fam, nil, nil)
	for _, want := range []string{
		"from     fork of p0000000: Parent work, 1h ago",
		"children fork ff000000: Parent work, 2m ago",
		"         branch bf000000: Parent work (Branch), 5m ago",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("preview lacks %q:\n%s", want, got)
		}
	}
	if got := Preview(&list[3], treeNow, 0, fam, nil, nil); !strings.Contains(got, "fork of deadbeef (gone): its transcript is no longer on disk") {
		t.Errorf("orphan preview:\n%s", got)
	}
	if got := Preview(&list[0], treeNow, 0, fam, nil, nil); !strings.Contains(got, "after /clear of c2222222: second, 6m ago") {
		t.Errorf("clear preview:\n%s", got)
	}
}

// A parent left out (by FILTER, or hidden) is stepped over: the child goes
// under the nearest ancestor that is printed.
func TestTreeStepsOverAnAbsentParent(t *testing.T) {
	list := lineageList()
	forest := Tree(list, []int{1, 11}) // FF and P, without F
	if len(forest) != 1 || list[forest[0].i].ID[:2] != "p0" || len(forest[0].children) != 1 || list[forest[0].children[0].i].ID[:2] != "ff" {
		t.Fatalf("forest %+v, want FF under P", forest)
	}
}

func TestPickRowCarriesTheMark(t *testing.T) {
	list := lineageList()
	if row := PickRow(treeNow, &list[3]); !strings.HasSuffix(row, "orphan  [fork of deadbeef (gone)]") {
		t.Errorf("picker row %q", row)
	}
	if row := PickRow(treeNow, &list[11]); strings.Contains(row, "[") {
		t.Errorf("a root's picker row %q carries a mark", row)
	}
}

// chainList is a lineage chain n long, newest first as a listing is: each
// session made out of the one before it (branch, fork and /clear in turn),
// the deepest the newest. hide says which depths are hidden.
func chainList(n int, hide func(depth int) bool) []harness.Session {
	rel := []string{"branch", "fork", "clear"}
	list := make([]harness.Session, n)
	for d := 0; d < n; d++ {
		s := harness.Session{ID: chainID(d), Name: fmt.Sprintf("step %d", d), LastActivity: treeNow.Add(-time.Duration(n-d) * time.Minute)}
		if d > 0 {
			s.ParentID, s.Relation, s.ParentExists = chainID(d-1), rel[d%3], true
		}
		if hide != nil && hide(d) {
			s.Hidden, s.HiddenReason = true, "continued"
		}
		list[n-1-d] = s
	}
	return list
}

func chainID(depth int) string { return fmt.Sprintf("c%07d-0000-4000-8000-%012d", depth, depth) }

// --tree and --roots follow each parent link a bounded number of times,
// however deep the chain: the walks are linear in the listing's length
// (the count of links followed says so; a timing could not). Before, each
// session walked up to its root, n²/2 steps for a chain.
func TestLineageWalksAreLinear(t *testing.T) {
	const n = 5000
	ring := func(n int) []harness.Session {
		list := chainList(n, nil)
		list[n-1].ParentID, list[n-1].Relation = list[0].ID, "fork" // the root names the deepest
		return list
	}
	tail := ring(2)
	tail = append(chainList(n, nil)[:n-1], tail...) // a chain hanging off a 2-ring
	tail[n-2].ParentID = tail[n-1].ID
	for name, list := range map[string][]harness.Session{
		"a chain":                          chainList(n, nil),
		"a chain, every other hidden":      chainList(n, func(d int) bool { return d%2 == 1 }),
		"a chain, all hidden but the ends": chainList(n, func(d int) bool { return d > 0 && d < n-1 }),
		"a ring":                           ring(n),
		"a chain off a ring":               tail,
	} {
		f := newFamily(list)
		vis := visible(list, false)
		r := f.roots(vis, vis)
		forest := f.tree(vis)
		t.Logf("%s: %d steps for %d", name, f.steps, len(list))
		if f.steps > 8*len(list) {
			t.Errorf("%s of %d: the walks followed %d parent links, want at most %d (linear)", name, len(list), f.steps, 8*len(list))
		}
		// Nothing lost: every shown session is printed once, and the
		// roots are the forest's tops.
		if got := len(preorder(forest)); got != len(vis) {
			t.Errorf("%s: the tree prints %d of %d sessions", name, got, len(vis))
		}
		if len(r) != len(forest) {
			t.Errorf("%s: %d roots, the tree has %d", name, len(r), len(forest))
		}
	}
}

// A ring of three with a chain below it and a hidden member: the ring's
// members are roots (nothing is lost), the chain hangs under the nearest
// shown member going round, and nothing walks forever.
func TestLineageCycles(t *testing.T) {
	at := func(min int) time.Time { return treeNow.Add(-time.Duration(min) * time.Minute) }
	list := []harness.Session{
		{ID: "t2", LastActivity: at(1), ParentID: "t1", Relation: "fork", ParentExists: true},
		{ID: "t1", LastActivity: at(2), ParentID: "r1", Relation: "fork", ParentExists: true},
		{ID: "r1", LastActivity: at(3), ParentID: "r2", Relation: "fork", ParentExists: true, Hidden: true},
		{ID: "r2", LastActivity: at(4), ParentID: "r3", Relation: "branch", ParentExists: true},
		{ID: "r3", LastActivity: at(5), ParentID: "r1", Relation: "clear", ParentExists: true},
		{ID: "me", LastActivity: at(6), ParentID: "me", Relation: "fork", ParentExists: true},
	}
	vis := visible(list, false)
	if d := cmp.Diff([]string{"r2", "r3", "me"}, ids(list, Roots(list, vis, vis))); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
	var got []string
	for _, p := range preorder(Tree(list, vis)) {
		got = append(got, strings.Repeat("  ", p.depth)+list[p.n.i].ID)
	}
	// t1's parent r1 is hidden: r1's parent r2 is the nearest shown.
	if d := cmp.Diff([]string{"r2", "  t1", "    t2", "r3", "me"}, got); d != "" {
		t.Errorf("tree (-want +got):\n%s", d)
	}
	vis = visible(list, true)
	if d := cmp.Diff([]string{"r1", "r2", "r3", "me"}, ids(list, Roots(list, vis, vis))); d != "" {
		t.Errorf("roots --all (-want +got):\n%s", d)
	}
}

// Past TreeIndent levels the text tree stops indenting: a deeper row keeps
// the columns of its ancestors and says its depth, "…(9) ", where its
// glyph would be.
func TestWriteTreeCapsIndentation(t *testing.T) {
	list := chainList(11, nil)
	// s8 is c7's second child, older than c8: it comes after c8's subtree,
	// so c7's column carries a bar down to it.
	list = append(list, harness.Session{ID: "s8000000-0000-4000-8000-000000000000", LastActivity: treeNow.Add(-time.Hour),
		ParentID: chainID(7), Relation: "fork", ParentExists: true})
	var b bytes.Buffer
	if err := WriteTree(&b, treeNow, list, Tree(list, visible(list, false))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n")[1:] {
		head, _, _ := strings.Cut(l, "-0000-4000-8000-")
		got = append(got, head)
	}
	pad := strings.Repeat("   ", 6)
	want := []string{
		"c0000000",
		"└─ c0000001",
		"   └─ c0000002",
		"      └─ c0000003",
		"         └─ c0000004",
		"            └─ c0000005",
		"               └─ c0000006",
		pad + "└─ c0000007",
		pad + "   ├─ c0000008",
		pad + "   │  …(9) c0000009",
		pad + "   │  …(10) c0000010",
		pad + "   └─ s8000000",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tree (-want +got):\n%s\n%s", d, b.String())
	}

	// 5,000 deep: no row's lead is longer than TreeIndent columns and the
	// depth mark, and each deep row names its own depth.
	const n = 5000
	list = chainList(n, nil)
	b.Reset()
	if err := WriteTree(&b, treeNow, list, Tree(list, visible(list, false))); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")[1:]
	if len(lines) != n {
		t.Fatalf("%d rows, want %d", len(lines), n)
	}
	for d, l := range lines {
		lead, _, _ := strings.Cut(l, chainID(d))
		want := strings.Repeat("   ", max(d-1, 0))
		switch {
		case d > TreeIndent:
			want = strings.Repeat("   ", TreeIndent) + fmt.Sprintf("…(%d) ", d)
		case d > 0:
			want += "└─ "
		}
		if lead != want {
			t.Fatalf("row %d: lead %q, want %q", d, lead, want)
		}
	}
}

// --tree --json nests at most TreeJSONDepth levels below a root, what jq
// 1.6 and 1.7 read; the sessions below that are listed flat in the
// children of their ancestor at depth 63, in tree order, each naming its
// parent. Nothing is lost.
func TestWriteTreeJSONCapsNesting(t *testing.T) {
	const n = 5000
	list := chainList(n, nil)
	var b bytes.Buffer
	if err := WriteTreeJSON(&b, list, Tree(list, visible(list, false))); err != nil {
		t.Fatal(err)
	}
	type node struct {
		SessionID string `json:"session_id"`
		ParentID  string `json:"parent_session_id"`
		Children  []node `json:"children"`
	}
	var forest []node
	if err := json.Unmarshal(b.Bytes(), &forest); err != nil {
		t.Fatal(err)
	}
	var order []string
	deepest := 0
	var walk func(ns []node, depth int)
	walk = func(ns []node, depth int) {
		for _, x := range ns {
			deepest = max(deepest, depth)
			order = append(order, x.SessionID)
			if x.Children == nil {
				t.Fatalf("%s: children is null", x.SessionID)
			}
			walk(x.Children, depth+1)
		}
	}
	walk(forest, 0)
	if deepest != TreeJSONDepth {
		t.Errorf("objects nest %d deep below their root, want %d", deepest, TreeJSONDepth)
	}
	if len(order) != n {
		t.Fatalf("%d sessions in the tree, want %d", len(order), n)
	}
	for d, id := range order {
		if id != chainID(d) {
			t.Fatalf("the tree's session %d is %s, want %s (tree order)", d, id, chainID(d))
		}
	}
	// What jq counts: an array one, an object two (its key being read).
	if got := jqNesting(t, b.Bytes()); got > 200 {
		t.Errorf("jq would nest %d deep, past the documented 197", got)
	}
}

// jqNesting is the deepest jq's parser (1.6 to 1.7.1, limit 256) stacks
// while reading data: one per array, two per object while a value of it
// is read.
func jqNesting(t *testing.T, data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []json.Delim
	deepest := 0
	depth := func() int {
		d := 0
		for _, s := range stack {
			d += map[json.Delim]int{'[': 1, '{': 2}[s]
		}
		return d
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '[' || d == '{' {
				stack = append(stack, d)
				deepest = max(deepest, depth())
			} else {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return deepest
}
