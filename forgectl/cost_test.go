package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
)

const idPriced = "c0570000-1111-4222-8333-444455556666"

// turnRow is a conversation row as 2.1.333 writes it, in session id of
// cwd, written at.
func turnRow(cwd, id, typ string, message any, at time.Time) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":%q,"message":%s,"uuid":"u-%d","timestamp":%q,"userType":"external","entrypoint":"cli","cwd":%q,"sessionId":%q,"version":"2.1.333","gitBranch":"main"}`+"\n",
		typ, cchome.JSONRow(message), at.UnixNano(), at.UTC().Format("2006-01-02T15:04:05.000Z"), cwd, id)
}

// response is an assistant row with its usage: input, cache read, cache
// creation (5-minute writes) and output tokens.
func response(cwd, id, msgID string, block cchome.Object, in, cr, cc, out int, at time.Time) string {
	return turnRow(cwd, id, "assistant", cchome.Object{"model", "claude-opus-4-5-20251101", "id", msgID, "type", "message", "role", "assistant",
		"content", []any{block}, "stop_reason", "end_turn", "usage", cchome.Object{"input_tokens", in, "cache_creation_input_tokens", cc,
			"cache_read_input_tokens", cr, "cache_creation", cchome.Object{"ephemeral_5m_input_tokens", cc, "ephemeral_1h_input_tokens", 0}, "output_tokens", out}}, at)
}

// costSession writes a session whose newest reply came ago before now:
// its context is 3 + 41000 + 1500 = 42503 tokens, and its responses took
// (10 + 30000 + 500 + 200) + (3 + 41000 + 1500 + 80) = 73293.
func costSession(h *testHome, cwd string, ago time.Duration) {
	at := time.Now().Add(-ago)
	h.cc.Transcript(cwd, idPriced, at,
		turnRow(cwd, idPriced, "user", cchome.Object{"role", "user", "content", "look at the invoice rounding code"}, at.Add(-time.Minute)),
		response(cwd, idPriced, "msg_1", cchome.Object{"type", "text", "text", "The rounding lives in billing/round.go."}, 10, 30000, 500, 20, at.Add(-50*time.Second)),
		response(cwd, idPriced, "msg_1", cchome.Object{"type", "tool_use", "id", "toolu_1", "name", "Bash", "input", cchome.Object{"command", "go test ./billing/"}}, 10, 30000, 500, 200, at.Add(-49*time.Second)),
		turnRow(cwd, idPriced, "user", cchome.Object{"role", "user", "content", []any{cchome.Object{"tool_use_id", "toolu_1", "type", "tool_result", "content", "ok"}}}, at.Add(-40*time.Second)),
		response(cwd, idPriced, "msg_2", cchome.Object{"type", "text", "text", "The tests pass; the rounding loses cents."}, 3, 41000, 1500, 80, at),
	)
}

func TestDryRunNamesTheCost(t *testing.T) {
	h := newHome(t)
	api := h.repo("api-server")
	costSession(h, api, 3*time.Hour)
	r := h.run("resume", "--dry-run", idPriced)
	if r.code != 0 {
		t.Fatalf("dry run: %d %s", r.code, r.stderr)
	}
	for _, want := range []string{"\ncontext: 43k tokens · cache cold (3 h) · opus\n", "\nused: 73k tokens so far\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "$") || strings.Contains(r.stdout, "warning") {
		t.Errorf("no price and no threshold configured, yet:\n%s", r.stdout)
	}

	// Prices and a threshold: the estimate (42503 tokens at $6.25 per
	// million to write the cache again) and the figure the warning names.
	h.config("[resume]\nwarn_context_tokens = 40000\n\n[resume.prices]\n\"claude-opus-4-5\" = { cache_write = 6.25, cache_read = 0.5 }\n")
	r = h.run("resume", "--dry-run", idPriced)
	for _, want := range []string{"\ncontext: 43k tokens · cache cold (3 h) · opus · ≈ $0.27\n",
		"\nwarning: resuming reloads 43k tokens of context, above [resume] warn_context_tokens (40k); its prompt cache has likely expired"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, r.stdout)
		}
	}
	r = h.run("resume", "--dry-run", "--json", idPriced)
	var v map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("verdict: %v\n%s", err, r.stdout)
	}
	for k, want := range map[string]any{"context_tokens": 42503.0, "model": "claude-opus-4-5-20251101", "cache_likely_expired": true,
		"tokens_used": 73293.0, "estimated_usd": 42503 * 6.25 / 1e6, "over_warn_context": true} {
		if v[k] != want {
			t.Errorf("verdict %s = %v, want %v", k, v[k], want)
		}
	}

	// Under the threshold, and warm: no warning; the estimate is at the
	// cache-read price.
	h.config("[resume]\nwarn_context_tokens = 50000\n\n[resume.prices]\n\"claude-opus-4-5\" = { cache_write = 6.25, cache_read = 0.5 }\n")
	costSession(h, api, 2*time.Minute)
	r = h.run("resume", "--dry-run", idPriced)
	if want := "\ncontext: 43k tokens · cache warm (2 min) · opus · ≈ $0.02\n"; !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "warning") {
		t.Errorf("warm, under the threshold: want %q and no warning:\n%s", want, r.stdout)
	}
}

func TestLsJSONCost(t *testing.T) {
	h := newHome(t)
	api := h.repo("api-server")
	costSession(h, api, 2*time.Minute)
	for pass := range 2 { // cold, then from the index
		r := h.run("resume", "ls", "--json")
		var rows []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("ls --json: %v\n%s", err, r.stdout)
		}
		for k, want := range map[string]any{"context_tokens": 42503.0, "model": "claude-opus-4-5-20251101", "cache_likely_expired": false, "tokens_used": 73293.0} {
			if rows[0][k] != want {
				t.Errorf("pass %d: %s = %v, want %v", pass, k, rows[0][k], want)
			}
		}
	}
}

func TestPickerAsksOnceAboveTheThreshold(t *testing.T) {
	h := newHome(t)
	api := h.repo("api-server")
	costSession(h, api, 3*time.Hour)
	h.config("[resume]\nwarn_context_tokens = 40000\n")

	h.stdin = "n\n"
	r := h.runWith(true, &fakePicker{}, nil, "resume")
	if r.code != 130 || r.exec != nil {
		t.Fatalf("declined: exit %d, exec %v", r.code, r.exec)
	}
	if want := "resuming reloads 43k tokens of context, above [resume] warn_context_tokens (40k)"; !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "anyway?") != 1 {
		t.Errorf("the question, once: want %q:\n%s", want, r.stderr)
	}
	h.stdin = "y\n"
	if r = h.runWith(true, &fakePicker{}, nil, "resume"); r.code != 0 || r.exec == nil {
		t.Fatalf("accepted: exit %d, exec %v\n%s", r.code, r.exec, r.stderr)
	}
	// Off by default: nothing is asked, nothing read.
	h.config("")
	h.stdin = ""
	if r = h.runWith(true, &fakePicker{}, nil, "resume"); r.code != 0 || r.exec == nil || strings.Contains(r.stderr, "anyway?") {
		t.Fatalf("no threshold: exit %d, exec %v\n%s", r.code, r.exec, r.stderr)
	}
}

// The picker's preview, drawn by the real finder in a real terminal: the
// header, the cost, and the end of the conversation, newest at the bottom.
func TestE2EPreviewShowsTheConversation(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	costSession(e.testHome, api, 3*time.Hour)
	tm := newTmux(t)
	e.startPickers(tm, 1)
	screen := tm.waitFor("the conversation in the preview", func(s string) bool {
		return strings.Contains(s, "The tests pass; the rounding loses cents.")
	})
	var order []int
	for _, want := range []string{"context  43k tokens · cache cold (3 h) · opus", "> look at the invoice rounding code",
		"  The rounding lives in billing/round.go.", "  · Bash: go test ./billing/", "  The tests pass; the rounding loses cents."} {
		i := strings.Index(screen, want)
		if i < 0 {
			t.Errorf("the preview lacks %q:\n%s", want, screen)
		}
		order = append(order, i)
	}
	for k := 1; k < len(order); k++ {
		if order[k] < order[k-1] {
			t.Errorf("the preview's lines are out of order (%v):\n%s", order, screen)
		}
	}
	tm.run("send-keys", "-t", "t", "Escape")
	tm.waitFor("exit 130", func(s string) bool { return strings.Contains(s, "EXIT=130") })
}

// The question above the threshold, in a real terminal after the finder
// has let it go: a "y" resumes.
func TestE2EPickerAsksAboveTheThreshold(t *testing.T) {
	e := newE2E(t)
	api := e.repo("api-server")
	costSession(e.testHome, api, 3*time.Hour)
	e.config("[resume]\nwarn_context_tokens = 40000\n")
	tm := newTmux(t)
	e.startPickers(tm, 1)
	tm.waitFor("the picker", func(s string) bool {
		return strings.Contains(s, "resume>") && strings.Contains(s, "look at the invoice")
	})
	tm.run("send-keys", "-t", "t", "Enter")
	tm.waitFor("the question", func(s string) bool {
		return strings.Contains(s, "resuming reloads 43k tokens of context, above [resume] warn_context_tokens (40k)") && strings.Contains(s, "anyway? [y/N]")
	})
	tm.run("send-keys", "-t", "t", "-l", "y")
	tm.run("send-keys", "-t", "t", "Enter")
	r := e.waitRecord(t)
	if r.Cwd != api || strings.Join(r.Args, " ") != "--resume "+idPriced {
		t.Fatalf("answered yes, exec'd: %+v", r)
	}
	stopProcess(t, r.Pid)
}
