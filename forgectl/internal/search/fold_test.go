package search

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/cchome"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Full case folding and one normalization form, through the index and
// the query: what is typed finds what was written in another case or
// another Unicode spelling, both ways.
func TestQueryFoldsFullyAndNormalizes(t *testing.T) {
	tr := newTree(t)
	tr.write("sharp", cchome.PromptRow("the Straße is closed", 1))
	tr.write("upper", cchome.PromptRow("MASSE AND STRASSE", 1))
	tr.write("nfc", cchome.PromptRow("a caf\u00e9 in Paris", 1))
	tr.write("nfd", cchome.PromptRow("a cafe\u0301 in Lyon", 1))
	tr.write("liga", cchome.PromptRow("the \ufb01le is open", 1)) // ﬁ
	tr.write("plain", cchome.PromptRow("a cafe and a street", 1))

	tr.expect("STRASSE", "sharp", "upper")
	tr.expect("straße", "sharp", "upper")
	tr.expect("STRAẞE", "sharp", "upper") // capital sharp s
	tr.expect("caf\u00e9", "nfc", "nfd")  // precomposed finds both
	tr.expect("cafe\u0301", "nfc", "nfd") // decomposed finds both
	tr.expect("CAFE\u0301", "nfc", "nfd")
	tr.expect("\"caf\u00e9 in\"", "nfc", "nfd")
	tr.expect("cafe", "plain") // é is not e
	tr.expect("file", "liga")
	tr.expect("FILE IS", "liga")
}

// key is what the folding makes of s, as a reference: x/text's full case
// folding, then NFC.
func key(s string) string { return norm.NFC.String(cases.Fold().String(s)) }

// fullFold holds exactly the foldings x/text's cases.Fold makes more than
// one rune of; every other rune folds to one rune in the same class as
// there. (x/text itself folds upper-case Cherokee to lower case and lower
// case to upper, so its classes are not compared for Cherokee.)
func TestFullFoldIsUnicodes(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		want := cases.Fold().String(string(r))
		got, ok := fullFold(r)
		if multi := utf8.RuneCountInString(want) > 1; multi != ok || ok && got != want {
			t.Errorf("%U: fullFold %q, %v; cases.Fold %q", r, got, ok, want)
		}
		if w, _ := utf8.DecodeRuneInString(want); !ok && !unicode.In(r, unicode.Cherokee) && foldRune(w) != foldRune(r) {
			t.Errorf("%U: folds to %U; cases.Fold to %U", r, foldRune(r), w)
		}
	}
}

// Every rune's normalized form is one for its whole case class and its
// canonically equivalent spellings, and normalizing again changes nothing.
func TestNormalizeIsCanonical(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) || isSpace(r) {
			continue
		}
		s := string(r)
		n := normalize(s)
		if normalize(n) != n {
			t.Errorf("%U: normalize is not idempotent: %q then %q", r, n, normalize(n))
		}
		if d := normalize(norm.NFD.String(s)); d != n {
			t.Errorf("%U: NFD spelling normalizes to %q, not %q", r, d, n)
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if normalize(string(f)) != n {
				t.Errorf("%U and %U fold together but normalize to %q and %q", r, f, n, normalize(string(f)))
			}
		}
	}
}

// tricky is an alphabet for random text: ASCII, white space, combining
// marks that compose with an ASCII letter or sign (e + ◌́, = + ◌̸), full
// foldings, Hangul jamo, a bad byte.
var tricky = []string{"a", "E", "z", "0", "=", "<", "-", " ", "\n", "\u00a0", "\u2003", "\u0301", "\u0338", "\u0308",
	"ß", "ẞ", "İ", "ﬁ", "ΐ", "Σ", "ς", "é", "\u1100", "\u1161", "\u11a8", "가", "ǅ", "Ꭰ", "ꭰ", "K", "\xff", "日", "—", "Ⓐ"}

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.Intn(24) {
		b.WriteString(tricky[rng.Intn(len(tricky))])
	}
	return b.String()
}

// The build's one-pass tokenizer finds the tokens a query's are looked up
// against: those of the normalized text, whatever the text.
func TestTokensOfMatchesNormalizedTokensOnRandomText(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	for range 20000 {
		text := randomText(rng)
		got := map[string]bool{}
		for _, g := range tokensOf([]harness.Message{{Text: text}}, new(tokenSet)) {
			got[g] = true
		}
		want := map[string]bool{}
		eachToken(normalize(text), func(s string) { want[s] = true })
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%q: tokens (-normalized +one-pass):\n%s", text, d)
		}
	}
}

// The same on mostly-ASCII text, where the tokenizer reads eight bytes at
// a time: words of every length around 8 and 16, capitals anywhere, every
// ASCII byte as a separator, and now and then a non-ASCII rune, at any
// offset from the start of the text.
func TestTokensOfMatchesNormalizedTokensOnASCIIText(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const word = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for range 20000 {
		var b strings.Builder
		for range rng.Intn(12) {
			for range rng.Intn(20) {
				b.WriteByte(word[rng.Intn(len(word))])
			}
			switch x := rng.Intn(10); {
			case x < 6:
				b.WriteByte(byte(rng.Intn(128))) // a separator, or not
			case x < 8:
				b.WriteString(" ")
			default:
				b.WriteString(tricky[rng.Intn(len(tricky))])
			}
		}
		text := b.String()
		got := map[string]bool{}
		for _, g := range tokensOf([]harness.Message{{Text: text}}, new(tokenSet)) {
			if got[g] {
				t.Fatalf("%q: %q listed twice", text, g)
			}
			got[g] = true
		}
		want := map[string]bool{}
		eachToken(normalize(text), func(s string) { want[s] = true })
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%q: tokens (-normalized +one-pass):\n%s", text, d)
		}
	}
}

// A snippet holds the match, wherever the text changed length when
// normalized before it.
func TestSnippetHoldsANonASCIIMatch(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for range 5000 {
		pre, post := randomText(rng), randomText(rng)
		text := pre + " Straße " + post
		if s := snippet(text, normalize("STRASSE")); !strings.Contains(s, "Straße") {
			t.Fatalf("snippet of %q for strasse is %q", text, s)
		}
	}
	long := strings.Repeat("日本語のテキスト", 40) + "ß" + strings.Repeat("x", 20)
	if s := snippet(long, normalize("ss")); !strings.Contains(s, "ß") {
		t.Fatalf("snippet %q misses the match", s)
	}
}

// An index built before the folding changed holds tokens of the old
// folding (no "strasse" for Straße): it is rebuilt, never trusted.
func TestIndexOfTheOldFoldingIsRebuilt(t *testing.T) {
	tr := newTree(t)
	tr.write("sharp", cchome.PromptRow("the Straße is closed", 1))
	tr.expect("closed", "sharp")
	cat := filepath.Join(tr.opt.Dir, "catalog")
	b, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	// The catalog as the format before full folding (1) wrote it.
	body := append([]byte(catalogMagic), binary.AppendUvarint(nil, 1)...)
	body = append(body, b[len(catalogMagic)+len(binary.AppendUvarint(nil, catalogFormat)):len(b)-4]...)
	os.WriteFile(cat, binary.LittleEndian.AppendUint32(body, binrec.CRC(body)), 0o600)
	res := tr.expect("STRASSE", "sharp")
	if res.Stats.Rebuilt != "it was written by another version" {
		t.Errorf("rebuilt: %q", res.Stats.Rebuilt)
	}
}

// The build's one-pass tokenizer finds the tokens a query's are looked up
// against: those of the normalized text.
func TestTokensOfMatchesNormalizedTokens(t *testing.T) {
	for _, text := range []string{
		"Fix the INVOICE rounding_mode in v2.1", "naïve CAFÉ ΣΊΣΥΦΟΣ straße K", "a\u00a0b\tc\nd",
		strings.Repeat("x", 700) + " " + strings.Repeat("é", 300), "日本語のテキスト 123", "\xff\xfe broken utf8",
	} {
		got := tokensOf([]harness.Message{{Text: text}}, new(tokenSet))
		want := map[string]bool{}
		eachToken(normalize(text), func(s string) { want[s] = true })
		gotSet := map[string]bool{}
		for _, g := range got {
			gotSet[g] = true
		}
		if d := cmp.Diff(want, gotSet); d != "" {
			t.Errorf("%.40q: tokens (-normalized +one-pass):\n%s", text, d)
		}
	}
}

// tokensOf lists each distinct token once, however often it recurs and
// however many there are (the set grows past its first table), and a set
// reused for the next session, after a huge one, holds only that
// session's tokens; the lists it returned before stay as they were.
func TestTokensOfListsEachTokenOnceAcrossReuse(t *testing.T) {
	set := new(tokenSet)
	var b strings.Builder
	want := map[string]bool{}
	for i := range 200000 {
		w := "w" + strconv.Itoa(i%70000)
		if i%5 == 0 { // longer than a packed token
			w = "longertoken" + strconv.Itoa(i%20000)
		}
		if i%3 == 0 {
			w = strings.ToUpper(w)
		}
		b.WriteString(w + " ")
		want[strings.ToLower(w)] = true
	}
	want["w5"] = true
	big := tokensOf([]harness.Message{{Text: b.String()}, {Text: "W5 w6"}}, set)
	check := func(name string, got []string, want map[string]bool) {
		t.Helper()
		seen := map[string]bool{}
		for _, g := range got {
			if seen[g] {
				t.Errorf("%s: %q listed twice", name, g)
			}
			seen[g] = true
		}
		if d := cmp.Diff(want, seen); d != "" {
			t.Errorf("%s: tokens (-want +got):\n%s", name, d)
		}
	}
	check("huge session", big, want)
	small := tokensOf([]harness.Message{{Text: "Fix fix FIX the w5 LongerToken7 longertoken7"}}, set)
	check("next session", small, map[string]bool{"fix": true, "the": true, "w5": true, "longertoken7": true})
	check("huge session, after reuse", big, want)
}
