package search

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"

	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/transcript"
	"github.com/google/go-cmp/cmp"
)

// Rows in the shapes Claude Code 2.1.332/2.1.333 writes (facts §h), built
// with encoding/json so the escaping is the real one.

const sid = "1fc9d747-58cb-4e62-b7f1-a85d62252943"

func ts(sec int) string {
	return time.Date(2026, 11, 29, 16, 0, sec, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
}

func ms(sec int) int64 { return time.Date(2026, 11, 29, 16, 0, sec, 0, time.UTC).UnixMilli() }

func row(v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// conv renders a conversation row with the envelope keys in Claude Code's
// order: parentUuid, isSidechain, type, message first, envelope last.
func conv(typ string, message any, extra string, sec int) string {
	m, _ := json.Marshal(message)
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"promptId":"p1","type":%q,"message":%s%s,"uuid":"u%d","timestamp":%q,"userType":"external","entrypoint":"cli","cwd":"/home/alice/src/demo","sessionId":%q,"version":"2.1.332","gitBranch":"main"}`,
		typ, m, extra, sec, ts(sec), sid)
}

func prompt(text string, sec int) string {
	return conv("user", cchome.Object{"role", "user", "content", text}, "", sec)
}

func reply(text string, sec int) string {
	return conv("assistant", cchome.Object{"id", "msg_1", "type", "message", "role", "assistant", "model", "claude-sonnet-4-6",
		"content", []any{cchome.Object{"type", "text", "text", text}}, "stop_reason", nil}, `,"requestedModel":"sonnet"`, sec)
}

func toolUse(name string, input map[string]any, sec int) string {
	return conv("assistant", map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": name, "input": input}}}, "", sec)
}

func toolUseOrdered(name string, input cchome.Object, sec int) string {
	return conv("assistant", cchome.Object{"id", "msg_2", "type", "message", "role", "assistant", "model", "claude-sonnet-4-6",
		"content", []any{cchome.Object{"type", "tool_use", "id", "toolu_1", "name", name, "input", input}}}, "", sec)
}

func toolResultRow(text string, sec int) string {
	return conv("user", map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": "toolu_1", "type": "tool_result", "content": text}}},
		`,"toolUseResult":{"stdout":`+mustJSON(text)+`}`, sec)
}

func thinking(text string, sec int) string {
	return conv("assistant", map[string]any{"id": "msg_3", "type": "message", "role": "assistant",
		"content": []any{map[string]any{"type": "thinking", "thinking": text, "signature": "sig"}}}, "", sec)
}

func meta(text string, sec int) string {
	return conv("user", map[string]any{"role": "user", "content": text}, `,"isMeta":true`, sec)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func title(typ, key, name string) string {
	return row(map[string]any{"type": typ, key: name, "sessionId": sid})
}

func extractAll(t *testing.T, lines ...string) []Message {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := readFile(jsonl.NewScanner(nil, 0), f, 0, st.Size(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.msgs
}

func TestExtractKeepsWhatAPersonTypedAndRead(t *testing.T) {
	got := extractAll(t,
		row(map[string]any{"type": "permission-mode", "permissionMode": "default", "sessionId": sid}),
		row(map[string]any{"type": "file-history-snapshot", "messageId": "m", "snapshot": map[string]any{"timestamp": ts(0)}}),
		prompt(`say "hi" to C:\temp`+"\nthen naïve café", 1),
		meta("<system-reminder>The user named this session secretmeta</system-reminder>", 2),
		conv("user", map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"data": "aGVsbG8="}},
			map[string]any{"type": "text", "text": "look at this screenshot"}}}, "", 3),
		thinking("secret reasoning about zebras", 4),
		reply("The rounding happens in invoice.go", 5),
		toolUse("Bash", map[string]any{"command": "go test ./billing/...", "description": "Run the billing tests"}, 6),
		toolResultRow("FAIL secretoutput 0.01s", 7),
		toolUse("Edit", map[string]any{"file_path": "/src/billing/invoice.go", "old_string": "secretold", "new_string": "secretnew"}, 8),
		toolUse("Grep", map[string]any{"pattern": "roundHalfEven", "path": "/src", "-n": true}, 9),
		title("custom-title", "customTitle", "Invoice rounding"),
		title("agent-name", "agentName", "Invoice rounding"),
		title("ai-title", "aiTitle", "Fix billing rounding"),
		row(map[string]any{"type": "summary", "summary": "Rounding fix summary", "leafUuid": "u9"}),
		title("custom-title", "customTitle", "Invoice rounding"), // re-appended at the tail: once
		row(map[string]any{"type": "last-prompt", "lastPrompt": "secretlastprompt", "sessionId": sid}),
		conv("user", map[string]any{"role": "user", "content": "compacted secretsummary"}, `,"isCompactSummary":true`, 10),
		`{"parentUuid":"cut off mid-wri`,
	)
	want := []Message{
		{Prompt, ms(1), `say "hi" to C:\temp` + "\nthen naïve café"},
		{Prompt, ms(3), "look at this screenshot"},
		{Reply, ms(5), "The rounding happens in invoice.go"},
		{Tool, ms(6), "go test ./billing/..."},
		{Tool, ms(6), "Run the billing tests"},
		{Tool, ms(8), "/src/billing/invoice.go"},
		{Tool, ms(9), "/src"},
		{Tool, ms(9), "roundHalfEven"},
		{Name, ms(9), "Invoice rounding"},
		{Name, ms(9), "Fix billing rounding"},
		{Name, ms(9), "Rounding fix summary"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	for _, m := range got {
		if strings.Contains(m.Text, "secret") {
			t.Errorf("extracted text that was never typed or read: %q", m.Text)
		}
	}
}

// The fast paths (one string literal read directly) and the full decoder
// agree on every row shape they both accept.
func TestFastPathsAgreeWithTheDecoder(t *testing.T) {
	texts := []string{"plain", `q"uote`, `back\slash`, "new\nline\ttab", "naïve ☃ 𝄞", "\u2028sep", "<b>&amp;</b>", ""}
	for _, s := range texts {
		tools := []string{
			toolUseOrdered("Bash", cchome.Object{"command", s, "description", "d " + s, "timeout", 5, "run_in_background", false}, 1),
			toolUseOrdered("Edit", cchome.Object{"file_path", "/src/" + s, "old_string", s, "new_string", "x" + s, "replace_all", true}, 1),
			toolUseOrdered("Grep", cchome.Object{"pattern", s, "path", "/src", "-n", true, "head_limit", -1, "glob", nil}, 1),
		}
		for _, line := range append([]string{reply(s, 1)}, tools...) {
			var fast, slow extractor
			r, ok := transcript.Classify([]byte(line), rowNeed)
			if !ok || !fast.fastReply(&r) && !fast.fastTool(&r) {
				t.Fatalf("no fast path took %s", line)
			}
			// The slow path: the same row with its keys reordered, so no
			// fast path matches.
			var v map[string]any
			json.Unmarshal([]byte(line), &v)
			slow.line([]byte(row(v)))
			if d := cmp.Diff(slow.out, fast.out); d != "" {
				t.Errorf("%q: fast and full decoding differ (-full +fast):\n%s", s, d)
			}
		}
	}
}

// The build's one-pass tokenizer finds the tokens a query's are looked up
// against: those of the normalized text.
func TestTokensOfMatchesNormalizedTokens(t *testing.T) {
	for _, text := range []string{
		"Fix the INVOICE rounding_mode in v2.1", "naïve CAFÉ ΣΊΣΥΦΟΣ straße K", "a\u00a0b\tc\nd",
		strings.Repeat("x", 700) + " " + strings.Repeat("é", 300), "日本語のテキスト 123", "\xff\xfe broken utf8",
	} {
		got := tokensOf([]Message{{Text: text}}, map[string]struct{}{})
		want := map[string]bool{}
		eachToken(normalize(text), func(s string) { want[s] = true })
		gotSet := map[string]bool{}
		for _, g := range got {
			gotSet[g] = true
		}
		if d := cmp.Diff(want, gotSet); d != "" {
			t.Errorf("%.40q: tokens (-normalized +one-pass):\n%s", text, d)
		}
	}
}

// The listing (transcript.Summary) and search read a row the same way:
// whatever row shape the listing shows as a session's prompt, search finds
// as a prompt, with the same text; rows it does not show, search leaves
// out. Each row is valid JSON.
func TestListingAndSearchAgreeOnRowShapes(t *testing.T) {
	env := `,"uuid":"u1","timestamp":"2026-11-29T16:00:01.000Z","cwd":"/home/alice/src/demo","sessionId":"` + sid + `"`
	cases := []struct {
		name, line string
		prompt     string // what both take as the prompt; "" for none
	}{
		{"Claude Code's order", prompt("plain order", 1), "plain order"},
		{"type as the first key", `{"type":"user","message":{"role":"user","content":"run git push --force please"}` + env + `}`, "run git push --force please"},
		{"spaced separators", `{"parentUuid" : null, "isSidechain" : false, "type" : "user", "message" : {"role" : "user", "content" : "spaced separators"}` + env + `}`, "spaced separators"},
		{"type after 400 bytes", `{"parentUuid":null,"promptId":"` + strings.Repeat("p", 500) + `","type":"user","message":{"role":"user","content":"late type"}` + env + `}`, "late type"},
		{"type after the message", `{"parentUuid":null,"message":{"role":"user","content":"type comes last"}` + env + `,"type":"user"}`, "type comes last"},
		{"escaped strings", `{"type":"us\u0065r","message":{"role":"user","content":"say \"hi\" to C:\\temp"}` + env + `}`, `say "hi" to C:\temp`},
		{"unicode escapes", `{"type":"user","message":{"content":"caf\u00e9 \ud83d\ude00"}` + env + `}`, "café 😀"},
		{"text blocks", `{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","data":"eA=="}},{"type":"text","text":"look at this"}]}` + env + `}`, "look at this"},
		{"nested type user in an assistant row", `{"parentUuid":null,"message":{"role":"user","content":[{"type":"user","text":"not a prompt"}]},"type":"assistant"` + env + `}`, ""},
		{"nested type user in an attachment", `{"attachment":{"type":"user","content":"attached"},"type":"attachment"` + env + `}`, ""},
		{"isMeta after a long message", `{"type":"user","message":{"content":"` + strings.Repeat("reminder ", 100) + `"}` + env + `,"isMeta":true}`, ""},
		{"isMeta spaced", `{"type":"user","isMeta" : true,"message":{"content":"reminder"}` + env + `}`, ""},
		{"isMeta only inside the message", `{"type":"user","message":{"content":"typed","isMeta":true}` + env + `}`, "typed"},
		{"isMeta false", `{"type":"user","isMeta":false,"message":{"content":"typed too"}` + env + `}`, "typed too"},
		{"compact summary late", `{"type":"user","message":{"content":"summary"}` + env + `,"isCompactSummary":true}`, ""},
		{"tool result in the second block", `{"type":"user","message":{"content":[{"type":"text","text":"see"},{"type":"tool_result","tool_use_id":"t","content":"out"}]}` + env + `}`, ""},
		{"a prompt about tool_result", `{"type":"user","message":{"content":"what is a \"type\":\"tool_result\" block"}` + env + `}`, `what is a "type":"tool_result" block`},
		{"repeated type, the first wins", `{"type":"assistant","message":{"content":"first wins"}` + env + `,"type":"user"}`, ""},
		{"repeated message, the first wins", `{"type":"user","message":{"content":[{"type":"tool_result","content":"out"}]}` + env + `,"message":{"content":"second"}}`, ""},
		{"tool result with a long output", `{"type":"user","message":{"content":[{"tool_use_id":"t","type":"tool_result","content":"` + strings.Repeat("out ", 3000) + `"}]},"toolUseResult":{"stdout":"x"}` + env + `}`, ""},
		{"assistant with a string content", `{"type":"assistant","message":{"content":"a reply"}` + env + `}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !json.Valid([]byte(c.line)) {
				t.Fatalf("not valid JSON: %s", c.line)
			}
			p := filepath.Join(t.TempDir(), "t.jsonl")
			os.WriteFile(p, []byte(c.line+"\n"), 0o600)
			sum, err := transcript.Scan(p)
			if err != nil {
				t.Fatal(err)
			}
			var found string
			for _, m := range extractAll(t, c.line) {
				if m.Role == Prompt {
					found = m.Text
				}
			}
			if sum.FirstPrompt != c.prompt || sum.LastHuman != c.prompt {
				t.Errorf("listing's prompt %q (last %q), want %q", sum.FirstPrompt, sum.LastHuman, c.prompt)
			}
			if found != c.prompt {
				t.Errorf("search's prompt %q, want %q", found, c.prompt)
			}
		})
	}
}
