package render

import (
	"bytes"
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
				if !cut {
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

// Without Fit (a pipe) the table is the same bytes as ever: full values,
// rune counts, no escapes.
func TestNoFitIsThePipeTable(t *testing.T) {
	list := wideList()
	var plain, fitted bytes.Buffer
	a, f := NewTable(&plain, treeNow, true, Listing), NewTable(&fitted, treeNow, true, Listing)
	f.Fit(0, Style{}, nil)
	for k := range list {
		a.Add(&list[k])
		f.Add(&list[k])
	}
	a.Close()
	f.Close()
	if plain.String() != fitted.String() || strings.Contains(plain.String(), "\x1b") {
		t.Errorf("Fit(0, no colour) changed the table:\n%s\n%s", plain.String(), fitted.String())
	}
	if !strings.Contains(plain.String(), list[11].Repo[:24]) {
		t.Errorf("piped repo was cut below 24 characters")
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
