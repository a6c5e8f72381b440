package claude

import (
	"bytes"
	"slices"
	"sort"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/transcript"
)

// Most searchable assistant rows hold one block: a text reply, or a tool
// call whose input is flat. Decoding such a content list with encoding/json
// validates it and then decodes it again; reading its string literals
// directly halves the cost of a first build. Content of any other shape
// takes the full decoder. The literals are read by jsonl.String, which
// decodes as encoding/json does.

var (
	replyPrefix   = []byte(`[{"type":"text","text":"`)
	toolUsePrefix = []byte(`[{"type":"tool_use","id":`)
)

// fastReply reads an assistant row whose content is one text block.
func (x *extractor) fastReply(r *transcript.Row) bool {
	if !bytes.HasPrefix(r.Content, replyPrefix) {
		return false
	}
	text, rest, ok := jsonl.String(r.Content[len(replyPrefix)-1:])
	if !ok || string(rest) != "}]" {
		return false
	}
	x.add(harness.Reply, x.stampLit(r.Timestamp), text)
	return true
}

// stampLit reads a row's timestamp literal (nil when it has none).
func (x *extractor) stampLit(lit []byte) int64 {
	ts, _, ok := jsonl.String(lit)
	if !ok {
		return x.lastAt
	}
	return x.stamp(ts)
}

// fastTool reads an assistant row whose content is one tool call whose
// input is a flat object of strings and scalars (Bash, Read, Edit, Grep,
// …): the string values, in key order, file bodies left undecoded.
func (x *extractor) fastTool(r *transcript.Row) bool {
	if !bytes.HasPrefix(r.Content, toolUsePrefix) {
		return false
	}
	rest := r.Content[len(toolUsePrefix):]
	n, _, ok := jsonl.StringEnd(rest) // the id
	if !ok || !bytes.HasPrefix(rest[n:], []byte(`,"name":`)) {
		return false
	}
	rest = rest[n+len(`,"name":`):]
	if n, _, ok = jsonl.StringEnd(rest); !ok || !bytes.HasPrefix(rest[n:], []byte(`,"input":{`)) {
		return false
	}
	rest = rest[n+len(`,"input":{`):]
	type kv struct{ k, v string }
	var vals []kv
	var keys []string // a handful: a repeated one takes the full decoder, which keeps the last
	for len(rest) > 0 && rest[0] != '}' {
		key, after, ok := jsonl.String(rest)
		if !ok || len(after) == 0 || after[0] != ':' || slices.Contains(keys, key) {
			return false
		}
		keys = append(keys, key)
		rest = after[1:]
		switch c := firstByte(rest); {
		case c == '"':
			if skippedInputKeys[key] {
				n, ok := jsonl.Skip(rest, 0) // a file body: no pass for escapes
				if !ok {
					return false
				}
				rest = rest[n:]
				break
			}
			v, after, ok := jsonl.String(rest)
			if !ok {
				return false
			}
			vals = append(vals, kv{key, v})
			rest = after
		case c == 't' || c == 'f' || c == 'n' || c == '-' || c >= '0' && c <= '9':
			end := bytes.IndexAny(rest, ",}")
			if end < 0 {
				return false
			}
			rest = rest[end:]
		default:
			return false // a nested value: the full decoder
		}
		if firstByte(rest) == ',' {
			rest = rest[1:]
		}
	}
	if string(rest) != "}}]" {
		return false
	}
	sort.Slice(vals, func(a, b int) bool { return vals[a].k < vals[b].k })
	at := x.stampLit(r.Timestamp)
	for _, p := range vals {
		x.add(harness.Tool, at, p.v)
	}
	return true
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
