package gencc

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ManifestName is the file, directly under the generated home, that records
// the ground truth of everything the generator wrote.
const ManifestName = "gencc-manifest.json"

// ManifestSchema is bumped whenever a field changes meaning.
const ManifestSchema = 1

// Manifest is the ground truth of a generated home. End-to-end tests compare
// a reader's output against it instead of re-deriving facts from the files.
type Manifest struct {
	Schema      int           `json:"schema"`
	Mode        Mode          `json:"mode"`
	Seed        uint64        `json:"seed"`
	Now         string        `json:"now"`
	Home        string        `json:"home"`
	ConfigDir   string        `json:"config_dir"`
	ClaudeJSON  string        `json:"claude_json"`
	HistoryPath string        `json:"history_path"`
	TotalBytes  int64         `json:"total_bytes"`
	Repos       []RepoInfo    `json:"repos"`
	Sessions    []SessionInfo `json:"sessions"`
	Registry    []RegistryRef `json:"registry"`
	Appends     []AppendInfo  `json:"appends"`
}

// RepoInfo describes one generated working copy.
type RepoInfo struct {
	Name          string         `json:"name"`
	Path          string         `json:"path"`
	HeadBranch    string         `json:"head_branch"`
	Worktrees     []WorktreeInfo `json:"worktrees"`
	SessionCount  int            `json:"session_count"`
	DefaultBranch string         `json:"default_branch"`
}

// WorktreeInfo is a linked git worktree of a repo.
type WorktreeInfo struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Exists bool   `json:"exists"`
}

// TaskCounts counts the task files present on disk by status.
type TaskCounts struct {
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Total      int `json:"total"`
}

// SessionInfo is the ground truth for one transcript.
type SessionInfo struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	ProjectDir     string `json:"project_dir"`
	Cwd            string `json:"cwd"`
	CwdExists      bool   `json:"cwd_exists"`
	// Repo is the base name of the main working copy (for a worktree, the
	// repo it belongs to); for a cwd outside git it is the cwd's base name.
	Repo        string `json:"repo"`
	RepoPath    string `json:"repo_path"`
	GitToplevel string `json:"git_toplevel"`
	Worktree    bool   `json:"worktree"`
	// Branch is the last gitBranch written; "HEAD" outside a repo.
	Branch     string   `json:"branch"`
	Branches   []string `json:"branches"`
	Version    string   `json:"version"`
	Entrypoint string   `json:"entrypoint"`
	Sidechain  bool     `json:"sidechain"`
	Hidden     bool     `json:"hidden"`
	// HiddenReason is "", "sidechain" or "print".
	HiddenReason string `json:"hidden_reason"`

	// Name is CustomTitle, else AgentName, else AITitle, else Summary.
	Name string `json:"name"`
	// NameSource is "custom_title", "agent_name", "ai_title", "summary" or "".
	NameSource  string `json:"name_source"`
	CustomTitle string `json:"custom_title"`
	AgentName   string `json:"agent_name"`
	AITitle     string `json:"ai_title"`
	Summary     string `json:"summary"`
	Tag         string `json:"tag"`
	// TitlePosition says where the newest custom-title row sits: "tail"
	// (within the last 64 KiB), "head" (within the first 64 KiB), "middle"
	// (neither), or "" when there is none.
	TitlePosition string `json:"title_position"`
	SidecarTitle  bool   `json:"sidecar_title"`

	// FirstPrompt is the first typed prompt, exactly as typed.
	FirstPrompt string `json:"first_prompt"`
	// LastPrompt is the lastPrompt of the last last-prompt row.
	LastPrompt  string `json:"last_prompt"`
	PromptCount int    `json:"prompt_count"`
	LeafUUID    string `json:"leaf_uuid"`
	InHistory   bool   `json:"in_history"`
	// LastSessionForCwd is true when .claude.json names this session as its
	// cwd's lastSessionId.
	LastSessionForCwd bool `json:"last_session_for_cwd"`

	StartedAt     string `json:"started_at"`
	LastTimestamp string `json:"last_timestamp"`
	Mtime         string `json:"mtime"`
	SizeBytes     int64  `json:"size_bytes"`
	LineCount     int    `json:"line_count"`
	MaxLineBytes  int64  `json:"max_line_bytes"`

	// Broken is "", "truncated" (the file ends mid-line) or "garbage".
	Broken string `json:"broken"`
	// BadLines are 1-based numbers of lines that are not valid JSON.
	BadLines []int `json:"bad_lines"`

	Tasks         TaskCounts `json:"tasks"`
	TaskDir       string     `json:"task_dir"`
	HighWatermark int        `json:"high_watermark"`
	Subagents     int        `json:"subagents"`
	ForkedFrom    string     `json:"forked_from"`

	// ParentSessionID is the session this one was branched or forked from
	// or continued after /clear (Relation "branch", "fork" or "clear");
	// ParentExists is false when that session's transcript was not kept.
	// Only the lineage cast (lineage.go) has one.
	ParentSessionID string `json:"parent_session_id"`
	Relation        string `json:"relation"`
	ParentExists    bool   `json:"parent_exists"`
}

// RegistryRef is a registry file the generator wrote.
type RegistryRef struct {
	Path      string `json:"path"`
	PID       int    `json:"pid"`
	SessionID string `json:"session_id"`
	ProcStart string `json:"proc_start"`
	Stale     bool   `json:"stale"`
}

// AppendInfo records one Append run.
type AppendInfo struct {
	At       string   `json:"at"`
	Percent  float64  `json:"percent"`
	Seed     uint64   `json:"seed"`
	Sessions []string `json:"sessions"`
	Bytes    int64    `json:"bytes"`
}

// ManifestPath returns where the manifest of a home lives.
func ManifestPath(home string) string { return filepath.Join(home, ManifestName) }

// ReadManifest loads the manifest of a generated home.
func ReadManifest(home string) (*Manifest, error) {
	b, err := os.ReadFile(ManifestPath(home))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", ManifestPath(home), err)
	}
	return &m, nil
}

// Session returns the manifest entry for id, or nil.
func (m *Manifest) Session(id string) *SessionInfo {
	for i := range m.Sessions {
		if m.Sessions[i].SessionID == id {
			return &m.Sessions[i]
		}
	}
	return nil
}

func writeManifest(home string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(ManifestPath(home), append(b, '\n'), 0o600)
}

// rfc3339 is RFC 3339 in UTC with millisecond precision, the resolution of
// Claude Code's own timestamps.
func rfc3339(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
