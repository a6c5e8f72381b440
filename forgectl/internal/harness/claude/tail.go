package claude

import (
	"bytes"
	"io"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/transcript"
)

// Tail reads the newest turns of a transcript backwards from its end, in
// blocks, until the preview is full, the file's start, or TailBytes (see
// harness.Harness). Rows are read as search reads them (transcript.
// Classify): a tool result is settled at its first block's type, and its
// output is never decoded.
func (h *Harness) Tail(s *harness.Session, max int) ([]harness.Turn, error) {
	f, err := fsutil.OpenRegular(s.Transcript)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return tailTurns(f, st.Size(), max, harness.TailBytes)
}

// tailTurns walks f's lines from size back, newest first (harness.
// Backward), until the preview is full. Rows are read as search reads
// them (transcript.Classify); a line over jsonl.DecodeCap (an
// attachment, a pasted file) is passed over without being kept.
func tailTurns(f io.ReaderAt, size int64, max int, budget int64) ([]harness.Turn, error) {
	ts := harness.NewTurns(max)
	if ts.Full() {
		return ts.Oldest(), nil
	}
	err := harness.Backward(f, size, budget, jsonl.DecodeCap, passOver, func(line []byte) bool {
		return tailLine(ts, line)
	})
	if err != nil {
		return nil, err
	}
	return ts.Oldest(), nil
}

// passOver says a long line holds no turn, from its first bytes alone: a
// tool result or a row that is not a prompt's or a reply's, whose
// megabytes are then never copied together.
func passOver(head []byte) bool {
	// Classify reads a row's keys in order and stops once its kind is
	// settled; on a cut line the kind it read so far is still the row's.
	r, _ := transcript.Classify(head, transcript.NeedPrompt)
	switch r.Type {
	case "user":
		return r.ToolResult || r.IsMeta
	case "assistant", "":
		return false
	}
	return true
}

// tailLine adds the turns of one line, its blocks newest first; false when
// no more are wanted.
func tailLine(ts *harness.Turns, line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return true
	}
	r, ok := transcript.Classify(line, transcript.NeedPrompt|transcript.NeedReply|transcript.NeedStamp)
	if !ok {
		return true
	}
	at := stampTime(r.Timestamp)
	switch {
	case r.IsPrompt():
		lit := transcript.PromptLiteral(r.Content)
		if lit == nil {
			return true
		}
		t := transcript.PromptText(lit, true)
		if t == "" {
			return true
		}
		return ts.Add(harness.Turn{Kind: harness.TurnPrompt, Text: t, At: at})
	case r.Type == "assistant":
		turns := replyTurns(r.Content, at)
		for k := len(turns) - 1; k >= 0; k-- {
			if !ts.Add(turns[k]) {
				return false
			}
		}
	}
	return true
}

// replyTurns are an assistant row's text replies and tool calls, in order;
// thinking is left out.
func replyTurns(content []byte, at time.Time) []harness.Turn {
	if len(content) == 0 || content[0] != '[' {
		return nil
	}
	var out []harness.Turn
	jsonl.Elements(content, 0, func(e int) (int, bool) {
		if content[e] != '{' {
			return jsonl.Skip(content, e)
		}
		var typ, name, text []byte
		var input []byte
		end, ok := jsonl.Members(content, e, func(key []byte, v int) (int, bool) {
			end, ok := jsonl.Skip(content, v)
			if !ok {
				return end, ok
			}
			switch string(key) {
			case "type":
				if typ == nil {
					typ = content[v:end]
				}
			case "name":
				if name == nil {
					name = content[v:end]
				}
			case "text":
				if text == nil {
					text = content[v:end]
				}
			case "input":
				if input == nil {
					input = content[v:end]
				}
			}
			return end, ok
		})
		if !ok {
			return end, ok
		}
		switch str(typ) {
		case "text":
			if t := openingLines(text); t != "" {
				out = append(out, harness.Turn{Kind: harness.TurnReply, Text: t, At: at})
			}
		case "tool_use":
			n := str(name)
			if n == "" {
				break
			}
			t := harness.ToolLine(n, toolArg(n, input))
			out = append(out, harness.Turn{Kind: harness.TurnTool, Tool: n, Text: t, At: at})
		}
		return end, true
	})
	return out
}

// openingLines is a reply's opening (harness.ReplyOpening).
func openingLines(lit []byte) string {
	if len(lit) == 0 || lit[0] != '"' {
		return ""
	}
	// The opening is all that is shown: no more than its first bytes are
	// decoded, however long the reply.
	t, ok := jsonl.StringHead(lit, 8<<10)
	if !ok {
		return ""
	}
	return harness.ReplyOpening(t)
}

// toolArgKeys are the inputs a tool call is shown by, for Claude Code's
// tools (facts/claude-code.md §h); another tool shows its first string.
var toolArgKeys = map[string]string{
	"Bash": "command", "Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path", "Read": "file_path",
	"NotebookEdit": "notebook_path", "Grep": "pattern", "Glob": "pattern", "WebFetch": "url", "WebSearch": "query",
	"Task": "description", "Agent": "description", "TaskCreate": "subject", "TaskUpdate": "taskId", "Skill": "skill",
}

// toolArg is a tool call's main argument (its first 4 KB).
func toolArg(name string, input []byte) string {
	if len(input) == 0 || input[0] != '{' {
		return ""
	}
	want := toolArgKeys[name]
	var pick, firstStr []byte
	jsonl.Members(input, 0, func(key []byte, v int) (int, bool) {
		end, ok := jsonl.Skip(input, v)
		if ok && input[v] == '"' {
			if pick == nil && want != "" && string(key) == want {
				pick = input[v:end]
			}
			if firstStr == nil {
				firstStr = input[v:end]
			}
		}
		return end, ok
	})
	if pick == nil {
		pick = firstStr
	}
	if pick == nil {
		return ""
	}
	s, ok := jsonl.StringHead(pick, 4<<10)
	if !ok {
		return ""
	}
	return s
}

// str decodes a JSON string literal; "" for anything else.
func str(lit []byte) string {
	if len(lit) == 0 || lit[0] != '"' {
		return ""
	}
	s, _, _ := jsonl.String(lit)
	return s
}

// stampTime is a row's timestamp literal; zero when it does not parse.
func stampTime(lit []byte) time.Time {
	t, err := time.Parse(time.RFC3339Nano, str(lit))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
