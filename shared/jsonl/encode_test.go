package jsonl

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// The encoder writes what encoding/json writes (HTML escaping off), and
// the decoder reads it back: the text itself for valid UTF-8, U+FFFD for
// each invalid byte, as encoding/json would decode it.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" back \\ slash", "\b\f\n\r\t\x00\x1f\x7f", "é 😀 \u2028\u2029",
		"bad \xff utf-8", "<html> & amp", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString([]byte("prefix"), s)
		if !bytes.HasPrefix(got, []byte("prefix")) {
			t.Fatalf("AppendString lost what came before: %q", got)
		}
		got = got[len("prefix"):]
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, w)
		}
		back, rest, ok := String(got)
		if !ok || len(rest) != 0 {
			t.Fatalf("String cannot read back %s: ok %v, rest %q", got, ok, rest)
		}
		var std string
		if err := json.Unmarshal(got, &std); err != nil || back != std {
			t.Fatalf("String(%s) = %q, encoding/json reads %q (%v)", got, back, std, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip of valid %q gave %q", s, back)
		}
	})
}
