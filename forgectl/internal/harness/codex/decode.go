package codex

import (
	"bytes"
	"strconv"

	"forgectl.dev/shared/jsonl"
)

// The listing reads a few members of a rollout line's payload (and of the
// lines of history.jsonl and session_index.jsonl). It walks
// the line to them (jsonl.Members) instead of decoding it with
// encoding/json, which validates the whole line, then decodes it by
// reflection, and cost a cold listing more CPU than the rest of the Codex
// side together. The walk keeps encoding/json's results exactly, as if
// the line were decoded into {"payload": T} for each T below, with its
// verdict: ok is false for a line encoding/json rejects, as invalid JSON
// (jsonl.Valid) or for a value of the wrong type in a member T has.
// What encoding/json does and the walk does too:
//   - a key matches a member without regard to case (bytes.EqualFold);
//   - a member given twice decodes the second value over the first: an
//     object's members merge, an array's elements decode over the ones
//     before them;
//   - null leaves a string, a number or a struct as it was, and sets a
//     pointer or a slice to nil;
//   - an int64 takes only an integer that fits.
//
// decode_test.go checks the walk against encoding/json on every line of
// the fixtures and by fuzzing.

// part is one element of a message's content.
type part struct{ Type, Text string }

type eventPayload struct {
	Type, Message, Name string // Name: thread_name
	Item                *eventItem
}

type eventItem struct {
	Type    string
	Content []part
}

// usagePayload is a token_count event's.
type usagePayload struct {
	Type string
	Info *tokenInfo
}

type tokenInfo struct {
	Total, Last *tokenUsage // total_token_usage, last_token_usage
}

// tokenUsage is a token_count event's figures. OpenAI counts cached
// input inside input_tokens (cached_input_tokens is the part of it read
// from the cache), so input_tokens is the whole context a response read.
type tokenUsage struct {
	Input, Total int64 // input_tokens, total_tokens
}

type metaPayload struct {
	ID, Timestamp, Cwd, Originator, CLIVersion string
	Source                                     []byte // the raw value, as a json.RawMessage
	ThreadSource, ForkedFromID, ParentThread   string
	HistoryMode                                string
	HistoryBase                                *threadRef
	Git                                        *gitInfo
}

type threadRef struct{ ThreadID string }

type gitInfo struct{ Branch string }

var (
	eventKeys = []string{"type", "message", "thread_name", "item"}
	itemKeys  = []string{"type", "content"}
	partKeys  = []string{"type", "text"}
	usageKeys = []string{"type", "info"}
	infoKeys  = []string{"total_token_usage", "last_token_usage"}
	tokenKeys = []string{"input_tokens", "total_tokens"}
	metaKeys  = []string{"id", "timestamp", "cwd", "originator", "cli_version", "source", "thread_source",
		"forked_from_id", "parent_thread_id", "history_mode", "history_base", "git"}
)

func decodeEvent(line []byte) (p eventPayload, ok bool) {
	w := walker{b: line}
	ok = w.payload(func(key []byte, v int) int {
		switch member(key, eventKeys) {
		case 0:
			return w.str(v, &p.Type)
		case 1:
			return w.str(v, &p.Message)
		case 2:
			return w.str(v, &p.Name)
		case 3:
			return object(&w, v, &p.Item, func(it *eventItem, key []byte, v int) int {
				switch member(key, itemKeys) {
				case 0:
					return w.str(v, &it.Type)
				case 1:
					return w.parts(v, &it.Content)
				}
				return w.skip(v)
			})
		}
		return w.skip(v)
	})
	return p, ok
}

func decodeUsage(line []byte) (p usagePayload, ok bool) {
	w := walker{b: line}
	tokens := func(u *tokenUsage, key []byte, v int) int {
		switch member(key, tokenKeys) {
		case 0:
			return w.int(v, &u.Input)
		case 1:
			return w.int(v, &u.Total)
		}
		return w.skip(v)
	}
	ok = w.payload(func(key []byte, v int) int {
		switch member(key, usageKeys) {
		case 0:
			return w.str(v, &p.Type)
		case 1:
			return object(&w, v, &p.Info, func(in *tokenInfo, key []byte, v int) int {
				switch member(key, infoKeys) {
				case 0:
					return object(&w, v, &in.Total, tokens)
				case 1:
					return object(&w, v, &in.Last, tokens)
				}
				return w.skip(v)
			})
		}
		return w.skip(v)
	})
	return p, ok
}

// decodeModel is a turn_context's model.
func decodeModel(line []byte) (model string, ok bool) {
	w := walker{b: line}
	ok = w.payload(func(key []byte, v int) int {
		if member(key, []string{"model"}) == 0 {
			return w.str(v, &model)
		}
		return w.skip(v)
	})
	return model, ok
}

// decodeContent is a response_item's content.
func decodeContent(line []byte) (content []part, ok bool) {
	w := walker{b: line}
	ok = w.payload(func(key []byte, v int) int {
		if member(key, []string{"content"}) == 0 {
			return w.parts(v, &content)
		}
		return w.skip(v)
	})
	return content, ok
}

func decodeMeta(line []byte) (m metaPayload, ok bool) {
	w := walker{b: line}
	ok = w.payload(func(key []byte, v int) int {
		k := member(key, metaKeys)
		switch k {
		case 5:
			end := w.skip(v)
			m.Source = line[v:end]
			return end
		case 10:
			return object(&w, v, &m.HistoryBase, func(r *threadRef, key []byte, v int) int {
				if member(key, []string{"thread_id"}) == 0 {
					return w.str(v, &r.ThreadID)
				}
				return w.skip(v)
			})
		case 11:
			return object(&w, v, &m.Git, func(g *gitInfo, key []byte, v int) int {
				if member(key, []string{"branch"}) == 0 {
					return w.str(v, &g.Branch)
				}
				return w.skip(v)
			})
		case -1:
			return w.skip(v)
		}
		dst := [...]*string{&m.ID, &m.Timestamp, &m.Cwd, &m.Originator, &m.CLIVersion, nil,
			&m.ThreadSource, &m.ForkedFromID, &m.ParentThread, &m.HistoryMode}
		return w.str(v, dst[k])
	})
	return m, ok
}

// decodeHistory is a history.jsonl line's thread and time.
func decodeHistory(line []byte) (id string, ts int64, ok bool) {
	w := walker{b: line}
	ok = w.line(func(key []byte, v int) int {
		switch member(key, []string{"session_id", "ts"}) {
		case 0:
			return w.str(v, &id)
		case 1:
			return w.int(v, &ts)
		}
		return w.skip(v)
	})
	return id, ts, ok
}

// decodeName is a session_index.jsonl line's thread and name.
func decodeName(line []byte) (id, name string, ok bool) {
	w := walker{b: line}
	ok = w.line(func(key []byte, v int) int {
		switch member(key, []string{"id", "thread_name"}) {
		case 0:
			return w.str(v, &id)
		case 1:
			return w.str(v, &name)
		}
		return w.skip(v)
	})
	return id, name, ok
}

// member is the index of the name key matches, as encoding/json matches
// a key to a struct field, or -1.
func member(key []byte, names []string) int {
	for k, n := range names {
		if string(key) == n {
			return k
		}
	}
	for k, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return k
		}
	}
	return -1
}

// walker walks one line. Each method takes the index of a value's first
// byte and returns the index just past it; bad notes a value of the wrong
// type, and the walk stops at it.
type walker struct {
	b   []byte
	bad bool
}

// payload walks the line's payload member's object, fn decoding each of
// its members, and says whether encoding/json would take the line.
func (w *walker) payload(fn func(key []byte, v int) int) bool {
	return w.line(func(key []byte, v int) int {
		if member(key, []string{"payload"}) == 0 {
			return w.members(v, fn)
		}
		return w.skip(v)
	})
}

// line walks the line's object, fn decoding each of its members, and says
// whether encoding/json would take the line.
func (w *walker) line(fn func(key []byte, v int) int) bool {
	if !jsonl.Valid(w.b) {
		return false
	}
	w.members(jsonl.SkipSpace(w.b, 0), fn)
	return !w.bad
}

// members walks the object at v, as a struct's: null leaves it as it is.
func (w *walker) members(v int, fn func(key []byte, v int) int) int {
	switch w.b[v] {
	case 'n':
		return v + len("null")
	case '{':
	default:
		return w.wrong(v)
	}
	end, ok := jsonl.Members(w.b, v, func(key []byte, v int) (int, bool) {
		end := fn(key, v)
		return end, !w.bad
	})
	if !ok {
		w.bad = true
	}
	return end
}

// object walks the object at v into *p, a new T when *p is nil, as a
// pointer's: null sets it to nil.
func object[T any](w *walker, v int, p **T, fn func(t *T, key []byte, v int) int) int {
	switch w.b[v] {
	case 'n':
		*p = nil
		return v + len("null")
	case '{':
	default:
		return w.wrong(v)
	}
	if *p == nil {
		*p = new(T)
	}
	t := *p
	return w.members(v, func(key []byte, v int) int { return fn(t, key, v) })
}

// parts walks the array at v into *dst as encoding/json decodes an array
// into a slice: element k decodes over the slice's element k when the
// slice's capacity reaches it, the slice is cut to the array's length,
// an empty array makes it empty and null nil.
func (w *walker) parts(v int, dst *[]part) int {
	switch w.b[v] {
	case 'n':
		*dst = nil
		return v + len("null")
	case '[':
	default:
		return w.wrong(v)
	}
	s, n := *dst, 0
	end, ok := jsonl.Elements(w.b, v, func(e int) (int, bool) {
		switch {
		case n < len(s):
		case n < cap(s):
			s = s[:n+1]
		default:
			s = append(s, part{})
		}
		p := &s[n]
		n++
		end := w.members(e, func(key []byte, v int) int {
			switch member(key, partKeys) {
			case 0:
				return w.str(v, &p.Type)
			case 1:
				return w.str(v, &p.Text)
			}
			return w.skip(v)
		})
		return end, !w.bad
	})
	if !ok {
		w.bad = true
	}
	if n < len(s) {
		s = s[:n]
	}
	if n == 0 {
		s = []part{}
	}
	*dst = s
	return end
}

// str decodes a string; null leaves *dst as it is.
func (w *walker) str(v int, dst *string) int {
	switch w.b[v] {
	case 'n':
		return v + len("null")
	case '"':
	default:
		return w.wrong(v)
	}
	s, rest, ok := jsonl.String(w.b[v:])
	if !ok {
		w.bad = true
		return v
	}
	*dst = s
	return len(w.b) - len(rest)
}

// int decodes an integer that fits an int64; null leaves *dst as it is.
func (w *walker) int(v int, dst *int64) int {
	switch c := w.b[v]; {
	case c == 'n':
		return v + len("null")
	case c == '-' || '0' <= c && c <= '9':
	default:
		return w.wrong(v)
	}
	end := w.skip(v)
	n, err := strconv.ParseInt(string(w.b[v:end]), 10, 64)
	if err != nil {
		w.bad = true // a fraction, an exponent, or too large
		return end
	}
	*dst = n
	return end
}

func (w *walker) skip(v int) int {
	end, ok := jsonl.Skip(w.b, v)
	if !ok {
		w.bad = true
	}
	return end
}

// wrong notes a value of the wrong type for where it is.
func (w *walker) wrong(v int) int {
	w.bad = true
	return w.skip(v)
}
