package jsonl

import (
	"encoding/json"
	"errors"
	"testing"
)

func FuzzStringLit(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\\\"\/\b\f\n\r\t"`, `"bad \q"`, `"unterminated`, "\"bad \xff utf-8\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, rest, ok := String(b)
		var want string
		err := json.Unmarshal(b, &want)
		if len(b) == 0 || b[0] != '"' {
			err = errors.New("a literal with white space before it is not String's")
		}
		if err == nil && (!ok || got != want || SkipSpace(rest, 0) != len(rest)) {
			t.Errorf("String(%q) = %q, %v, rest %q; encoding/json says %q", b, got, ok, rest, want)
		}
		// And the other way: what String accepts, encoding/json reads as
		// the same text.
		if ok {
			lit := b[:len(b)-len(rest)]
			var same string
			if jerr := json.Unmarshal(lit, &same); jerr != nil || same != got {
				t.Errorf("String accepts %q as %q; encoding/json says %q, %v", lit, got, same, jerr)
			}
		}
		// The head of a literal is a prefix of its text, however it is cut.
		for _, cut := range []int{len(b), len(b) / 2, len(b) / 3} {
			head, hok := StringHead(b[:cut], 7)
			if err == nil && hok && (len(head) > 7+4 || head != want[:min(len(want), len(head))]) {
				t.Errorf("StringHead(%q, 7) = %q, not a prefix of %q", b[:cut], head, want)
			}
		}
	})
}
