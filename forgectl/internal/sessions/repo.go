package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"forgectl.dev/shared/fsutil"
)

// repoCache names the repository a cwd belongs to: the git top level's base
// name (the main checkout's name for a linked worktree), else the cwd's own
// base name. Many sessions share a cwd, so each is resolved once per run.
// It is shared by the listing's workers.
type repoCache struct {
	home  string
	mu    sync.Mutex
	names map[string]repoInfo
}

type repoInfo struct {
	name   string
	exists bool
}

func (rc *repoCache) repo(cwd string) (string, bool) {
	if cwd == "" {
		return "", false
	}
	rc.mu.Lock()
	r, ok := rc.names[cwd]
	rc.mu.Unlock()
	if ok {
		return r.name, r.exists
	}
	// Two workers may both resolve a new cwd: the answers are the same.
	r = repoInfo{name: filepath.Base(cwd)}
	if st, err := os.Stat(cwd); err == nil && st.IsDir() {
		r.exists = true
		r.name = RepoName(cwd, rc.home)
	}
	rc.mu.Lock()
	rc.names[cwd] = r
	rc.mu.Unlock()
	return r.name, r.exists
}

// RepoName walks up from dir to the nearest .git and names the repository,
// stopping below home (when home is not empty); without one it is dir's
// own base name.
func RepoName(dir, home string) string {
	if home != "" {
		home = filepath.Clean(home)
	}
	for d := dir; d != home || home == ""; {
		gp := filepath.Join(d, ".git")
		if st, err := os.Lstat(gp); err == nil {
			if st.IsDir() {
				return filepath.Base(d)
			}
			// A linked worktree's .git is a file: "gitdir: <main>/.git/worktrees/<name>".
			if b, err := fsutil.ReadRegular(gp); err == nil {
				line := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
				if i := strings.Index(line, string(filepath.Separator)+".git"+string(filepath.Separator)+"worktrees"+string(filepath.Separator)); i > 0 {
					return filepath.Base(line[:i])
				}
			}
			return filepath.Base(d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return filepath.Base(dir)
}
