package transcript

import (
	"bytes"
	"strconv"
	"time"

	"forgectl.dev/shared/jsonl"
)

// Usage is what a session's API responses say about what it costs, read
// from its assistant rows' message.usage as the rows are summarised (so a
// listing's index keeps it, and an append updates it), never from a whole
// file read apart.
//
// What resuming reloads and whether the prompt cache is still warm follow
// Claude Code's own computation for the SessionStart hook of a resumed
// session (2.1.333 bundle, function v_s with dLo and R_s; see
// facts/claude-code.md §g): the newest metered response since the last
// compaction gives the context, the newest response that is not synthetic
// gives the time and the cache's time to live.
type Usage struct {
	// Context is the newest metered response's input, cache-read and
	// cache-creation tokens: what the next request sends again. Output is
	// its output tokens (Claude Code's own context_tokens adds them).
	Context, Output int64
	// Model is the newest response's model.
	Model string
	// ReplyAtMs is the newest response's timestamp (Unix milliseconds),
	// 0 when there is none or it does not parse.
	ReplyAtMs int64
	// TTL is the cache time to live the newest response's writes asked for:
	// "5m", "1h", or "" when it wrote no cache.
	TTL string
	// Compacted says a compaction came after the newest metered response:
	// Claude Code then counts the cache as expired whatever the time.
	Compacted bool
	// Used is the tokens (input, cache read, cache creation and output)
	// of every response but the newest; MsgID and MsgTokens are the newest
	// response's id and tokens. Claude Code writes one row per content
	// block of a response, each with the response's usage, so a response
	// is counted once: at its last row, when the next response begins.
	Used      int64
	MsgID     string
	MsgTokens int64
}

// TokensUsed is the tokens every response of the session took.
func (u *Usage) TokensUsed() int64 { return u.Used + u.MsgTokens }

// synthetic is the model Claude Code gives the replies it makes up itself
// (an interruption's notice): not a response, never metered.
const synthetic = "<synthetic>"

// The fast reading of an assistant row: Claude Code writes the response's
// model and id before its content and its usage after it, so they are
// looked for in the row's first and last bytes, and its content (a
// file written whole, a long reply) is never walked. A row laid out
// otherwise is walked member by member (assistantWalk).
const (
	usageHead = 1 << 10
	usageTail = 16 << 10
)

// assistant reads an assistant row's response for u. window is the
// row's last bytes, which env was scanned from (conversation).
func (u *Usage) assistant(line, window []byte, env *envelope) {
	if !u.assistantFast(line, window, env) {
		u.assistantWalk(line)
	}
}

func (u *Usage) assistantFast(line, window []byte, env *envelope) bool {
	head := line[:min(len(line), usageHead)]
	// The usage and the envelope after it are most often in the row's last
	// kilobytes, where the envelope scan found the last usage already; a
	// usage with many server-tool iterations can start further in. The
	// last usage of a longer tail is the window's whenever the window
	// holds one, so in a row that is JSON this finds what searching the
	// last 2 KB, then 16 KB, finds (FuzzUsageIsTheTailsLast).
	tail, at := window, env.at[keyUsage]
	if at < 0 && len(line) > len(window) {
		tail = line[max(0, len(line)-usageTail):]
		at = lastUsage(tail)
	}
	model, mok := firstStringAs(head, `"model"`, u.Model)
	if at < 0 || !mok {
		return false
	}
	id, _ := firstStringAs(head, `"id"`, u.MsgID)
	// The row's timestamp is its envelope's, which the envelope scan
	// found already (a search of the tail again was a tenth of a cold
	// listing); else the last of the row's last 16 KB, as before.
	stamp, ok := env.value(window, keyTimestamp)
	if !ok && len(line) > len(window) {
		stamp, _ = lastString(line[max(0, len(line)-usageTail):], `"timestamp"`)
	}
	var in, cr, cc, out int64
	_, ttl, ok := readUsage(tail, at, &in, &cr, &cc, &out)
	if !ok {
		return false
	}
	// A top-level flag, written in the envelope after the message.
	unmetered := isTrue(tail[at:], `"isUnmetered"`)
	u.response(model, id, stampOf(stamp), true, unmetered, in, cr, cc, out, ttl)
	return true
}

// lastUsage is where the value of b's last usage member stands, when it
// is an object: the message's follows every block, and nothing after the
// message has one. -1 for none.
func lastUsage(b []byte) int {
	at := -1
	for p, v := nextMember(b, 0, `"usage"`); p >= 0; p, v = nextMember(b, p+len(`"usage"`), `"usage"`) {
		if b[v] == '{' {
			at = v
		}
	}
	return at
}

// readUsage reads the usage object at b[v]: its token counts and the
// cache time to live its writes asked for.
func readUsage(b []byte, v int, in, cr, cc, out *int64) (end int, ttl string, ok bool) {
	end, ok = jsonl.Members(b, v, func(key []byte, v int) (int, bool) {
		switch string(key) {
		case "input_tokens":
			return number(b, v, in)
		case "cache_read_input_tokens":
			return number(b, v, cr)
		case "cache_creation_input_tokens":
			return number(b, v, cc)
		case "output_tokens":
			return number(b, v, out)
		case "cache_creation":
			if b[v] == '{' {
				var m5, h1 int64
				end, ok := jsonl.Members(b, v, func(key []byte, v int) (int, bool) {
					switch string(key) {
					case "ephemeral_5m_input_tokens":
						return number(b, v, &m5)
					case "ephemeral_1h_input_tokens":
						return number(b, v, &h1)
					}
					return jsonl.Skip(b, v)
				})
				// Yyt in the bundle: 5m wins when both were written.
				switch {
				case m5 > 0:
					ttl = "5m"
				case h1 > 0:
					ttl = "1h"
				}
				return end, ok
			}
		}
		return jsonl.Skip(b, v)
	})
	return end, ttl, ok
}

// assistantWalk reads an assistant row member by member.
func (u *Usage) assistantWalk(line []byte) {
	var (
		model, id  string
		stamp      []byte
		unmetered  bool
		in, cr, cc int64
		out        int64
		ttl        string
		hasUsage   bool
	)
	jsonl.Members(line, jsonl.SkipSpace(line, 0), func(key []byte, v int) (int, bool) {
		switch string(key) {
		case "timestamp":
			end, ok := jsonl.Skip(line, v)
			if stamp == nil && ok {
				stamp = line[v:end]
			}
			return end, ok
		case "isUnmetered":
			end, ok := jsonl.Skip(line, v)
			unmetered = unmetered || string(line[v:end]) == "true"
			return end, ok
		case "message":
			if line[v] != '{' {
				return jsonl.Skip(line, v)
			}
			return jsonl.Members(line, v, func(key []byte, v int) (int, bool) {
				switch string(key) {
				case "model":
					if s, rest, ok := jsonl.String(line[v:]); ok {
						model = s
						return len(line) - len(rest), true
					}
				case "id":
					if s, rest, ok := jsonl.String(line[v:]); ok {
						id = s
						return len(line) - len(rest), true
					}
				case "usage":
					if line[v] == '{' {
						hasUsage = true
						var end int
						var ok bool
						end, ttl, ok = readUsage(line, v, &in, &cr, &cc, &out)
						return end, ok
					}
				}
				return jsonl.Skip(line, v)
			})
		}
		return jsonl.Skip(line, v)
	})
	u.response(model, id, stampMs(stamp), hasUsage, unmetered, in, cr, cc, out, ttl)
}

// response takes one assistant row's response into u.
func (u *Usage) response(model, id string, atMs int64, hasUsage, unmetered bool, in, cr, cc, out int64, ttl string) {
	if model == synthetic {
		return
	}
	u.Model, u.TTL, u.ReplyAtMs = model, ttl, atMs
	total := in + cr + cc + out
	if !hasUsage || unmetered || total == 0 {
		return
	}
	u.Context, u.Output, u.Compacted = in+cr+cc, out, false
	if id == "" || id != u.MsgID {
		u.Used += u.MsgTokens
	}
	u.MsgID, u.MsgTokens = id, total
}

// compaction notes a compact_boundary row: until a metered response
// follows, the context is what the compaction left (its postTokens when
// the row says, else unknown: 0) and the cache counts as expired.
func (u *Usage) compaction(line []byte) {
	u.Compacted = true
	u.Context, u.Output = 0, 0
	if i := bytes.Index(line, []byte(`"postTokens"`)); i >= 0 {
		if v, ok := valueAt(line, i, "postTokens"); ok {
			var n int64
			if _, ok := number(line, v, &n); ok {
				u.Context = n
			}
		}
	}
}

// number reads the JSON integer at b[v] into n (a non-integer leaves n as
// it was) and returns the index past the value.
func number(b []byte, v int, n *int64) (int, bool) {
	end, ok := jsonl.Skip(b, v)
	if !ok {
		return end, false
	}
	if x, err := strconv.ParseInt(string(b[v:end]), 10, 64); err == nil && x >= 0 {
		*n = x
	}
	return end, true
}

// stampMs is a row's RFC 3339 timestamp literal in Unix milliseconds; 0
// when it does not parse.
func stampMs(lit []byte) int64 {
	if len(lit) < 2 {
		return 0
	}
	s, _, ok := jsonl.String(lit)
	if !ok {
		return 0
	}
	return stampOf(s)
}

// stampOf is an RFC 3339 time in Unix milliseconds; 0 when it does not
// parse.
func stampOf(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
