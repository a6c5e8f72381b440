package harness

import (
	"time"

	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
)

// Session is one row of the listing: a session of one harness, as its
// files, its live process and forgectl's own stores describe it. Fields a
// harness has no notion of stay zero.
type Session struct {
	// Harness is the Name of the harness the session belongs to.
	Harness     string
	ID          string
	Name        string
	NameSource  string // agent-name, custom-title, custom-title-file, ai-title, summary, registry, snapshot, or ""
	FirstPrompt string
	LastPrompt  string
	// LastPromptAt is when the newest prompt was submitted, from the prompt
	// history; zero when history has no line for the session.
	LastPromptAt time.Time
	Cwd          string
	CwdExists    bool
	Repo         string
	Branch       string
	LastActivity time.Time
	Entrypoint   string
	Version      string
	Size         int64
	Transcript   string
	// Segments are every file of a session that owns several (a Codex
	// thread's rollouts), newest first; nil when Transcript is its only
	// file.
	Segments    []string
	Messages    int
	BrokenLines int

	Live      bool
	Pid       int
	Tmux      string
	Status    string // the registry's status for a live session
	LiveState registry.State
	// LiveHolder says which process holds a live Codex thread's write
	// lock: "daemon" (Codex's background server), "tui" or "exec"; "" for
	// a harness that has no such notion.
	LiveHolder string

	Tasks       tasks.Counts
	TasksSource string // "live" (tasks/<id>/), "snapshot", "none", or "" when not counted

	Hidden       bool
	HiddenReason string // archived-in-claude, sidechain, print-mode (sdk-*), continued, team, empty

	Snapshot *snapstore.Record

	// What resuming the session would cost, from its newest response; zero
	// when the harness cannot tell. ContextTokens is the context the
	// resume sends again (its input, cache-read and cache-creation tokens);
	// Model the model that answered; TokensUsed the tokens every response
	// of the session took.
	ContextTokens int64
	Model         string
	TokensUsed    int64
	// LastReplyAt is when the newest response came (zero: none).
	// CacheWarmUntil is when, by the agent's own rule, its prompt cache of
	// the session counts as expired (zero: it already does, or there is
	// none); CacheExpired is that rule at the listing's time
	// (OpenOptions.Now).
	LastReplyAt    time.Time
	CacheWarmUntil time.Time
	CacheExpired   bool

	// ParentID is the session this one was branched or forked from, or
	// continued after /clear (Relation says which: lineage.Branch, Fork,
	// Clear); "" for none. ParentExists says its transcript is listed.
	ParentID     string
	Relation     string
	ParentExists bool
}
