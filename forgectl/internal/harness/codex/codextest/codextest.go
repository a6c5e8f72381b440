// Package codextest builds the lines of Codex CLI rollouts and of the
// files beside them, in the shapes facts/codex.md records (0.171.0
// paginated, 0.142.3 legacy), for tests that write them into a temporary
// CODEX_HOME. It writes no file itself.
package codextest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Meta is a session_meta line.
type Meta struct {
	ID, Cwd, Branch, Version string
	// Originator is "codex-tui" unless set; Source "vscode" unless set
	// (a string, or a map for a subagent).
	Originator   string
	Source       any
	ThreadSource string
	ForkedFrom   string
	ParentThread string // for a subagent: put under source.subagent.thread_spawn
	// BaseThread sets history_base (a rewind's later segment, a fork).
	BaseThread string
	Paginated  bool
	At         time.Time
}

// instructions is the size of base_instructions.text: Codex embeds its
// whole system prompt, which makes the first line about 22 KB.
const instructions = 22 << 10

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func line(at time.Time, ordinal int, typ string, payload any) []byte {
	// Codex writes timestamp, ordinal, type, payload, in that order (a
	// map would be marshalled in key order).
	p, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	var s strings.Builder
	fmt.Fprintf(&s, `{"timestamp":%q,`, stamp(at))
	if ordinal >= 0 {
		fmt.Fprintf(&s, `"ordinal":%d,`, ordinal)
	}
	fmt.Fprintf(&s, `"type":%q,"payload":%s}`, typ, p)
	return []byte(s.String() + "\n")
}

// MetaLine is the session_meta first line.
func MetaLine(m Meta) []byte {
	p := map[string]any{
		"id": m.ID, "session_id": m.ID, "timestamp": stamp(m.At), "cwd": m.Cwd,
		"originator": or(m.Originator, "codex-tui"), "cli_version": or(m.Version, "0.171.0"),
		"base_instructions": map[string]any{"text": strings.Repeat("You are Codex. ", instructions/15)},
	}
	if m.Source != nil {
		p["source"] = m.Source
	} else {
		p["source"] = "vscode"
	}
	if m.ParentThread != "" {
		p["source"] = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": m.ParentThread, "depth": 1}}}
		p["thread_source"] = "subagent"
	}
	if m.ThreadSource != "" {
		p["thread_source"] = m.ThreadSource
	}
	if m.Branch != "" {
		p["git"] = map[string]any{"branch": m.Branch, "commit_hash": "0123456789abcdef"}
	}
	if m.ForkedFrom != "" {
		p["forked_from_id"] = m.ForkedFrom
	}
	if m.BaseThread != "" {
		p["history_base"] = map[string]any{"thread_id": m.BaseThread, "end_ordinal_exclusive": 3, "end_byte_offset": 30000}
	}
	ord := -1
	if m.Paginated {
		p["history_mode"] = "paginated"
		ord = 0
	}
	return line(m.At, ord, "session_meta", p)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// User is a prompt as the paginated format writes it (ordinal >= 0), or
// the legacy format (ordinal < 0). Each comes with the response_item the
// model saw, after an injected environment block.
func User(at time.Time, ordinal int, text string) []byte {
	var b []byte
	b = append(b, ResponseUser(at, ordinal, "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>")...)
	b = append(b, ResponseUser(at, ordinal, text)...)
	if ordinal >= 0 {
		return append(b, line(at, ordinal, "event_msg", map[string]any{"type": "item_completed", "thread_id": "t", "turn_id": "u",
			"item": map[string]any{"type": "UserMessage", "id": "i", "content": []any{map[string]any{"type": "text", "text": text}}}})...)
	}
	return append(b, line(at, ordinal, "event_msg", map[string]any{"type": "user_message", "message": text, "kind": "plain"})...)
}

// Agent is a reply; the paginated format also writes the legacy event.
func Agent(at time.Time, ordinal int, text string) []byte {
	var b []byte
	b = append(b, line(at, ordinal, "response_item", map[string]any{"type": "message", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": text}}})...)
	if ordinal >= 0 {
		b = append(b, line(at, ordinal, "event_msg", map[string]any{"type": "item_completed", "thread_id": "t", "turn_id": "u",
			"item": map[string]any{"type": "AgentMessage", "id": "j", "content": []any{map[string]any{"type": "Text", "text": text}}}})...)
	}
	return append(b, line(at, ordinal, "event_msg", map[string]any{"type": "agent_message", "message": text})...)
}

// ResponseUser is a response_item user message alone: what the model saw.
func ResponseUser(at time.Time, ordinal int, text string) []byte {
	return line(at, ordinal, "response_item", map[string]any{"type": "message", "role": "user",
		"content": []any{map[string]any{"type": "input_text", "text": text}}})
}

// Tool is a shell call with its output, and a reasoning item.
func Tool(at time.Time, ordinal int, command, output, reasoning string) []byte {
	args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", command}, "workdir": "/x"})
	var b []byte
	b = append(b, line(at, ordinal, "response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": reasoning}}})...)
	b = append(b, line(at, ordinal, "response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": "c1"})...)
	return append(b, line(at, ordinal, "response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": output})...)
}

// TurnContext is a turn_context line.
func TurnContext(at time.Time, ordinal int, cwd string) []byte {
	return line(at, ordinal, "turn_context", map[string]any{"cwd": cwd, "model": "gpt-5", "approval_policy": "on-request"})
}

// ThreadNameEvent is the event older builds wrote on a rename.
func ThreadNameEvent(at time.Time, ordinal int, name string) []byte {
	return line(at, ordinal, "event_msg", map[string]any{"type": "thread_name_updated", "thread_name": name})
}

// FileName is a segment's name: rollout-<local time>-<id>.jsonl, with
// "_<extra>" for a rewind's later segment.
func FileName(at time.Time, id, extra string) string {
	n := "rollout-" + at.Format("2006-01-02T15-04-05") + "-" + id
	if extra != "" {
		n += "_" + extra
	}
	return n + ".jsonl"
}

// DayDir is the sessions/ folder a segment of that time goes in.
func DayDir(at time.Time) string { return at.Format("2006/01/02") }

// IndexLine is a session_index.jsonl line.
func IndexLine(id, name string, at time.Time) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "thread_name": name, "updated_at": stamp(at)})
	return append(b, '\n')
}

// HistoryLine is a history.jsonl line.
func HistoryLine(id string, at time.Time, text string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": id, "ts": at.Unix(), "text": text})
	return append(b, '\n')
}

// TokenCount is the event Codex writes after each response: the
// response's usage (input counts the cached part too) and the thread's
// total so far, as 0.171.0 and 0.142.3 write it.
func TokenCount(at time.Time, ordinal int, lastInput, lastCached, lastOutput, totalTokens int) []byte {
	u := func(in, cached, out, total int) map[string]any {
		return map[string]any{"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out, "reasoning_output_tokens": 0, "total_tokens": total}
	}
	return line(at, ordinal, "event_msg", map[string]any{"type": "token_count",
		"info": map[string]any{"total_token_usage": u(totalTokens-lastOutput, 0, lastOutput, totalTokens),
			"last_token_usage": u(lastInput, lastCached, lastOutput, lastInput+lastOutput), "model_context_window": 258400},
		"rate_limits": map[string]any{"limit_id": "codex", "primary": nil}})
}

// TokenCountNull is the token_count event with no usage yet (its info is
// null), as Codex writes before a thread's first response.
func TokenCountNull(at time.Time, ordinal int) []byte {
	return line(at, ordinal, "event_msg", map[string]any{"type": "token_count", "info": nil, "rate_limits": map[string]any{"limit_id": "codex"}})
}
