package codex

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/jsonl"
)

// Text reads a segment's searchable text from offset: prompts as typed,
// agent replies, the string inputs of tool calls and the thread's names;
// never tool output, reasoning, or the blocks Codex injects into what the
// model sees (environment context, AGENTS.md, skills), which are only in
// response_item user messages, never read here. A legacy fork's copy of
// its parent's turns is the parent's text, not the fork's.
func (h *Harness) Text(sc *jsonl.Scanner, f *os.File, offset, size, lastAt int64, earlier []harness.Message) (harness.TextRead, error) {
	var r io.Reader = io.NewSectionReader(f, offset, max(0, size-offset))
	zst := compressed(f.Name())
	if zst {
		zr, err := h.decoder(r)
		if err != nil {
			return harness.TextRead{}, err
		}
		defer h.release(zr)
		r = zr
	}
	sc.Reset(r, offset)
	x := textReader{lastAt: lastAt, names: map[string]bool{}}
	x.seg.open = h.openParent
	defer x.seg.closeCopy()
	for _, m := range earlier {
		if m.Role == harness.Name {
			x.names[m.Text] = true
		}
	}
	for {
		line, ok := sc.Next()
		if !ok {
			break
		}
		x.line(line)
	}
	if err := sc.Err(); err != nil {
		return harness.TextRead{}, err
	}
	if x.seg.ID != "" {
		if n := h.indexNames()[x.seg.ID]; n != "" {
			x.name(n)
		}
	}
	end := sc.Consumed()
	if zst {
		end = size // the decoded stream's offsets are not the file's
	}
	return harness.TextRead{Msgs: x.out, Offset: end, LastAt: x.lastAt}, nil
}

// indexNames is session_index.jsonl, read once per invocation for search.
func (h *Harness) indexNames() map[string]string {
	h.namesOnce.Do(func() { h.names, _ = readNames(h.paths.Index()) })
	return h.names
}

type textReader struct {
	seg    segment // the session_meta state: the id, the legacy copy
	lastAt int64
	out    []harness.Message
	names  map[string]bool
	// paginated: the legacy user_message and agent_message events are
	// not read.
	paginated bool
}

func (x *textReader) add(role harness.Role, at int64, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	x.out = append(x.out, harness.Message{Role: role, At: at, Text: text})
}

func (x *textReader) name(n string) {
	if !x.names[n] {
		x.names[n] = true
		x.add(harness.Name, x.lastAt, n)
	}
}

func (x *textReader) line(line []byte) {
	x.seg.lines++ // only the first line names the thread (segment.meta)
	typ, ts, payload := envelope(line)
	if typ == "" {
		return
	}
	ms := millis(ts)
	if ms > x.lastAt {
		x.lastAt = ms
	}
	if typ == "session_meta" {
		x.seg.meta(line)
		return
	}
	if x.seg.Copying && x.seg.copied(typ, payload) {
		return
	}
	switch typ {
	case "event_msg":
		// A paginated rollout (its lines carry an ordinal) has the reply as
		// item_completed and may repeat it as agent_message: one is read.
		x.paginated = x.paginated || x.seg.Paginated || bytes.Contains(line[:len(line)-len(payload)], []byte(`"ordinal":`))
		x.event(line, payload, ms)
	case "response_item":
		x.tool(line, payload, ms)
	}
}

func (x *textReader) event(line, payload []byte, ms int64) {
	role, texts := said(line, payload, x.paginated)
	for _, t := range texts {
		if role == harness.Name {
			x.name(t)
		} else {
			x.add(role, ms, t)
		}
	}
}

// said is what an event_msg line says of the conversation: a prompt as
// typed, a reply (harness.Prompt, harness.Reply) or the thread's name
// (harness.Name), with its texts; none for any other event. paginated
// leaves out the legacy user_message and agent_message, which a paginated
// rollout may repeat its item_completed with. Search and the preview's
// Tail both read events by it.
func said(line, payload []byte, paginated bool) (harness.Role, []string) {
	// Codex writes a payload's "type" first, but the check does not rely
	// on it: a key can never appear inside a JSON string (its quotes would
	// be escaped), so the whole payload is looked through.
	ok := false
	for _, t := range eventTypes {
		if bytes.Contains(payload, t) {
			ok = true
			break
		}
	}
	if !ok {
		return 0, nil
	}
	var e struct {
		Payload eventPayload `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil {
		return 0, nil
	}
	p := &e.Payload
	switch p.Type {
	case "thread_name_updated":
		return harness.Name, []string{p.Name}
	case "user_message":
		if !paginated {
			return harness.Prompt, []string{p.Message}
		}
	case "agent_message":
		if !paginated {
			return harness.Reply, []string{p.Message}
		}
	case "item_completed":
		if p.Item == nil {
			return 0, nil
		}
		role := harness.Prompt
		switch p.Item.Type {
		case "UserMessage":
		case "AgentMessage":
			role = harness.Reply
		default:
			return 0, nil
		}
		var texts []string
		for _, c := range p.Item.Content {
			if strings.EqualFold(c.Type, "text") {
				texts = append(texts, c.Text)
			}
		}
		return role, texts
	}
	return 0, nil
}

var toolTypes = [][]byte{[]byte(`"function_call"`), []byte(`"custom_tool_call"`), []byte(`"local_shell_call"`)}

// toolCall is a response_item that calls a tool: function_call,
// custom_tool_call or local_shell_call. Args are a function call's
// arguments or a shell call's action, decoded (nil when they do not
// decode); Raw a function call's arguments as written, or a custom tool's
// input (an apply_patch's patch) or a shell call's action.
type toolCall struct {
	Type, Name string
	Args       any
	Raw        string
	decoded    bool // Args decoded (JSON null decodes to nil)
}

// readToolCall reads a tool call, never its output (function_call_output
// and the like). Search and the preview's Tail both read tool calls by it.
func readToolCall(line, payload []byte) (toolCall, bool) {
	// Codex writes a payload's "type" first, but the check does not rely
	// on it: a key can never appear inside a JSON string (its quotes would
	// be escaped), so the whole payload is looked through.
	ok := false
	for _, t := range toolTypes {
		if bytes.Contains(payload, t) {
			ok = true
			break
		}
	}
	if !ok {
		return toolCall{}, false
	}
	var e struct {
		Payload struct {
			Type      string          `json:"type"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Input     string          `json:"input"`
			Action    json.RawMessage `json:"action"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil {
		return toolCall{}, false
	}
	p := &e.Payload
	c := toolCall{Type: p.Type, Name: p.Name}
	var v any
	switch p.Type {
	case "function_call":
		c.Raw = p.Arguments
		if json.Unmarshal([]byte(p.Arguments), &v) == nil {
			c.Args, c.decoded = v, true
		}
	case "custom_tool_call":
		c.Raw = p.Input
	case "local_shell_call":
		c.Raw = string(p.Action)
		if json.Unmarshal(p.Action, &v) == nil {
			c.Args, c.decoded = v, true
		}
	default:
		return toolCall{}, false
	}
	return c, true
}

// tool reads the string inputs of a tool call (its arguments, a patch, a
// command), never its output.
func (x *textReader) tool(line, payload []byte, ms int64) {
	c, ok := readToolCall(line, payload)
	if !ok {
		return
	}
	switch {
	case c.decoded:
		x.strings(c.Args, ms)
	case c.Type != "local_shell_call":
		x.add(harness.Tool, ms, c.Raw)
	}
}

func (x *textReader) strings(v any, ms int64) {
	switch v := v.(type) {
	case string:
		x.add(harness.Tool, ms, v)
	case []any:
		var parts []string
		for _, c := range v {
			if s, ok := c.(string); ok {
				parts = append(parts, s)
			} else {
				x.strings(c, ms)
			}
		}
		if len(parts) > 0 {
			x.add(harness.Tool, ms, strings.Join(parts, " "))
		}
	case map[string]any:
		for _, c := range v {
			x.strings(c, ms)
		}
	}
}

var _ harness.Harness = (*Harness)(nil)
var _ harness.Grouper = (*lister)(nil)
var _ harness.TextVersioner = (*Harness)(nil)

// TextVersion is a version of the names session_index.jsonl gives the
// segment's thread, which search indexes with the rollout's text: a
// /rename in Codex appends there and leaves the rollout as it was, so a
// name changed since the segment was indexed makes search read it again.
// The thread is the one the file name carries (a segment named otherwise
// has its names read only when its rollout changes).
func (h *Harness) TextVersion(path string) uint64 {
	name := h.indexNames()[nameThread(filepath.Base(path))]
	if name == "" {
		return 0
	}
	f := fnv.New64a()
	f.Write([]byte(name))
	return f.Sum64() | 1 // never 0, the version of no name
}
