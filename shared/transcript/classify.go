package transcript

import (
	"bytes"
	"strings"

	"forgectl.dev/shared/jsonl"
)

// Need says which of a row's fields a caller reads, beyond its Type
// (always read). Classify stops reading a row as soon as nothing it has
// yet to read could change them: a tool result is settled at its first
// block's type, an attachment at its type, and their megabytes of output
// are never read.
type Need uint8

const (
	// NeedPrompt: whether a user row is a prompt (IsPrompt), and its
	// Content when it is.
	NeedPrompt Need = 1 << iota
	// NeedReply: an assistant row's Content.
	NeedReply
	// NeedStamp: the Timestamp of the rows read for NeedPrompt and
	// NeedReply: prompts and assistant rows.
	NeedStamp
	// needWhole reads every row to its end (part of NeedAll).
	needWhole
	// NeedAll: every field of every row, each row read to its end.
	NeedAll = NeedPrompt | NeedReply | NeedStamp | needWhole
)

// Row is what a transcript line is, read from its top-level keys the way
// encoding/json would decode them (key order, white space and escapes
// make no difference), without decoding the values it does not need. A
// key repeated in one object is read at its first occurrence only, where
// encoding/json would take the last (Claude Code never repeats a key), so
// that where Classify stops never changes what it found. The fields a
// caller's Need does not cover may be left unset.
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
// as Row, for what need covers. ok is false when the line is not a JSON
// object; that check is structural (quotes and brackets) over the bytes
// read, and asks a row left unread at its end to close with a brace.
func Classify(line []byte, need Need) (Row, bool) {
	c := classifier{line: line, need: need}
	end, ok := jsonl.Members(line, jsonl.SkipSpace(line, 0), c.member)
	if c.stopped {
		t := bytes.TrimRight(line, " \t\r\n")
		return c.r, len(t) > 0 && t[len(t)-1] == '}'
	}
	return c.r, ok && jsonl.SkipSpace(line, end) == len(line)
}

// classifier is one Classify call: the keys seen so far (the first of a
// repeated key wins) and whether it stopped early. A callback that stops
// returns ok=false with stopped set, which unwinds every walk it is in.
type classifier struct {
	line                                   []byte
	need                                   Need
	r                                      Row
	sawType, sawMeta, sawCompact, sawStamp bool
	sawMessage                             bool
	stopped                                bool
}

// member reads one top-level member: v is its value's first byte.
func (c *classifier) member(key []byte, v int) (int, bool) {
	line, r := c.line, &c.r
	end, ok := v, true
	switch string(key) {
	case "type":
		if c.sawType {
			return jsonl.Skip(line, v)
		}
		c.sawType = true
		if line[v] != '"' {
			end, ok = jsonl.Skip(line, v)
			break
		}
		n, esc, sok := jsonl.StringEnd(line[v:])
		if !sok {
			return v, false
		}
		r.Type = typeName(line[v:v+n], esc)
		end = v + n
	case "isMeta", "isCompactSummary":
		saw := &c.sawMeta
		flag := &r.IsMeta
		if string(key) == "isCompactSummary" {
			saw, flag = &c.sawCompact, &r.IsCompactSummary
		}
		end, ok = jsonl.Skip(line, v)
		if *saw {
			return end, ok
		}
		*saw = true
		*flag = string(line[v:end]) == "true"
	case "timestamp":
		end, ok = jsonl.Skip(line, v)
		if c.sawStamp {
			return end, ok
		}
		c.sawStamp = true
		r.Timestamp = line[v:end]
	case "message":
		if c.sawMessage {
			return jsonl.Skip(line, v)
		}
		c.sawMessage = true
		if line[v] != '{' {
			end, ok = jsonl.Skip(line, v) // no content
			break
		}
		end, ok = c.message(v)
	default:
		return jsonl.Skip(line, v)
	}
	if ok && c.settled() {
		c.stopped = true
		return end, false
	}
	return end, ok
}

// settled says nothing Classify has yet to read could change the fields
// c.need covers: the row's type is known and, for a user or assistant row
// the need reads further, what it reads further has been found (or, for a
// user row, it cannot be a prompt whatever follows).
func (c *classifier) settled() bool {
	if c.need&needWhole != 0 || !c.sawType {
		return false
	}
	r := &c.r
	stamped := c.need&NeedStamp == 0 || c.sawStamp
	switch r.Type {
	case "user":
		if c.need&NeedPrompt == 0 || r.ToolResult || r.IsMeta || r.IsCompactSummary {
			return true
		}
		if c.sawMessage && !promptContent(r.Content) {
			return true
		}
		// A prompt so far: a late isMeta or isCompactSummary would make it
		// none, so it is read to its end unless both have been seen.
		return c.sawMessage && c.sawMeta && c.sawCompact && stamped
	case "assistant":
		return c.need&NeedReply == 0 || c.sawMessage && stamped
	}
	return true
}

// message reads the message object at line[v], for its content (the
// first "content" key wins). Its blocks are read for a tool result only
// when the row may be a user row; an assistant row's are skipped.
func (c *classifier) message(v int) (int, bool) {
	line, r := c.line, &c.r
	seen := false
	return jsonl.Members(line, v, func(key []byte, v int) (int, bool) {
		if seen || string(key) != "content" {
			return jsonl.Skip(line, v)
		}
		seen = true
		blocks := line[v] == '[' && (!c.sawType || r.Type == "user" || c.need&needWhole != 0)
		if !blocks {
			end, ok := jsonl.Skip(line, v)
			r.Content = line[v:end]
			return end, ok
		}
		end, ok := jsonl.Elements(line, v, func(e int) (int, bool) {
			if line[e] != '{' || r.ToolResult {
				return jsonl.Skip(line, e) // one tool result settles it
			}
			return c.block(e)
		})
		if ok {
			r.Content = line[v:end] // left nil when the walk stopped inside
		}
		return end, ok
	})
}

// block reads the content block at line[e] for whether its type (the
// first "type" key) is "tool_result", and stops there once that settles
// the row: the block's output, after its type, is never read.
func (c *classifier) block(e int) (int, bool) {
	line := c.line
	seen := false
	return jsonl.Members(line, e, func(key []byte, v int) (int, bool) {
		if seen || string(key) != "type" {
			return jsonl.Skip(line, v)
		}
		seen = true
		if line[v] != '"' {
			return jsonl.Skip(line, v)
		}
		n, esc, ok := jsonl.StringEnd(line[v:])
		if !ok {
			return v, false
		}
		if isName(line[v:v+n], esc, "tool_result") {
			c.r.ToolResult = true
			if c.settled() {
				c.stopped = true
				return v + n, false
			}
		}
		return v + n, true
	})
}

// promptContent says content can be a prompt's: a string or a list.
func promptContent(content []byte) bool {
	return len(content) > 0 && (content[0] == '"' || content[0] == '[')
}

// isName says the string literal lit is name, decoding it only when it
// holds escapes.
func isName(lit []byte, esc bool, name string) bool {
	if !esc {
		return string(lit[1:len(lit)-1]) == name
	}
	s, _, _ := jsonl.String(lit)
	return s == name
}

// typeName decodes a row type's string literal, without allocating for
// the conversation rows' names.
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
		}
	}
	s, _, _ := jsonl.String(lit)
	return s
}

// IsPrompt says the row is something a person typed: a user row that is
// not meta (a system reminder), not a compaction summary and not a tool
// result, whose content is a string or a list of blocks.
func (r *Row) IsPrompt() bool {
	return r.Type == "user" && !r.IsMeta && !r.IsCompactSummary && !r.ToolResult && promptContent(r.Content)
}

// TextBlocks calls fn with the string literal of each text block of
// content (a list of blocks): an object whose "type" is "text" and whose
// "text" is a string (the first of a repeated key wins, as in Classify).
// A string content is one text, passed as it is.
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
		var isText, sawType, sawText bool
		var text []byte
		end, ok := jsonl.Members(content, e, func(key []byte, v int) (int, bool) {
			end, ok := jsonl.Skip(content, v)
			switch string(key) {
			case "type":
				if !sawType && ok && content[v] == '"' {
					isText = isName(content[v:end], bytes.IndexByte(content[v:end], '\\') >= 0, "text")
				}
				sawType = true
			case "text":
				if !sawText && content[v] == '"' {
					text = content[v:end]
				}
				sawText = true
			}
			return end, ok
		})
		if ok && isText && text != nil {
			stop = !fn(text)
		}
		return end, ok
	})
}

// promptHead is how much of a text longer than jsonl.DecodeCap is decoded to
// show its start: far more than the 200 characters shown.
const promptHead = 64 << 10

// DecodeText decodes a text's string literal whole when it is at most
// jsonl.DecodeCap long; a longer one (or one cut off, whole=false) is decoded
// from its start, promptHead bytes of it. lit is a JSON string literal,
// or the first bytes of one.
func DecodeText(lit []byte, whole bool) (string, bool) {
	if whole && len(lit) <= jsonl.DecodeCap {
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
	return jsonl.Oneline(renderCommand(t))
}

// trimSpace is bytes.TrimSpace, also returning how many bytes were cut
// from the front.
func trimSpace(b []byte) ([]byte, int) {
	t := bytes.TrimLeft(b, " \t\r\n\v\f")
	lead := len(b) - len(t)
	return bytes.TrimRight(t, " \t\r\n\v\f"), lead
}
