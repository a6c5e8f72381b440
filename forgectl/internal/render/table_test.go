package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/harness"
)

// Every table carries the lineage mark help.go promises: ls, the
// candidate lists and the search table, whose title is not its last
// column.
func TestEveryTableCarriesTheMark(t *testing.T) {
	list := lineageList()
	orphan := &list[3]
	for name, l := range map[string]Layout{"listing": Listing, "search": Search} {
		for _, header := range []bool{true, false} {
			var b bytes.Buffer
			tb := NewTable(&b, treeNow, header, l)
			tb.Add(orphan, "prompt: the snippet")
			tb.Add(&list[11], "reply: another")
			if err := tb.Close(); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if header {
				lines = lines[1:]
			}
			if !strings.Contains(lines[0], "orphan  [fork of deadbeef (gone)]") {
				t.Errorf("%s table (header %v): the child's row lacks its mark: %q", name, header, lines[0])
			}
			if strings.Contains(lines[1], "[") {
				t.Errorf("%s table: a root's row carries a mark: %q", name, lines[1])
			}
			if l.Extra != nil && (!strings.HasSuffix(lines[0], "prompt: the snippet") || runeIndex(lines[0], "prompt:") != runeIndex(lines[1], "reply:")) {
				t.Errorf("search table: the snippet column is not aligned:\n%s", b.String())
			}
		}
	}
}

// On a terminal a row after the sample is cut to the sample's widths,
// and its title is cut before the mark, which stays whole; the snippet
// stays in its column.
func TestTableCutsLateRowsButNotTheMark(t *testing.T) {
	list := lineageList()
	for name, l := range map[string]Layout{"listing": Listing, "search": Search} {
		var b bytes.Buffer
		tb := NewTable(&b, treeNow, true, l)
		tb.Fit(160, Style{}, nil)
		for k := 0; k < TableSample; k++ {
			s := list[11]
			s.ID = fmt.Sprintf("%08d-0000", k)
			s.Name = strings.Repeat("n", 60)
			s.Repo = "repo"
			tb.Add(&s, "prompt: x")
		}
		late := list[3]
		late.Name = strings.Repeat("long name ", 10)
		late.Repo = strings.Repeat("r", 30)
		tb.Add(&late, "prompt: x")
		if err := tb.Close(); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		last := lines[len(lines)-1]
		if !strings.Contains(last, "[fork of deadbeef (gone)]") || strings.Contains(last, strings.Repeat("r", 5)) || !strings.Contains(last, "…  [fork of") {
			t.Errorf("%s: the late row %q lost its mark or kept its long repo or name", name, last)
		}
		if l.Extra != nil && runeIndex(last, "prompt:") != runeIndex(lines[1], "prompt:") {
			t.Errorf("%s: the late row's snippet is out of its column:\n%s\n%s", name, lines[1], last)
		}
	}
}

// runeIndex is where sub starts in s, in characters (the table's columns).
func runeIndex(s, sub string) int { return utf8.RuneCountInString(s[:strings.Index(s, sub)]) }

// writes counts the Write calls it is given.
type writes struct {
	bytes.Buffer
	n int
}

func (w *writes) Write(p []byte) (int, error) { w.n++; return w.Buffer.Write(p) }

// A table for a pipe gathers its rows into few writes, and loses none:
// every row is printed whole, in order, once it is closed. A terminal's
// table writes each row as it comes.
func TestTableForAPipeWritesInBatches(t *testing.T) {
	list := lineageList()
	const rows = 3000
	var w writes
	tb := NewTable(&w, treeNow, true, Listing)
	for k := range rows {
		s := list[11]
		s.ID = fmt.Sprintf("%08d-0000-4000-8000-000000000000", k)
		tb.Add(&s)
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
	if len(lines) != rows+1 || !strings.HasPrefix(lines[0], "SESSION") {
		t.Fatalf("%d lines (want %d and a header first): %q", len(lines), rows+1, lines[0])
	}
	for k, l := range lines[1:] {
		if want := fmt.Sprintf("%08d-0000", k); !strings.HasPrefix(l, want) {
			t.Fatalf("line %d is %q, want the row of %s", k+1, l, want)
		}
	}
	if most := w.Len()/flushAt + 1; w.n > most {
		t.Errorf("%d writes for %d bytes: want at most %d", w.n, w.Len(), most)
	}

	var term writes
	tb = NewTable(&term, treeNow, false, Listing)
	tb.Fit(120, Style{}, nil)
	for k := range TableSample + 10 {
		s := list[11]
		s.ID = fmt.Sprintf("%08d-0000-4000-8000-000000000000", k)
		tb.Add(&s)
		if k >= TableSample-1 && term.n != k+1 {
			t.Fatalf("%d writes once row %d is in: a terminal's row waited", term.n, k+1)
		}
	}
	tb.Close()
	if term.n != TableSample+10 {
		t.Errorf("a terminal's table made %d writes for %d rows", term.n, TableSample+10)
	}
}

// MarkLater is asked once, at the first row, and what it gives marks
// every row; a table with no rows never asks.
func TestMarkLaterIsAskedAtTheFirstRow(t *testing.T) {
	list := lineageList()
	asked := 0
	later := func() func(*harness.Session) string {
		asked++
		return func(*harness.Session) string { return "cx" }
	}
	var b bytes.Buffer
	tb := NewTable(&b, treeNow, false, Listing)
	tb.MarkLater = later
	if asked != 0 {
		t.Fatal("asked before any row")
	}
	tb.Add(&list[11])
	tb.Add(&list[11])
	tb.Close()
	if asked != 1 {
		t.Errorf("asked %d times", asked)
	}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if !strings.Contains(l, " cx ") {
			t.Errorf("row without its mark: %q", l)
		}
	}
	empty := NewTable(&b, treeNow, true, Listing)
	empty.MarkLater = later
	empty.Close()
	if asked != 1 {
		t.Errorf("a table with no rows asked for its mark")
	}
}
