//go:build contract

package contract

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestResumeExecsClaudeAndTheConversationContinues resumes an exited
// session from another directory: forgectl execs the real CLI in place, in
// the session's own directory, and a new prompt lands in the same
// transcript.
func TestResumeExecsClaudeAndTheConversationContinues(t *testing.T) {
	h := newHome(t)
	s := h.s
	repo := h.repo("cont-repo", "feature/continue")
	h.trust(repo)
	p := h.startClaude(repo, s.claude[s.current])
	id := p.prompt("first prompt of the conversation", "You said: first prompt of the conversation").SessionID
	p.exit()
	before := h.transcripts()
	path := before[id]
	if path == "" {
		t.Fatalf("no transcript for %s", id)
	}

	// Started from HOME, which is not the session's directory.
	r := h.newPane(h.dir, filepath.Join(s.bin, "forgectl"), "resume", id)
	reg := r.waitIdle("resumed session", tmuxrig.StartWait)
	if reg.Pid != r.Pid {
		t.Errorf("claude runs as pid %d, forgectl was pid %d: not exec'd in place", reg.Pid, r.Pid)
	}
	if reg.SessionID != id || reg.Cwd != repo {
		t.Errorf("resumed registry: session %q cwd %q; want %s in %s", reg.SessionID, reg.Cwd, id, repo)
	}
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", r.Pid)); err != nil || cwd != repo {
		t.Errorf("claude's working directory %q (%v), want %s", cwd, err, repo)
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", r.Pid)); err != nil || exe != s.claude[s.current] {
		t.Errorf("pid %d runs %q (%v), want the claude on PATH, %s", r.Pid, exe, err, s.claude[s.current])
	}
	r.WaitScreen("the earlier conversation", tmuxrig.StartWait, func(sc string) bool {
		return strings.Contains(sc, "first prompt of the conversation")
	})
	r.prompt("second prompt continues it", "You said: second prompt continues it")
	r.exit()

	if diff := cmp.Diff(sortedKeys(before), sortedKeys(h.transcripts())); diff != "" {
		t.Errorf("resuming made a new transcript (-before +after):\n%s", diff)
	}
	prompts := userPrompts(t, path, id)
	want := []string{"first prompt of the conversation", "second prompt continues it"}
	if diff := cmp.Diff(want, prompts); diff != "" {
		t.Errorf("human prompts in %s (-want +got):\n%s", path, diff)
	}
	row := h.ls()[id]
	if row.LastPrompt != "second prompt continues it" || row.Cwd != repo || row.Branch != "feature/continue" {
		t.Errorf("ls after the resumed turn: last prompt %q cwd %q branch %q", row.LastPrompt, row.Cwd, row.Branch)
	}
}

// userPrompts lists the typed prompts in a transcript (user rows whose
// content is a plain string), each checked to carry the session's id.
func userPrompts(t *testing.T, path, id string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var row struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
			IsMeta    bool   `json:"isMeta"`
			Message   struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &row) != nil || row.Type != "user" || row.IsMeta {
			continue
		}
		var s string
		if json.Unmarshal(row.Message.Content, &s) != nil || strings.HasPrefix(s, "<") {
			continue
		}
		if row.SessionID != id {
			t.Errorf("prompt %q in %s carries session %q", s, path, row.SessionID)
		}
		out = append(out, s)
	}
	return out
}
