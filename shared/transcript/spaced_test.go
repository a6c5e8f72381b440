package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// spaced writes a JSON line with white space around its structural colons
// and commas (outside strings), as JSON allows and some writers do; colon
// and comma are what stands in for ':' and ','.
func spaced(line, colon, comma string) string {
	var b strings.Builder
	in, esc := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && c == ':':
			b.WriteString(colon)
			continue
		case !in && c == ',':
			b.WriteString(comma)
			continue
		case !in && (c == '{' || c == '['):
			b.WriteByte(c)
			b.WriteString(strings.ReplaceAll(comma, ",", ""))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// TestSpacedEnvelope: a row with JSON white space between a key, its colon
// and its value lists the same cwd, branch, version, entrypoint, sidechain,
// team and lineage marks as the compact row. The compact results are
// checked first, so that "the same" is not "both empty".
func TestSpacedEnvelope(t *testing.T) {
	side := strings.Replace(strings.Replace(user, `"isSidechain":false`, `"isSidechain":true`, 1), `"entrypoint":"cli",`, `"entrypoint":"cli","teamName":"blue",`, 1)
	clearRows := []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"<local-command-caveat>caveat</local-command-caveat>"},"isMeta":true,"uuid":"m1","timestamp":"2026-12-01T13:01:48.770Z","entrypoint":"cli","cwd":"/r","sessionId":"` + c2id + `","version":"2.1.333","gitBranch":"main"}` + "\n",
		`{"parentUuid":"m1","isSidechain":false,"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n<command-args></command-args>"},"uuid":"m2","timestamp":"2026-12-01T13:01:48.739Z","entrypoint":"cli","cwd":"/r","sessionId":"` + c2id + `","version":"2.1.333","gitBranch":"main"}` + "\n",
		asstRow(c2id, "a1", c1id, ""),
	}
	files := []struct {
		name  string
		lines []string
		want  func(s Summary) bool // what the compact file must already show
	}{
		{"a prompt and a reply", []string{nl(user), nl(asst), nl(tool)}, func(s Summary) bool {
			return s.Cwd == "/home/alice/src/demo-repo" && s.GitBranch == "feature/login" && s.Version == "2.1.332" &&
				s.SessionID == sid && s.Entrypoint == "cli" && s.FirstPrompt != ""
		}},
		{"a sidechain of a team", []string{nl(side)}, func(s Summary) bool { return s.Sidechain && s.TeamName == "blue" }},
		{"a branch", []string{
			userRow(bid, "u1", "parent work one", forked(pid, "u1")),
			asstRow(bid, "a1", pid, `,"requestSessionId":"`+pid+`"`+forked(pid, "a1")),
		}, func(s Summary) bool {
			return s.SessionID == bid && s.CopiedFrom == pid && s.CopiedBy == "branch" && s.ProcessSession == pid
		}},
		{"a fork", []string{
			userRow("ff", "u1", "parent work one", ""),
			asstRow("ff", "a1", fid, `,"requestSessionId":"`+fid+`"`),
		}, func(s Summary) bool { return s.CopiedFrom == fid && s.CopiedBy == "fork" && s.ProcessSession == fid }},
		{"a /clear continuation", clearRows, func(s Summary) bool {
			return s.ClearedAt == "2026-12-01T13:01:48.739Z" && s.ProcessSession == c1id
		}},
	}
	for _, f := range files {
		compact, err := Scan(write(t, f.lines...))
		if err != nil {
			t.Fatal(err)
		}
		if !f.want(compact) {
			t.Fatalf("%s: the compact rows read as %+v", f.name, compact)
		}
		for _, sep := range []struct{ colon, comma string }{
			{" : ", ", "}, {": ", ", "}, {" :", " ,"}, {"\t:\t", ",\t"}, {" \r\t : \t\r ", " , "}, {":", ", "},
		} {
			var lines []string
			for _, l := range f.lines {
				sl := spaced(l, sep.colon, sep.comma)
				if !json.Valid([]byte(sl)) || sl == l {
					t.Fatalf("not a spaced JSON row: %s", sl)
				}
				lines = append(lines, sl)
			}
			got, err := Scan(write(t, lines...))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(compact, got, ignoreBook); d != "" {
				t.Errorf("%s, %q %q: (-compact +spaced):\n%s", f.name, sep.colon, sep.comma, d)
			}
		}
	}
}

// LastString and FirstString read a key spaced or not, and pass over the
// name where it is not a key (a value, or inside a string).
func TestLastFirstStringSpaced(t *testing.T) {
	line := []byte(`{"a":"sessionId", "text":"say \"sessionId\":\"no\"", "sessionId" : "first", "n":{"sessionId":1}, "sessionId":` + "\t" + `"last", "z":["sessionId"]}`)
	if v, ok := LastString(line, `"sessionId":"`); !ok || v != "last" {
		t.Errorf("LastString: %q, %v", v, ok)
	}
	if v, ok := FirstString(line, `"sessionId":"`); !ok || v != "first" {
		t.Errorf("FirstString: %q, %v", v, ok)
	}
	if v, ok := FirstString([]byte(`{"x":"sessionId"}`), `"sessionId":"`); ok {
		t.Errorf("a value read as a key: %q", v)
	}
}
