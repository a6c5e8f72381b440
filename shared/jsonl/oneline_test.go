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
	for _, s := range []string{"", " ", "a", "a ", " a", "a b", "a  b", "a\u00a0b", strings.Repeat("x", 199) + " ", strings.Repeat("x", 200), strings.Repeat("x", 201), strings.Repeat("x", 200) + " y", strings.Repeat("ab ", 70), " lead and trail \n"} {
		if got, want := Oneline(s), whole(s); got != want {
			t.Errorf("Oneline(%q) = %q, want %q", s, got, want)
		}
	}
}

// whole is Oneline's definition, on the whole line.
func whole(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// FuzzOneline holds Oneline, and the short cut it takes for a line that
// is one already, to the definition.
func FuzzOneline(f *testing.F) {
	for _, s := range []string{"", "a b", "a  b", " a", "a ", "日本 語", "\xff x", strings.Repeat("é", 200), strings.Repeat("é", 201), "a\u2003b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Oneline(s), whole(s); got != want {
			t.Fatalf("Oneline(%q)\n got %q\nwant %q", s, got, want)
		}
	})
}
