package fakeapi

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A turn as Codex sends it: its own context as user messages starting with
// a tag or the AGENTS.md header, then the typed prompt.
const codexTurn = `{"model":"gpt-test","stream":true,"instructions":"You are Codex.","input":[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>x</permissions instructions>"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /r\n\nbe nice"},{"type":"input_text","text":"<environment_context>\n<cwd>/r</cwd>\n</environment_context>"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"fix the login bug"}]},
 {"type":"reasoning","summary":[]}
]}`

func TestResponsesStreamedTextReply(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL()+"/v1/responses", codexTurn)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := readSSE(t, resp.Body)
	var names []string
	var text strings.Builder
	for i, e := range events {
		names = append(names, e.Event)
		if e.Data["type"] != e.Event {
			t.Errorf("event %s carries type %v", e.Event, e.Data["type"])
		}
		if n, _ := e.Data["sequence_number"].(float64); int(n) != i {
			t.Errorf("event %d has sequence_number %v", i, e.Data["sequence_number"])
		}
		if e.Event == "response.output_text.delta" {
			text.WriteString(e.Data["delta"].(string))
		}
	}
	want := []string{"response.created", "response.output_item.added"}
	for range 8 {
		want = append(want, "response.output_text.delta")
	}
	want = append(want, "response.output_item.done", "response.completed")
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("event sequence (-want +got):\n%s", diff)
	}
	const reply = "Hello from the fake model. You said: fix the login bug"
	if got := text.String(); got != reply {
		t.Errorf("deltas %q", got)
	}
	added := events[1].Data["item"].(map[string]any)
	done := events[len(events)-2].Data["item"].(map[string]any)
	if added["type"] != "message" || added["role"] != "assistant" || done["id"] != added["id"] {
		t.Errorf("added %v, done %v", added, done)
	}
	content := done["content"].([]any)[0].(map[string]any)
	if content["type"] != "output_text" || content["text"] != reply {
		t.Errorf("done content %v", content)
	}
	completed := events[len(events)-1].Data["response"].(map[string]any)
	usage, _ := completed["usage"].(map[string]any)
	if completed["status"] != "completed" || completed["model"] != "gpt-test" || usage["output_tokens"] == nil || usage["total_tokens"] == nil {
		t.Errorf("completed %v", completed)
	}
	if created := events[0].Data["response"].(map[string]any); created["id"] != completed["id"] {
		t.Errorf("created %v, completed %v: ids differ", created["id"], completed["id"])
	}
}

func TestResponsesTitleCallGetsJSON(t *testing.T) {
	s := start(t, Options{})
	// The TUI's title call asks for a JSON schema {title: string}; the
	// prompt follows "User prompt:" in an instruction (0.171.0).
	body := `{"model":"gpt-test","stream":true,"text":{"format":{"type":"json_schema","name":"thread_title","strict":true,
	 "schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}},
	 "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Generate a concise, single-line task title. Do not answer the request.\n\nUser prompt:\nfix the login bug now please"}]}]}`
	var text strings.Builder
	for _, e := range readSSE(t, post(t, s.URL()+"/v1/responses", body).Body) {
		if e.Event == "response.output_text.delta" {
			text.WriteString(e.Data["delta"].(string))
		}
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(text.String()), &got); err != nil {
		t.Fatalf("title reply %q is not JSON: %v", text.String(), err)
	}
	if diff := cmp.Diff(map[string]string{"title": "Title fix the login bug"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestResponsesPromptSkipsInjectedBlocks(t *testing.T) {
	cases := []struct {
		body, want string
	}{
		{codexTurn, "Hello from the fake model. You said: fix the login bug"},
		// Only injected context: no prompt.
		{`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context/>"}]}]}`, "Hello from the fake model."},
		// A string content and a later assistant message.
		{`{"input":[{"role":"user","content":"internationalization-and-localization-work on it"}],"text":{"format":{"type":"json_schema","schema":{"properties":{"title":{}}}}}}`,
			`{"title":"Title internationalization-and-local"}`},
		{`{"input":[{"role":"user","content":"first"},{"role":"assistant","content":[{"type":"output_text","text":"ok"}]},{"role":"user","content":"second one"}]}`,
			"Hello from the fake model. You said: second one"},
	}
	for _, c := range cases {
		var req ResponsesRequest
		if err := json.Unmarshal([]byte(c.body), &req); err != nil {
			t.Fatal(err)
		}
		if got, slow := ResponsesReply(req); got != c.want || slow {
			t.Errorf("reply %q (slow %v), want %q", got, slow, c.want)
		}
	}
}

func TestResponsesNonStreamedAndBadBody(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL()+"/v1/responses", strings.Replace(codexTurn, `"stream":true`, `"stream":false`, 1))
	var r struct {
		Status string `json:"status"`
		Output []struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"output"`
		Usage map[string]any `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "completed" || len(r.Output) != 1 || r.Output[0].Content[0].Text != "Hello from the fake model. You said: fix the login bug" || r.Usage == nil {
		t.Errorf("response %+v", r)
	}
	bad := post(t, s.URL()+"/v1/responses", "not json")
	b, _ := io.ReadAll(bad.Body)
	if bad.StatusCode != 400 || !strings.Contains(string(b), "not JSON") {
		t.Errorf("bad body: %d %s", bad.StatusCode, b)
	}
}

func TestResponsesSlowReplyTakesItsTime(t *testing.T) {
	s := start(t, Options{Slow: 300 * time.Millisecond})
	begin := time.Now()
	events := readSSE(t, post(t, s.URL()+"/v1/responses", `{"stream":true,"input":[{"role":"user","content":"be slow"}]}`).Body)
	// A lower bound only: the deltas are paced by sleeps that add up to Slow.
	if d := time.Since(begin); d < 300*time.Millisecond {
		t.Errorf("slow reply took %v", d)
	}
	if len(events) == 0 || events[len(events)-1].Event != "response.completed" {
		t.Errorf("events %v", events)
	}
}
