package fakeapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
	"github.com/google/go-cmp/cmp"
)

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sseEvent struct {
	Event string
	Data  map[string]any
}

func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("data is not JSON: %q", line)
			}
		case line == "":
			if cur.Event != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		}
	}
	return out
}

func TestListensOnLoopbackOnly(t *testing.T) {
	s := start(t, Options{})
	host, _, err := net.SplitHostPort(strings.TrimPrefix(s.URL(), "http://"))
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("URL %q: host %q, %v", s.URL(), host, err)
	}
}

func TestStreamedTextReply(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL()+"/v1/messages?beta=true", `{"model":"claude-test","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"say hi"}]}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := readSSE(t, resp.Body)
	var names []string
	var text strings.Builder
	for _, e := range events {
		names = append(names, e.Event)
		if e.Data["type"] != e.Event {
			t.Errorf("event %s carries type %v", e.Event, e.Data["type"])
		}
		if d, ok := e.Data["delta"].(map[string]any); ok && d["type"] == "text_delta" {
			text.WriteString(d["text"].(string))
		}
	}
	want := []string{"message_start", "ping", "content_block_start"}
	for range 8 {
		want = append(want, "content_block_delta")
	}
	want = append(want, "content_block_stop", "message_delta", "message_stop")
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("event sequence (-want +got):\n%s", diff)
	}
	if got := text.String(); got != "Hello from the fake model. You said: say hi" {
		t.Errorf("text %q", got)
	}
	msg := events[0].Data["message"].(map[string]any)
	if msg["model"] != "claude-test" || msg["role"] != "assistant" {
		t.Errorf("message_start %v", msg)
	}
	if d := events[len(events)-2].Data["delta"].(map[string]any); d["stop_reason"] != "end_turn" {
		t.Errorf("message_delta %v", d)
	}
}

func TestNonStreamedReply(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"plain string prompt"}]}`)
	var m message
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "message" || m.StopReason != "end_turn" || len(m.Content) != 1 || m.Content[0].Text != "Hello from the fake model. You said: plain string prompt" {
		t.Errorf("reply %+v", m)
	}
}

func TestCountTokensAndCatchAll(t *testing.T) {
	s := start(t, Options{})
	var ct map[string]int
	json.NewDecoder(post(t, s.URL()+"/v1/messages/count_tokens", `{"messages":[{"role":"user","content":"abcd"}]}`).Body).Decode(&ct)
	if ct["input_tokens"] <= 0 {
		t.Errorf("count_tokens %v", ct)
	}
	resp, err := http.Get(s.URL() + "/api/anything")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "{}" {
		t.Errorf("catch-all: %d %q", resp.StatusCode, b)
	}
}

// conv builds a request from (role, blocks JSON) pairs.
func conv(tools []string, turns ...string) Request {
	var r Request
	for _, n := range tools {
		r.Tools = append(r.Tools, Tool{Name: n})
	}
	for i := 0; i < len(turns); i += 2 {
		r.Messages = append(r.Messages, Message{Role: turns[i], Content: json.RawMessage(turns[i+1])})
	}
	return r
}

func TestTaskScript(t *testing.T) {
	offered := []string{"Bash", "ToolSearch", "TaskCreate", "TaskUpdate"}
	prompt := `[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"tasks: Write tests; Fix bug"}]`
	use := func(id, name string) string {
		return `[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{}}]`
	}
	result := func(id, text string) string {
		return `[{"type":"tool_result","tool_use_id":"` + id + `","content":"` + text + `"},{"type":"text","text":"Tool loaded."}]`
	}
	type step struct{ Tool, Input, Text string }
	summary := func(a Answer) step {
		b := a.Blocks[0]
		return step{b.Name, string(b.Input), b.Text}
	}
	cases := []struct {
		name string
		req  Request
		want step
	}{
		{"load the tools first", conv([]string{"Bash", "ToolSearch"}, "user", prompt),
			step{Tool: "ToolSearch", Input: `{"max_results":5,"query":"select:TaskCreate,TaskUpdate"}`}},
		{"first task", conv(offered, "user", prompt, "assistant", use("a", "ToolSearch"), "user", result("a", "loaded")),
			step{Tool: "TaskCreate", Input: `{"activeForm":"Working on write tests","description":"Fake model task: Write tests","subject":"Write tests"}`}},
		{"second task", conv(offered, "user", prompt, "assistant", use("a", "ToolSearch"), "user", result("a", "loaded"),
			"assistant", use("b", "TaskCreate"), "user", result("b", "Task #7 created successfully: Write tests")),
			step{Tool: "TaskCreate", Input: `{"activeForm":"Working on fix bug","description":"Fake model task: Fix bug","subject":"Fix bug"}`}},
		{"start the first, by the id the CLI gave", conv(offered, "user", prompt, "assistant", use("a", "ToolSearch"), "user", result("a", "loaded"),
			"assistant", use("b", "TaskCreate"), "user", result("b", "Task #7 created successfully: Write tests"),
			"assistant", use("c", "TaskCreate"), "user", result("c", "Task #8 created successfully: Fix bug")),
			step{Tool: "TaskUpdate", Input: `{"status":"in_progress","taskId":"7"}`}},
		{"done", conv(offered, "user", prompt, "assistant", use("a", "ToolSearch"), "user", result("a", "loaded"),
			"assistant", use("b", "TaskCreate"), "user", result("b", "Task #7 created"),
			"assistant", use("c", "TaskCreate"), "user", result("c", "Task #8 created"),
			"assistant", use("d", "TaskUpdate"), "user", result("d", "Updated task #7 status")),
			step{Text: "Created 2 tasks and started the first."}},
		{"no task tools offered", conv([]string{"Bash"}, "user", prompt),
			step{Text: "The task tools are not available here."}},
		{"a later plain prompt ends the script", conv(offered, "user", prompt, "assistant", `[{"type":"text","text":"ok"}]`,
			"user", `[{"type":"text","text":"<command-name>/rename</command-name>"},{"type":"text","text":"next please"}]`),
			step{Text: "Hello from the fake model. You said: next please"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, summary(Reply(c.req))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamedToolUse(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL()+"/v1/messages", `{"model":"m","stream":true,"tools":[{"name":"ToolSearch"}],"messages":[{"role":"user","content":"tasks: A"}]}`)
	var partial strings.Builder
	var block map[string]any
	var stop any
	for _, e := range readSSE(t, resp.Body) {
		switch e.Event {
		case "content_block_start":
			block = e.Data["content_block"].(map[string]any)
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			if d["type"] != "input_json_delta" {
				t.Errorf("delta %v", d)
			}
			partial.WriteString(d["partial_json"].(string))
		case "message_delta":
			stop = e.Data["delta"].(map[string]any)["stop_reason"]
		}
	}
	if block["type"] != "tool_use" || block["name"] != "ToolSearch" || !strings.HasPrefix(block["id"].(string), "toolu_") {
		t.Errorf("block %v", block)
	}
	if !json.Valid([]byte(partial.String())) || stop != "tool_use" {
		t.Errorf("input %q, stop %v", partial.String(), stop)
	}
}

func TestSlowReplyTakesItsTime(t *testing.T) {
	s := start(t, Options{Slow: 400 * time.Millisecond})
	began := time.Now()
	resp := post(t, s.URL()+"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"be slow"}]}`)
	io.ReadAll(resp.Body)
	// A lower bound only: the reply must not arrive before its pacing.
	if time.Since(began) < 400*time.Millisecond {
		t.Errorf("slow reply came in %v", time.Since(began))
	}
}

func TestRecordsRequestsAndStopsAtTheCap(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "req.jsonl")
	s := start(t, Options{Record: rec, MaxRequests: 2})
	post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"one"}]}`)
	post(t, s.URL()+"/v1/x", `not json`)
	if resp := post(t, s.URL()+"/v1/messages", `{}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("third request over a cap of 2: %d", resp.StatusCode)
	}
	select {
	case <-s.Done():
	case <-time.After(poll.Long):
		t.Fatal("the server did not stop at its cap")
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var got []recordLine
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r recordLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("record line %q: %v", l, err)
		}
		r.Time = ""
		got = append(got, r)
	}
	want := []recordLine{
		{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"one"}]}`)},
		{Method: "POST", Path: "/v1/x", Text: "not json"},
		{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{}`)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

func TestLifetimeStopsTheServer(t *testing.T) {
	s := start(t, Options{Lifetime: 50 * time.Millisecond})
	select {
	case <-s.Done():
	case <-time.After(poll.Long):
		t.Fatal("the server outlived its lifetime")
	}
	if _, err := http.Get(s.URL() + "/"); err == nil {
		t.Error("still serving after its lifetime")
	}
}
