package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A transcript changed other than by appending lists what it now says:
// rewritten in place and longer (the same inode, so only the index's
// checksums can tell), rewritten at the same size, shrunk, and replaced by
// a rename (a new inode).
func TestRewritesListWhatTheFileSays(t *testing.T) {
	titled := func(repo, id, title string, padding int) []string {
		return []string{row(repo, id, "main", "cli", "the first prompt stays the same"),
			row(repo, id, "main", "cli", strings.Repeat("p", padding)),
			`{"type":"custom-title","customTitle":"` + title + `","sessionId":"` + id + `"}` + "\n"}
	}
	for _, tc := range []struct {
		name    string
		rewrite func(t *testing.T, p string, lines []string)
	}{
		{"in place, longer", func(t *testing.T, p string, lines []string) {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(strings.Join(lines, ""))
			f.Close()
		}},
		{"in place, same size", func(t *testing.T, p string, lines []string) {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteString(strings.Join(lines, ""))
			f.Close()
		}},
		{"shrunk", func(t *testing.T, p string, lines []string) {
			os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600)
		}},
		{"renamed over", func(t *testing.T, p string, lines []string) {
			tmp := p + ".new"
			os.WriteFile(tmp, []byte(strings.Join(lines, "")), 0o600)
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			repo := filepath.Join(f.home, "r")
			os.MkdirAll(repo, 0o755)
			idx := filepath.Join(f.home, "idx")
			then := time.Now().Add(-time.Hour)
			p := f.transcript(repo, "s1", then, titled(repo, "s1", "Old title", 6000)...)
			res, err := listAll(Options{Claude: f.claude, IndexPath: idx})
			if err != nil || len(res.Sessions) != 1 || res.Sessions[0].Name != "Old title" {
				t.Fatalf("before: %v %+v", err, res.Sessions)
			}
			var lines []string
			switch tc.name {
			case "in place, longer":
				// The head is the same; what came before the old offset is
				// not, and the file grew: the new title comes before the
				// old offset, and what follows it names nothing.
				lines = titled(repo, "s1", "New title", 9000)
				lines[1], lines[2] = lines[2], lines[1]
			case "in place, same size":
				lines = titled(repo, "s1", "New title", 6000)
			case "shrunk":
				lines = titled(repo, "s1", "New title", 10)
			default:
				lines = titled(repo, "s1", "New title", 7000)
			}
			tc.rewrite(t, p, lines)
			later := then.Add(time.Minute)
			os.Chtimes(p, later, later)
			res, err = listAll(Options{Claude: f.claude, IndexPath: idx})
			if err != nil || len(res.Sessions) != 1 || res.Sessions[0].Name != "New title" || res.Sessions[0].Messages != 2 {
				t.Fatalf("after: %v %+v", err, res.Sessions)
			}
			// An append after that is read on from the new offset.
			fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			fh.WriteString(`{"type":"custom-title","customTitle":"Appended title","sessionId":"s1"}` + "\n")
			fh.Close()
			res, _ = listAll(Options{Claude: f.claude, IndexPath: idx})
			if res.Scanned != 1 || res.Sessions[0].Name != "Appended title" || res.Sessions[0].Messages != 2 {
				t.Fatalf("append after the rewrite: scanned %d %+v", res.Scanned, res.Sessions[0])
			}
		})
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
	res, _ := listAll(Options{Claude: f.claude, IndexPath: idx})
	if res.Sessions[0].LastPromptAt.UnixMilli() != 1795970000000 {
		t.Fatalf("before: %v", res.Sessions[0].LastPromptAt)
	}
	fh, _ := os.OpenFile(f.claude.History(), os.O_WRONLY|os.O_TRUNC, 0)
	fh.WriteString(`{"display":"a rewritten, longer line","timestamp":1795960000000,"project":"/x","sessionId":"s1"}` + "\n")
	fh.Close()
	res, _ = listAll(Options{Claude: f.claude, IndexPath: idx})
	if got := res.Sessions[0].LastPromptAt.UnixMilli(); got != 1795960000000 {
		t.Fatalf("after the rewrite the history says %d", got)
	}
}
