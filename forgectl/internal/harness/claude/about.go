package claude

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
)

// About: Claude Code's listing index and search folder keep the names
// they had before there was a second harness, so an upgrade reads them.
func (h *Harness) About() harness.About {
	return harness.About{
		Mark:   "cc",
		Desc:   "Claude Code's sessions",
		Index:  "transcripts.idx",
		Search: "search",
		ByHand: "claude --resume",
	}
}

// Present is true whether or not the tree exists: Claude Code is always
// listed, so that an empty listing says where its sessions are expected.
func (h *Harness) Present() bool { return true }

// HomeProblem is a hint when the projects directory, where the sessions
// are, is missing, is not a directory, or cannot be read ("" when it is a
// directory this user can open).
func (h *Harness) HomeProblem() string {
	dir := h.paths.Projects()
	st, err := os.Stat(dir)
	if err == nil && st.IsDir() {
		// A stat needs no read permission on the folder itself: opening
		// it is what a mode 000 or another owner refuses.
		var f *os.File
		if f, err = fsutil.OpenDir(dir); err == nil {
			f.Close()
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("there are no Claude Code sessions: %s does not exist (CLAUDE_CONFIG_DIR moves the tree)", dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("check its owner and mode (ls -ld %s): Claude Code keeps its sessions there, and forgectl cannot read them", dir)
	case err != nil:
		return fmt.Sprintf("cannot read %s, where Claude Code keeps its sessions: %v", dir, err)
	case !st.IsDir():
		return fmt.Sprintf("%s is not a directory; Claude Code keeps its sessions there (CLAUDE_CONFIG_DIR moves the tree)", dir)
	}
	return ""
}

// NoneFound names the projects directory: a session appears there with
// its first prompt.
func (h *Harness) NoneFound() (err, hint string) {
	return fmt.Sprintf("no Claude Code sessions found under %s", h.paths.Projects()),
		"sessions appear once a claude session has received a prompt; CLAUDE_CONFIG_DIR moves the tree"
}

// Busy refuses every live session: two claude processes appending to one
// transcript corrupt it.
func (h *Harness) Busy(s *harness.Session) (err, hint string) {
	where := fmt.Sprintf("pid %d", s.Pid)
	if s.Tmux != "" {
		where += ", tmux pane " + s.Tmux
	}
	return fmt.Sprintf("session %s is running (%s)", s.ID, where),
		"two claude processes on one transcript corrupt it: switch to the running one, or pass --fork to branch a new session off it"
}
