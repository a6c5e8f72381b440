package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A transcript changed other than by appending lists what it now says,
// whatever the shape of the change (longer, the same size, shorter, in
// place or renamed over) and wherever it lies: in the first 4 KiB, more
// than 4 KiB from either end, or in the last 4 KiB. An append after that
// is read on from the new end.
func TestRewritesListWhatTheFileSays(t *testing.T) {
	const oldTitle = "Old title"
	shapes := []struct {
		name, title string
		rename      bool
	}{
		{"in place, longer", "A much longer new title", false},
		{"in place, same size", "New title", false},
		{"in place, shorter", "New", false},
		{"renamed over, same size", "New title", true},
		{"renamed over, longer", "A much longer new title", true},
	}
	// Padding prompts (about 350 bytes each) before and after the title
	// row: 60 of them are over 4 KiB.
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
				f := newFixture(t)
				repo := filepath.Join(f.home, "r")
				os.MkdirAll(repo, 0o755)
				idx := filepath.Join(f.home, "idx")
				lines := func(title string) []string {
					l := []string{row(repo, "s1", "main", "cli", "the first prompt stays the same")}
					for i := range dp.before {
						l = append(l, row(repo, "s1", "main", "cli", fmt.Sprintf("padding prompt %d before, to move the title away from the start", i)))
					}
					l = append(l, `{"type":"custom-title","customTitle":"`+title+`","sessionId":"s1"}`+"\n")
					for i := range dp.after {
						l = append(l, row(repo, "s1", "main", "cli", fmt.Sprintf("padding prompt %d after, to move the title away from the end", i)))
					}
					return l
				}
				prompts := 1 + dp.before + dp.after
				then := time.Now().Add(-time.Hour)
				p := f.transcript(repo, "s1", then, lines(oldTitle)...)
				res, err := listAll(f.options(idx))
				if err != nil || len(res.Sessions) != 1 || res.Sessions[0].Name != oldTitle {
					t.Fatalf("before: %v %+v", err, res.Sessions)
				}
				b := []byte(strings.Join(lines(sh.title), ""))
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
				res, err = listAll(f.options(idx))
				if err != nil || len(res.Sessions) != 1 || res.Sessions[0].Name != sh.title || res.Sessions[0].Messages != prompts {
					t.Fatalf("after: %v %+v", err, res.Sessions)
				}
				// An append after that is read on from the new offset.
				fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				fh.WriteString(`{"type":"custom-title","customTitle":"Appended title","sessionId":"s1"}` + "\n")
				fh.Close()
				res, _ = listAll(f.options(idx))
				if res.Scanned != 1 || res.Sessions[0].Name != "Appended title" || res.Sessions[0].Messages != prompts {
					t.Fatalf("append after the rewrite: scanned %d %+v", res.Scanned, res.Sessions[0])
				}
			})
		}
	}
}

// The prompt history is rewritten by Claude Code's retention sweep; a
// rewrite that ends up no shorter is read again, not read on.
func TestHistoryRewrittenInPlace(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "r")
	os.MkdirAll(repo, 0o755)
	idx := filepath.Join(f.home, "idx")
	f.transcript(repo, "s1", time.Now(), row(repo, "s1", "main", "cli", "hi"))
	os.MkdirAll(filepath.Dir(f.claude.History()), 0o700)
	os.WriteFile(f.claude.History(), []byte(`{"display":"old prompt","timestamp":1795970000000,"project":"/x","sessionId":"s1"}`+"\n"), 0o600)
	res, _ := listAll(f.options(idx))
	if res.Sessions[0].LastPromptAt.UnixMilli() != 1795970000000 {
		t.Fatalf("before: %v", res.Sessions[0].LastPromptAt)
	}
	fh, _ := os.OpenFile(f.claude.History(), os.O_WRONLY|os.O_TRUNC, 0)
	fh.WriteString(`{"display":"a rewritten, longer line","timestamp":1795960000000,"project":"/x","sessionId":"s1"}` + "\n")
	fh.Close()
	res, _ = listAll(f.options(idx))
	if got := res.Sessions[0].LastPromptAt.UnixMilli(); got != 1795960000000 {
		t.Fatalf("after the rewrite the history says %d", got)
	}
	// Rewritten again at the same size, a moment later: read again too.
	fh, _ = os.OpenFile(f.claude.History(), os.O_WRONLY, 0)
	fh.WriteString(`{"display":"a rewritten, longer line","timestamp":1795950000000,"project":"/x","sessionId":"s1"}` + "\n")
	fh.Close()
	later := time.Now().Add(time.Minute)
	os.Chtimes(f.claude.History(), later, later)
	res, _ = listAll(f.options(idx))
	if got := res.Sessions[0].LastPromptAt.UnixMilli(); got != 1795950000000 {
		t.Fatalf("after a same-size rewrite the history says %d", got)
	}
}
