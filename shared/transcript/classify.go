package transcript

import (
	"bytes"
	"strings"

	"forgectl.dev/shared/jsonl"
)

// DecodeCap bounds the rows whose text is decoded whole, for the listing
// and for search alike: a longer row is an attachment or a pasted file.
// Search leaves the text of such a row out; the listing still shows the
// start of a prompt that long (PromptText), read without decoding it all.
const DecodeCap = 4 << 20

// Row is what a transcript line is, read from its top-level keys the way
// encoding/json would decode them (key order, white space, escapes and
// duplicate keys, the last of which wins, make no difference), without
// decoding the values it does not need.
type Row struct {
	// Type is the top-level "type" when it is a string, else "".
	Type string
	// IsMeta and IsCompactSummary are the top-level flags, true only for
	// the JSON literal true.
	IsMeta           bool
	IsCompactSummary bool
	// Timestamp is the top-level "timestamp" value's bytes (a JSON string
	// literal in every row that has one), nil when there is none.
	Timestamp []byte
	// Content is message.content's bytes when the top-level "message" is
	// an object holding "content", else nil.
	Content []byte
	// ToolResult says Content is an array holding an object whose "type"
	// is "tool_result": tool output, not something a person typed.
	ToolResult bool
}

// Classify reads line, one JSON object (white space around it allowed),
// as Row. ok is false when the line is not a JSON object; that check is
// structural (quotes and brackets), not a full validation.
func Classify(line []byte) (r Row, ok bool) {
	end, ok := jsonl.Members(line, jsonl.SkipSpace(line, 0), func(key []byte, v int) (int, bool) {
		switch string(key) {
		case "type":
			if line[v] == '"' {
				n, esc, ok := jsonl.StringEnd(line[v:])
				if !ok {
					return v, false
				}
				r.Type = typeName(line[v:v+n], esc)
				return v + n, true
			}
			r.Type = ""
		case "isMeta", "isCompactSummary":
			end, ok := jsonl.Skip(line, v)
			flag := string(line[v:end]) == "true"
			if string(key) == "isMeta" {
				r.IsMeta = flag
			} else {
				r.IsCompactSummary = flag
			}
			return end, ok
		case "timestamp":
			end, ok := jsonl.Skip(line, v)
			r.Timestamp = line[v:end]
			return end, ok
		case "message":
			r.Content, r.ToolResult = nil, false
			if line[v] == '{' {
				return r.message(line, v)
			}
		}
		return jsonl.Skip(line, v)
	})
	return r, ok && jsonl.SkipSpace(line, end) == len(line)
}

// message reads the message object at line[v], for its content.
func (r *Row) message(line []byte, v int) (int, bool) {
	return jsonl.Members(line, v, func(key []byte, v int) (int, bool) {
		if string(key) != "content" {
			return jsonl.Skip(line, v)
		}
		r.Content, r.ToolResult = nil, false
		var end int
		var ok bool
		if line[v] == '[' {
			end, ok = jsonl.Elements(line, v, func(e int) (int, bool) {
				if line[e] != '{' {
					return jsonl.Skip(line, e)
				}
				typ, end, ok := blockType(line, e)
				if typ == "tool_result" {
					r.ToolResult = true
				}
				return end, ok
			})
		} else {
			end, ok = jsonl.Skip(line, v)
		}
		r.Content = line[v:end]
		return end, ok
	})
}

// blockType reads the "type" of the object at b[i] (a content block).
func blockType(b []byte, i int) (typ string, end int, ok bool) {
	end, ok = jsonl.Members(b, i, func(key []byte, v int) (int, bool) {
		if string(key) != "type" {
			return jsonl.Skip(b, v)
		}
		typ = ""
		if b[v] != '"' {
			return jsonl.Skip(b, v)
		}
		n, esc, ok := jsonl.StringEnd(b[v:])
		if !ok {
			return v, false
		}
		typ = typeName(b[v:v+n], esc)
		return v + n, true
	})
	return typ, end, ok
}

// typeName decodes a type's string literal, without allocating for the
// names rows and blocks commonly have.
func typeName(lit []byte, esc bool) string {
	if !esc {
		switch s := lit[1 : len(lit)-1]; string(s) {
		case "user":
			return "user"
		case "assistant":
			return "assistant"
		case "system":
			return "system"
		case "attachment":
			return "attachment"
		case "text":
			return "text"
		case "tool_use":
			return "tool_use"
		case "tool_result":
			return "tool_result"
		case "thinking":
			return "thinking"
		case "image":
			return "image"
		}
	}
	s, _, _ := jsonl.String(lit)
	return s
}

// IsPrompt says the row is something a person typed: a user row that is
// not meta (a system reminder), not a compaction summary and not a tool
// result, whose content is a string or a list of blocks.
func (r *Row) IsPrompt() bool {
	return r.Type == "user" && !r.IsMeta && !r.IsCompactSummary && !r.ToolResult &&
		len(r.Content) > 0 && (r.Content[0] == '"' || r.Content[0] == '[')
}

// TextBlocks calls fn with the string literal of each text block of
// content (a list of blocks): an object whose "type" is "text" and whose
// "text" is a string. A string content is one text, passed as it is.
func TextBlocks(content []byte, fn func(lit []byte) bool) {
	if len(content) == 0 {
		return
	}
	if content[0] == '"' {
		fn(content)
		return
	}
	stop := false
	jsonl.Elements(content, 0, func(e int) (int, bool) {
		if content[e] != '{' || stop {
			return jsonl.Skip(content, e)
		}
		var typ string
		var text []byte
		end, ok := jsonl.Members(content, e, func(key []byte, v int) (int, bool) {
			switch string(key) {
			case "type":
				typ = ""
				if content[v] == '"' {
					n, esc, ok := jsonl.StringEnd(content[v:])
					if !ok {
						return v, false
					}
					typ = typeName(content[v:v+n], esc)
					return v + n, true
				}
			case "text":
				end, ok := jsonl.Skip(content, v)
				text = nil
				if content[v] == '"' {
					text = content[v:end]
				}
				return end, ok
			}
			return jsonl.Skip(content, v)
		})
		if ok && typ == "text" && text != nil {
			stop = !fn(text)
		}
		return end, ok
	})
}

// promptHead is how much of a text longer than DecodeCap is decoded to
// show its start: far more than the 200 characters shown.
const promptHead = 64 << 10

// DecodeText decodes a text's string literal whole when it is at most
// DecodeCap long; a longer one (or one cut off, whole=false) is decoded
// from its start, promptHead bytes of it. lit is a JSON string literal,
// or the first bytes of one.
func DecodeText(lit []byte, whole bool) (string, bool) {
	if whole && len(lit) <= DecodeCap {
		s, _, ok := jsonl.String(lit)
		return s, ok
	}
	return jsonl.StringHead(lit, promptHead)
}

// PromptLiteral picks what the listing shows of a prompt row's content:
// the string content, or the first text block holding more than white
// space. nil when there is none.
func PromptLiteral(content []byte) []byte {
	var pick []byte
	TextBlocks(content, func(lit []byte) bool {
		if content[0] == '"' {
			pick = lit
			return false
		}
		if t, ok := DecodeText(lit, true); ok && strings.TrimSpace(t) != "" {
			pick = lit
			return false
		}
		return true
	})
	return pick
}

// PromptText renders a prompt's text literal as Claude Code's picker does:
// slash commands as "/cmd args", bash input as "! x", one line, at most
// 200 characters. whole is false when lit is only the start of the
// literal (read from a file up to a bound).
func PromptText(lit []byte, whole bool) string {
	t, ok := DecodeText(lit, whole)
	if !ok {
		return ""
	}
	return Oneline(renderCommand(t))
}

// trimSpace is bytes.TrimSpace, also returning how many bytes were cut
// from the front.
func trimSpace(b []byte) ([]byte, int) {
	t := bytes.TrimLeft(b, " \t\r\n\v\f")
	lead := len(b) - len(t)
	return bytes.TrimRight(t, " \t\r\n\v\f"), lead
}
