package sessions

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
)

func truncateFile(t *testing.T, p string, size int64) {
	t.Helper()
	// Another process, as a sync tool or a person's shell would.
	if out, err := exec.Command("truncate", "-s", fmt.Sprint(size), p).CombinedOutput(); err != nil {
		t.Fatalf("truncate: %v %s", err, out)
	}
}

// An index truncated by another process while the listing has it mapped
// answers nothing rather than crash: each read says so, and the failure
// is reported once for the listing to note.
func TestIndexTruncatedWhileMapped(t *testing.T) {
	p := filepath.Join(t.TempDir(), "idx")
	writeSample(t, p)
	ix, err := openIndex(p, testFormat)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.close()
	if e, _ := ix.lookup("/p/a.jsonl"); !e.OK {
		t.Fatal("no record before the truncation")
	}
	truncateFile(t, p, 0)
	if e, _ := ix.lookup("/p/a.jsonl"); e.OK {
		t.Fatalf("a record from a truncated index: %+v", e)
	}
	if _, _, err := ix.Get("a"); !errors.Is(err, errShrunk) {
		t.Fatalf("aux Get: %v", err)
	}
	if err := ix.Each(func(string, string) {}); !errors.Is(err, errShrunk) {
		t.Fatalf("aux Each: %v", err)
	}
	if err := ix.failure(); !errors.Is(err, errShrunk) || !strings.Contains(err.Error(), p) {
		t.Fatalf("failure: %v", err)
	}
	n, err := Indexed(Options{Harness: claude.New(paths.Claude{}, snapstore.Store{}), IndexPath: p}, func(*harness.Session) {})
	if n != 0 || err == nil {
		t.Fatalf("Indexed over the truncated file: %d, %v", n, err)
	}
}

// A listing whose index is truncated while it streams rows hands on rows
// that say what the transcripts say (nothing of them lives in the
// mapping), and the next listing rebuilds the index.
func TestListingIndexTruncatedWhileListing(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "r")
	os.MkdirAll(repo, 0o755)
	idx := filepath.Join(f.home, "idx")
	const n = 300
	base := time.Now().Add(-time.Hour)
	paths := make([]string, n)
	for i := range n {
		id := fmt.Sprintf("s%03d", i)
		paths[i] = f.transcript(repo, id, base.Add(time.Duration(i)*time.Second),
			row(repo, id, "main", "cli", "first prompt of "+id),
			`{"type":"custom-title","customTitle":"Title of `+id+`","sessionId":"`+id+`"}`+"\n")
	}
	os.MkdirAll(filepath.Dir(f.claude.History()), 0o700)
	os.WriteFile(f.claude.History(), []byte(`{"display":"a prompt","timestamp":1795970000000,"project":"/x","sessionId":"s000"}`+"\n"), 0o600)
	check := func(what string, rows []harness.Session) {
		t.Helper()
		if len(rows) != n {
			t.Fatalf("%s: %d rows", what, len(rows))
		}
		for _, s := range rows {
			if s.Name != "Title of "+s.ID || s.FirstPrompt != "first prompt of "+s.ID {
				t.Fatalf("%s: row %+v", what, s)
			}
		}
	}
	for round, cut := range []int64{0, 4096} {
		res, err := listAll(f.options(idx))
		if err != nil {
			t.Fatal(err)
		}
		check("the listing that writes the index", res.Sessions)
		// Appends to some, so that the next listing rewrites the index,
		// copying the records of the others out of the mapping.
		for i := 0; i < n; i += 7 {
			fh, _ := os.OpenFile(paths[i], os.O_APPEND|os.O_WRONLY, 0)
			fh.WriteString(row(repo, fmt.Sprintf("s%03d", i), "main", "cli", "appended") + "\n")
			fh.Close()
			later := time.Now().Add(time.Duration(round*n+i) * time.Second)
			os.Chtimes(paths[i], later, later)
		}
		// The next listing maps it; the first row handed on cuts it.
		var rows []harness.Session
		cutDone := false
		st, err := List(t.Context(), f.options(idx), func(s *harness.Session) error {
			if !cutDone {
				truncateFile(t, idx, cut)
				cutDone = true
			}
			rows = append(rows, *s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		check("the listing under the truncation", rows)
		if len(st.Problems) != 1 || !errors.Is(st.Problems[0], errShrunk) {
			t.Errorf("problems %v", st.Problems)
		}
		for _, s := range rows {
			if s.ID == "s000" && s.LastPromptAt.UnixMilli() != 1795970000000 {
				t.Errorf("history lost under the truncation: %+v", s)
			}
		}
		// The next finds the index damaged and rebuilds it.
		res, err = listAll(f.options(idx))
		if err != nil {
			t.Fatal(err)
		}
		check("the listing after", res.Sessions)
		if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Error(), "damaged") || res.Scanned != n {
			t.Errorf("after: scanned %d, problems %v", res.Scanned, res.Problems)
		}
		for _, s := range res.Sessions {
			if s.ID == "s000" && s.LastPromptAt.UnixMilli() != 1795970000000 {
				t.Errorf("history lost: %+v", s)
			}
		}
		res, _ = listAll(f.options(idx))
		if len(res.Problems) != 0 || res.Scanned != 0 {
			t.Errorf("rebuilt: scanned %d, problems %v", res.Scanned, res.Problems)
		}
	}
}
