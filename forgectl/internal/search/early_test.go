package search

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
	"github.com/google/go-cmp/cmp"
)

// A build from nothing tells Early of every session that holds the query,
// newest first (mtime, then name, as the listing orders them; two share
// an mtime), with the hits Search returns for it; an update of an index
// that exists tells it nothing.
func TestEarlyHitsComeNewestFirstAsSearchFindsThem(t *testing.T) {
	tr := newTree(t)
	base := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var want []string
	for k := range 40 {
		name := fmt.Sprintf("s%02d", k)
		text := "nothing to see"
		if k%3 != 1 {
			text = fmt.Sprintf("the needle number %d", k)
		}
		tr.write(name, cchome.PromptRow(text, 1), cchome.ReplyRow("a reply about "+text, 2))
		// s10 and s11 share an mtime; the others are a minute apart, the
		// names in no order of age.
		at := base.Add(time.Duration((k*7)%40) * time.Minute)
		if k == 11 {
			at = base.Add(time.Duration((10*7)%40) * time.Minute)
		}
		os.Chtimes(tr.path(name), at, at)
	}
	// The order expected: by mtime, newest first, then by name.
	type f struct {
		name string
		at   time.Time
	}
	var all []f
	for k := range 40 {
		if k%3 == 1 {
			continue
		}
		st, _ := os.Stat(tr.path(fmt.Sprintf("s%02d", k)))
		all = append(all, f{fmt.Sprintf("s%02d", k), st.ModTime()})
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := all[i], all[j]
			if b.at.After(a.at) || (b.at.Equal(a.at) && b.name < a.name) {
				all[i], all[j] = b, a
			}
		}
	}
	for _, x := range all {
		want = append(want, tr.path(x.name))
	}

	var got []string
	early := map[string][]Hit{}
	tr.opt.Early = func(path string, hits []Hit) {
		got = append(got, path)
		early[path] = hits
	}
	q, _ := ParseQuery("needle")
	opt := tr.opt
	opt.Workers = 4
	res, err := Search(context.Background(), opt, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("early hits, in order (-want +got):\n%s", d)
	}
	if d := cmp.Diff(res.Hits, early, cmp.AllowUnexported(Hit{})); d != "" {
		t.Fatalf("early hits differ from the result (-result +early):\n%s", d)
	}

	got = nil
	tr.write("s99", cchome.PromptRow("one more needle", 1))
	if _, err := Search(context.Background(), opt, q); err != nil {
		t.Fatal(err)
	}
	if got != nil {
		t.Errorf("an update of an existing index streamed %v", got)
	}
}

// Passed hears of every transcript the build reads, hit or not, newest
// first, and of a hit's transcript before Early does: a merge of two
// indexes' early hits waits on it.
func TestPassedComesBeforeEachEarlyHit(t *testing.T) {
	tr := newTree(t)
	base := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for k := range 12 {
		name := fmt.Sprintf("s%02d", k)
		text := "nothing to see"
		if k%3 == 0 {
			text = "the needle"
		}
		tr.write(name, cchome.PromptRow(text, 1))
		at := base.Add(time.Duration(k) * time.Minute)
		os.Chtimes(tr.path(name), at, at)
	}
	var passed []int64
	last := int64(0)
	opt := tr.opt
	opt.Passed = func(m int64) { passed = append(passed, m); last = m }
	opt.Early = func(path string, _ []Hit) {
		st, _ := os.Stat(path)
		if st.ModTime().UnixNano() != last {
			t.Errorf("%s: Early before Passed told of its mtime", path)
		}
	}
	q, _ := ParseQuery("needle")
	if _, err := Search(context.Background(), opt, q); err != nil {
		t.Fatal(err)
	}
	if len(passed) != 12 {
		t.Fatalf("Passed heard of %d transcripts, not 12", len(passed))
	}
	for k := 1; k < len(passed); k++ {
		if passed[k] > passed[k-1] {
			t.Errorf("Passed out of order: %v", passed)
		}
	}
	passed = nil
	tr.write("s99", cchome.PromptRow("one more needle", 1))
	if _, err := Search(context.Background(), opt, q); err != nil || passed != nil {
		t.Errorf("an update of an existing index passed %v (%v)", passed, err)
	}
}
