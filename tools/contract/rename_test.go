//go:build contract

package contract

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestRenameShownByClaudesPickerAndKept renames an exited session with
// `forgectl resume rename` over a name /rename gave it inside, then checks
// the real CLI: its own picker (`claude --resume`) shows the new name, a
// resumed session keeps it (the rows it re-appends at the tail carry it,
// and its picker still shows it after the resumed turn), and the sidecar
// is /rename's shape.
func TestRenameShownByClaudesPickerAndKept(t *testing.T) {
	h := newHome(t)
	s := h.s
	cur := s.claude[s.current]
	repo := h.repo("rename-repo", "main")
	h.trust(repo)
	p := h.startClaude(repo, cur)
	id := p.prompt("work before the rename", "You said: work before the rename").SessionID
	// An in-session /rename leaves an agent name, which the picker shows
	// before a custom title: the outside rename must beat it.
	p.slash("/rename Old inside name", "Session renamed to: Old inside name")
	// While it runs, a rename from outside is refused, naming its pid.
	before, _ := os.ReadFile(h.transcripts()[id])
	if _, errOut, code := h.forgectl("resume", "rename", id, "Too early"); code != 2 || !strings.Contains(errOut, "(pid "+strconv.Itoa(p.Pid)+")") {
		t.Errorf("rename of the running session: exit %d, %s", code, errOut)
	}
	if after, _ := os.ReadFile(h.transcripts()[id]); !strings.HasPrefix(string(after), string(before)) || strings.Contains(string(after), "Too early") {
		t.Errorf("a refused rename wrote to the transcript")
	}
	p.exit()

	const name = "Renamed from outside"
	if _, errOut, code := h.forgectl("resume", "rename", id, name); code != 0 {
		t.Fatalf("forgectl resume rename: exit %d: %s", code, errOut)
	}
	side, err := os.ReadFile(filepath.Join(filepath.Dir(h.transcripts()[id]), id, "custom-title.json"))
	if err != nil || !strings.HasPrefix(string(side), `{"customTitle":"`+name+`","by":"user","at":"`) {
		t.Fatalf("custom-title.json %q, %v", side, err)
	}

	picker := func(when string) {
		t.Helper()
		pk := h.newPane(repo, cur, "--resume")
		sc := pk.WaitScreen("claude's picker to show the new name "+when, tmuxrig.StartWait, func(sc string) bool {
			return strings.Contains(sc, name)
		})
		if strings.Contains(sc, "Old inside name") {
			t.Errorf("claude's picker still shows the old name %s:\n%s", when, sc)
		}
		pk.Keys("Escape")
		pk.Keys("C-c")
	}
	picker("after the rename")

	r := h.newPane(repo, cur, "--resume", id)
	r.waitIdle("resumed session", tmuxrig.StartWait)
	r.prompt("work after the rename", "You said: work after the rename")
	r.exit()

	tr := h.readTruth(h.transcripts()[id])
	if tr.Name != name {
		t.Errorf("after a resumed turn the transcript names the session %q, want %q", tr.Name, name)
	}
	if row := h.ls()[id]; row.Name != name {
		t.Errorf("forgectl resume ls names it %q after the resumed turn, want %q", row.Name, name)
	}
	picker("after a resumed turn")
}
