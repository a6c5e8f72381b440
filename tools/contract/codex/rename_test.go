//go:build contract

package codex

import (
	"strings"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"

	"forgectl.dev/tools/fakeapi"
)

// TestCodexRenameByForgectl: `forgectl resume rename` of a thread Codex
// has let go of appends the line /rename appends, which forgectl's
// listing shows; the real Codex (0.171.0), resuming the thread, and its
// own picker still show the name its state database cached (the title),
// and Codex leaves the appended line as it is. This is asserted as
// observed, so a Codex that reads the index again fails here and says so.
func TestCodexRenameByForgectl(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("cache")
	const prompt = "plan the cache layer"
	title := fakeapi.TitleFor(prompt)
	p := h.startTUI(repo)
	p.prompt(prompt)
	id, _ := h.thread(prompt)
	h.waitName(id, title)
	p.quit()
	h.stopDaemon()
	if !enabled(h, "TestCodexRenameByForgectl") {
		return
	}
	const name = "Named from outside"
	out, errOut, code := h.forgectl("resume", "rename", id, name)
	if code != 0 {
		t.Fatalf("forgectl resume rename: exit %d\n%s%s", code, out, errOut)
	}
	es, _ := h.index()
	if last := es[len(es)-1]; last.ID != id || last.ThreadName != name || last.UpdatedAt == "" {
		t.Fatalf("session_index.jsonl ends with %+v, want %s named %q", last, id, name)
	}
	if r := h.ls()[id]; r.Name != name {
		t.Errorf("forgectl lists %s as %q, want %q", id, r.Name, name)
	}

	q := h.newPane(repo, h.binary, "resume", id)
	s := q.waitComposer("the resumed thread", tmuxrig.StartWait)
	if f := footer(s); strings.Contains(f, name) || !strings.Contains(f, title) {
		t.Errorf("codex resume's footer %q: 0.171.0 showed the cached title %q, not the index's %q", f, title, name)
	} else {
		t.Logf("FACT: after an appended session_index.jsonl line, codex resume still shows the state DB's name: %q", f)
	}
	q.quit()
	h.stopDaemon()
	pk := h.newPane(repo, h.binary, "resume", "--all")
	ps := pk.WaitScreen("the picker's row", tmuxrig.StartWait, func(s string) bool {
		return strings.Contains(s, "Resume a previous session") && (strings.Contains(s, name) || strings.Contains(s, title))
	})
	if strings.Contains(ps, name) || !strings.Contains(ps, title) {
		t.Errorf("codex resume --all shows:\n%s\n0.171.0 showed the cached title %q, not the index's %q", ps, title, name)
	} else {
		t.Log("FACT: codex resume --all also shows the state DB's name, not the index's last line")
	}
	pk.Kill()
	h.stopDaemon()
	if got := h.name(id); got != name {
		t.Errorf("after Codex resumed the thread, the index names it %q, want %q still", got, name)
	}
}
