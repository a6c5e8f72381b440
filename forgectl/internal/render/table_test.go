package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
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
