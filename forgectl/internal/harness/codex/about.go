package codex

import (
	"fmt"
	"os"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/config"
)

// About names Codex's cache files after the harness.
func (h *Harness) About() harness.About {
	return harness.About{
		Mark:   "cx",
		Desc:   "Codex CLI threads",
		Index:  Name + "-threads.idx",
		Search: "search-" + Name,
		ByHand: "codex resume",
	}
}

// Present says $CODEX_HOME (else ~/.codex) is a folder: a Claude Code
// user without Codex never sees it.
func (h *Harness) Present() bool {
	st, err := os.Stat(h.paths.Root)
	return err == nil && st.IsDir()
}

// HomeProblem is a note when Codex's home is not a folder.
func (h *Harness) HomeProblem() string {
	if h.Present() {
		return ""
	}
	return fmt.Sprintf("there are no Codex threads: %s is not a folder (CODEX_HOME moves it)", h.paths.Root)
}

// NoneFound names Codex's home: a thread appears with its first prompt.
func (h *Harness) NoneFound() (err, hint string) {
	return fmt.Sprintf("no Codex threads found under %s", h.paths.Root),
		"threads appear once codex has received a prompt; CODEX_HOME moves the tree"
}

// Busy refuses a thread whose write lock a TUI without the daemon, or a
// running codex exec, holds; one the background daemon holds is attached
// to, the daemon staying the only writer (facts/codex.md §5).
func (h *Harness) Busy(s *harness.Session) (err, hint string) {
	if s.LiveHolder == "daemon" {
		return "", ""
	}
	holder := "a TUI without the background daemon"
	if s.LiveHolder == "exec" {
		holder = "a running codex exec"
	}
	return fmt.Sprintf("codex thread %s is open in another codex (pid %d, %s)", s.ID, s.Pid, holder),
		"two writers on one thread corrupt it: switch to that codex, or pass --fork to start a new thread off it"
}

// Binary is the codex a resume runs: the [launch] profile holds Claude
// Code's flags and environment, so none of it applies.
func (h *Harness) Binary(getenv func(string) string, cfg *config.Config, lookPath func(string) (string, error)) (string, error) {
	return config.CodexBinary(getenv, cfg, lookPath)
}
