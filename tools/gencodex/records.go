package gencodex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// writer builds one rollout file: its lines, ordinals and clock.
type writer struct {
	t         *Thread
	r         *rand.Rand
	g         *gen
	buf       bytes.Buffer
	at        time.Time // the clock, moved on by each line
	lastAt    time.Time
	ordinal   int
	paginated bool
	typed     []string // prompts typed into this file, in order
	prompts   []string
	history   []historyLine
	// usedIn and usedOut are the file's token totals so far, as
	// total_token_usage carries them.
	usedIn, usedOut int
}

type historyLine struct {
	at   time.Time
	text string
}

type historyBase struct {
	ThreadID   string
	EndOrdinal int64
	EndByte    int64
}

type metaOpts struct {
	kind    string
	parent  *Thread
	segment bool // a later segment of the thread (a rewind)
	base    *historyBase
}

// ordered is a JSON object that keeps its keys in the order given, as
// Codex writes them.
type ordered []any

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(o[i])
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// line appends one record a few milliseconds after the previous one.
func (w *writer) line(typ string, payload any) {
	w.at = w.at.Add(time.Duration(1+w.r.IntN(40)) * time.Millisecond)
	ts := w.at.UTC().Format("2006-01-02T15:04:05.000Z")
	var rec ordered
	if w.paginated {
		rec = ordered{"timestamp", ts, "ordinal", w.ordinal, "type", typ, "payload", payload}
	} else {
		rec = ordered{"timestamp", ts, "type", typ, "payload", payload}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		panic(err) // only our own values are marshalled
	}
	w.buf.Write(b)
	w.buf.WriteByte('\n')
	w.ordinal++
	w.lastAt = w.at
}

// meta writes the session_meta line, about 22 KB with its system prompt.
func (w *writer) meta(o metaOpts) {
	t := w.t
	sessionID := t.ID
	originator, source, threadSource := "codex-tui", any("vscode"), "user"
	switch o.kind {
	case KindExec:
		originator, source = "codex_exec", "exec"
	case KindSubagent:
		// session_id names the root thread; the parent is inside source.
		sessionID = o.parent.ID
		source = ordered{"subagent", ordered{"thread_spawn", ordered{"parent_thread_id", o.parent.ID, "depth", 1, "agent_nickname", nicknames[w.r.IntN(len(nicknames))], "agent_role", "explorer"}}}
		threadSource = "subagent"
	case KindLegacy, KindLegacyFork:
		source = "cli"
	}
	created := w.at
	p := ordered{}
	if w.paginated {
		p = append(p, "account_scoped", true)
	}
	p = append(p, "session_id", sessionID, "id", t.ID)
	if o.kind == KindFork || o.kind == KindLegacyFork {
		p = append(p, "forked_from_id", o.parent.ID)
	}
	p = append(p, "timestamp", created.UTC().Format("2006-01-02T15:04:05.000Z"), "cwd", t.Cwd)
	if w.paginated {
		p = append(p, "runtime_workspace_roots", []string{t.Cwd})
	}
	p = append(p, "originator", originator, "cli_version", t.CliVersion, "source", source, "thread_source", threadSource,
		"model_provider", "openai", "base_instructions", ordered{"text", systemPrompt})
	if o.kind == KindFork {
		// A paginated fork copies nothing: it points into its parent.
		parentFile := w.g.files[o.parent.ID]
		p = append(p, "history_base", ordered{"thread_id", o.parent.ID, "end_ordinal_exclusive", lineCount(parentFile), "end_byte_offset", len(parentFile)})
	}
	if o.base != nil {
		p = append(p, "history_base", ordered{"thread_id", o.base.ThreadID, "end_ordinal_exclusive", o.base.EndOrdinal, "end_byte_offset", o.base.EndByte})
	}
	if w.paginated {
		p = append(p, "history_mode", "paginated")
		if o.segment {
			p = append(p, "multi_agent_version", "v1")
		}
		p = append(p, "context_window", ordered{"window_id", uuid7(created, w.r)})
	}
	p = append(p, "git", ordered{"commit_hash", hexString(w.r, 40), "branch", t.Branch})
	w.line("session_meta", p)
}

// turn writes one prompt and its answer; first adds the injected context
// blocks a thread's first turn carries.
func (w *writer) turn(first bool) {
	t := w.t
	w.at = w.at.Add(time.Duration(20+w.r.IntN(900)) * time.Second)
	turnID := uuid7(w.at, w.r)
	prompt := promptText(w.r)
	w.typed = append(w.typed, prompt)
	w.history = append(w.history, historyLine{w.at, prompt})
	w.line("event_msg", ordered{"type", "task_started", "turn_id", turnID, "started_at", w.at.Unix(), "model_context_window", 258400})
	if first {
		w.line("response_item", ordered{"type", "message", "role", "developer", "content", []any{ordered{"type", "input_text", "text", "<permissions instructions>\nFilesystem sandboxing: workspace-write. Network access is restricted.\n</permissions instructions>"}}})
		w.line("response_item", ordered{"type", "message", "role", "user", "content", []any{
			ordered{"type", "input_text", "text", "# AGENTS.md instructions for " + t.Cwd + "\n\n<INSTRUCTIONS>\nRun the tests before you commit.\n</INSTRUCTIONS>"},
			ordered{"type", "input_text", "text", "<environment_context>\n  <cwd>" + t.Cwd + "</cwd>\n  <shell>bash</shell>\n  <current_date>" + w.at.Format("2006-01-02") + "</current_date>\n</environment_context>"},
		}})
	}
	w.line("turn_context", ordered{"turn_id", turnID, "cwd", t.Cwd, "approval_policy", "on-request", "sandbox_policy", ordered{"type", "workspace-write"}, "model", "gpt-5.5", "summary", "auto"})
	w.line("response_item", ordered{"type", "message", "role", "user", "content", []any{ordered{"type", "input_text", "text", prompt}}})
	if w.paginated {
		w.line("event_msg", ordered{"type", "item_completed", "thread_id", t.ID, "turn_id", turnID, "item", ordered{"type", "UserMessage", "id", uuid7(w.at, w.r), "content", []any{ordered{"type", "text", "text", prompt, "text_elements", []any{}}}}})
	} else {
		w.line("event_msg", ordered{"type", "user_message", "message", prompt, "images", []any{}, "local_images", []any{}, "text_elements", []any{}})
	}
	// Reasoning and tool calls: never prompts, and not searchable as replies.
	for k := w.r.IntN(3); k > 0; k-- {
		call := "call_" + hexString(w.r, 24)
		w.line("response_item", ordered{"type", "reasoning", "summary", []any{ordered{"type", "summary_text", "text", "**Inspecting the code** I should look at " + words(w.r, 6) + "."}}, "encrypted_content", "gAAAA" + hexString(w.r, 120)})
		args, _ := json.Marshal(ordered{"cmd", commands[w.r.IntN(len(commands))], "workdir", t.Cwd})
		w.line("response_item", ordered{"type", "function_call", "name", "exec_command", "arguments", string(args), "call_id", call})
		w.line("response_item", ordered{"type", "function_call_output", "call_id", call, "output", toolOutput(w.r)})
	}
	reply := replyText(w.r, prompt)
	w.at = w.at.Add(time.Duration(2+w.r.IntN(60)) * time.Second)
	if w.paginated {
		w.line("event_msg", ordered{"type", "item_completed", "thread_id", t.ID, "turn_id", turnID, "item", ordered{"type", "AgentMessage", "id", "msg_" + hexString(w.r, 24), "content", []any{ordered{"type", "Text", "text", reply}}}})
	} else {
		w.line("event_msg", ordered{"type", "agent_message", "message", reply})
	}
	w.line("response_item", ordered{"type", "message", "role", "assistant", "content", []any{ordered{"type", "output_text", "text", reply}}})
	in, out := 12000+w.r.IntN(40000), 20+w.r.IntN(2000)
	// As Codex writes it after each response: the response's usage
	// (input_tokens counts the cached part) and the file's total.
	w.usedIn, w.usedOut = w.usedIn+in, w.usedOut+out
	usage := func(in, cached, out, total int) ordered {
		return ordered{"input_tokens", in, "cached_input_tokens", cached, "output_tokens", out, "reasoning_output_tokens", 0, "total_tokens", total}
	}
	w.line("event_msg", ordered{"type", "token_count", "info", ordered{"total_token_usage", usage(w.usedIn, w.usedIn/2, w.usedOut, w.usedIn+w.usedOut),
		"last_token_usage", usage(in, in/2, out, in+out), "model_context_window", 258400}})
	w.line("event_msg", ordered{"type", "task_complete", "turn_id", turnID, "last_agent_message", reply})
}

// uuid7 is a version-7 UUID for time at, its random bits from r.
func uuid7(at time.Time, r *rand.Rand) string {
	var b [16]byte
	ms := uint64(at.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	for i := 6; i < 16; i++ {
		b[i] = byte(r.Uint32())
	}
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func hexString(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	var s strings.Builder
	for i := 0; i < n; i++ {
		s.WriteByte(digits[r.IntN(16)])
	}
	return s.String()
}
