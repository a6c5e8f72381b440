package gencc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/tools/gencc"
)

// TestReposSatisfyGit runs the real git against the generated working copies:
// readers find the repo and branch of a cwd with it.
func TestReposSatisfyGit(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is required by this test: ", err)
	}
	m := generate(t, gencc.Options{Mode: gencc.ModeDemo, Seed: 1})
	gitHome := t.TempDir()
	for _, s := range m.Sessions {
		if !s.CwdExists {
			continue
		}
		cmd := exec.Command(gitBin, "rev-parse", "--show-toplevel", "--abbrev-ref", "HEAD")
		cmd.Dir = s.Cwd
		cmd.Env = append(os.Environ(), "HOME="+gitHome, "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(m.Home))
		out, err := cmd.CombinedOutput()
		if s.GitToplevel == "" {
			if err == nil {
				t.Errorf("%s is outside git but git found a repo: %s", s.Cwd, out)
			}
			continue
		}
		if err != nil {
			t.Errorf("git in %s: %v\n%s", s.Cwd, err, out)
			continue
		}
		want := s.GitToplevel + "\n" + s.Branch + "\n"
		// A session's recorded branch is what was checked out then; only the
		// newest session of a working copy must match HEAD now.
		if got := string(out); !strings.HasPrefix(got, s.GitToplevel+"\n") {
			t.Errorf("git in %s says %q, want toplevel %s", s.Cwd, got, s.GitToplevel)
		} else if s.Worktree && got != want {
			t.Errorf("git in worktree %s says %q, want %q", s.Cwd, got, want)
		}
	}
	for _, rp := range m.Repos {
		cmd := exec.Command(gitBin, "rev-parse", "--abbrev-ref", "HEAD")
		cmd.Dir = rp.Path
		cmd.Env = append(os.Environ(), "HOME="+gitHome, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != rp.HeadBranch {
			t.Errorf("HEAD of %s: %q, %v; want %s", rp.Name, out, err, rp.HeadBranch)
		}
	}
}
