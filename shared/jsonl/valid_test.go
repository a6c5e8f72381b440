package jsonl

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, `""`, `0`, `-0`, `-`, `01`, `1.`, `1.5e`, `1e+9`, `-12.5E-3`, `true`, `tru`, `nullx`, `null `,
	`{"a":1}`, `{"a":1,}`, `{"a" : [1, 2 ,{"b":null}] }`, `[1,]`, `[,1]`, `{"a"}`, `{1:2}`, `{"a":1 "b":2}`,
	`"\u00e9\ud800"`, `"\u12"`, `"\q"`, "\"\x01\"", "\"\xff\xfe\"", `"a\"b\\"`, `"abc`, `{"a":"b"}}`, `[1][2]`,
	"\t{\"k\":\n\"v\"}\r\n", `{"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}`,
}

func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

// TestValidDepth checks the nesting limit is encoding/json's, and that
// plain text longer than a word is looked through whole.
func TestValidDepth(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closing := "]"
			if open != "[" {
				closing = "}"
			}
			b := []byte(strings.Repeat(open, n) + strings.Repeat(closing, n))
			if got, want := Valid(b), json.Valid(b); got != want {
				t.Errorf("depth %d %s: Valid %v, json.Valid %v", n, open, got, want)
			}
		}
	}
	for k := range 17 {
		for _, bad := range []string{"\x00", "\x1f", `\q`, `\u12x4`, ``} {
			b := []byte(`"` + strings.Repeat("plain text ", 3)[:k+8] + bad + strings.Repeat("more ", 5) + `"`)
			if got, want := Valid(b), json.Valid(b); got != want {
				t.Errorf("%q: Valid %v, json.Valid %v", b, got, want)
			}
		}
	}
}

func BenchmarkValid(b *testing.B) {
	line := []byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"` +
		strings.Repeat(`You are Codex, a coding agent. Use \"tools\" wisely.\n`, 400) + `"},"cwd":"/w","n":[1,2.5,-3e4,true,false,null]}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !Valid(line) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkValidEncodingJSON(b *testing.B) {
	line := []byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"` +
		strings.Repeat(`You are Codex, a coding agent. Use \"tools\" wisely.\n`, 400) + `"},"cwd":"/w","n":[1,2.5,-3e4,true,false,null]}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !json.Valid(line) {
			b.Fatal("invalid")
		}
	}
}

// BenchmarkValidPlain is a session_meta line as the bench home's are: a
// system prompt with no escapes.
func BenchmarkValidPlain(b *testing.B) {
	line := []byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"` +
		strings.Repeat(`You are Codex. `, 1500) + `"},"cwd":"/w"}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !Valid(line) {
			b.Fatal("invalid")
		}
	}
}
