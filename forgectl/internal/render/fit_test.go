package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"github.com/mattn/go-runewidth"
)

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// Widths are checked with go-runewidth directly, not through Width, so
// that a Width counting runes fails them.

// wideList has names of wide runes (two columns each) and of letters with
// combining accents (one column for two runes), which a rune count gets
// wrong both ways.
func wideList() []harness.Session {
	list := lineageList()
	list[11].Name = strings.Repeat("日本語の名前", 8)
	list[11].Repo = "リポジトリ-" + strings.Repeat("x", 20)
	list[10].Name = strings.Repeat("e\u0301", 70) // é as e + U+0301
	list[10].Live, list[10].Pid, list[10].Status = true, 4242, "busy"
	return list
}

// On a terminal every line fits its width, measured in display columns,
// cut values end in …, and the id is never cut.
func TestFitKeepsEveryLineInsideTheWidth(t *testing.T) {
	list := wideList()
	for _, width := range []int{80, 120, 200} {
		for name, l := range map[string]Layout{"listing": Listing, "search": Search} {
			for _, on := range []bool{false, true} {
				var b bytes.Buffer
				tb := NewTable(&b, treeNow, true, l)
				tb.Fit(width, Style{On: on}, nil)
				for k := range list {
					tb.Add(&list[k], "prompt: "+strings.Repeat("the snippet of a long message ", 4))
				}
				if err := tb.Close(); err != nil {
					t.Fatal(err)
				}
				cut := false
				for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
					plain := sgr.ReplaceAllString(line, "")
					if w := runewidth.StringWidth(plain); w > width {
						t.Errorf("%s at %d (colour %v): a line of %d columns: %q", name, width, on, w, plain)
					}
					cut = cut || strings.Contains(plain, "…")
				}
				// At 200 columns a listing has the room for these rows.
				if !cut && (width < 200 || l.Extra != nil) {
					t.Errorf("%s at %d: nothing was cut, so nothing was tested:\n%s", name, width, b.String())
				}
				if !strings.Contains(b.String(), list[11].ID) {
					t.Errorf("%s at %d: the id was cut:\n%s", name, width, b.String())
				}
				if strings.Contains(b.String(), "\x1b[") != on {
					t.Errorf("%s at %d: colour %v, but escapes present = %v", name, width, on, !on)
				}
			}
		}
	}
}

// A wide table's columns line up in display columns: each line's snippet
// starts at the same column, whatever the title's runes.
func TestFitAlignsInDisplayColumns(t *testing.T) {
	list := wideList()
	var b bytes.Buffer
	tb := NewTable(&b, treeNow, true, Search)
	tb.Fit(200, Style{}, nil)
	for _, k := range []int{11, 10, 0} {
		tb.Add(&list[k], "prompt: snippet")
	}
	tb.Close()
	at := -1
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:] {
		i := strings.Index(line, "prompt:")
		if i < 0 {
			t.Fatalf("no snippet in %q", line)
		}
		col := runewidth.StringWidth(line[:i])
		if at >= 0 && col != at {
			t.Errorf("snippet at column %d, the row above at %d:\n%s", col, at, b.String())
		}
		at = col
	}
}

// Without Fit (a pipe) the table keeps every value whole, however long
// and however late in the listing: repo, branch, name, mark and snippet;
// widths are rune counts, every column stays (TASKS and LIVE too, all
// "-"), and no escape is written.
func TestNoFitIsThePipeTable(t *testing.T) {
	list := wideList()
	list[11].Branch = "feature/" + strings.Repeat("b", 50)
	var plain, fitted bytes.Buffer
	a, f := NewTable(&plain, treeNow, true, Search), NewTable(&fitted, treeNow, true, Search)
	f.Fit(0, Style{}, nil)
	snippet := "prompt: " + strings.Repeat("a long snippet ", 7)
	for n := 0; n < TableSample+1; n++ {
		for k := range list {
			if n < TableSample && k != 11 || n == TableSample && k == 11 {
				a.Add(&list[k], "x")
				f.Add(&list[k], snippet)
			}
		}
	}
	a.Close()
	f.Close()
	out := fitted.String()
	if strings.Contains(out, "\x1b") || strings.Contains(out, "…") {
		t.Errorf("the pipe table has an escape or a cut value:\n%s", out)
	}
	if !strings.HasPrefix(out, "SESSION") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "TASKS  LIVE") {
		t.Errorf("the pipe table dropped a column: %q", strings.SplitN(out, "\n", 2)[0])
	}
	// The late row (after the sample) holds the longest values.
	late := lineOf(out, list[11].ID)
	for _, v := range []string{list[11].Repo, list[11].Branch, list[11].Name, snippet} {
		if !strings.Contains(late, v+"  ") && !strings.HasSuffix(late, v) {
			t.Errorf("the piped row lacks %q, whole and set apart:\n%s", v, late)
		}
	}
	if !strings.Contains(lineOf(out, list[10].ID), list[10].Name) {
		t.Errorf("the piped name was cut: %q", lineOf(out, list[10].ID))
	}
}

// lineOf is the line of out that holds sub.
func lineOf(out, sub string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// realList is sessions as a home has them: full ids, a repo, a long
// branch, long names, a fork and a /clear child, nothing live and no
// tasks.
func realList() []harness.Session {
	var list []harness.Session
	for k := 0; k < 12; k++ {
		s := harness.Session{
			ID:           fmt.Sprintf("%08x-8e0e-4885-b07d-8c151e6e70e7", 0x7d326e5c+k),
			Repo:         "payments-docs",
			Branch:       "refactor/upload-handler-wrong-status-code",
			Name:         fmt.Sprintf("Investigate the memory leak in settings page %d", k),
			LastActivity: treeNow.Add(-time.Duration(k+1) * time.Hour),
		}
		if k%2 == 1 {
			s.Harness = "codex"
		}
		list = append(list, s)
	}
	list[3].ParentID, list[3].Relation, list[3].ParentExists = list[2].ID, "fork", true
	list[4].ParentID, list[4].Relation, list[4].ParentExists = list[3].ID, "clear", true
	return list
}

// wideRow is the name's longest prefix a line shows, in characters.
func shownOf(line, name string) int {
	for n := len(name); n > 0; n-- {
		if strings.Contains(line, name[:n]) {
			return n
		}
	}
	return 0
}

// At 80 columns a table stays readable: the name shows at least 19
// characters (its floor of 20 columns, the last "…"), with the harness
// mark or without, in the listing, the tree and search; the ids are
// whole; TASKS and LIVE, "-" on every row, are left out; a lineage child
// keeps its relation; and search puts the snippet on its own line rather
// than cut it to nothing.
func TestFitGivesTheNameItsFloorAt80(t *testing.T) {
	list := realList()
	snippet := "prompt: why does the login hit a wrong status code when the request is retried"
	for _, marks := range []bool{false, true} {
		for _, c := range []struct {
			name   string
			layout Layout
			tree   bool
			stream bool
		}{{"ls", Listing, false, false}, {"ls --tree", Listing, true, false}, {"search", Search, false, true}} {
			var b bytes.Buffer
			tb := NewTable(&b, treeNow, true, c.layout)
			tb.Fit(80, Style{}, nil)
			if marks {
				tb.Mark = func(*harness.Session) string { return "cc" }
			}
			switch {
			case c.tree:
				if err := WriteTreeTable(tb, list, Tree(list, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})); err != nil {
					t.Fatal(err)
				}
			default:
				if c.stream {
					tb.Stream()
				}
				for k := range list {
					tb.Add(&list[k], snippet)
				}
				tb.Close()
			}
			out := b.String()
			head := strings.SplitN(out, "\n", 2)[0]
			// The flat tables keep REPO, harness mark or not (the tree's
			// glyphs widen the id, and REPO makes way there).
			if !c.tree && !strings.Contains(head, "REPO") {
				t.Errorf("%s (marks %v): REPO left out: %q", c.name, marks, head)
			}
			if strings.Contains(head, "TASKS") || strings.Contains(head, "LIVE") {
				t.Errorf("%s (marks %v): an all-\"-\" column kept: %q", c.name, marks, head)
			}
			for k, s := range list {
				line := lineOf(out, s.ID)
				if line == "" {
					t.Fatalf("%s (marks %v): the id %s is not whole:\n%s", c.name, marks, s.ID, out)
				}
				if w := runewidth.StringWidth(line); w > 80 {
					t.Errorf("%s: a line of %d columns: %q", c.name, w, line)
				}
				if s.ParentID != "" {
					if !strings.Contains(line, "[fork]") && !strings.Contains(line, "[/clear]") {
						t.Errorf("%s (marks %v): the child lost its mark: %q", c.name, marks, line)
					}
					continue
				}
				if n := shownOf(line, s.Name); n < nameFloor-1 {
					t.Errorf("%s (marks %v): row %d shows %d characters of its name: %q", c.name, marks, k, n, line)
				}
			}
			if c.layout.Extra != nil && !strings.Contains(out, "\n  "+snippet[:60]) {
				t.Errorf("%s (marks %v): the snippet is not on a line of its own:\n%s", c.name, marks, out)
			}
		}
	}
}

// A wide terminal's table uses its room: ls at 200 columns keeps a
// 41-character branch whole (it was cut at 24), and search's streamed
// layout, which cannot see its rows, gives repo and branch the room their
// usual values take rather than cutting a 13-character repo; a live row
// there says so after its title.
func TestFitUsesTheRoomAt200(t *testing.T) {
	list := realList()
	list[1].Live, list[1].Pid = true, 4242
	var ls, search bytes.Buffer
	a := NewTable(&ls, treeNow, true, Listing)
	a.Fit(200, Style{}, nil)
	s := NewTable(&search, treeNow, true, Search)
	s.Fit(200, Style{}, nil)
	s.Stream()
	for k := range list {
		a.Add(&list[k])
		s.Add(&list[k], "prompt: the login")
	}
	a.Close()
	s.Close()
	if row := lineOf(ls.String(), list[0].ID); !strings.Contains(row, list[0].Branch+" ") || !strings.Contains(row, list[0].Name) {
		t.Errorf("ls at 200 cut the row: %q", row)
	}
	row := lineOf(search.String(), list[0].ID)
	if !strings.Contains(row, "payments-docs  ") || !strings.Contains(row, "refactor/upload-handler-wrong…") || shownOf(row, list[0].Name) < 39 {
		t.Errorf("search at 200 cut what it had room for: %q", row)
	}
	if row := lineOf(search.String(), list[1].ID); !strings.Contains(row, "live:4242") {
		t.Errorf("the streamed layout lost the live mark: %q", row)
	}
}

// Colour: the name bold, the age dim, the mark cyan, a busy live mark
// red, the match highlighted.
func TestStyleColoursEachKind(t *testing.T) {
	list := wideList()
	var b bytes.Buffer
	tb := NewTable(&b, treeNow, false, Search)
	tb.Fit(0, Style{On: true}, func(s string) [][2]int {
		i := strings.Index(s, "needle")
		return [][2]int{{i, i + len("needle")}}
	})
	tb.Add(&list[10], "prompt: a needle here")
	tb.Add(&list[3], "prompt: a needle here")
	tb.Close()
	out := b.String()
	for _, want := range []string{"\x1b[1m" + list[10].Name[:20], "\x1b[2m", "\x1b[31mlive:4242\x1b[0m", "\x1b[1;33mneedle\x1b[0m", "\x1b[36m  [fork of deadbeef (gone)]\x1b[0m"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in %q", want, out)
		}
	}
}

// The preview is coloured by its lines' keys after it is drawn: the name
// bold, the cwd and activity dim, a running status as the live mark, the
// lineage mark cyan; the text is unchanged once the escapes are taken out.
func TestStylePreview(t *testing.T) {
	list := lineageList()
	s := list[3] // a fork of a gone parent
	s.Name, s.NameSource, s.Cwd, s.CwdExists = "orphan", "custom-title", "/src/x", true
	s.Live, s.Pid, s.Status = true, 77, "idle"
	plain := Preview(&s, treeNow, 80, NewKin(nil), nil, nil)
	got := (Style{On: true}).Preview(plain, &s)
	for _, want := range []string{"\x1b[1morphan\x1b[0m\x1b[2m  (custom-title)\x1b[0m", "cwd      \x1b[2m/src/x\x1b[0m", "status   \x1b[33mrunning, pid 77", "from     \x1b[36mfork of deadbeef (gone)\x1b[0m"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%q", want, got)
		}
	}
	if sgr.ReplaceAllString(got, "") != plain {
		t.Errorf("colouring changed the text:\n%s\n%s", plain, got)
	}
	if (Style{}).Preview(plain, &s) != plain {
		t.Errorf("the zero Style coloured the preview")
	}
}

// The finder matches what a picker row says: a value cut to fit its
// column is still in the row, whole, and on a narrow terminal the name
// leads, after the relation of its lineage mark.
func TestPickRowKeepsEveryValueToMatch(t *testing.T) {
	s := harness.Session{ID: "x", Repo: "a-repository-name-that-is-long", Branch: "feature/a-branch-name-that-is-long-too",
		Name: "Sliding-window token refresh for the API", ParentID: "deadbeef-0000", ParentExists: true, LastActivity: treeNow.Add(-time.Hour)}
	for _, cols := range []int{80, 120, 160, 200} {
		row := PickRowIn(treeNow, &s, cols)
		for _, v := range []string{s.Repo, s.Branch, s.Name} {
			if !strings.Contains(row, v) {
				t.Errorf("at %d columns the row %q lacks %q", cols, row, v)
			}
		}
	}
	if row := PickRowIn(treeNow, &s, 80); !strings.HasPrefix(row, "1h ago    [fork] Sliding-window") {
		t.Errorf("at 80 columns the row does not lead with the name: %q", row)
	}
	if row := PickRowIn(treeNow, &s, 160); !strings.HasPrefix(row, "1h ago    a-repos…  feature…  Sliding-window token…  [fork of deadbeef]") {
		t.Errorf("at 160 columns the row is not laid out in columns: %q", row)
	}
}

// The preview's id is one line at any pane width (an 80-column terminal
// leaves the pane 35 columns, one fewer than an id: picker.Pane): the label shortens,
// then goes, and only a pane narrower than the id cuts it, keeping its
// prefix.
func TestPreviewKeepsTheIDOnOneLine(t *testing.T) {
	s := realList()[0]
	for _, c := range []struct {
		width int
		want  string
	}{
		{60, "id       " + s.ID + "\n"},
		{40, "\nid " + s.ID + "\n"},
		{36, "\n" + s.ID + "\n"},
		{35, "\n" + s.ID[:34] + "…\n"},
	} {
		got := Preview(&s, treeNow, c.width, nil, nil, nil)
		if !strings.Contains(got, c.want) {
			t.Errorf("at %d columns no %q in\n%s", c.width, c.want, got)
		}
	}
}

// On a terminal an all-"-" TASKS column gives its room to the name, but
// only when every row is known: a row past the sample that has tasks
// must still show them.
func TestTasksColumnKeptWhenRowsOutrunTheSample(t *testing.T) {
	for _, n := range []int{TableSample - 10, TableSample + 10} {
		var b bytes.Buffer
		tb := NewTable(&b, treeNow, true, Listing)
		tb.Fit(140, Style{}, nil) // room for every column: only a blank one goes
		for k := 0; k < n; k++ {
			s := &harness.Session{ID: fmt.Sprintf("%08d-0000-4000-8000-000000000000", k), Name: "a session", LastActivity: treeNow}
			if k == n-1 {
				s.Tasks.Total, s.Tasks.Completed = 3, 1
			}
			tb.Add(s)
		}
		if err := tb.Close(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "1/3") {
			t.Errorf("%d rows: the last row's tasks are not shown:\n%s", n, b.String()[:300]+"..."+b.String()[max(0, b.Len()-300):])
		}
	}
}
