package search

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
)

// A transcript changed other than by appending finds what it now says,
// whatever the shape of the change and wherever it lies: the new word is
// found, the removed one is not (a redacted secret stays neither findable
// nor visible in a snippet). An append after that is read on from the new
// end.
func TestRewritesFindWhatTheFileSays(t *testing.T) {
	shapes := []struct {
		name, word string
		rename     bool
	}{
		{"in place, longer", "newwordlonger", false},
		{"in place, same size", "newword", false},
		{"in place, shorter", "newwd", false},
		{"renamed over, same size", "newword", true},
		{"renamed over, longer", "newwordlonger", true},
	}
	// Padding prompts (about 300 bytes each) before and after the prompt
	// holding the word: 60 of them are over 4 KiB.
	depths := []struct {
		name          string
		before, after int
	}{
		{"head", 0, 120},
		{"middle", 60, 60},
		{"last 4 KiB", 120, 0},
	}
	for _, sh := range shapes {
		for _, dp := range depths {
			t.Run(sh.name+"/"+dp.name, func(t *testing.T) {
				tr := newTree(t)
				lines := func(word string) []string {
					l := []string{cchome.PromptRow("the first prompt stays the same", 1)}
					for i := range dp.before {
						l = append(l, cchome.PromptRow(fmt.Sprintf("padding prompt %d before", i), 2))
					}
					l = append(l, cchome.PromptRow("the secret is "+word+" here", 3))
					for i := range dp.after {
						l = append(l, cchome.PromptRow(fmt.Sprintf("padding prompt %d after", i), 4))
					}
					return l
				}
				tr.write("a", lines("oldword")...)
				tr.write("other", cchome.PromptRow("an unrelated session", 1))
				then := time.Now().Add(-time.Hour)
				os.Chtimes(tr.path("a"), then, then)
				tr.expect("oldword", "a")
				b := []byte(strings.Join(lines(sh.word), "\n") + "\n")
				p := tr.path("a")
				if sh.rename {
					tmp := p + ".new"
					os.WriteFile(tmp, b, 0o600)
					if err := os.Rename(tmp, p); err != nil {
						t.Fatal(err)
					}
				} else if err := os.WriteFile(p, b, 0o600); err != nil { // the same inode
					t.Fatal(err)
				}
				later := then.Add(time.Minute)
				os.Chtimes(p, later, later)
				tr.expect(sh.word, "a")
				tr.expect("oldword")
				tr.append("a", cchome.PromptRow("appended afterwards", 5))
				res := tr.expect("appended "+sh.word, "a")
				if res.Stats.Read != 1 || res.Stats.Reused != 1 {
					t.Errorf("after the append: %+v", res.Stats)
				}
				tr.expect("oldword")
			})
		}
	}
}

// The reproduction: a word overwritten in place (dd conv=notrunc)
// more than 4 KiB before the end of a transcript.
func TestRedactedInPlaceIsNotFound(t *testing.T) {
	tr := newTree(t)
	l := []string{cchome.PromptRow("first", 1), cchome.PromptRow("the secret is oldword here", 2)}
	for i := range 60 {
		l = append(l, cchome.PromptRow("padding prompt number "+strconv.Itoa(i), 3))
	}
	tr.write("a", l...)
	tr.expect("oldword", "a")
	b, _ := os.ReadFile(tr.path("a"))
	f, err := os.OpenFile(tr.path("a"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("newword"), int64(strings.Index(string(b), "oldword")))
	f.Close()
	later := time.Now().Add(time.Second)
	os.Chtimes(tr.path("a"), later, later)
	tr.expect("newword", "a")
	tr.expect("oldword")
}
