package cchome

import (
	"encoding/json"
	"fmt"
	"time"
)

// Rows of one transcript in the shapes Claude Code 2.1.332 and 2.1.333
// write (facts/claude-code.md §h), built with encoding/json so that the
// escaping is the real one, for tests of what is read from them. sec is
// seconds past a fixed instant: the row's timestamp.

// RowSession is the session id the rows carry.
const RowSession = "1fc9d747-58cb-4e62-b7f1-a85d62252943"

func rowInstant(sec int) time.Time { return time.Date(2026, 11, 29, 16, 0, sec, 0, time.UTC) }

// RowTime is the timestamp of a row at sec, as the row writes it.
func RowTime(sec int) string { return rowInstant(sec).Format("2006-01-02T15:04:05.000Z") }

// RowMs is that instant in Unix milliseconds.
func RowMs(sec int) int64 { return rowInstant(sec).UnixMilli() }

// JSONRow is v as one compact JSON line.
func JSONRow(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ConvRow is a conversation row with the envelope keys in Claude Code's
// order: parentUuid, isSidechain, type, message first, the envelope last;
// extra is more keys (",\"k\":v") after the message.
func ConvRow(typ string, message any, extra string, sec int) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"promptId":"p1","type":%q,"message":%s%s,"uuid":"u%d","timestamp":%q,"userType":"external","entrypoint":"cli","cwd":"/home/alice/src/demo","sessionId":%q,"version":"2.1.332","gitBranch":"main"}`,
		typ, JSONRow(message), extra, sec, RowTime(sec), RowSession)
}

// PromptRow is what a person typed.
func PromptRow(text string, sec int) string {
	return ConvRow("user", Object{"role", "user", "content", text}, "", sec)
}

// ReplyRow is an assistant text reply.
func ReplyRow(text string, sec int) string {
	return ConvRow("assistant", Object{"id", "msg_1", "type", "message", "role", "assistant", "model", "claude-sonnet-4-6",
		"content", []any{Object{"type", "text", "text", text}}, "stop_reason", nil}, `,"requestedModel":"sonnet"`, sec)
}

// ToolUseRow is a tool call, its message's keys in encoding/json's order.
func ToolUseRow(name string, input map[string]any, sec int) string {
	return ConvRow("assistant", map[string]any{"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": name, "input": input}}}, "", sec)
}

// ToolUseOrderedRow is a tool call with its keys in Claude Code's order.
func ToolUseOrderedRow(name string, input Object, sec int) string {
	return ConvRow("assistant", Object{"id", "msg_2", "type", "message", "role", "assistant", "model", "claude-sonnet-4-6",
		"content", []any{Object{"type", "tool_use", "id", "toolu_1", "name", name, "input", input}}}, "", sec)
}

// ToolResultRow is a tool's output, as the user row that carries it.
func ToolResultRow(text string, sec int) string {
	return ConvRow("user", map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": "toolu_1", "type": "tool_result", "content": text}}},
		`,"toolUseResult":{"stdout":`+JSONRow(text)+`}`, sec)
}

// ThinkingRow is an assistant's thinking block.
func ThinkingRow(text string, sec int) string {
	return ConvRow("assistant", map[string]any{"id": "msg_3", "type": "message", "role": "assistant",
		"content": []any{map[string]any{"type": "thinking", "thinking": text, "signature": "sig"}}}, "", sec)
}

// MetaRow is a user row Claude Code injects (a system reminder).
func MetaRow(text string, sec int) string {
	return ConvRow("user", map[string]any{"role": "user", "content": text}, `,"isMeta":true`, sec)
}

// TitleRow is a name row: typ custom-title, agent-name, ai-title or
// summary, with the name under key.
func TitleRow(typ, key, name string) string {
	return JSONRow(map[string]any{"type": typ, key: name, "sessionId": RowSession})
}
