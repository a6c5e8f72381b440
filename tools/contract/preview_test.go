//go:build contract

package contract

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestPreviewOfARealSession makes a session with the real CLI (a prompt
// answered in text, then one answered with tool calls and a reply), then
// checks what forgectl says a resume of it costs against the usage the
// transcript records, summed by hand, and that the picker's preview, drawn
// in a real terminal, shows the last prompt and its reply.
func TestPreviewOfARealSession(t *testing.T) {
	h := newHome(t)
	s := h.s
	repo := h.repo("billing", "main")
	h.trust(repo)
	p := h.newPane(repo, s.claude[s.current])
	p.waitIdle("start", tmuxrig.StartWait)
	p.prompt("look at the invoice rounding", "You said: look at the invoice rounding")
	r := p.prompt("tasks: Write unit tests; Fix rounding", "Created 2 tasks and started the first.")
	p.exit()
	id := r.SessionID

	// By hand, from the transcript: the newest assistant row's usage, and
	// every response's once (one row per content block, each with the
	// response's usage: the last counts).
	path := h.transcripts()[id]
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type usage struct {
		Input       int64 `json:"input_tokens"`
		CacheRead   int64 `json:"cache_read_input_tokens"`
		CacheCreate int64 `json:"cache_creation_input_tokens"`
		Output      int64 `json:"output_tokens"`
	}
	var context, used int64
	var model string
	byMsg := map[string]int64{}
	var order []string
	for _, l := range strings.Split(string(b), "\n") {
		var row struct {
			Type    string `json:"type"`
			Message struct {
				ID    string `json:"id"`
				Model string `json:"model"`
				Usage *usage `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &row) != nil || row.Type != "assistant" || row.Message.Usage == nil || row.Message.Model == "<synthetic>" {
			continue
		}
		u := row.Message.Usage
		if u.Input+u.CacheRead+u.CacheCreate+u.Output == 0 {
			continue
		}
		context, model = u.Input+u.CacheRead+u.CacheCreate, row.Message.Model
		if _, seen := byMsg[row.Message.ID]; !seen {
			order = append(order, row.Message.ID)
		}
		byMsg[row.Message.ID] = u.Input + u.CacheRead + u.CacheCreate + u.Output
	}
	for _, m := range order {
		used += byMsg[m]
	}
	if context == 0 || len(order) < 3 {
		t.Fatalf("the transcript records %d responses, the newest with context %d: not what the test did", len(order), context)
	}
	row := h.ls()[id]
	if row.ContextTokens != context || row.Model != model || row.TokensUsed != used || row.CacheLikelyExpired {
		t.Errorf("ls --json: context_tokens %d, model %q, tokens_used %d, cache_likely_expired %v; by hand %d, %q, %d, and warm (the reply came seconds ago)",
			row.ContextTokens, row.Model, row.TokensUsed, row.CacheLikelyExpired, context, model, used)
	}

	// The picker in a real terminal: the last prompt, the tool calls
	// folded, and the reply, newest at the bottom.
	pk := h.newPane(h.dir, h.s.bin+"/forgectl", "resume")
	screen := pk.WaitScreen("the preview of "+id, tmuxrig.TurnWait, func(s string) bool {
		return strings.Contains(s, "> tasks: Write unit tests; Fix rounding") && strings.Contains(s, "Created 2 tasks and started the first.")
	})
	last := -1
	for _, want := range []string{"> look at the invoice rounding", "You said: look at the invoice rounding",
		"> tasks: Write unit tests; Fix rounding", "tool calls, the last TaskUpdate", "Created 2 tasks and started the first."} {
		i := strings.Index(screen, want)
		if i < 0 || i < last {
			t.Errorf("the preview lacks %q after what comes before it:\n%s", want, screen)
		}
		last = i
	}
	if !strings.Contains(screen, "context  ") || !strings.Contains(screen, "cache warm") {
		t.Errorf("the preview shows no cost line:\n%s", screen)
	}
	pk.Keys("Escape")
	t.Logf("proven on claude %s: context %s tokens, %s used, over %d responses", s.current, strconv.FormatInt(context, 10), strconv.FormatInt(used, 10), len(order))
}
