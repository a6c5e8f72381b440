package transcript

import (
	"strings"
	"testing"
)

func TestParseSidecar(t *testing.T) {
	for _, c := range []struct {
		in, title, by string
		ok            bool
	}{
		{`{"customTitle":"Login bugfix work","by":"user","at":"2026-11-29T16:41:49.344Z"}`, "Login bugfix work", "user", true},
		{`{"customTitle":"  padded  ","by":"command"}`, "padded", "command", true},
		{`{"customTitle":"no author"}`, "no author", "custom-title", true},
		{`{"customTitle":"made up","by":"derived"}`, "", "", false},
		{`{"customTitle":"   ","by":"user"}`, "", "", false},
		{`{"customTitle":`, "", "", false},
		{`["a list"]`, "", "", false},
		{``, "", "", false},
		{`{"customTitle":"` + strings.Repeat("x", 70<<10) + `"}`, "", "", false},
	} {
		title, by, ok := ParseSidecar([]byte(c.in))
		if title != c.title || by != c.by || ok != c.ok {
			t.Errorf("ParseSidecar(%.40q) = %q, %q, %v; want %q, %q, %v", c.in, title, by, ok, c.title, c.by, c.ok)
		}
	}
	if got := SidecarPath("/p/-src-api/abc.jsonl", "abc"); got != "/p/-src-api/abc/custom-title.json" {
		t.Errorf("SidecarPath = %q", got)
	}
}
