package sessions

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
)

// The engine's end-to-end tests list a real Claude Code home through the
// Claude Code harness: what they check (order, the window, the index and
// its damage) is the engine's, whatever the harness.

type fixture struct {
	t      *testing.T
	home   string
	claude paths.Claude
	cc     *cchome.Home
}

func newFixture(t *testing.T) *fixture {
	home := t.TempDir()
	cc := cchome.New(t, filepath.Join(home, ".claude"))
	return &fixture{t: t, home: home, claude: cc.Claude, cc: cc}
}

func row(cwd, id, branch, entry, prompt string) string {
	return cchome.Prompt(cwd, id, branch, entry, prompt)
}

func (f *fixture) transcript(cwd, id string, mtime time.Time, lines ...string) string {
	return f.cc.Transcript(cwd, id, mtime, lines...)
}

// options lists f's home, with its index at idx ("" for none).
func (f *fixture) options(idx string) Options {
	return Options{Harness: claude.New(f.claude, snapstore.Store{}), IndexPath: idx}
}

// result is a whole listing, collected.
type result struct {
	Sessions []harness.Session
	Stats
}

func listAll(opt Options) (result, error) {
	var r result
	st, err := List(context.Background(), opt, func(s *harness.Session) error {
		r.Sessions = append(r.Sessions, *s)
		return nil
	})
	r.Stats = st
	return r, err
}

func TestListMissingHome(t *testing.T) {
	res, err := listAll(Options{Harness: claude.New(paths.Claude{Root: filepath.Join(t.TempDir(), "none")}, snapstore.Store{})})
	if err != nil || len(res.Sessions) != 0 {
		t.Fatalf("%v %v", res, err)
	}
}

func TestRepoName(t *testing.T) {
	d := t.TempDir()
	os.MkdirAll(filepath.Join(d, "r", ".git"), 0o755)
	os.MkdirAll(filepath.Join(d, "r", "a", "b"), 0o755)
	if got := RepoName(filepath.Join(d, "r", "a", "b"), ""); got != "r" {
		t.Fatal(got)
	}
	// A repository at or above home (a dotfiles repo) names nothing below it.
	os.MkdirAll(filepath.Join(d, ".git"), 0o755)
	os.MkdirAll(filepath.Join(d, "plain", "sub"), 0o755)
	if got := RepoName(filepath.Join(d, "plain", "sub"), d); got != "sub" {
		t.Fatal(got)
	}
	if got := RepoName(filepath.Join(d, "plain", "sub"), ""); got != filepath.Base(d) {
		t.Fatal(got)
	}
}
