// Package search is forgectl's full-text search over Claude Code
// transcripts: what a person typed and read in a session (prompts, replies,
// the inputs of tool calls, names), decoded from the JSON so that quotes,
// backslashes, newlines and non-ASCII match as they were shown, kept in an
// incremental index under forgectl's cache directory.
//
// The index is a cache. Deleting it loses nothing; a damaged one is
// noticed, reported and rebuilt, never trusted.
package search

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"sort"
	"time"

	"forgectl.dev/shared/jsonl"
)

// Role says where a piece of searchable text came from.
type Role uint8

const (
	// Prompt is what the person typed.
	Prompt Role = iota + 1
	// Reply is an assistant text block.
	Reply
	// Tool is the input of a tool call (a command, a file path, a pattern).
	Tool
	// Name is a session name: custom title, agent name, AI title, summary.
	Name
)

func (r Role) String() string {
	switch r {
	case Prompt:
		return "prompt"
	case Reply:
		return "reply"
	case Tool:
		return "tool"
	case Name:
		return "name"
	}
	return "unknown"
}

// Message is one piece of searchable text.
type Message struct {
	Role Role
	// At is when it was written (Unix milliseconds): the row's timestamp,
	// or for a name row (which has none) that of the newest prompt, reply
	// or tool call before it.
	At   int64
	Text string
}

// decodeCap bounds the rows that are decoded: a longer one is an attachment
// or a pasted file, not something a person typed or read in full.
const decodeCap = 4 << 20

// extractor turns transcript lines into messages. It remembers the newest
// timestamp seen, for the name rows that carry none.
type extractor struct {
	lastAt int64
	out    []Message
	// names already recorded for this session: Claude Code re-appends its
	// title rows near the tail after every turn.
	names map[string]bool
}

// Row prefixes and markers, found with byte searches before any decoding.
// A marker such as `"type":"tool_result"` cannot occur inside a JSON string
// value: every quote in there is escaped.
var (
	leadType      = []byte(`{"type":"`)
	convPrefix    = []byte(`{"parentUuid"`)
	typeUser      = []byte(`"type":"user"`)
	typeAssistant = []byte(`"type":"assistant"`)
	toolResult    = []byte(`"type":"tool_result"`)
	toolUseID     = []byte(`[{"tool_use_id"`)
	blockText     = []byte(`"type":"text"`)
	blockToolUse  = []byte(`"type":"tool_use"`)
	isMeta        = []byte(`"isMeta":true`)
	compactSum    = []byte(`"isCompactSummary":true`)
	timestampKey  = []byte(`"timestamp":"`)
	contentList   = []byte(`"content":[`)
)

// headWindow is how far into a conversation row its type is looked for:
// the envelope's leading keys (parentUuid, isSidechain, promptId, type).
const headWindow = 400

func (x *extractor) line(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return
	}
	if bytes.HasPrefix(line, leadType) {
		x.metadata(line)
		return
	}
	head := line[:min(len(line), headWindow)]
	switch {
	case bytes.Contains(head, typeUser):
		x.user(line, head)
	case bytes.Contains(head, typeAssistant):
		x.assistant(line)
	case !bytes.HasPrefix(line, convPrefix) && len(line) < 4096:
		// A short row of another shape may be a title row whose keys came
		// in another order.
		x.metadata(line)
	}
}

func (x *extractor) add(role Role, at int64, text string) {
	if !hasText(text) {
		return
	}
	x.out = append(x.out, Message{Role: role, At: at, Text: text})
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

func (x *extractor) metadata(line []byte) {
	if len(line) > decodeCap {
		return
	}
	// Most metadata rows (file-history-snapshot, permission-mode, …) hold
	// nothing to search: skip them on their leading type, undecoded.
	if bytes.HasPrefix(line, leadType) {
		rest := line[len(leadType):]
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			return
		}
		switch string(rest[:end]) {
		case "custom-title", "agent-name", "ai-title", "summary":
		default:
			return
		}
	}
	var m struct {
		Type        string `json:"type"`
		CustomTitle string `json:"customTitle"`
		AgentName   string `json:"agentName"`
		AITitle     string `json:"aiTitle"`
		Summary     string `json:"summary"`
	}
	if json.Unmarshal(line, &m) != nil {
		return
	}
	var name string
	switch m.Type {
	case "custom-title":
		name = m.CustomTitle
	case "agent-name":
		name = m.AgentName
	case "ai-title":
		name = m.AITitle
	case "summary":
		name = m.Summary
	case "user":
		// A conversation row whose keys came in another order.
		x.user(line, line)
		return
	case "assistant":
		x.assistant(line)
		return
	default:
		return
	}
	if name == "" || x.names[name] {
		return
	}
	if x.names == nil {
		x.names = map[string]bool{}
	}
	x.names[name] = true
	x.add(Name, x.lastAt, name)
}

func (x *extractor) user(line, head []byte) {
	// Tool results are most of a transcript's bytes: recognise them by the
	// first content block, right after the message's opening, undecoded.
	if i := bytes.Index(head, []byte(`"content":`)); i >= 0 {
		after := line[i+len(`"content":`):]
		after = after[:min(len(after), 120)]
		if bytes.HasPrefix(after, toolUseID) || bytes.Contains(after, toolResult) {
			return
		}
	}
	if len(line) > decodeCap {
		return
	}
	var row struct {
		Type             string `json:"type"`
		IsMeta           bool   `json:"isMeta"`
		IsCompactSummary bool   `json:"isCompactSummary"`
		Timestamp        string `json:"timestamp"`
		Message          struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	// Meta rows (system reminders) and compaction summaries were never
	// typed by the person; the markers are cheap to look for first.
	if bytes.Contains(line, isMeta) || bytes.Contains(line, compactSum) {
		return
	}
	if x.fastUser(line) {
		return
	}
	if json.Unmarshal(line, &row) != nil || row.Type != "user" {
		return
	}
	at := x.stamp(row.Timestamp)
	if row.IsMeta || row.IsCompactSummary {
		return
	}
	c := bytes.TrimSpace(row.Message.Content)
	if len(c) == 0 {
		return
	}
	if c[0] == '"' {
		var s string
		if json.Unmarshal(c, &s) == nil {
			x.add(Prompt, at, s)
		}
		return
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return // a tool result row with a text block beside it
		}
	}
	for _, b := range blocks {
		if b.Type == "text" {
			x.add(Prompt, at, b.Text)
		}
	}
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

func (x *extractor) assistant(line []byte) {
	// Claude Code writes one content block per row, and the content comes
	// early in it (after the message id and model). A row that opens with
	// a thinking block and has no second block holds nothing to search,
	// and is found so with one scan of it.
	head := line[:min(len(line), 2*headWindow)]
	if i := bytes.Index(head, contentList); i >= 0 {
		first := head[i+len(contentList):]
		if bytes.HasPrefix(first, []byte(`{"type":"thinking"`)) && !bytes.Contains(line[i:], []byte(`},{"type":"`)) {
			return
		}
	} else if !bytes.Contains(line, blockText) && !bytes.Contains(line, blockToolUse) {
		return // another shape: only if it has a text or tool block
	}
	if len(line) > decodeCap {
		return
	}
	if x.fastReply(line) || x.fastTool(line) {
		return
	}
	type block struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	}
	var blocks []block
	var at int64
	// Decode the message's content alone: the rest of the row (usage, the
	// envelope) is not needed, and validating it cost as much as the rest
	// of a first build. The first content key of an assistant row is the
	// message's (keys inside strings have escaped quotes).
	if i := bytes.Index(line, contentList); i >= 0 {
		dec := json.NewDecoder(bytes.NewReader(line[i+len(contentList)-1:]))
		if dec.Decode(&blocks) != nil {
			return
		}
		at = x.stampFrom(line[i+len(contentList)-1+int(dec.InputOffset()):])
	} else {
		var row struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Message   struct {
				Content []block `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &row) != nil || row.Type != "assistant" {
			return
		}
		blocks, at = row.Message.Content, x.stamp(row.Timestamp)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			x.add(Reply, at, b.Text)
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
				x.add(Tool, at, p)
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

// readResult is what reading a transcript from an offset found.
type readResult struct {
	msgs   []Message
	offset int64 // just past the last complete line
	lastAt int64
}

// readFile extracts the messages of f from offset up to size (what the
// walk saw; bytes appended since wait for the next search). lastAt and
// earlier carry what the part of the file already read established (the
// newest timestamp, the names recorded).
func readFile(sc *jsonl.Scanner, f *os.File, offset, size, lastAt int64, earlier []Message) (readResult, error) {
	sc.Reset(io.NewSectionReader(f, offset, max(0, size-offset)), offset)
	x := extractor{lastAt: lastAt}
	for _, m := range earlier {
		if m.Role == Name {
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
		return readResult{}, err
	}
	return readResult{msgs: x.out, offset: sc.Consumed(), lastAt: x.lastAt}, nil
}
