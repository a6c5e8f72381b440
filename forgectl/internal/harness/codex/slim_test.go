package codex

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestWithoutInstructionsKeepsTheDecoding checks that cutting the system
// prompt out of a session_meta line changes neither what the line decodes
// to nor whether it decodes, and that the cut is made on the lines Codex
// writes (else the listing reads the prompt three times over again).
func TestWithoutInstructionsKeepsTheDecoding(t *testing.T) {
	prompt := strings.Repeat(`You are Codex. Use \"tools\" \\ wisely.\n\u00e9 `, 500)
	head := `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"t1","cwd":"/w",`
	tail := `,"cli_version":"0.171.0","git":{"branch":"main"}}}`
	cases := []struct {
		name string
		line string
		cut  bool // whether the fast path must take it
	}{
		{"as Codex writes it", head + `"base_instructions":{"text":"` + prompt + `"}` + tail, true},
		{"a string", head + `"base_instructions":"` + prompt + `"` + tail, true},
		{"nested containers", head + `"base_instructions":{"a":["x",{"b":"y"}],"c":{}}` + tail, true},
		{"a raw control character", head + `"base_instructions":{"text":"a` + "\x01" + `b"}` + tail, false},
		{"a bad escape", head + `"base_instructions":{"text":"a\qb"}` + tail, false},
		{"a short unicode escape", head + `"base_instructions":{"text":"a\u12"}` + tail, false},
		{"unterminated", head + `"base_instructions":{"text":"abc`, false},
		{"a number inside", head + `"base_instructions":{"n":1}` + tail, false},
		{"inside source, where a parent is looked for",
			head + `"source":{"subagent":{"base_instructions":{"parent_thread_id":"p1"}}}` + tail, false},
		{"inside a string", head + `"cwd2":"x\",\"base_instructions\":{}"` + tail, false},
		{"the key ends a longer key", head + `"x\\","base_instructions":"a long string"` + tail, true},
		{"broken after the cut", head + `"base_instructions":{"text":"ok"},,` + tail, true},
		{"not in the payload", `{"base_instructions":{"text":"x"},"type":"session_meta","payload":{"id":"t1"}}`, false},
	}
	// A bad byte at each place in an eight-byte word of plain text.
	plain := strings.Repeat("plain text ", 100)
	for k := range 8 {
		for _, bad := range []string{"\x00", "\x1f", `\q`} {
			cases = append(cases, struct {
				name string
				line string
				cut  bool
			}{fmt.Sprintf("%q at %d", bad, k), head + `"base_instructions":{"text":"` + plain[:800+k] + bad + plain + `"}` + tail, false})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cut := withoutInstructions([]byte(c.line))
			if got := len(cut) < len(c.line); got != c.cut {
				t.Errorf("cut = %v, want %v: %s", got, c.cut, cut)
			}
			var whole, slim segment
			whole.metaFrom([]byte(c.line), false)
			slim.metaFrom([]byte(c.line), true)
			if wj, sj := dump(t, &whole), dump(t, &slim); wj != sj {
				t.Errorf("decoded differently:\nwhole %s\nslim  %s", wj, sj)
			}
		})
	}
}

func dump(t *testing.T, g *segment) string {
	t.Helper()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
