//go:build contract

package contract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestOutdatedFindsTheOlderSession runs one session on the older CLI and
// one on the current, and checks that `outdated` lists exactly the older
// one, whichever way the installed version is found.
func TestOutdatedFindsTheOlderSession(t *testing.T) {
	h := newHome(t)
	s := h.s
	oldRepo := h.repo("old-repo", "main")
	newRepo := h.repo("new-repo", "main")
	h.trust(oldRepo, newRepo)
	po := h.newPane(oldRepo, s.claude[s.older])
	pn := h.newPane(newRepo, s.claude[s.current])
	old := po.waitIdle("older claude", tmuxrig.StartWait)
	cur := pn.waitIdle("current claude", tmuxrig.StartWait)
	if old.Version != s.older || cur.Version != s.current {
		t.Fatalf("registries say %q and %q, want %s and %s", old.Version, cur.Version, s.older, s.current)
	}

	// The native installer's layout: ~/.local/bin/claude -> versions/<v>.
	versions := filepath.Join(h.dir, ".local", "share", "claude", "versions")
	tmuxrig.MustMkdir(t, versions)
	if err := os.Symlink(s.claude[s.current], filepath.Join(versions, s.current)); err != nil {
		t.Fatal(err)
	}
	localBin := filepath.Join(h.dir, ".local", "bin")
	tmuxrig.MustMkdir(t, localBin)
	if err := os.Symlink(filepath.Join(versions, s.current), filepath.Join(localBin, "claude")); err != nil {
		t.Fatal(err)
	}

	type row struct {
		SessionID        string `json:"session_id"`
		Pid              int    `json:"pid"`
		Version          string `json:"version"`
		InstalledVersion string `json:"installed_version"`
		Unparseable      bool   `json:"version_unparseable"`
		Status           string `json:"status"`
		Busy             bool   `json:"busy"`
		Cwd              string `json:"cwd"`
	}
	want := []row{{SessionID: old.SessionID, Pid: po.Pid, Version: s.older, InstalledVersion: s.current, Status: "idle", Cwd: oldRepo}}
	for _, c := range []struct {
		name string
		argv []string
		env  []string
	}{
		{"forgectl, FORGECTL_CLAUDE_BIN", []string{filepath.Join(s.bin, "forgectl"), "resume", "outdated", "--json"},
			[]string{"FORGECTL_CLAUDE_BIN=" + s.claude[s.current]}},
		{"resume-restart, versions symlink", []string{filepath.Join(s.bin, "resume-restart"), "outdated", "--json"},
			[]string{"PATH=" + localBin + ":/usr/bin:/bin"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			saved := h.Env
			h.Env = append(append([]string(nil), h.Env...), c.env...)
			out, errOut, code := h.Run(h.dir, "", c.argv[0], c.argv[1:]...)
			h.Env = saved
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got []row
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("outdated (-want +got):\n%s", diff)
			}
		})
	}
}
