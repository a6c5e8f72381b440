package fakeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// ResponsesRequest is the part of an OpenAI Responses API request (what the
// Codex CLI sends to POST /v1/responses) the scripts look at.
type ResponsesRequest struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Input  []ResponsesItem `json:"input"`
	Text   struct {
		Format struct {
			Type   string `json:"type"`
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

// ResponsesItem is one input item: a message (content is a string or
// input_text/output_text parts) or something else (a function call, a
// reasoning item) that the scripts skip.
type ResponsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func (it ResponsesItem) texts() []string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(it.Content, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return out
}

// ResponsesReply decides the text of the answer from the request alone:
// for a request whose text.format is a JSON schema (the TUI's title call,
// /rename's suggestion), a JSON object giving every property of the schema
// a title made from the prompt; for anything else the same text Reply
// would give the prompt. slow is true for a prompt containing "slow".
func ResponsesReply(req ResponsesRequest) (text string, slow bool) {
	prompt := responsesPrompt(req.Input)
	if req.Text.Format.Type == "json_schema" {
		keys := make([]string, 0, len(req.Text.Format.Schema.Properties))
		for k := range req.Text.Format.Schema.Properties {
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			keys = []string{"title"}
		}
		sort.Strings(keys)
		obj := map[string]string{}
		for _, k := range keys {
			obj[k] = TitleFor(prompt)
		}
		b, _ := json.Marshal(obj)
		return string(b), false
	}
	if prompt == "" {
		return "Hello from the fake model.", false
	}
	if strings.Contains(strings.ToLower(prompt), "slow") {
		return "This reply was slow on purpose; the fake model took its time.", true
	}
	return "Hello from the fake model. You said: " + oneLine(prompt, 80), false
}

// TitleFor is the title the stand-in gives a thread whose first prompt is
// prompt: "Title " and its first four words, at most 36 characters (the
// schema's maxLength in 0.171.0), so a test can predict it.
func TitleFor(prompt string) string {
	w := strings.Fields(prompt)
	if len(w) > 4 {
		w = w[:4]
	}
	if len(w) == 0 {
		return "Untitled thread"
	}
	t := []rune("Title " + strings.Join(w, " "))
	if len(t) > 36 {
		t = t[:36]
	}
	return strings.TrimSpace(string(t))
}

// responsesPrompt is the newest user text a person typed: Codex sends its
// own context as user messages too (<environment_context>, the AGENTS.md
// and skills blocks), each starting with a tag or "# AGENTS.md". The title
// call (0.171.0) wraps the prompt in an instruction ending "User prompt:\n
// <prompt>": the part after that marker is the prompt then.
func responsesPrompt(items []ResponsesItem) string {
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.Role != "user" || (it.Type != "" && it.Type != "message") {
			continue
		}
		texts := it.texts()
		for j := len(texts) - 1; j >= 0; j-- {
			t := strings.TrimSpace(texts[j])
			if t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md") {
				continue
			}
			if k := strings.LastIndex(t, "User prompt:\n"); k >= 0 {
				t = strings.TrimSpace(t[k+len("User prompt:\n"):])
			}
			return t
		}
	}
	return ""
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req ResponsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"body is not JSON"}}`)
		return
	}
	text, slow := ResponsesReply(req)
	model := req.Model
	if model == "" {
		model = "gpt-fake"
	}
	respID, itemID := s.nextID("resp"), s.nextID("msg")
	in, out := estimateTokens(len(body)), len(text)/4+1
	done := map[string]any{
		"id": itemID, "type": "message", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
	}
	response := func(status string, output []any) map[string]any {
		m := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "status": status, "model": model, "output": output}
		if status == "completed" {
			m["usage"] = map[string]any{
				"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
				"total_tokens": in + out,
			}
		}
		return m
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(response("completed", []any{done}))
		return
	}
	var pace time.Duration
	if slow {
		pace = s.opts.Slow
	}
	streamResponse(r.Context(), w, respID, itemID, text, pace, response, done)
}

// streamResponse writes the Responses API's SSE frames for one assistant
// message: response.created, response.output_item.added, the
// response.output_text.delta frames (spread over pace), then
// response.output_item.done and response.completed with usage.
func streamResponse(ctx context.Context, w http.ResponseWriter, respID, itemID, text string, pace time.Duration, response func(string, []any) map[string]any, done map[string]any) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("x-request-id", "req_"+respID)
	w.WriteHeader(http.StatusOK)
	seq := 0
	send := func(event string, data map[string]any) bool {
		data["type"] = event
		data["sequence_number"] = seq
		seq++
		b, err := json.Marshal(data)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		return ctx.Err() == nil
	}
	if !send("response.created", map[string]any{"response": response("in_progress", []any{})}) {
		return
	}
	added := map[string]any{"id": itemID, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}
	if !send("response.output_item.added", map[string]any{"output_index": 0, "item": added}) {
		return
	}
	parts := chunks(text, 8)
	for _, part := range parts {
		if pace > 0 && !sleep(ctx, pace/time.Duration(len(parts))) {
			return
		}
		if !send("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": part}) {
			return
		}
	}
	if !send("response.output_item.done", map[string]any{"output_index": 0, "item": done}) {
		return
	}
	send("response.completed", map[string]any{"response": response("completed", []any{done})})
}
