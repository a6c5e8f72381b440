package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"github.com/klauspost/compress/zstd"
)

// format is the version of segment's encoding and of the reading that
// fills it, folded into the index's header (harness.Harness.Format).
const format = 5

// Format is the version of what the listing stores for Codex.
func (h *Harness) Format() uint64 { return format }

// segment is what one rollout file says, as the listing's index keeps it:
// its session_meta (the 22 KB first line, read once while the file keeps
// its inode) and what its turns added up to, up to Offset.
type segment struct {
	// ID is session_meta.payload.id: the thread the segment belongs to.
	// It is the record's first field, so grouping decodes only it.
	ID string
	fresh.File
	Sums   fresh.Sums
	Offset int64

	Created              string // session_meta.payload.timestamp
	Cwd, Branch, Version string
	Originator, Source   string // Source: "exec", "cli", "vscode", "subagent", …
	ThreadSource         string
	Parent               string // a subagent's parent_thread_id
	ForkedFrom           string // forked_from_id, or a legacy fork's copied session_meta id
	BaseThread           string // history_base.thread_id: the thread a rewind or a fork starts from
	Paginated            bool
	Copying              bool   // inside a legacy fork's copy of its parent
	CopyOf               string // the id of the session_meta a legacy fork copied
	CopyCreated          string // its timestamp, which places the parent's file
	// CopyLines is how many of the parent's lines the copy has matched so
	// far, or -1 when the parent's file was not there to match (legacy.go).
	CopyLines                   int
	First, Last                 string
	FallbackFirst, FallbackLast string
	NameEvent                   string
	Messages, Broken            int
	LastMs                      int64 // the newest line timestamp
	// What the newest token_count event said (UsageMs its time, zero
	// when none came): the newest response's input tokens, cached ones
	// included, and the thread's total so far; Model is the newest
	// turn_context's.
	Model                 string
	ContextTokens, Tokens int64
	UsageMs               int64

	// open opens a legacy fork's parent's file while it is read; copy is
	// that file, open. Neither is stored.
	open func(id, created string) *parentFile
	copy *parentFile
	// lines counts the lines this read passed: only a segment's first
	// line names its thread. Not stored.
	lines int
}

func (g *segment) stamp() *fresh.Stamp {
	return &fresh.Stamp{File: g.File, Offset: g.Offset, Sums: g.Sums}
}

func (g *segment) strings() []*string {
	return []*string{&g.Created, &g.Cwd, &g.Branch, &g.Version, &g.Originator, &g.Source, &g.ThreadSource,
		&g.Parent, &g.ForkedFrom, &g.BaseThread, &g.First, &g.Last, &g.FallbackFirst, &g.FallbackLast, &g.NameEvent, &g.Model, &g.CopyOf, &g.CopyCreated}
}

// Encode appends the record (harness.Record).
func (g *segment) Encode(e *binrec.Encoder) {
	e.String(g.ID)
	e.Uint(uint64(g.Sums.Head))
	e.Uint(uint64(g.Sums.Tail))
	e.Int(g.Offset)
	for _, s := range g.strings() {
		e.String(*s)
	}
	e.Bool(g.Paginated)
	e.Bool(g.Copying)
	e.Int(int64(g.CopyLines))
	e.Int(int64(g.Messages))
	e.Int(int64(g.Broken))
	e.Int(g.LastMs)
	e.Int(g.ContextTokens)
	e.Int(g.Tokens)
	e.Int(g.UsageMs)
}

// storedID is the thread id a stored record names, decoding nothing else.
func storedID(payload string) (string, bool) {
	d := binrec.Decoder{S: payload}
	id := d.String()
	return id, d.Err() == nil && id != ""
}

// decodeSegment decodes what Encode wrote, for a file whose stat was file.
func decodeSegment(file fresh.File, payload string) (*segment, error) {
	d := binrec.Decoder{S: payload}
	g := &segment{File: file}
	g.ID = d.String()
	g.Sums = fresh.Sums{Head: uint32(d.Uint()), Tail: uint32(d.Uint())}
	g.Offset = d.Int()
	for _, s := range g.strings() {
		*s = d.String()
	}
	g.Paginated = d.Bool()
	g.Copying = d.Bool()
	g.CopyLines = int(d.Int())
	g.Messages = int(d.Int())
	g.Broken = int(d.Int())
	g.LastMs = d.Int()
	g.ContextTokens = d.Int()
	g.Tokens = d.Int()
	g.UsageMs = d.Int()
	if d.Err() != nil {
		return nil, d.Err()
	}
	if d.Rest() != 0 || g.Offset < 0 || g.Offset > g.Size {
		return nil, binrec.ErrCorrupt
	}
	return g, nil
}

// compressed says a segment is zstd-compressed.
func compressed(path string) bool { return strings.HasSuffix(path, zstSuffix) }

// openSegment opens a segment for reading from its start: a compressed
// one through a zstd decoder. close releases both.
func (h *Harness) openSegment(path string) (fh *os.File, r io.Reader, close func(), err error) {
	fh, err = fsutil.OpenRegular(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if !compressed(path) {
		return fh, fh, func() { fh.Close() }, nil
	}
	zr, err := h.decoder(fh)
	if err != nil {
		fh.Close()
		return nil, nil, nil, err
	}
	return fh, zr, func() { h.release(zr); fh.Close() }, nil
}

// decoder is a zstd decoder reading r, reused across segments: a new one
// allocates its window (2.5 MB) each time. One goroutine and the
// low-memory mode: a segment is a few MB at most and the listing already
// reads one per core.
func (h *Harness) decoder(r io.Reader) (*zstd.Decoder, error) {
	if d, ok := h.zstd.Get().(*zstd.Decoder); ok {
		if err := d.Reset(r); err == nil {
			return d, nil
		}
		d.Close()
	}
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
}

// release hands a decoder back for the next segment.
func (h *Harness) release(d *zstd.Decoder) {
	if d.Reset(nil) == nil {
		h.zstd.Put(d)
		return
	}
	d.Close()
}

// readSegment brings a segment's record up to date: nothing when old still
// holds, the appended bytes when the file grew (a plain one: a compressed
// segment is read whole again), else the whole file. It reports whether
// it read. openParent opens a legacy fork's parent (legacy.go).
func (h *Harness) readSegment(sc *jsonl.Scanner, path string, now fresh.File, old *segment, openParent func(id, created string) *parentFile) (*segment, bool, error) {
	if old != nil && old.stamp().Same(now) {
		return old, false, nil
	}
	fh, r, done, err := h.openSegment(path)
	if err != nil {
		return nil, true, err
	}
	defer done()
	g := &segment{}
	if old != nil && !compressed(path) && fresh.Decide(old.stamp(), now, fh) == fresh.Appended {
		*g = *old
		if _, err := fh.Seek(old.Offset, io.SeekStart); err != nil {
			return nil, true, err
		}
		sc.Reset(fh, old.Offset)
	} else {
		sc.Reset(r, 0)
	}
	g.File = now
	g.open = openParent
	defer g.closeCopy()
	for {
		line, ok := sc.Next()
		if !ok {
			break
		}
		g.line(line)
	}
	if err := sc.Err(); err != nil {
		return nil, true, err
	}
	g.Broken += sc.Skipped
	g.Offset = sc.Consumed()
	if compressed(path) {
		// The offset is into the decompressed stream: the stamp checks the
		// inode, size and mtime only, and any change reads it whole.
		g.Offset = 0
		return g, true, nil
	}
	st, err := fresh.Take(now, g.Offset, fh, sc.Spare())
	if err != nil {
		return nil, true, err
	}
	g.Sums = st.Sums
	return g, true, nil
}

// envelope is a rollout line's top level: {"timestamp","type","payload"},
// with "type" before "payload" as Codex writes it. Most lines are tool
// output or reasoning, read no further than their type.
func envelope(line []byte) (typ string, ts []byte, payload []byte) {
	i := bytes.Index(line, []byte(`"payload":`))
	if i < 0 {
		return "", nil, nil
	}
	head := line[:i]
	typ = string(field(head, `"type":"`))
	return typ, field(head, `"timestamp":"`), bytes.TrimLeft(line[i+len(`"payload":`):], " ")
}

func field(head []byte, key string) []byte {
	j := bytes.Index(head, []byte(key))
	if j < 0 {
		return nil
	}
	v := head[j+len(key):]
	if k := bytes.IndexByte(v, '"'); k >= 0 {
		return v[:k]
	}
	return nil
}

func millis(ts []byte) int64 {
	t, err := time.Parse(time.RFC3339Nano, string(ts))
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// line folds one rollout line into the record.
func (g *segment) line(line []byte) {
	g.lines++
	typ, ts, payload := envelope(line)
	if typ == "" {
		if len(bytes.TrimSpace(line)) > 0 && !jsonl.Valid(line) {
			g.Broken++
		}
		return
	}
	ms := millis(ts)
	if ms > g.LastMs {
		g.LastMs = ms
	}
	if typ == "session_meta" {
		g.meta(line)
		return
	}
	if g.Copying && g.copied(typ, payload) {
		return // the parent's turn, copied
	}
	switch typ {
	case "event_msg":
		if !g.usage(line, payload, ms) {
			g.event(line, payload)
		}
	case "turn_context":
		g.turnContext(line)
	case "response_item":
		if g.First != "" || !bytes.Contains(payload, []byte(`"role":"user"`)) {
			return
		}
		g.responseUser(line)
	}
	// compacted, world_state, token_usage_record (what token_count
	// says, per response) and whatever a later Codex adds hold nothing a
	// row shows.
}

// meta folds in a session_meta line: the segment's own (its first line),
// or a legacy fork's copy of its parent's.
func (g *segment) meta(line []byte) {
	m, ok := decodeMeta(line)
	if !ok {
		g.Broken++
		return
	}
	if g.ID == "" && g.lines > 1 {
		// The first line did not name the thread: a later session_meta
		// is a legacy fork's copy of its parent's, and taking it would
		// put the fork's lines in the parent's thread.
		g.Broken++
		return
	}
	if g.ID != "" {
		// A legacy fork carries its parent's session_meta as line 2, then
		// the parent's turns: they are the parent's, not the fork's.
		if m.ID != g.ID && g.CopyOf == "" {
			if g.ForkedFrom == "" {
				g.ForkedFrom = m.ID
			}
			g.Copying, g.CopyOf, g.CopyCreated = true, m.ID, m.Timestamp
			_, _, payload := envelope(line)
			g.copied("session_meta", payload) // the parent's line 1
		}
		return
	}
	g.ID, g.Created, g.Cwd, g.Originator, g.Version = m.ID, m.Timestamp, m.Cwd, m.Originator, m.CLIVersion
	if m.Git != nil {
		g.Branch = m.Git.Branch
	}
	g.ThreadSource, g.ForkedFrom, g.Parent = m.ThreadSource, m.ForkedFromID, m.ParentThread
	g.Paginated = m.HistoryMode == "paginated"
	if m.HistoryBase != nil {
		g.BaseThread = m.HistoryBase.ThreadID
	}
	if len(m.Source) > 0 && m.Source[0] == '"' {
		g.Source, _, _ = jsonl.String(m.Source)
		return
	}
	// An object, for a subagent: small, and only on its first line.
	var src any
	if json.Unmarshal(m.Source, &src) == nil {
		switch v := src.(type) {
		case map[string]any:
			if sub, ok := v["subagent"]; ok {
				g.Source = "subagent"
				if g.Parent == "" {
					g.Parent = findKey(sub, "parent_thread_id")
				}
			}
		}
	}
}

// findKey is the first string under key anywhere in v: where a subagent's
// parent sits inside source.subagent has moved between releases.
func findKey(v any, key string) string {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v[key].(string); ok && s != "" {
			return s
		}
		for _, c := range v {
			if s := findKey(c, key); s != "" {
				return s
			}
		}
	case []any:
		for _, c := range v {
			if s := findKey(c, key); s != "" {
				return s
			}
		}
	}
	return ""
}

var eventTypes = [][]byte{[]byte(`"user_message"`), []byte(`"agent_message"`), []byte(`"item_completed"`), []byte(`"thread_name_updated"`)}

func (g *segment) event(line, payload []byte) {
	// Codex writes a payload's "type" first, but the check does not rely
	// on it: a key can never appear inside a JSON string (its quotes would
	// be escaped), so the whole payload is looked through.
	head := payload
	interesting := false
	for _, t := range eventTypes {
		if bytes.Contains(head, t) {
			interesting = true
			break
		}
	}
	if !interesting {
		return
	}
	p, ok := decodeEvent(line)
	if !ok {
		g.Broken++
		return
	}
	switch p.Type {
	case "thread_name_updated":
		if p.Name != "" {
			g.NameEvent = p.Name
		}
	case "user_message":
		if !g.Paginated {
			g.prompt(p.Message)
		}
	case "agent_message":
		if !g.Paginated {
			g.Messages++
		}
	case "item_completed":
		if p.Item == nil {
			return
		}
		switch p.Item.Type {
		case "UserMessage":
			var b strings.Builder
			for _, c := range p.Item.Content {
				if strings.EqualFold(c.Type, "text") {
					b.WriteString(c.Text)
				}
			}
			g.prompt(b.String())
		case "AgentMessage":
			g.Messages++
		}
	}
}

// usage reads a token_count event; false for any other event. Codex
// writes one after each response: last_token_usage is that response's,
// total_token_usage the thread's so far. Its info is null before the
// first response.
func (g *segment) usage(line, payload []byte, ms int64) bool {
	if !bytes.Contains(payload, []byte(`"token_count"`)) {
		return false
	}
	p, ok := decodeUsage(line)
	if !ok || p.Type != "token_count" {
		return false
	}
	if in := p.Info; in != nil && (in.Last != nil || in.Total != nil) {
		g.ContextTokens, g.Tokens = 0, 0
		if in.Last != nil {
			g.ContextTokens = in.Last.Input
		}
		if in.Total != nil {
			g.Tokens = in.Total.Total
		}
		g.UsageMs = ms
	}
	return true
}

// turnContext notes the model a turn ran with.
func (g *segment) turnContext(line []byte) {
	if model, ok := decodeModel(line); ok && model != "" {
		g.Model = model
	}
}

// prompt notes a prompt as typed.
func (g *segment) prompt(text string) {
	text = clip(text)
	if strings.TrimSpace(text) == "" {
		return
	}
	g.Messages++
	if g.First == "" {
		g.First = text
	}
	g.Last = text
}

// responseUser notes what the model saw as a user message, a last resort
// for a rollout with no typed prompt: the injected blocks
// (<environment_context>, skills, AGENTS.md) are not prompts.
func (g *segment) responseUser(line []byte) {
	content, ok := decodeContent(line)
	if !ok {
		return
	}
	for _, c := range content {
		if injected(c.Text) {
			continue
		}
		t := clip(c.Text)
		if g.FallbackFirst == "" {
			g.FallbackFirst = t
		}
		g.FallbackLast = t
	}
}

// injected says a user message is what Codex added, not what was typed.
func injected(text string) bool {
	t := strings.TrimSpace(text)
	return t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md")
}

// clip is a prompt as a row shows it: one line, at most 200 characters,
// as for Claude Code.
func clip(s string) string { return jsonl.Oneline(s) }
