package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
)

// Tail reads a thread's newest turns from the end of its newest segment
// (harness.Backward), and on into the segment a rewind kept its history
// in, until the preview is full, the start of that history, or
// harness.TailBytes: prompts as typed, the opening of each reply, a tool
// call as one line; never tool output, reasoning, or the blocks Codex
// injects (those are response_item messages, never read here). Events and
// tool calls are read as search reads them (said, readToolCall). A
// compressed segment cannot be read from its end: it is decoded from its
// start (it is a few MB at most). A legacy fork's copy of its parent's
// turns is shown as the fork's: it is what a resume of the fork reloads.
func (h *Harness) Tail(s *harness.Session, max int) ([]harness.Turn, error) {
	ts := harness.NewTurns(max)
	if ts.Full() {
		return nil, nil
	}
	if compressed(s.Transcript) {
		return h.tailCompressed(s.Transcript, ts)
	}
	budget := int64(harness.TailBytes)
	path, end := s.Transcript, int64(-1)
	for range len(s.Segments) + 1 {
		base, read, err := tailSegment(path, end, ts, budget)
		if err != nil {
			return nil, err
		}
		// A rewind's segment keeps its history in the segment it was
		// rewound from, up to history_base.end_byte_offset: when the
		// newest segment is read to its start and the preview is not full,
		// the turns before the rewind come from there.
		budget -= read
		if ts.Full() || budget <= 0 || base == nil || base.ThreadID != s.ID {
			break
		}
		if path = rewoundFrom(s.Segments, path, base.EndByteOffset); path == "" {
			break
		}
		end = base.EndByteOffset
	}
	return ts.Oldest(), nil
}

// historyBase is a segment's session_meta history_base.
type historyBase struct {
	ThreadID      string `json:"thread_id"`
	EndByteOffset int64  `json:"end_byte_offset"`
}

// tailSegment adds the turns of a plain segment's lines before end (-1:
// its end), within budget; it reports the segment's history_base when
// it was read to its start, and how much it read.
func tailSegment(path string, end int64, ts *harness.Turns, budget int64) (*historyBase, int64, error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := st.Size()
	if end >= 0 {
		size = min(size, end)
	}
	meta, err := firstLine(f)
	if err != nil {
		return nil, 0, err
	}
	// A paginated rollout may repeat its items as the legacy events, which
	// are then left out; its session_meta says so when its lines carry no
	// ordinal (lineTurns reads those).
	paginated := bytes.Contains(meta, []byte(`"history_mode":"paginated"`))
	if err := tailTurns(f, size, paginated, ts, budget); err != nil {
		return nil, 0, err
	}
	if size > budget || ts.Full() {
		return nil, min(size, budget), nil
	}
	var e struct {
		Type    string `json:"type"`
		Payload struct {
			Base *historyBase `json:"history_base"`
		} `json:"payload"`
	}
	if json.Unmarshal(meta, &e) != nil || e.Type != "session_meta" {
		return nil, size, nil
	}
	return e.Payload.Base, size, nil
}

// firstLine is a segment's session_meta line (about 22 KB), read up to
// 64 KB: longer, it is cut, and what it says is still searched for
// history_mode but not decoded.
func firstLine(f io.ReaderAt) ([]byte, error) {
	head := make([]byte, 64<<10)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return head, nil
}

// rewoundFrom is the segment a rewind's segment at path kept its history
// in: the newest older plain segment of the thread at least end bytes
// long; "" when there is none.
func rewoundFrom(segments []string, path string, end int64) string {
	for k, p := range segments {
		if p != path {
			continue
		}
		for _, q := range segments[k+1:] {
			if compressed(q) {
				continue
			}
			if st, err := os.Stat(q); err == nil && st.Size() >= end && end > 0 {
				return q
			}
		}
		return ""
	}
	return ""
}

// tailTurns adds the turns of f's lines before size, newest first.
func tailTurns(f io.ReaderAt, size int64, paginated bool, ts *harness.Turns, budget int64) error {
	return harness.Backward(f, size, budget, jsonl.DecodeCap, passOver, func(line []byte) bool {
		turns := lineTurns(line, paginated)
		for k := len(turns) - 1; k >= 0; k-- {
			if !ts.Add(turns[k]) {
				return false
			}
		}
		return true
	})
}

// tailCompressed is Tail for a zstd segment: every line from its start,
// the newest turns kept.
func (h *Harness) tailCompressed(path string, ts *harness.Turns) ([]harness.Turn, error) {
	_, r, done, err := h.openSegment(path)
	if err != nil {
		return nil, err
	}
	defer done()
	sc := jsonl.NewScanner(r, 0)
	var all []harness.Turn
	paginated := false
	for {
		line, ok := sc.Next()
		if !ok {
			break
		}
		if typ, _, _ := envelope(line); typ == "session_meta" && !paginated {
			paginated = bytes.Contains(line, []byte(`"history_mode":"paginated"`))
		}
		all = append(all, lineTurns(line, paginated)...)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for k := len(all) - 1; k >= 0 && ts.Add(all[k]); k-- {
	}
	return ts.Oldest(), nil
}

// lineTurns are the turns of one rollout line, in order.
func lineTurns(line []byte, paginated bool) []harness.Turn {
	line = bytes.TrimSpace(line)
	typ, stamp, payload := envelope(line)
	var at time.Time
	if ms := millis(stamp); ms != 0 {
		at = time.UnixMilli(ms).UTC()
	}
	switch typ {
	case "event_msg":
		pg := paginated || bytes.Contains(line[:len(line)-len(payload)], []byte(`"ordinal":`))
		role, texts := said(line, payload, pg)
		switch role {
		case harness.Prompt:
			if t := clip(strings.Join(texts, "")); strings.TrimSpace(t) != "" {
				return []harness.Turn{{Kind: harness.TurnPrompt, Text: t, At: at}}
			}
		case harness.Reply:
			if t := harness.ReplyOpening(strings.Join(texts, "\n")); t != "" {
				return []harness.Turn{{Kind: harness.TurnReply, Text: t, At: at}}
			}
		}
	case "response_item":
		if c, ok := readToolCall(line, payload); ok {
			name := c.Name
			if name == "" {
				name = "shell" // a local_shell_call names no tool
			}
			return []harness.Turn{{Kind: harness.TurnTool, Tool: name, Text: harness.ToolLine(name, c.arg()), At: at}}
		}
	}
	return nil
}

// passOver says a long line holds no turn, from its first bytes alone:
// tool output, reasoning, a session_meta or whatever else is not an event
// or a tool call. Codex writes a line's type, then its payload's type
// first; a head that does not show them is read whole.
func passOver(head []byte) bool {
	typ, _, payload := envelope(head)
	if typ == "" {
		return false
	}
	var pt string
	if bytes.HasPrefix(payload, []byte(`{"type":"`)) {
		pt = string(field(payload, `"type":"`))
	}
	switch typ {
	case "event_msg":
		return pt != "" && pt != "user_message" && pt != "agent_message" && pt != "item_completed"
	case "response_item":
		return pt != "" && pt != "function_call" && pt != "custom_tool_call" && pt != "local_shell_call"
	}
	return true
}

// argKeys are the arguments a function call is shown by, in order; one
// with none of them shows its first string.
var argKeys = []string{"cmd", "command", "path", "file_path", "pattern", "query", "url"}

// arg is a tool call's main argument: a shell command, the files a patch
// touches, else the first string it has.
func (c toolCall) arg() string {
	if c.Type == "custom_tool_call" {
		return patchFiles(c.Raw)
	}
	if m, ok := c.Args.(map[string]any); ok {
		for _, k := range argKeys {
			if s := command(m[k]); s != "" {
				return s
			}
		}
		return firstString([]byte(c.Raw))
	}
	if c.decoded {
		return command(c.Args)
	}
	return c.Raw
}

// firstString is the first string member of a JSON object, in the
// order it is written.
func firstString(obj []byte) string {
	if len(obj) == 0 || obj[0] != '{' {
		return ""
	}
	var out string
	jsonl.Members(obj, 0, func(_ []byte, v int) (int, bool) {
		end, ok := jsonl.Skip(obj, v)
		if ok && out == "" && obj[v] == '"' {
			out, _, _ = jsonl.String(obj[v:end])
		}
		return end, ok
	})
	return out
}

// command is a command as a string, or as argv with a shell's -lc taken
// off (["bash","-lc","go test ./..."]).
func command(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var argv []string
		for _, a := range v {
			if s, ok := a.(string); ok {
				argv = append(argv, s)
			}
		}
		if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
			switch argv[0] {
			case "bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh":
				return argv[2]
			}
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// patchFiles are the files an apply_patch input names ("*** Update File:
// x.go"), else its first line that holds something.
func patchFiles(input string) string {
	var files []string
	first := ""
	for _, l := range strings.Split(input, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(l, p); ok {
				files = append(files, f)
			}
		}
		if first == "" && l != "" && !strings.HasPrefix(l, "*** Begin Patch") {
			first = l
		}
	}
	if len(files) > 0 {
		return strings.Join(files, " ")
	}
	return first
}
