package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reference is what encoding/json says of a row: its top-level type and
// flags (the last of a repeated key wins), message.content's bytes, and
// whether a content block is a tool result.
func reference(line []byte) (Row, bool) {
	if t := bytes.TrimLeft(line, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return Row{}, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return Row{}, false
	}
	var r Row
	json.Unmarshal(top["type"], &r.Type) // a type that is not a string is none
	if v, ok := top["isMeta"]; ok {
		json.Unmarshal(v, &r.IsMeta)
	}
	if v, ok := top["isCompactSummary"]; ok {
		json.Unmarshal(v, &r.IsCompactSummary)
	}
	if v, ok := top["timestamp"]; ok {
		r.Timestamp = v
	}
	var msg map[string]json.RawMessage
	if m, ok := top["message"]; ok && bytes.HasPrefix(m, []byte("{")) && json.Unmarshal(m, &msg) == nil {
		if c, ok := msg["content"]; ok {
			r.Content = c
			var blocks []json.RawMessage
			if json.Unmarshal(c, &blocks) == nil {
				for _, b := range blocks {
					var blk map[string]json.RawMessage
					var typ string
					if json.Unmarshal(b, &blk) == nil && json.Unmarshal(blk["type"], &typ) == nil && typ == "tool_result" {
						r.ToolResult = true
					}
				}
			}
		}
	}
	return r, true
}

// referenceTexts is what encoding/json says TextBlocks should pass.
func referenceTexts(content []byte) []string {
	if bytes.HasPrefix(content, []byte(`"`)) {
		return []string{string(content)}
	}
	var blocks []json.RawMessage
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		var blk map[string]json.RawMessage
		var typ string
		if json.Unmarshal(b, &blk) != nil || json.Unmarshal(blk["type"], &typ) != nil || typ != "text" {
			continue
		}
		if t := blk["text"]; bytes.HasPrefix(t, []byte(`"`)) {
			out = append(out, string(t))
		}
	}
	return out
}

func texts(content []byte) []string {
	var out []string
	TextBlocks(content, func(lit []byte) bool { out = append(out, string(lit)); return true })
	return out
}

var rawBytes = cmp.Transformer("string", func(b []byte) string { return string(b) })

// Valid rows of every shape the classifier must read as encoding/json
// does: key order, spacing, escapes, a late or repeated type, isMeta in
// different places, and nested "type" keys that are not the row's.
var shapes = []struct {
	name, line string
	prompt     bool
}{
	{"Claude Code's order", `{"parentUuid":null,"isSidechain":false,"promptId":"p","type":"user","message":{"role":"user","content":"hello there"},"uuid":"u","timestamp":"2026-11-29T10:00:00Z","cwd":"/x","sessionId":"s"}`, true},
	{"type first", `{"type":"user","message":{"role":"user","content":"run git push --force please"},"uuid":"u","cwd":"/x","sessionId":"s"}`, true},
	{"spaced separators", `{ "parentUuid" : null , "type" : "user" , "message" : { "role" : "user" , "content" : "spaced out" } , "cwd" : "/x" }`, true},
	{"pretty-printed", "{\n\t\"type\": \"user\",\n\t\"message\": {\n\t\t\"content\": [\n\t\t\t{\"type\": \"text\", \"text\": \"indented\"}\n\t\t]\n\t}\n}", true},
	{"type after 400 bytes", `{"parentUuid":null,"promptId":"` + strings.Repeat("p", 600) + `","type":"user","message":{"content":"late type"}}`, true},
	{"type at the end of a long row", `{"message":{"role":"user","content":"` + strings.Repeat("long ", 2000) + `"},"cwd":"/x","type":"user"}`, true},
	{"escaped type", `{"type":"us\u0065r","message":{"content":"escaped type"}}`, true},
	{"escaped key", `{"typ\u0065":"user","message":{"content":"escaped key"}}`, true},
	{"unicode escapes in content", `{"type":"user","message":{"content":"caf\u00e9 \ud83d\ude00 \"quoted\" \\"}}`, true},
	{"isMeta late", `{"type":"user","message":{"content":"` + strings.Repeat("r", 900) + `"},"uuid":"u","isMeta":true}`, false},
	{"isMeta first", `{"isMeta":true,"type":"user","message":{"content":"reminder"}}`, false},
	{"isMeta false", `{"type":"user","isMeta":false,"message":{"content":"not meta"}}`, true},
	{"isMeta a string", `{"type":"user","isMeta":"true","message":{"content":"not the literal"}}`, true},
	{"isMeta spaced", `{"type":"user","message":{"content":"x"},"isMeta" : true}`, false},
	{"isMeta inside the message only", `{"type":"user","message":{"content":"nested","isMeta":true}}`, true},
	{"compact summary", `{"type":"user","isCompactSummary":true,"message":{"content":"summary"}}`, false},
	{"block type is not the row's", `{"parentUuid":null,"message":{"role":"user","content":[{"type":"text","text":"blocks"}]},"type":"user"}`, true},
	{"nested type user in an assistant row", `{"message":{"content":[{"type":"user","text":"x"}]},"type":"assistant"}`, false},
	{"nested type in an object before", `{"toolUseResult":{"type":"user","isMeta":false},"type":"system","message":{"content":"x"}}`, false},
	{"tool result", `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"out"}]}}`, false},
	{"tool result second block", `{"type":"user","message":{"content":[{"type":"text","text":"see"},{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}}`, false},
	{"tool_result as text", `{"type":"user","message":{"content":"what is a \"type\":\"tool_result\" block"}}`, true},
	{"repeated type, last wins", `{"type":"assistant","message":{"content":"x"},"type":"user"}`, true},
	{"repeated type, last not a string", `{"type":"user","message":{"content":"x"},"type":null}`, false},
	{"repeated message, last wins", `{"type":"user","message":{"content":[{"type":"tool_result"}]},"message":{"content":"second"}}`, true},
	{"type not a string", `{"type":["user"],"message":{"content":"x"}}`, false},
	{"metadata row", `{"type":"custom-title","customTitle":"A \"name\"","sessionId":"s"}`, false},
	{"empty object", `{}`, false},
	{"content an object", `{"type":"user","message":{"content":{"text":"x"}}}`, false},
	{"brackets in strings", `{"a":"}]{[\\","type":"user","message":{"content":"b}r{a[c]k\"e\\\"ts"}}`, true},
}

func TestClassifyReadsRowsAsEncodingJSON(t *testing.T) {
	for _, c := range shapes {
		t.Run(c.name, func(t *testing.T) {
			if !json.Valid([]byte(c.line)) {
				t.Fatalf("not valid JSON: %s", c.line)
			}
			want, _ := reference([]byte(c.line))
			got, ok := Classify([]byte(c.line))
			if !ok {
				t.Fatalf("Classify refused a valid row")
			}
			if d := cmp.Diff(want, got, rawBytes); d != "" {
				t.Errorf("(-encoding/json +Classify):\n%s", d)
			}
			if got.IsPrompt() != c.prompt {
				t.Errorf("IsPrompt = %v, want %v", got.IsPrompt(), c.prompt)
			}
			if d := cmp.Diff(referenceTexts(want.Content), texts(got.Content)); d != "" {
				t.Errorf("text blocks (-encoding/json +TextBlocks):\n%s", d)
			}
		})
	}
}

func TestClassifyRefusesWhatIsNotAnObject(t *testing.T) {
	for _, line := range []string{``, `[]`, `null`, `"x"`, `{"parentUuid":"cut off mid-wri`, `{"a":1}}`, `{"a":1} {"b":2}`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1,}`} {
		if r, ok := Classify([]byte(line)); ok {
			t.Errorf("Classify(%q) = %+v, ok", line, r)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, c := range shapes {
		f.Add([]byte(c.line))
	}
	f.Add([]byte(`{"type":"\xff","isMeta":true}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := Classify(b) // never panics, whatever b is
		if !json.Valid(b) {
			return
		}
		want, isObject := reference(b)
		if ok != isObject {
			t.Fatalf("Classify(%q) ok = %v; encoding/json says object = %v", b, ok, isObject)
		}
		if !ok {
			return
		}
		if d := cmp.Diff(want, got, rawBytes); d != "" {
			t.Errorf("Classify(%q) (-encoding/json +Classify):\n%s", b, d)
		}
		if d := cmp.Diff(referenceTexts(want.Content), texts(got.Content)); d != "" {
			t.Errorf("TextBlocks(%q) (-encoding/json +TextBlocks):\n%s", got.Content, d)
		}
	})
}
