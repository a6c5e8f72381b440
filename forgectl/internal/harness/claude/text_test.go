package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"

	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/transcript"
	"github.com/google/go-cmp/cmp"
)

func extractAll(t *testing.T, lines ...string) []harness.Message {
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
	r, err := New(paths.Claude{}, snapstore.Store{}).Text(jsonl.NewScanner(nil, 0), f, 0, st.Size(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.Msgs
}

func TestExtractKeepsWhatAPersonTypedAndRead(t *testing.T) {
	got := extractAll(t,
		cchome.JSONRow(map[string]any{"type": "permission-mode", "permissionMode": "default", "sessionId": cchome.RowSession}),
		cchome.JSONRow(map[string]any{"type": "file-history-snapshot", "messageId": "m", "snapshot": map[string]any{"timestamp": cchome.RowTime(0)}}),
		cchome.PromptRow(`say "hi" to C:\temp`+"\nthen naïve café", 1),
		cchome.MetaRow("<system-reminder>The user named this session secretmeta</system-reminder>", 2),
		cchome.ConvRow("user", map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"data": "aGVsbG8="}},
			map[string]any{"type": "text", "text": "look at this screenshot"}}}, "", 3),
		cchome.ThinkingRow("secret reasoning about zebras", 4),
		cchome.ReplyRow("The rounding happens in invoice.go", 5),
		cchome.ToolUseRow("Bash", map[string]any{"command": "go test ./billing/...", "description": "Run the billing tests"}, 6),
		cchome.ToolResultRow("FAIL secretoutput 0.01s", 7),
		cchome.ToolUseRow("Edit", map[string]any{"file_path": "/src/billing/invoice.go", "old_string": "secretold", "new_string": "secretnew"}, 8),
		cchome.ToolUseRow("Grep", map[string]any{"pattern": "roundHalfEven", "path": "/src", "-n": true}, 9),
		cchome.TitleRow("custom-title", "customTitle", "Invoice rounding"),
		cchome.TitleRow("agent-name", "agentName", "Invoice rounding"),
		cchome.TitleRow("ai-title", "aiTitle", "Fix billing rounding"),
		cchome.JSONRow(map[string]any{"type": "summary", "summary": "Rounding fix summary", "leafUuid": "u9"}),
		cchome.TitleRow("custom-title", "customTitle", "Invoice rounding"), // re-appended at the tail: once
		cchome.JSONRow(map[string]any{"type": "last-prompt", "lastPrompt": "secretlastprompt", "sessionId": cchome.RowSession}),
		cchome.ConvRow("user", map[string]any{"role": "user", "content": "compacted secretsummary"}, `,"isCompactSummary":true`, 10),
		`{"parentUuid":"cut off mid-wri`,
	)
	want := []harness.Message{
		{Role: harness.Prompt, At: cchome.RowMs(1), Text: `say "hi" to C:\temp` + "\nthen naïve café"},
		{Role: harness.Prompt, At: cchome.RowMs(3), Text: "look at this screenshot"},
		{Role: harness.Reply, At: cchome.RowMs(5), Text: "The rounding happens in invoice.go"},
		{Role: harness.Tool, At: cchome.RowMs(6), Text: "go test ./billing/..."},
		{Role: harness.Tool, At: cchome.RowMs(6), Text: "Run the billing tests"},
		{Role: harness.Tool, At: cchome.RowMs(8), Text: "/src/billing/invoice.go"},
		{Role: harness.Tool, At: cchome.RowMs(9), Text: "/src"},
		{Role: harness.Tool, At: cchome.RowMs(9), Text: "roundHalfEven"},
		{Role: harness.Name, At: cchome.RowMs(9), Text: "Invoice rounding"},
		{Role: harness.Name, At: cchome.RowMs(9), Text: "Fix billing rounding"},
		{Role: harness.Name, At: cchome.RowMs(9), Text: "Rounding fix summary"},
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
			cchome.ToolUseOrderedRow("Bash", cchome.Object{"command", s, "description", "d " + s, "timeout", 5, "run_in_background", false}, 1),
			cchome.ToolUseOrderedRow("Edit", cchome.Object{"file_path", "/src/" + s, "old_string", s, "new_string", "x" + s, "replace_all", true}, 1),
			cchome.ToolUseOrderedRow("Grep", cchome.Object{"pattern", s, "path", "/src", "-n", true, "head_limit", -1, "glob", nil}, 1),
		}
		for _, line := range append([]string{cchome.ReplyRow(s, 1)}, tools...) {
			var fast, slow extractor
			r, ok := transcript.Classify([]byte(line), rowNeed)
			if !ok || !fast.fastReply(&r) && !fast.fastTool(&r) {
				t.Fatalf("no fast path took %s", line)
			}
			// The slow path: the same row with its keys reordered, so no
			// fast path matches.
			var v map[string]any
			json.Unmarshal([]byte(line), &v)
			slow.line([]byte(cchome.JSONRow(v)))
			if d := cmp.Diff(slow.out, fast.out); d != "" {
				t.Errorf("%q: fast and full decoding differ (-full +fast):\n%s", s, d)
			}
		}
	}
}

// The listing (transcript.Summary) and search read a row the same way:
// whatever row shape the listing shows as a session's prompt, search finds
// as a prompt, with the same text; rows it does not show, search leaves
// out. Each row is valid JSON.
func TestListingAndSearchAgreeOnRowShapes(t *testing.T) {
	env := `,"uuid":"u1","timestamp":"2026-11-29T16:00:01.000Z","cwd":"/home/alice/src/demo","sessionId":"` + cchome.RowSession + `"`
	cases := []struct {
		name, line string
		prompt     string // what both take as the prompt; "" for none
	}{
		{"Claude Code's order", cchome.PromptRow("plain order", 1), "plain order"},
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
				if m.Role == harness.Prompt {
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
