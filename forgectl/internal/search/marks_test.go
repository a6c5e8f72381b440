package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Marks finds the terms as the search matches them: folded, inside longer
// words, a phrase across white space, overlapping terms merged.
func TestMarks(t *testing.T) {
	for _, c := range []struct {
		query, text string
		want        []string
	}{
		{"round", "Rounding the ROUND numbers", []string{"Round", "ROUND"}},
		{"strasse", "the Straße is long", []string{"Straße"}},
		{`"ship  it" deploy`, "we ship it, then Deploy", []string{"ship it", "Deploy"}},
		{"abc bcd", "xabcdx", []string{"abcd"}},
		{"missing", "nothing here", nil},
	} {
		q, err := ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range q.Marks(c.text) {
			got = append(got, c.text[m[0]:m[1]])
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("Marks(%q) in %q (-want +got):\n%s", c.query, c.text, d)
		}
	}
}
