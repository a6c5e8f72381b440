package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
)

// BenchmarkFirstBuild times a first search (the index built from nothing)
// over the Claude home FORGECTL_BENCH_HOME names (a gencc home), for
// profiling with -cpuprofile; without it the benchmark is skipped.
func BenchmarkFirstBuild(b *testing.B) {
	home := os.Getenv("FORGECTL_BENCH_HOME")
	if home == "" {
		b.Skip("FORGECTL_BENCH_HOME names no generated home")
	}
	q, err := ParseQuery("quokkalanternfish")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	opt := Options{Harness: claude.New(paths.Claude{Root: filepath.Join(home, ".claude")}, snapstore.Store{})}
	for i := 0; b.Loop(); i++ {
		opt.Dir = filepath.Join(dir, "ix", string(rune('a'+i%26)))
		os.RemoveAll(opt.Dir)
		if _, err := Search(context.Background(), opt, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTokensOf times the tokenizer alone over the text of the first
// 300 sessions of FORGECTL_BENCH_HOME, one goroutine.
func BenchmarkTokensOf(b *testing.B) {
	sessions, n := benchSessions(b)
	b.SetBytes(n)
	set := new(tokenSet)
	for b.Loop() {
		for _, msgs := range sessions {
			tokensOf(msgs, set)
		}
	}
}

func benchSessions(b *testing.B) ([][]harness.Message, int64) {
	home := os.Getenv("FORGECTL_BENCH_HOME")
	if home == "" {
		b.Skip("FORGECTL_BENCH_HOME names no generated home")
	}
	h := claude.New(paths.Claude{Root: filepath.Join(home, ".claude")}, snapstore.Store{})
	files, _, err := walk(context.Background(), h)
	if err != nil {
		b.Fatal(err)
	}
	ix := &index{}
	rs := &readScratch{sc: jsonl.NewScanner(nil, 0), set: new(tokenSet)}
	var sessions [][]harness.Message
	var n int64
	for _, f := range files[:min(300, len(files))] {
		r := ix.read(h, rs, &job{f: f})
		if r.err == nil {
			sessions = append(sessions, r.msgs)
			for _, m := range r.msgs {
				n += int64(len(m.Text))
			}
		}
	}
	return sessions, n
}
