package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/search"
)

// earlyMerge hands a hit on only once no other harness can still find a
// newer one: a harness that has read past it, or is done; a tie goes to
// the harness listed first; a harness whose index existed (it streams
// nothing) holds the others back until its hits, ordered by their files'
// mtimes, are merged in.
func TestEarlyMergeOrdersAcrossHarnesses(t *testing.T) {
	var got []string
	m := newEarlyMerge([]string{"claude", "codex"}, func(owner, path string, _ []search.Hit) {
		got = append(got, owner+":"+path)
	})
	saw := func(want string) {
		t.Helper()
		if g := strings.Join(got, " "); g != want {
			t.Fatalf("handed on %q, want %q", g, want)
		}
	}
	m.passed("codex", 90)
	m.hit("codex", "x90", nil)
	saw("") // claude has read nothing yet
	m.passed("claude", 100)
	m.passed("claude", 95)
	saw("")
	m.passed("claude", 90) // a tie: claude, listed first, may still have one
	saw("")
	m.passed("claude", 80)
	saw("codex:x90")
	m.passed("claude", 70)
	m.hit("claude", "c70", nil)
	saw("codex:x90") // codex may still find one newer than 70
	m.passed("codex", 70)
	saw("codex:x90 claude:c70") // the tie goes to claude
	m.done("codex", search.Result{Hits: map[string][]search.Hit{"x90": nil}})
	m.passed("claude", 10)
	m.hit("claude", "c10", nil)
	saw("codex:x90 claude:c70 claude:c10")

	// A warm index (no Passed, no early hit): the other waits for it.
	dir := t.TempDir()
	old, newer := filepath.Join(dir, "old"), filepath.Join(dir, "newer")
	for p, at := range map[string]int64{old: 50, newer: 200} {
		os.WriteFile(p, nil, 0o644)
		os.Chtimes(p, time.Unix(0, at), time.Unix(0, at))
	}
	got = nil
	m = newEarlyMerge([]string{"claude", "codex"}, func(owner, path string, _ []search.Hit) {
		got = append(got, owner+":"+filepath.Base(path))
	})
	m.passed("codex", 100)
	m.hit("codex", "x100", nil)
	m.done("codex", search.Result{Hits: map[string][]search.Hit{"x100": nil}})
	saw("")
	m.done("claude", search.Result{Hits: map[string][]search.Hit{old: nil, newer: nil}})
	saw("claude:newer codex:x100 claude:old")
}
