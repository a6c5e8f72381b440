package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/paths"
	"github.com/google/go-cmp/cmp"
)

var treeNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// A home's worth of lineage, newest first as a listing is: P with a fork F
// (which has a fork FF and a branch BF), a /clear chain C1 -> C2 -> C3, a
// fork O of a deleted session, a hidden print-mode H with a fork HF, and
// two sessions that name each other (damaged files).
func lineageList() []sessions.Session {
	at := func(min int) time.Time { return treeNow.Add(-time.Duration(min) * time.Minute) }
	return []sessions.Session{
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

func ids(list []sessions.Session, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = list[i].ID[:2]
	}
	return out
}

func visible(list []sessions.Session, all bool) []int {
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
		s    sessions.Session
		want string
	}{
		{sessions.Session{}, ""},
		{sessions.Session{ParentID: "b3b98d6c-1111-2222", Relation: "fork", ParentExists: true}, "fork of b3b98d6c"},
		{sessions.Session{ParentID: "b3b98d6c-1111-2222", Relation: "branch", ParentExists: true}, "branch of b3b98d6c"},
		{sessions.Session{ParentID: "b3b98d6c-1111-2222", Relation: "clear", ParentExists: true}, "after /clear of b3b98d6c"},
		{sessions.Session{ParentID: "b3b98d6c-1111-2222", Relation: "fork"}, "fork of b3b98d6c (gone)"},
	} {
		if got := lineageMark(&c.s); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

func TestRoots(t *testing.T) {
	list := lineageList()
	// Without --all the print-mode parent is not shown, so its fork is a
	// root; a deleted parent makes a root; a loop is shown, not lost.
	got := ids(list, roots(list, visible(list, false), visible(list, false)))
	if d := cmp.Diff([]string{"hf", "o0", "x0", "y0", "c1", "p0"}, got); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
	got = ids(list, roots(list, visible(list, true), visible(list, true)))
	if d := cmp.Diff([]string{"o0", "x0", "y0", "c1", "h0", "p0"}, got); d != "" {
		t.Errorf("roots --all (-want +got):\n%s", d)
	}
	// FILTER narrows the roots, never makes a child one.
	hits := []int{1, 6, 11} // the three "Parent work"
	if d := cmp.Diff([]string{"p0"}, ids(list, roots(list, hits, visible(list, false)))); d != "" {
		t.Errorf("roots of a filter (-want +got):\n%s", d)
	}
}

func TestWriteTree(t *testing.T) {
	list := lineageList()
	var b bytes.Buffer
	if err := writeTree(&b, treeNow, list, buildTree(list, visible(list, false))); err != nil {
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
	if err := writeTreeJSON(&b, list, buildTree(list, visible(list, true))); err != nil {
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
	writeTreeJSON(&b, list, nil)
	if b.String() != "[]\n" {
		t.Errorf("empty tree: %q", b.String())
	}
}

func TestPreviewNamesParentAndChildren(t *testing.T) {
	list := lineageList()
	fam := newFamily(list)
	claudeNone := paths.Claude{Root: t.TempDir()}
	f := &list[6]
	got := preview(f, treeNow, claudeNone, 0, fam)
	for _, want := range []string{
		"from     fork of p0000000: Parent work, 1h ago",
		"children fork ff000000: Parent work, 2m ago",
		"         branch bf000000: Parent work (Branch), 5m ago",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("preview lacks %q:\n%s", want, got)
		}
	}
	if got := preview(&list[3], treeNow, claudeNone, 0, fam); !strings.Contains(got, "fork of deadbeef (gone): its transcript is no longer on disk") {
		t.Errorf("orphan preview:\n%s", got)
	}
	if got := preview(&list[0], treeNow, claudeNone, 0, fam); !strings.Contains(got, "after /clear of c2222222: second, 6m ago") {
		t.Errorf("clear preview:\n%s", got)
	}
}

// A parent left out (by FILTER, or hidden) is stepped over: the child goes
// under the nearest ancestor that is printed.
func TestTreeStepsOverAnAbsentParent(t *testing.T) {
	list := lineageList()
	forest := buildTree(list, []int{1, 11}) // FF and P, without F
	if len(forest) != 1 || list[forest[0].i].ID[:2] != "p0" || len(forest[0].children) != 1 || list[forest[0].children[0].i].ID[:2] != "ff" {
		t.Fatalf("forest %+v, want FF under P", forest)
	}
}

func TestPickRowCarriesTheMark(t *testing.T) {
	list := lineageList()
	if row := pickRow(treeNow, &list[3]); !strings.HasSuffix(row, "orphan  [fork of deadbeef (gone)]") {
		t.Errorf("picker row %q", row)
	}
	if row := pickRow(treeNow, &list[11]); strings.Contains(row, "[") {
		t.Errorf("a root's picker row %q carries a mark", row)
	}
}
