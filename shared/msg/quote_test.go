package msg

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly-10", 10, "exactly-10"},
		{"abcdefghijk", 10, "abcdefghi…"},
		{"ééééééééééé", 5, "éééé…"},
		{"🙏🙏🙏🙏", 3, "🙏🙏…"},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// Quoted cuts what it quotes, never inside an escape.
func TestQuotedIsCut(t *testing.T) {
	long := strings.Repeat("y", 5000)
	for _, s := range []string{long, strings.Repeat(`"\`, 3000), strings.Repeat("\x01é", 3000), "short"} {
		q := Quoted(s)
		u, err := strconv.Unquote(q)
		if n := utf8.RuneCountInString(q); n > MaxQuoted+2 || err != nil || !strings.HasPrefix(s, strings.TrimSuffix(u, "…")) {
			t.Errorf("Quoted(%.20q…) = %q (%d characters, %v)", s, q, n, err)
		}
	}
	if q := Quoted("short"); q != `"short"` {
		t.Errorf("a short text is cut: %s", q)
	}
}
