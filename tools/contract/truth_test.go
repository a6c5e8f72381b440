//go:build contract

package contract

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// truth is what Claude Code's own files say about one session, read here
// independently of forgectl (whole files, no head/tail shortcuts), so that
// `resume ls` is checked against the files and not against itself.
type truth struct {
	SessionID  string
	Name       string
	Cwd        string
	Repo       string
	Branch     string
	LastPrompt string
	Entrypoint string
	Tasks      counts
	Path       string
	UUIDs      map[string]bool // conversation row uuids, to tell a fork
}

type counts struct {
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Total      int `json:"total"`
}

// transcripts lists every ~/.claude/projects/*/*.jsonl by session id.
func (h *home) transcripts() map[string]string {
	h.t.Helper()
	paths, err := filepath.Glob(filepath.Join(h.claude, "projects", "*", "*.jsonl"))
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range paths {
		out[strings.TrimSuffix(filepath.Base(p), ".jsonl")] = p
	}
	return out
}

// readTruth parses one transcript and the session's task list.
func (h *home) readTruth(path string) truth {
	h.t.Helper()
	f, err := os.Open(path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	tr := truth{SessionID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path, UUIDs: map[string]bool{}}
	var agentName, customTitle string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var row struct {
			Type        string `json:"type"`
			UUID        string `json:"uuid"`
			Cwd         string `json:"cwd"`
			GitBranch   string `json:"gitBranch"`
			Entrypoint  string `json:"entrypoint"`
			AgentName   string `json:"agentName"`
			CustomTitle string `json:"customTitle"`
			LastPrompt  string `json:"lastPrompt"`
		}
		if json.Unmarshal(sc.Bytes(), &row) != nil {
			continue
		}
		if row.UUID != "" {
			tr.UUIDs[row.UUID] = true
		}
		if tr.Cwd == "" && row.Cwd != "" {
			tr.Cwd = row.Cwd
		}
		if row.GitBranch != "" {
			tr.Branch = row.GitBranch
		}
		if tr.Entrypoint == "" && row.Entrypoint != "" {
			tr.Entrypoint = row.Entrypoint
		}
		switch row.Type {
		case "agent-name":
			agentName = row.AgentName
		case "custom-title":
			customTitle = row.CustomTitle
		case "last-prompt":
			tr.LastPrompt = row.LastPrompt
		}
	}
	if err := sc.Err(); err != nil {
		h.t.Fatalf("%s: %v", path, err)
	}
	tr.Name = agentName
	if tr.Name == "" {
		tr.Name = customTitle
	}
	if tr.Cwd != "" {
		tr.Repo = h.repoName(tr.Cwd)
	}
	tr.Tasks = h.taskCounts(tr.SessionID)
	return tr
}

// repoName asks git for the main checkout's top level (the common dir's
// parent, so a worktree names its main repository).
func (h *home) repoName(cwd string) string {
	h.t.Helper()
	out, _, code := h.Run(cwd, "", "git", "rev-parse", "--path-format=absolute", "--git-common-dir")
	if code != 0 {
		return filepath.Base(cwd)
	}
	return filepath.Base(filepath.Dir(strings.TrimSpace(out)))
}

// taskCounts counts ~/.claude/tasks/<id>/<n>.json by status.
func (h *home) taskCounts(id string) counts {
	h.t.Helper()
	var c counts
	for _, t := range h.taskFiles(id) {
		c.Total++
		switch t.Status {
		case "pending":
			c.Pending++
		case "in_progress":
			c.InProgress++
		case "completed":
			c.Completed++
		}
	}
	return c
}

type taskFile struct {
	ID          string   `json:"id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	ActiveForm  string   `json:"activeForm"`
	Status      string   `json:"status"`
	Blocks      []string `json:"blocks"`
	BlockedBy   []string `json:"blockedBy"`
}

// taskFiles reads a task list by file name order 1.json, 2.json, ….
func (h *home) taskFiles(id string) []taskFile {
	h.t.Helper()
	var out []taskFile
	for n := 1; n < 100; n++ {
		b, err := os.ReadFile(filepath.Join(h.claude, "tasks", id, strconv.Itoa(n)+".json"))
		if err != nil {
			continue
		}
		var t taskFile
		if err := json.Unmarshal(b, &t); err != nil {
			h.t.Fatalf("task %d of %s: %v", n, id, err)
		}
		out = append(out, t)
	}
	return out
}

// lsRow is the part of `forgectl resume ls --json` under contract here.
type lsRow struct {
	SessionID    string `json:"session_id"`
	Name         string `json:"name"`
	Repo         string `json:"repo"`
	Branch       string `json:"branch"`
	Cwd          string `json:"cwd"`
	LastPrompt   string `json:"last_prompt"`
	Live         bool   `json:"live"`
	Pid          *int   `json:"pid"`
	Status       string `json:"status"`
	Tmux         string `json:"tmux"`
	Tasks        counts `json:"tasks"`
	TasksSource  string `json:"tasks_source"`
	Entrypoint   string `json:"entrypoint"`
	Version      string `json:"version"`
	Hidden       bool   `json:"hidden"`
	HiddenReason string `json:"hidden_reason"`
	Transcript   string `json:"transcript_path"`
	// What a resume would cost (issue 20).
	ContextTokens      int64  `json:"context_tokens"`
	Model              string `json:"model"`
	CacheLikelyExpired bool   `json:"cache_likely_expired"`
	TokensUsed         int64  `json:"tokens_used"`
}

// ls runs `forgectl resume ls --json` (plus args) and indexes the rows.
func (h *home) ls(args ...string) map[string]lsRow {
	h.t.Helper()
	out, errOut, code := h.forgectl(append([]string{"resume", "ls", "--json"}, args...)...)
	if code != 0 {
		h.t.Fatalf("forgectl resume ls --json %v: exit %d: %s", args, code, errOut)
	}
	var rows []lsRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		h.t.Fatalf("ls --json is not a JSON array: %v\n%s", err, out)
	}
	m := map[string]lsRow{}
	for _, r := range rows {
		if _, dup := m[r.SessionID]; dup {
			h.t.Errorf("ls lists %s twice", r.SessionID)
		}
		m[r.SessionID] = r
	}
	return m
}
