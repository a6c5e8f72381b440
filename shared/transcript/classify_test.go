package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
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
// does: key order, spacing, escapes, a late type, isMeta in different
// places, and nested "type" keys that are not the row's. (Repeated keys
// are read differently, on purpose: TestClassifyReadsARepeatedKeyOnce.)
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
	{"type not a string", `{"type":["user"],"message":{"content":"x"}}`, false},
	{"metadata row", `{"type":"custom-title","customTitle":"A \"name\"","sessionId":"s"}`, false},
	{"empty object", `{}`, false},
	{"content an object", `{"type":"user","message":{"content":{"text":"x"}}}`, false},
	{"brackets in strings", `{"a":"}]{[\\","type":"user","message":{"content":"b}r{a[c]k\"e\\\"ts"}}`, true},
}

// needs are every combination a caller may ask for.
var needs = []Need{0, NeedPrompt, NeedReply, NeedStamp, NeedPrompt | NeedReply, NeedPrompt | NeedStamp, NeedReply | NeedStamp, NeedPrompt | NeedReply | NeedStamp}

// answer is what need lets a caller read of a row: its type, whether it
// is a prompt, and the content and timestamp of the rows it reads further.
type answer struct {
	Type               string
	Prompt             bool
	Content, Timestamp string
}

func answerOf(r Row, need Need) answer {
	a := answer{Type: r.Type, Prompt: need&NeedPrompt != 0 && r.IsPrompt()}
	if a.Prompt || r.Type == "assistant" && need&NeedReply != 0 {
		a.Content = string(r.Content)
		if need&NeedStamp != 0 {
			a.Timestamp = string(r.Timestamp)
		}
	}
	return a
}

func TestClassifyReadsRowsAsEncodingJSON(t *testing.T) {
	for _, c := range shapes {
		t.Run(c.name, func(t *testing.T) {
			if !json.Valid([]byte(c.line)) {
				t.Fatalf("not valid JSON: %s", c.line)
			}
			want, _ := reference([]byte(c.line))
			got, ok := Classify([]byte(c.line), NeedAll)
			if !ok {
				t.Fatalf("Classify refused a valid row")
			}
			if d := cmp.Diff(want, got, rawBytes); d != "" {
				t.Errorf("(-encoding/json +Classify):\n%s", d)
			}
			if d := cmp.Diff(referenceTexts(want.Content), texts(got.Content)); d != "" {
				t.Errorf("text blocks (-encoding/json +TextBlocks):\n%s", d)
			}
			// Stopping early gives each caller the answer of a whole read.
			for _, need := range needs {
				r, ok := Classify([]byte(c.line), need)
				if !ok {
					t.Fatalf("need %04b: Classify refused a valid row", need)
				}
				if d := cmp.Diff(answerOf(want, need), answerOf(r, need)); d != "" {
					t.Errorf("need %04b (-encoding/json +Classify):\n%s", need, d)
				}
			}
			if r, _ := Classify([]byte(c.line), NeedPrompt); r.IsPrompt() != c.prompt {
				t.Errorf("IsPrompt = %v, want %v", r.IsPrompt(), c.prompt)
			}
		})
	}
}

// A key repeated in one object is read at its first occurrence, whoever
// reads the row and wherever it stops: the listing and search read it
// alike. (encoding/json would take the last; Claude Code never repeats.)
func TestClassifyReadsARepeatedKeyOnce(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       answer // as search reads it
	}{
		{"type", `{"type":"assistant","message":{"content":"x"},"timestamp":"t","type":"user"}`, answer{Type: "assistant", Content: `"x"`, Timestamp: `"t"`}},
		{"type, then not a string", `{"type":"user","message":{"content":"x"},"type":null}`, answer{Type: "user", Prompt: true, Content: `"x"`}},
		{"type not a string, then user", `{"type":null,"message":{"content":"x"},"type":"user"}`, answer{}},
		{"message", `{"type":"user","message":{"content":[{"type":"tool_result"}]},"message":{"content":"second"}}`, answer{Type: "user"}},
		{"message, first not an object", `{"type":"user","message":null,"message":{"content":"second"}}`, answer{Type: "user"}},
		{"content", `{"type":"user","message":{"content":"first","content":[{"type":"tool_result"}]}}`, answer{Type: "user", Prompt: true, Content: `"first"`}},
		{"isMeta", `{"type":"user","isMeta":false,"message":{"content":"x"},"isMeta":true}`, answer{Type: "user", Prompt: true, Content: `"x"`}},
		{"timestamp", `{"type":"user","timestamp":"a","message":{"content":"x"},"timestamp":"b"}`, answer{Type: "user", Prompt: true, Content: `"x"`, Timestamp: `"a"`}},
		{"block type", `{"type":"user","message":{"content":[{"type":"text","type":"tool_result","text":"x"}]}}`, answer{Type: "user", Prompt: true, Content: `[{"type":"text","type":"tool_result","text":"x"}]`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, need := range append(needs, NeedAll) {
				r, ok := Classify([]byte(c.line), need)
				if !ok {
					t.Fatalf("need %04b: Classify refused a valid row", need)
				}
				want := c.want
				if need&NeedPrompt == 0 {
					want.Prompt = false
				}
				if !want.Prompt && !(want.Type == "assistant" && need&NeedReply != 0) {
					want.Content = ""
				}
				if need&NeedStamp == 0 || want.Content == "" {
					want.Timestamp = ""
				}
				if d := cmp.Diff(want, answerOf(r, need)); d != "" {
					t.Errorf("need %04b (-want +got):\n%s", need, d)
				}
			}
		})
	}
	if got := texts([]byte(`[{"type":"text","text":"first","type":"image","text":"second"}]`)); !cmp.Equal(got, []string{`"first"`}) {
		t.Errorf("TextBlocks read a repeated key's last occurrence: %q", got)
	}
}

// Classify reads no further than its caller's answer needs: what follows
// that point in these rows is not JSON at all, and a caller that would
// have to read it refuses the row. A tool result stops at its first
// block's type, an attachment at its type, an assistant row at its type
// for the listing and after its content and timestamp for search.
func TestClassifyStopsOnceTheAnswerIsSettled(t *testing.T) {
	const junk = `"rest":[[[{ not JSON, never read }`
	const listing, search = NeedPrompt, NeedPrompt | NeedReply | NeedStamp
	for _, c := range []struct {
		name, line string
		stops      []Need // the needs that stop before junk
	}{
		{"tool result", `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"out` + junk, []Need{listing, search}},
		{"tool result in the second block", `{"type":"user","message":{"content":[{"type":"text","text":"see"},{"type":"tool_result",` + junk, []Need{listing, search}},
		{"attachment", `{"parentUuid":null,"isSidechain":false,"type":"attachment","attachment":` + junk, []Need{listing, search}},
		{"system row", `{"type":"system","content":` + junk, []Need{listing, search}},
		{"assistant", `{"parentUuid":null,"type":"assistant","message":` + junk, []Need{listing}},
		{"assistant, read for search", `{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]},"uuid":"u","timestamp":"2026-11-29T10:00:00Z",` + junk, []Need{listing, search}},
		{"meta row", `{"type":"user","isMeta":true,"message":` + junk, []Need{listing, search}},
		{"content not a prompt's", `{"type":"user","message":{"content":{"text":"x"}},` + junk, []Need{listing, search}},
		{"a prompt, read to its end for a late isMeta", `{"type":"user","message":{"content":"hi"},"timestamp":"t","isMeta":false,` + junk, nil},
		{"type late", `{"message":{"content":[{"type":"tool_result"}]},` + junk + `,"type":"user"}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, need := range []Need{listing, search, NeedAll} {
				_, ok := Classify([]byte(c.line), need)
				if want := slices.Contains(c.stops, need); ok != want {
					t.Errorf("need %04b: ok = %v, want %v (stopped before the junk)", need, ok, want)
				}
			}
		})
	}
	// A row cut off mid-write is refused even when the answer was settled.
	if _, ok := Classify([]byte(`{"type":"attachment","attachment":{"cut off`), NeedPrompt); ok {
		t.Errorf("Classify took a row that does not end in a brace")
	}
}

func TestClassifyRefusesWhatIsNotAnObject(t *testing.T) {
	for _, line := range []string{``, `[]`, `null`, `"x"`, `{"parentUuid":"cut off mid-wri`, `{"a":1}}`, `{"a":1} {"b":2}`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1,}`} {
		for _, need := range append(needs, NeedAll) {
			if r, ok := Classify([]byte(line), need); ok {
				t.Errorf("Classify(%q, %04b) = %+v, ok", line, need, r)
			}
		}
	}
}

// hasRepeatedKey says some object in the valid JSON b repeats a key:
// there Classify reads the first occurrence and encoding/json the last.
func hasRepeatedKey(b []byte) bool {
	type frame struct {
		keys    map[string]bool
		wantKey bool // an object, before a key
	}
	var stack []*frame
	d := json.NewDecoder(bytes.NewReader(b))
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return true
				}
				stack[n-1].keys[k], stack[n-1].wantKey = true, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

func TestHasRepeatedKey(t *testing.T) {
	for line, want := range map[string]bool{
		`{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`: false,
		`{"a":1,"b":2,"a":3}`:                       true,
		`{"a":{"x":[1,{"y":1,"y":2}]}}`:             true,
		`{"a":1,"\u0061":2}`:                        true,
		`[{"a":1},{"a":1}]`:                         false,
		`{"a":"b","b":"a"}`:                         false,
	} {
		if got := hasRepeatedKey([]byte(line)); got != want {
			t.Errorf("hasRepeatedKey(%s) = %v, want %v", line, got, want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, c := range shapes {
		f.Add([]byte(c.line))
	}
	f.Add([]byte(`{"type":"\xff","isMeta":true}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result"}]},"message":{"content":"second"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		all, ok := Classify(b, NeedAll) // never panics, whatever b is
		for _, need := range needs {
			Classify(b, need)
		}
		if !json.Valid(b) {
			return
		}
		// Wherever it stops, each caller gets the answer of a whole read,
		// repeated keys or not.
		for _, need := range needs {
			r, rok := Classify(b, need)
			if rok != ok {
				t.Fatalf("Classify(%q, %04b) ok = %v; read whole, ok = %v", b, need, rok, ok)
			}
			if d := cmp.Diff(answerOf(all, need), answerOf(r, need)); d != "" {
				t.Errorf("Classify(%q, %04b) (-whole +stopped):\n%s", b, need, d)
			}
		}
		want, isObject := reference(b)
		if ok != isObject {
			t.Fatalf("Classify(%q) ok = %v; encoding/json says object = %v", b, ok, isObject)
		}
		if !ok || hasRepeatedKey(b) {
			return // a repeated key: the first wins here, the last there
		}
		if d := cmp.Diff(want, all, rawBytes); d != "" {
			t.Errorf("Classify(%q) (-encoding/json +Classify):\n%s", b, d)
		}
		if d := cmp.Diff(referenceTexts(want.Content), texts(all.Content)); d != "" {
			t.Errorf("TextBlocks(%q) (-encoding/json +TextBlocks):\n%s", all.Content, d)
		}
	})
}
