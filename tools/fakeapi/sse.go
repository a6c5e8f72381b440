package fakeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []Block `json:"content"`
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

// stream writes msg as the Messages API streams it. With pace > 0 the text
// deltas are spread over that long, so the client stays mid-reply.
func stream(ctx context.Context, w http.ResponseWriter, msg message, pace time.Duration) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("request-id", "req_"+msg.ID)
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send := func(event string, data any) bool {
		b, err := json.Marshal(data)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		flush()
		return ctx.Err() == nil
	}

	startJSON := map[string]any{
		"id": msg.ID, "type": "message", "role": "assistant", "model": msg.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": usage{InputTokens: msg.Usage.InputTokens, OutputTokens: 1},
	}
	if !send("message_start", map[string]any{"type": "message_start", "message": startJSON}) {
		return
	}
	if !send("ping", map[string]any{"type": "ping"}) {
		return
	}
	for i, b := range msg.Content {
		switch b.Type {
		case "tool_use":
			cb := map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
			if !send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": cb}) {
				return
			}
			for _, part := range chunks(string(b.Input), 3) {
				d := map[string]any{"type": "input_json_delta", "partial_json": part}
				if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}) {
					return
				}
			}
		default:
			cb := map[string]any{"type": "text", "text": ""}
			if !send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": cb}) {
				return
			}
			parts := chunks(b.Text, 8)
			for _, part := range parts {
				if pace > 0 && !sleep(ctx, pace/time.Duration(len(parts))) {
					return
				}
				d := map[string]any{"type": "text_delta", "text": part}
				if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}) {
					return
				}
			}
		}
		if !send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}) {
			return
		}
	}
	if !send("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": msg.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": msg.Usage.OutputTokens},
	}) {
		return
	}
	send("message_stop", map[string]any{"type": "message_stop"})
}

// chunks cuts s into about n pieces on rune boundaries.
func chunks(s string, n int) []string {
	r := []rune(s)
	if len(r) == 0 {
		return []string{""}
	}
	size := (len(r) + n - 1) / n
	var out []string
	for len(r) > 0 {
		k := min(size, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
