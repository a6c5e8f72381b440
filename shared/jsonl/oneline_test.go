package jsonl

import (
	"math/rand"
	"strings"
	"testing"
)

// Oneline reads only as far as it shows, and shows what collapsing every
// run of white space and cutting the result at 200 runes shows: on random
// lines of spaces, non-ASCII, bad bytes and lengths on both sides of 200.
func TestOnelineCollapsesAndCutsAsTheWholeLineWould(t *testing.T) {
	whole := func(s string) string { // the definition, on the whole line
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > 200 {
			return string(r[:200]) + "…"
		}
		return s
	}
	parts := []string{"a", "Z", "9", " ", "  ", "\t", "\n", "\u00a0", "\u0085", "\u2003", "é", "日", "\xff", "\xe6\x97", "—", "x"}
	rng := rand.New(rand.NewSource(3))
	for range 20000 {
		var b strings.Builder
		for range rng.Intn(260) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		s := b.String()
		if got, want := Oneline(s), whole(s); got != want {
			t.Fatalf("Oneline(%q)\n got %q\nwant %q", s, got, want)
		}
	}
	for _, s := range []string{"", "   ", strings.Repeat("x", 200), strings.Repeat("x", 201), strings.Repeat("x", 200) + " y", strings.Repeat("ab ", 70), " lead and trail \n"} {
		if got, want := Oneline(s), whole(s); got != want {
			t.Errorf("Oneline(%q) = %q, want %q", s, got, want)
		}
	}
}
