// Package transcript summarises Claude Code transcripts
// (projects/<encoded-cwd>/<sessionId>.jsonl) for listing and picking.
//
// Transcripts reach 100 MB with multi-megabyte lines, so a Summary is built
// without decoding most lines: every row's kind (its top-level type,
// isMeta, whether it is a tool result) is read by Classify, which search
// uses too, skipping over the values it does not need and stopping once
// the kind is settled (a tool result's output is never read). Conversation
// rows carry their envelope (cwd, sessionId, version, gitBranch) at the end
// of the line, so only a small tail window of each is searched. Only the first
// human prompt's text is decoded. Transcripts are append-only, so a Summary
// records how far it parsed and Update reads just the appended bytes.
//
// The lineage markers (forkedFrom, requestSessionId, session_id and an
// opening /clear command, see package lineage) sit in the same envelope
// window and are found by the same byte search, never by decoding a row.
package transcript

import (
	"bytes"
	"encoding/json"
	"io"
	"math/bits"
	"os"
	"strings"
	"unicode/utf8"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/lineage"
)

// ParserVersion changes whenever Summary's meaning changes, so cached
// summaries from an older parser are rebuilt rather than trusted. 4: rows
// are read by Classify, and LastUserOff/LastUserLen locate the prompt's
// text literal, not its row. 5: envelope keys spaced around their colon
// are read (a summary cached by 4 has no cwd, branch or version for them).
// 6: assistant rows' usage is read (Usage).
const ParserVersion = 6

// Summary is what a listing needs from one transcript.
type Summary struct {
	SessionID  string
	Cwd        string // the first cwd recorded (the project the session belongs to)
	LastCwd    string // the newest cwd (a session can cd elsewhere)
	Relocated  string // relocatedCwd, when the session was relocated
	GitBranch  string // the newest
	Version    string // the newest claude version that wrote to it
	Entrypoint string // of the first conversation row: cli, sdk-cli, …
	Sidechain  bool
	TeamName   string

	FirstPrompt string
	LastPrompt  string // from the newest last-prompt row
	LastHuman   string // the newest human prompt row, for files without last-prompt rows

	CustomTitle string
	AgentName   string
	AITitle     string
	SummaryText string
	ContinuedIn string

	// Lineage markers: where the session was branched, forked or
	// continued from (lineage.Decide turns them into a parent).
	lineage.Marks

	// Usage is what the session's responses took, and what resuming it
	// reloads.
	Usage Usage

	Messages    int // conversation rows
	BrokenLines int // lines that are not JSON objects, or over the size cap

	// Offset is where the next Update resumes: just past the last complete line.
	Offset int64
	// LastUserOff and LastUserLen locate the newest human prompt's text
	// (its JSON string literal in the file), decoded lazily only when no
	// last-prompt row exists (older Claude Code versions).
	LastUserOff int64
	LastUserLen int64
}

// Name returns the session's display name and where it came from, in the
// order Claude Code's own picker uses: agent name, custom title, AI title,
// summary. ("" , "") when the session was never named.
func (s *Summary) Name() (name, source string) {
	switch {
	case s.AgentName != "":
		return s.AgentName, "agent-name"
	case s.CustomTitle != "":
		return s.CustomTitle, "custom-title"
	case s.AITitle != "":
		return s.AITitle, "ai-title"
	case s.SummaryText != "":
		return s.SummaryText, "summary"
	}
	return "", ""
}

// Latest is the newest prompt: the last-prompt row Claude Code maintains,
// else the newest human prompt row.
func (s *Summary) Latest() string {
	if s.LastPrompt != "" {
		return s.LastPrompt
	}
	return s.LastHuman
}

// ProjectCwd is the directory the session belongs to: the relocated cwd when
// the session was moved, else the first recorded cwd.
func (s *Summary) ProjectCwd() string {
	if s.Relocated != "" {
		return s.Relocated
	}
	return s.Cwd
}

// Scan builds a summary of the whole file.
func Scan(path string) (Summary, error) {
	var s Summary
	err := s.Update(path)
	return s, err
}

// Update parses the bytes appended since s.Offset. The caller decides when a
// file was rewritten rather than appended (its size shrank) and resets s.
func (s *Summary) Update(path string) error {
	return s.UpdateWith(nil, path)
}

// UpdateWith is Update reusing a scanner (and its buffer) across files; sc
// may be nil.
func (s *Summary) UpdateWith(sc *jsonl.Scanner, path string) error {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return s.ReadFrom(sc, f)
}

// ReadFrom parses f from s.Offset to its end, reusing sc (which may be
// nil). The caller has checked that the bytes before s.Offset are still
// the ones s was built from.
func (s *Summary) ReadFrom(sc *jsonl.Scanner, f *os.File) error {
	if s.Offset > 0 {
		if _, err := f.Seek(s.Offset, io.SeekStart); err != nil {
			return err
		}
	}
	prevUser := s.LastUserOff
	if sc == nil {
		sc = jsonl.NewScanner(f, s.Offset)
	} else {
		sc.Reset(f, s.Offset)
	}
	for {
		line, ok := sc.Next()
		if !ok {
			break
		}
		s.line(line, sc.LineOffset())
	}
	s.BrokenLines += sc.Skipped
	s.Offset = sc.Consumed()
	if err := sc.Err(); err != nil {
		return err
	}
	if s.LastPrompt == "" && s.LastUserLen > 0 && (s.LastUserOff != prevUser || s.LastHuman == "") {
		s.LastHuman = s.readPromptAt(f)
	}
	return nil
}

// envelopeWindow is how much of a conversation row's end is searched for the
// envelope keys. They come last in every row Claude Code writes.
const envelopeWindow = 4096

func (s *Summary) line(line []byte, off int64) {
	line, lead := trimSpace(line)
	if len(line) == 0 {
		return
	}
	// One reading of the row's kind, shared with search (Classify): its
	// top-level keys, wherever they stand and however they are spaced,
	// read only until its kind and whether it is a prompt are settled.
	r, ok := Classify(line, NeedPrompt)
	if !ok {
		s.BrokenLines++
		return
	}
	if isMetadata(r.Type) {
		s.metadata(r.Type, line)
		return
	}
	if off >= 0 {
		off += int64(lead)
	}
	s.conversation(line, off, &r)
}

func isMetadata(t string) bool {
	switch t {
	case "custom-title", "agent-name", "ai-title", "summary", "last-prompt", "relocated",
		"continued-in", "tag", "pr-link", "worktree-state", "mode", "permission-mode",
		"file-history-snapshot", "atis-latch", "tools-used", "cost-state",
		// Print mode (claude -p) opens its transcript with enqueue/dequeue
		// rows that carry no envelope (observed on 2.1.332 and 2.1.197).
		"queue-operation":
		return true
	}
	return strings.HasPrefix(t, "api-request")
}

func (s *Summary) metadata(typ string, line []byte) {
	switch typ {
	case "custom-title", "agent-name", "ai-title", "summary", "last-prompt", "relocated", "continued-in":
	default:
		return // not needed for a listing: skip without decoding
	}
	if len(line) > jsonl.DecodeCap {
		return
	}
	var m struct {
		SessionID   string `json:"sessionId"`
		CustomTitle string `json:"customTitle"`
		AgentName   string `json:"agentName"`
		AITitle     string `json:"aiTitle"`
		Summary     string `json:"summary"`
		LastPrompt  string `json:"lastPrompt"`
		Relocated   string `json:"relocatedCwd"`
		ContinuedIn string `json:"continuedInSessionId"`
	}
	if json.Unmarshal(line, &m) != nil {
		s.BrokenLines++
		return
	}
	if s.SessionID == "" {
		s.SessionID = m.SessionID
	}
	switch typ {
	case "custom-title":
		s.CustomTitle = m.CustomTitle
	case "agent-name":
		s.AgentName = m.AgentName
	case "ai-title":
		s.AITitle = m.AITitle
	case "summary":
		s.SummaryText = m.Summary
	case "last-prompt":
		if m.LastPrompt != "" {
			s.LastPrompt = jsonl.Oneline(m.LastPrompt)
		}
	case "relocated":
		s.Relocated = m.Relocated
	case "continued-in":
		s.ContinuedIn = m.ContinuedIn
	}
}

// conversation reads a conversation row (or one of a type this parser
// does not know); off is the file offset of line's first byte.
func (s *Summary) conversation(line []byte, off int64, r *Row) {
	s.Messages++
	tail := line
	if len(tail) > envelopeWindow {
		tail = tail[len(tail)-envelopeWindow:]
	}
	var env envelope
	env.scan(tail)
	if v, ok := env.valueAs(tail, keyCwd, s.LastCwd); ok {
		if s.Cwd == "" {
			s.Cwd = v
		}
		if v != s.LastCwd {
			s.LastCwd = v
		}
	}
	if v, ok := env.valueAs(tail, keyGitBranch, s.GitBranch); ok && v != s.GitBranch {
		s.GitBranch = v
	}
	if v, ok := env.valueAs(tail, keyVersion, s.Version); ok && v != s.Version {
		s.Version = v
	}
	// A branch's copied rows name their source in "forkedFrom":{"sessionId":
	// …}, after the row's own sessionId: the envelope's is the one before it.
	if v, ok := env.value(tail, keyForkedFrom); ok && v != "" {
		s.CopiedFrom, s.CopiedBy = v, lineage.Branch
	}
	if s.SessionID == "" {
		if v, ok := env.value(tail, keySessionID); ok {
			s.SessionID = v
		}
	}
	s.foreign(tail, &env)
	head := line
	if len(head) > 512 {
		head = head[:512]
	}
	if s.Messages == 1 {
		// The first row says what kind of session this is.
		s.Sidechain = isTrue(head, `"isSidechain"`)
		if v, ok := env.value(tail, keyTeamName); ok {
			s.TeamName = v
		}
	}
	if s.Entrypoint == "" {
		// The first row that records one: a row type this parser does not
		// know may come first and carry none.
		if v, ok := env.value(tail, keyEntrypoint); ok {
			s.Entrypoint = v
		}
	}
	switch {
	case r.Type == "assistant":
		s.Usage.assistant(line, tail, &env)
	case r.Type == "system" && isCompactBoundary(head):
		s.Usage.compaction(line)
	}
	// A human prompt, not a tool result or a meta row.
	if !r.IsPrompt() {
		return
	}
	lit := PromptLiteral(r.Content)
	if lit == nil {
		return
	}
	if off >= 0 {
		// Where the prompt's text stands in the file, so the newest one is
		// read back alone (readPromptAt), however long the row.
		s.LastUserOff = off + int64(cap(line)-cap(lit))
		s.LastUserLen = int64(len(lit))
	}
	if s.FirstPrompt == "" {
		s.FirstPrompt = PromptText(lit, true)
		// A /clear continuation opens with a caveat row, then the command.
		if s.Messages <= 2 && lineage.IsClearCommand(s.FirstPrompt) && bytes.Contains(lit, []byte(`<command-name>`)) {
			if v, ok := lastString(tail, `"timestamp"`); ok {
				s.ClearedAt = v
			}
		}
	}
}

// isCompactBoundary says a system row's head names the subtype that marks
// a compaction (Ln in the 2.1.333 bundle: subtype "compact_boundary").
func isCompactBoundary(head []byte) bool {
	v, ok := firstString(head, `"subtype"`)
	return ok && v == "compact_boundary"
}

// foreign records the other sessions a row names: requestSessionId (kept
// on rows a fork copied) and session_id (the id the writing process
// started with). Both sit in the envelope; the bytes.Index calls are the
// whole cost for a row that names neither.
func (s *Summary) foreign(tail []byte, env *envelope) {
	if s.SessionID == "" {
		return
	}
	// A row a branch copied from a fork carries both: forkedFrom, read
	// before this, names the nearer source.
	if v, ok := env.value(tail, keyRequestSessionID); ok && v != s.SessionID && v != "" && env.at[keyForkedFrom] < 0 {
		s.CopiedFrom, s.CopiedBy = v, lineage.Fork
	}
	if v, ok := env.value(tail, keySessionProcess); ok && v != s.SessionID && v != "" {
		s.ProcessSession = v
	}
}

// The envelope keys a conversation row is read for.
const (
	keyCwd = iota
	keyGitBranch
	keyVersion
	keySessionID
	keyForkedFrom
	keyRequestSessionID
	keySessionProcess
	keyTeamName
	keyEntrypoint
	keyTimestamp
	keyUsage // an object, not a string: an assistant row's message.usage
	nKeys
)

// envelopeKeys are the keys' names. A key is matched as JSON reads it,
// not only as the bytes Claude Code writes: its quoted name, then JSON
// white space, a colon and white space before the value ("cwd":"/r" and
// "cwd" : "/r" alike, see valueAt); forkedFrom's value is an object whose
// first key is sessionId. A name written with \u escapes ("\u0063wd")
// is not matched: Claude Code never writes one, and matching it would mean
// decoding every quoted word of the window, on the cold listing's hot path.
var envelopeKeys = [nKeys]string{
	keyCwd:              "cwd",
	keyGitBranch:        "gitBranch",
	keyVersion:          "version",
	keySessionID:        "sessionId",
	keyForkedFrom:       "forkedFrom",
	keyRequestSessionID: "requestSessionId",
	keySessionProcess:   "session_id",
	keyTeamName:         "teamName",
	keyEntrypoint:       "entrypoint",
	keyTimestamp:        "timestamp",
	keyUsage:            "usage",
}

// envelope is where each key's string value last stands in a row's tail
// window (the value's opening quote), found in one pass from quote to
// quote (a row is otherwise searched once per key, which was most of a
// cold listing). at[keyForkedFrom] is its first place (the value of the
// sessionId it holds), and at[keySessionID] the last before it: the row's
// own id, not the one forkedFrom names.
type envelope struct{ at [nKeys]int }

func (e *envelope) scan(b []byte) {
	// byFirst[c-'a'] is the set of keys (bit k for key k) whose name starts
	// with the letter c (every key's does): most quotes in a tail open no
	// key and are passed by one look-up, not one comparison per key.
	var byFirst [26]uint16
	for k := range e.at {
		e.at[k] = -1
		byFirst[envelopeKeys[k][0]-'a'] |= 1 << k
	}
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return
		}
		p := i + j
		i = p + 1
		if p+1 >= len(b) {
			return
		}
		c := b[p+1] - 'a'
		if c >= 26 {
			continue
		}
		for set := byFirst[c]; set != 0; set &= set - 1 {
			k := bits.TrailingZeros16(set)
			name := envelopeKeys[k]
			if q := p + 1 + len(name); q >= len(b) || b[q] != '"' {
				continue // most quoted words are not a key's length: no call
			}
			v, ok := valueAt(b, p, name)
			if k == keyUsage {
				if ok && b[v] == '{' {
					e.at[k] = v // the last, as lastUsage finds it
					i = v
					break
				}
				continue
			}
			if ok && k == keyForkedFrom && b[v] == '{' {
				// "forkedFrom":{"sessionId":"…": the id it names.
				v, ok = valueAt(b, jsonl.SkipSpace(b, v+1), envelopeKeys[keySessionID])
			}
			if !ok || b[v] != '"' {
				continue
			}
			switch k {
			case keyForkedFrom:
				if e.at[k] < 0 {
					e.at[k] = v
				}
			case keySessionID:
				if e.at[keyForkedFrom] < 0 {
					e.at[k] = v
				}
			default:
				e.at[k] = v
			}
			i = v // on to the value's opening quote
			break
		}
	}
}

// valueAt is where the value of the member at b[p] stands when that member
// is the key name: b[p:] holds the name in quotes, then JSON white space,
// a colon and white space. Claude Code writes no white space: that case
// is decided without a further call, and costs about what matching
// `"cwd":"` as bytes did (the scan checks the closing quote's place
// before calling; BenchmarkEnvelope).
func valueAt(b []byte, p int, name string) (int, bool) {
	q := p + 1 + len(name)
	if q+2 >= len(b) || b[q] != '"' || b[p] != '"' || string(b[p+1:q]) != name {
		return 0, false
	}
	if b[q+1] == ':' && !isJSONSpace(b[q+2]) {
		return q + 2, true
	}
	return spacedValue(b, q+1)
}

// spacedValue is valueAt's value after a key's closing quote, at b[i],
// when white space stands around the colon.
func spacedValue(b []byte, i int) (int, bool) {
	i = jsonl.SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	i = jsonl.SkipSpace(b, i+1)
	return i, i < len(b)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// value is key's string value at its place, decoded.
func (e *envelope) value(b []byte, key int) (string, bool) { return e.valueAs(b, key, "") }

// valueAs is value, reusing cur when the value is the same (readStringAs).
func (e *envelope) valueAs(b []byte, key int, cur string) (string, bool) {
	at := e.at[key]
	if at < 0 {
		return "", false
	}
	return readStringAs(b[at:], cur)
}

// readPromptAt decodes the newest human prompt, whose text literal the
// scan located: read whole up to jsonl.DecodeCap, else its first promptHead
// bytes, never the rest of its row.
func (s *Summary) readPromptAt(f *os.File) string {
	n := min(s.LastUserLen, jsonl.DecodeCap)
	if s.LastUserLen > jsonl.DecodeCap {
		n = promptHead + 8 // escapes: a little more text than is decoded
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, s.LastUserOff); err != nil {
		return ""
	}
	return PromptText(buf, n == s.LastUserLen)
}

func renderCommand(t string) string {
	if name, ok := between(t, "<command-name>", "</command-name>"); ok {
		args, _ := between(t, "<command-args>", "</command-args>")
		if !strings.HasPrefix(name, "/") {
			name = "/" + name
		}
		return strings.TrimSpace(name + " " + args)
	}
	if in, ok := between(t, "<bash-input>", "</bash-input>"); ok {
		return "! " + in
	}
	return t
}

func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// nextMember finds, from b[from:] on, the first member whose key is
// quoted (the name in its quotes: `"timestamp"`): p where the key stands
// and v where its value starts (valueAt: white space around the colon
// allowed); p < 0 for none. In a JSON line a quoted name followed by a
// colon cannot occur inside a string value, because quotes there are
// escaped.
func nextMember(b []byte, from int, quoted string) (p, v int) {
	for {
		i := bytes.Index(b[from:], []byte(quoted))
		if i < 0 {
			return -1, 0
		}
		p = from + i
		if v, ok := valueAt(b, p, quoted[1:len(quoted)-1]); ok {
			return p, v
		}
		from = p + len(quoted)
	}
}

// lastString decodes the string value of the last member whose key is
// quoted. It searches forward because bytes.Index is vectorised and
// bytes.LastIndex is not.
func lastString(b []byte, quoted string) (string, bool) {
	last := -1
	for p, v := nextMember(b, 0, quoted); p >= 0; p, v = nextMember(b, p+len(quoted), quoted) {
		if b[v] == '"' {
			last = v
		}
	}
	if last < 0 {
		return "", false
	}
	return readString(b[last:])
}

// firstString is lastString for the first such member.
func firstString(b []byte, quoted string) (string, bool) { return firstStringAs(b, quoted, "") }

// firstStringAs is firstString, reusing cur when the value is the same
// (readStringAs).
func firstStringAs(b []byte, quoted, cur string) (string, bool) {
	for p, v := nextMember(b, 0, quoted); p >= 0; p, v = nextMember(b, p+len(quoted), quoted) {
		if b[v] == '"' {
			return readStringAs(b[v:], cur)
		}
	}
	return "", false
}

// isTrue says whether b holds a member whose key is quoted and whose
// value is the literal true.
func isTrue(b []byte, quoted string) bool {
	for p, v := nextMember(b, 0, quoted); p >= 0; p, v = nextMember(b, p+len(quoted), quoted) {
		if bytes.HasPrefix(b[v:], []byte("true")) {
			return true
		}
	}
	return false
}

// readString decodes the JSON string literal at the start of b.
func readString(b []byte) (string, bool) {
	v, _, ok := jsonl.String(b)
	return v, ok
}

// readStringAs is readString that gives back cur itself, allocating
// nothing, when the literal is cur written plainly: every row of a
// transcript repeats its cwd, branch, version and model, and decoding a new
// copy of each on every row was a sixth of what a cold listing allocated.
// A literal with an escape, or a cur that would need one, is decoded.
func readStringAs(b []byte, cur string) (string, bool) {
	n := len(cur)
	if n > 0 && len(b) > n+1 && b[0] == '"' && b[n+1] == '"' && string(b[1:n+1]) == cur && plain(cur) {
		return cur, true
	}
	return readString(b)
}

// plain says s is written in a JSON string literal as it is and decodes
// back to itself: no quote, no backslash, no control character, and valid
// UTF-8 (a bad byte decodes to U+FFFD).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.ValidString(s)
}

// LastString decodes the JSON string value of the last occurrence of key
// (written with its quotes and colon and the value's opening quote, as in
// `"sessionId":"`) in a JSON line, without decoding the rest of it. White
// space around the colon is allowed, as in the envelope (valueAt).
func LastString(line []byte, key string) (string, bool) { return lastString(line, quotedName(key)) }

// FirstString is LastString for the first occurrence.
func FirstString(line []byte, key string) (string, bool) { return firstString(line, quotedName(key)) }

// quotedName is the quoted name of a key written `"name":"`.
func quotedName(key string) string { return strings.TrimSuffix(key, `:"`) }
