//go:build contract

package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestInitStopHookWiresTheRealCLI wires the Stop hook with `forgectl init
// --stop-hook` instead of by hand, from a shell whose PATH lacks forgectl
// (so the hook names forgectl's absolute path), into settings that hold a
// user's other keys, kept byte for byte. The real CLI must run that hook
// after a turn, and removal must give the file back unchanged.
func TestInitStopHookWiresTheRealCLI(t *testing.T) {
	h := newHome(t)
	repo := h.repo("init-repo", "main")
	h.trust(repo)
	settings := filepath.Join(h.claude, "settings.json")
	const user = "{\n    \"cleanupPeriodDays\": 3650,\n    \"env\": {\"FORGECTL_CONTRACT_USER_SETTING\": \"kept — ✓\"},\n    \"permissions\": {\"allow\": [\"Bash(true)\"]}\n}\n"
	tmuxrig.WriteFile(t, settings, user)

	var env []string
	for _, kv := range h.Env {
		if strings.HasPrefix(kv, "PATH=") {
			kv = "PATH=" + h.bin + ":/usr/bin:/bin"
		}
		env = append(env, kv)
	}
	forgectl := filepath.Join(h.s.bin, "forgectl")
	saved := h.Env
	h.Env = env
	_, stderr, code := h.Run(h.dir, "", forgectl, "init", "--stop-hook")
	h.Env = saved
	if code != 0 {
		t.Fatalf("init --stop-hook: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(settings)
	if !strings.HasPrefix(string(b), strings.TrimSuffix(user, "\n}\n")) || !strings.Contains(string(b), `"command": "`+forgectl+` resume snapshot --quiet"`) {
		t.Fatalf("settings after init:\n%s", b)
	}

	p := h.startClaude(repo, h.s.claude[h.s.current])
	reg := p.prompt("tasks: Wire the hook; Check the hook", "Created 2 tasks and started the first.")
	snap := waitSnapshot(t, filepath.Join(h.dir, ".config", "forgectl", "resume-sessions", reg.SessionID+".json"),
		func(sn snapshot) bool { return len(sn.Tasks) == 2 })
	if snap.SessionID != reg.SessionID || snap.Cwd != repo {
		t.Errorf("snapshot: %+v", snap)
	}
	p.exit()

	// Removal gives the user's file back byte for byte.
	if _, stderr, code := h.forgectl("init", "--remove-stop-hook"); code != 0 {
		t.Fatalf("init --remove-stop-hook: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(settings); string(b) != user {
		t.Errorf("after removal:\n%s", b)
	}
}
