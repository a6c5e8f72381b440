package claude

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"sort"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/transcript"
)

// extractor turns transcript lines into messages. It remembers the newest
// timestamp seen, for the name rows that carry none.
type extractor struct {
	lastAt int64
	out    []harness.Message
	// names already recorded for this session: Claude Code re-appends its
	// title rows near the tail after every turn.
	names map[string]bool
}

// rowNeed is what search reads of a row: a prompt's content, an assistant
// row's, and the timestamps of both (stampLit). A tool result, whose
// timestamp nothing reads, is left at its first block's type.
const rowNeed = transcript.NeedPrompt | transcript.NeedReply | transcript.NeedStamp

func (x *extractor) line(line []byte) {
	line = bytes.TrimSpace(line)
	// The listing's reading of a row's kind (transcript.Classify), so that
	// a row it shows as a prompt is one search finds.
	r, ok := transcript.Classify(line, rowNeed)
	if !ok {
		return
	}
	switch r.Type {
	case "custom-title", "agent-name", "ai-title", "summary":
		x.name(r.Type, line)
	case "user":
		x.user(line, &r)
	case "assistant":
		x.assistant(line, &r)
	}
	// Other rows (attachments, system rows, most metadata) hold nothing a
	// person typed or read.
}

func (x *extractor) add(role harness.Role, at int64, text string) {
	if !hasText(text) {
		return
	}
	x.out = append(x.out, harness.Message{Role: role, At: at, Text: text})
}

func hasText(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return true
		}
	}
	return false
}

// name reads a name row (custom title, agent name, AI title, summary).
func (x *extractor) name(typ string, line []byte) {
	if len(line) > jsonl.DecodeCap {
		return
	}
	var m struct {
		CustomTitle string `json:"customTitle"`
		AgentName   string `json:"agentName"`
		AITitle     string `json:"aiTitle"`
		Summary     string `json:"summary"`
	}
	if json.Unmarshal(line, &m) != nil {
		return
	}
	var name string
	switch typ {
	case "custom-title":
		name = m.CustomTitle
	case "agent-name":
		name = m.AgentName
	case "ai-title":
		name = m.AITitle
	case "summary":
		name = m.Summary
	}
	if name == "" || x.names[name] {
		return
	}
	if x.names == nil {
		x.names = map[string]bool{}
	}
	x.names[name] = true
	x.add(harness.Name, x.lastAt, name)
}

// user reads a prompt row: what transcript.Row.IsPrompt says a person
// typed (not a system reminder, a compaction summary or a tool result):
// its string content or its text blocks.
func (x *extractor) user(line []byte, r *transcript.Row) {
	if !r.IsPrompt() || len(line) > jsonl.DecodeCap {
		return
	}
	at := x.stampLit(r.Timestamp)
	transcript.TextBlocks(r.Content, func(lit []byte) bool {
		if s, _, ok := jsonl.String(lit); ok {
			x.add(harness.Prompt, at, s)
		}
		return true
	})
}

// stamp parses a row timestamp, remembering it; an unparseable one is the
// last known time.
func (x *extractor) stamp(ts string) int64 {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		x.lastAt = t.UnixMilli()
	}
	return x.lastAt
}

// skippedInputKeys are tool inputs that hold file bodies (Write's content,
// Edit's strings): shown to the person as a diff, like tool output, and
// most of the input's bytes.
var skippedInputKeys = map[string]bool{"content": true, "old_string": true, "new_string": true, "new_source": true}

func (x *extractor) assistant(line []byte, r *transcript.Row) {
	c := r.Content
	if len(c) == 0 || c[0] != '[' || len(line) > jsonl.DecodeCap {
		return
	}
	if x.fastReply(r) || x.fastTool(r) {
		return
	}
	type block struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	}
	var blocks []block
	if json.Unmarshal(c, &blocks) != nil {
		return
	}
	at := x.stampLit(r.Timestamp)
	for _, b := range blocks {
		switch b.Type {
		case "text":
			x.add(harness.Reply, at, b.Text)
		case "tool_use":
			// Keys first, undecoded, so a file body is never decoded.
			var input map[string]json.RawMessage
			if json.Unmarshal(b.Input, &input) != nil {
				continue
			}
			keys := make([]string, 0, len(input))
			for k := range input {
				if !skippedInputKeys[k] {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				var v any
				if json.Unmarshal(input[k], &v) == nil {
					collectStrings(v, &parts)
				}
			}
			for _, p := range parts {
				x.add(harness.Tool, at, p)
			}
		}
	}
}

// collectStrings gathers the string values of a tool call's input, in a
// stable order, leaving out file bodies.
func collectStrings(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, e := range v {
			collectStrings(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			if !skippedInputKeys[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			collectStrings(v[k], out)
		}
	}
}

// Text reads the searchable text of the transcript f from offset up to
// size (what the walk saw; bytes appended since wait for the next search).
// lastAt and earlier carry what the part of the file already read
// established (the newest timestamp, the names recorded).
func (h *Harness) Text(sc *jsonl.Scanner, f *os.File, offset, size, lastAt int64, earlier []harness.Message) (harness.TextRead, error) {
	sc.Reset(io.NewSectionReader(f, offset, max(0, size-offset)), offset)
	x := extractor{lastAt: lastAt}
	for _, m := range earlier {
		if m.Role == harness.Name {
			if x.names == nil {
				x.names = map[string]bool{}
			}
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
	return harness.TextRead{Msgs: x.out, Offset: sc.Consumed(), LastAt: x.lastAt}, nil
}
