package render

import (
	"io"
	"strconv"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/tasks"
)

// SessionJSON is the stable `resume ls --json` record; its field table is
// in ls --help and the README, and fields are only ever added. The
// encoder is AppendSession; this struct is the reference a test holds it
// to (encoding/json's output), and what readers may decode into.
type SessionJSON struct {
	SessionID    string       `json:"session_id"`
	Harness      string       `json:"harness"`
	Name         string       `json:"name"`
	NameSource   string       `json:"name_source"`
	Repo         string       `json:"repo"`
	Branch       string       `json:"branch"`
	Cwd          string       `json:"cwd"`
	CwdExists    bool         `json:"cwd_exists"`
	LastActivity string       `json:"last_activity"`
	FirstPrompt  string       `json:"first_prompt"`
	LastPrompt   string       `json:"last_prompt"`
	LastPromptAt string       `json:"last_prompt_at"`
	Live         bool         `json:"live"`
	Pid          *int         `json:"pid"`
	Status       string       `json:"status"`
	Tmux         string       `json:"tmux"`
	Tasks        tasks.Counts `json:"tasks"`
	TasksSource  string       `json:"tasks_source"`
	Entrypoint   string       `json:"entrypoint"`
	Version      string       `json:"version"`
	Hidden       bool         `json:"hidden"`
	HiddenReason string       `json:"hidden_reason"`
	SizeBytes    int64        `json:"size_bytes"`
	Messages     int          `json:"messages"`
	Transcript   string       `json:"transcript_path"`
	ParentID     string       `json:"parent_session_id"`
	Relation     string       `json:"relation"`
	ParentExists bool         `json:"parent_exists"`
	// What a resume would cost: the context it sends again, the model,
	// whether the prompt cache has likely expired (Claude Code's rule),
	// and the tokens the session's responses took.
	ContextTokens      int64  `json:"context_tokens"`
	Model              string `json:"model"`
	CacheLikelyExpired bool   `json:"cache_likely_expired"`
	TokensUsed         int64  `json:"tokens_used"`
	// LiveHolder is who holds a live Codex thread: "daemon", "tui" or
	// "exec"; absent otherwise (and for every Claude Code session).
	LiveHolder string `json:"live_holder,omitempty"`
}

// ToJSON is a session's record.
func ToJSON(s *harness.Session) SessionJSON {
	j := SessionJSON{
		SessionID: s.ID, Harness: s.Harness, Name: s.Name, NameSource: s.NameSource, Repo: s.Repo, Branch: s.Branch,
		Cwd: s.Cwd, CwdExists: s.CwdExists, LastActivity: s.LastActivity.UTC().Format(time.RFC3339),
		FirstPrompt: s.FirstPrompt, LastPrompt: s.LastPrompt, Live: s.Live, Status: s.Status, Tmux: s.Tmux,
		Tasks: s.Tasks, TasksSource: s.TasksSource, Entrypoint: s.Entrypoint, Version: s.Version,
		Hidden: s.Hidden, HiddenReason: s.HiddenReason, SizeBytes: s.Size, Messages: s.Messages,
		Transcript: s.Transcript, ParentID: s.ParentID, Relation: s.Relation, ParentExists: s.ParentExists,
		ContextTokens: s.ContextTokens, Model: s.Model, CacheLikelyExpired: s.CacheExpired, TokensUsed: s.TokensUsed,
		LiveHolder: s.LiveHolder,
	}
	if s.Live {
		pid := s.Pid
		j.Pid = &pid
	}
	if !s.LastPromptAt.IsZero() {
		j.LastPromptAt = s.LastPromptAt.UTC().Format(time.RFC3339)
	}
	return j
}

// JSONArray writes the JSON array of ls, search and the tree as they
// stream: "[]" when empty, else one object per line, two spaces in. It is
// hand-encoded because reflection-based encoding (and its indent pass)
// cost more than the whole warm listing of 10,000 sessions; a test holds
// every object byte-identical to encoding/json's output.
type JSONArray struct {
	w   io.Writer
	buf []byte
	n   int
	err error
}

// flushAt is how much output the JSON array, and a table for a pipe,
// gather before a write: a system call per row cost more than the row.
const flushAt = 48 << 10

// NewJSONArray writes to w.
func NewJSONArray(w io.Writer) *JSONArray {
	return &JSONArray{w: w, buf: make([]byte, 0, 64<<10)}
}

// Add writes a session's object; extra, when not nil, appends more fields
// to it (each starting with a comma): search's hits, the tree's children.
func (a *JSONArray) Add(s *harness.Session, extra func([]byte) []byte) {
	if a.n == 0 {
		a.buf = append(a.buf, "[\n  "...)
	} else {
		a.buf = append(a.buf, ",\n  "...)
	}
	a.n++
	a.buf = AppendSession(a.buf, s, extra)
	if len(a.buf) >= flushAt {
		a.flush()
	}
}

func (a *JSONArray) flush() {
	if a.err == nil {
		_, a.err = a.w.Write(a.buf)
	}
	a.buf = a.buf[:0]
}

// Close ends the array and reports the first write error.
func (a *JSONArray) Close() error {
	if a.n == 0 {
		a.buf = append(a.buf, "[]\n"...)
	} else {
		a.buf = append(a.buf, "\n]\n"...)
	}
	a.flush()
	return a.err
}

// AppendSession appends a session's object, extra's fields (when not nil)
// before its closing brace.
func AppendSession(b []byte, s *harness.Session, extra func([]byte) []byte) []byte {
	b = appendRecord(b, ToJSON(s))
	if extra == nil {
		return b
	}
	return append(extra(b[:len(b)-1]), '}')
}

func appendRecord(b []byte, j SessionJSON) []byte {
	b = append(b, `{"session_id":`...)
	b = jsonl.AppendString(b, j.SessionID)
	b = appendField(b, "harness", j.Harness)
	b = appendField(b, "name", j.Name)
	b = appendField(b, "name_source", j.NameSource)
	b = appendField(b, "repo", j.Repo)
	b = appendField(b, "branch", j.Branch)
	b = appendField(b, "cwd", j.Cwd)
	b = append(b, `,"cwd_exists":`...)
	b = strconv.AppendBool(b, j.CwdExists)
	b = appendField(b, "last_activity", j.LastActivity)
	b = appendField(b, "first_prompt", j.FirstPrompt)
	b = appendField(b, "last_prompt", j.LastPrompt)
	b = appendField(b, "last_prompt_at", j.LastPromptAt)
	b = append(b, `,"live":`...)
	b = strconv.AppendBool(b, j.Live)
	b = append(b, `,"pid":`...)
	if j.Pid == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*j.Pid), 10)
	}
	b = appendField(b, "status", j.Status)
	b = appendField(b, "tmux", j.Tmux)
	b = append(b, `,"tasks":{"pending":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.Pending), 10)
	b = append(b, `,"in_progress":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.InProgress), 10)
	b = append(b, `,"completed":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.Completed), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(j.Tasks.Total), 10)
	b = append(b, '}')
	b = appendField(b, "tasks_source", j.TasksSource)
	b = appendField(b, "entrypoint", j.Entrypoint)
	b = appendField(b, "version", j.Version)
	b = append(b, `,"hidden":`...)
	b = strconv.AppendBool(b, j.Hidden)
	b = appendField(b, "hidden_reason", j.HiddenReason)
	b = append(b, `,"size_bytes":`...)
	b = strconv.AppendInt(b, j.SizeBytes, 10)
	b = append(b, `,"messages":`...)
	b = strconv.AppendInt(b, int64(j.Messages), 10)
	b = appendField(b, "transcript_path", j.Transcript)
	b = appendField(b, "parent_session_id", j.ParentID)
	b = appendField(b, "relation", j.Relation)
	b = append(b, `,"parent_exists":`...)
	b = strconv.AppendBool(b, j.ParentExists)
	b = append(b, `,"context_tokens":`...)
	b = strconv.AppendInt(b, j.ContextTokens, 10)
	b = appendField(b, "model", j.Model)
	b = append(b, `,"cache_likely_expired":`...)
	b = strconv.AppendBool(b, j.CacheLikelyExpired)
	b = append(b, `,"tokens_used":`...)
	b = strconv.AppendInt(b, j.TokensUsed, 10)
	if j.LiveHolder != "" {
		b = appendField(b, "live_holder", j.LiveHolder)
	}
	return append(b, '}')
}

func appendField(b []byte, key, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return jsonl.AppendString(b, v)
}
