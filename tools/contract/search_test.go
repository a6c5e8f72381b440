//go:build contract

package contract

import (
	"encoding/json"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestSearchFindsATypedPrompt types prompts into the real CLI, then checks
// that `resume search` finds exactly the session whose prompt holds the
// words, decoded from what the CLI wrote (quotes and non-ASCII included),
// and not the other one.
func TestSearchFindsATypedPrompt(t *testing.T) {
	h := newHome(t)
	s := h.s
	api := h.repo("api-server", "main")
	web := h.repo("web-app", "main")
	h.trust(api, web)
	cur := s.claude[s.current]
	pa := h.newPane(api, cur)
	pb := h.newPane(web, cur)
	for _, p := range []*pane{pa, pb} {
		p.waitIdle("start", tmuxrig.StartWait)
	}
	const typed = `where is the "quokka" rounding in the café ledger`
	ra := pa.prompt(typed, "You said:")
	rb := pb.prompt("the quokka is somewhere else", "You said:")
	for _, p := range []*pane{pa, pb} {
		p.exit()
	}

	out, errOut, code := h.forgectl("resume", "search", "--json", `"\"quokka\" rounding"`, "CAFÉ")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, errOut)
	}
	var rows []struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Hits      []struct {
			Role, At, Snippet string
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if len(rows) != 1 || rows[0].SessionID != ra.SessionID || rows[0].Cwd != api {
		t.Fatalf("search found %+v; want only %s (the other session is %s)", rows, ra.SessionID, rb.SessionID)
	}
	prompt := false
	for _, hit := range rows[0].Hits {
		prompt = prompt || hit.Role == "prompt" && hit.Snippet == typed
	}
	if !prompt {
		t.Errorf("no prompt hit with the typed text: %+v", rows[0].Hits)
	}
	// Both sessions hold "quokka"; none holds this.
	out, _, code = h.forgectl("resume", "search", "quokka", "xylophonequasar")
	if code != 1 || out != "" {
		t.Errorf("no hit: exit %d, stdout %q", code, out)
	}
}
