package main

import (
	"regexp"
	"testing"
)

// strip takes out only the ignored key, wherever it stands in an object,
// and leaves every other byte.
func TestStrip(t *testing.T) {
	c := check{ignore: []string{"harness"}}
	for in, want := range map[string]string{
		`[{"harness":"claude","session_id":"a"}]`:                     `[{"session_id":"a"}]`,
		`[{"session_id":"a","harness":"claude"}]`:                     `[{"session_id":"a"}]`,
		`{"a":1,"harness":"codex","b":{"harness":"claude","c":[]}}`:   `{"a":1,"b":{"c":[]}}`,
		`{"name":"harness","x":"\"harness\":\"claude\" in a string"}`: `{"name":"harness","x":"\"harness\":\"claude\" in a string"}`,
		`{"harness":"claude"}`:                                        `{}`,
		"plain text harness: claude\n":                                "plain text harness: claude\n",
	} {
		if got := string(c.strip([]byte(in))); got != want {
			t.Errorf("strip(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestQueriesAreEnough(t *testing.T) {
	rows := []lsRow{
		{ID: "11111111-aaaa", First: "fix the login handler please", Last: "now run the migrations"},
		{ID: "22222222-bbbb", First: "refactor billing module", Last: "write tests for invoices", Hidden: true},
		{ID: "33333333-cccc", First: "deploy staging cluster", Last: "rollback deployment"},
	}
	if qs := queries(rows); len(qs) < 10 {
		t.Errorf("queries = %q, want at least 10 from three rows", qs)
	}
}

// dropLines takes out whole matching lines and nothing else.
func TestDropLines(t *testing.T) {
	c := check{ignoreLines: []*regexp.Regexp{regexp.MustCompile(`^  harness +string`)}}
	in := "JSON\n  session_id  string  id\n  harness          string   the agent\n  name  string\nlast"
	want := "JSON\n  session_id  string  id\n  name  string\nlast"
	if got := string(c.dropLines([]byte(in))); got != want {
		t.Errorf("dropLines = %q, want %q", got, want)
	}
}
