package render

import (
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"github.com/google/go-cmp/cmp"
)

func TestConversationFoldsToolRunsAndKeepsTheNewest(t *testing.T) {
	turns := []harness.Turn{
		{Kind: harness.TurnPrompt, Text: "look at the invoice rounding code"},
		{Kind: harness.TurnReply, Text: "The rounding lives in billing/round.go.\nIt uses float64."},
		{Kind: harness.TurnTool, Tool: "Bash", Text: "Bash: go test ./..."},
		{Kind: harness.TurnPrompt, Text: "now fix it"},
		{Kind: harness.TurnTool, Tool: "Edit", Text: "Edit: billing/round.go"},
		{Kind: harness.TurnTool, Tool: "Read", Text: "Read: billing/round_test.go"},
		{Kind: harness.TurnTool, Tool: "Bash", Text: "Bash: go test ./billing/"},
		{Kind: harness.TurnReply, Text: "Done: round.go uses decimal."},
	}
	all := []string{
		"> look at the invoice rounding code",
		"  The rounding lives in billing/round.go.",
		"  It uses float64.",
		"  · Bash: go test ./...",
		"> now fix it",
		"  · 3 tool calls, the last Bash: go test ./billing/",
		"  Done: round.go uses decimal.",
	}
	if d := cmp.Diff(all, strings.Split(Conversation(turns, 80, 40), "\n")); d != "" {
		t.Errorf("a tall pane (-want +got):\n%s", d)
	}
	// Four lines: whole turns from the newest back; the two-line reply
	// does not fit after the three newest, so it and all before it go.
	if d := cmp.Diff(all[3:], strings.Split(Conversation(turns, 80, 4), "\n")); d != "" {
		t.Errorf("four lines (-want +got):\n%s", d)
	}
	// A prompt longer than the pane is wide wraps under itself, between
	// words; a word longer than a line is cut where the room ends.
	got := Conversation([]harness.Turn{{Kind: harness.TurnPrompt, Text: strings.TrimSpace(strings.Repeat("word ", 10))}}, 24, 5)
	if want := "> word word word word\n  word word word word\n  word word"; got != want {
		t.Errorf("wrapped:\n%q\nwant\n%q", got, want)
	}
	got = Conversation([]harness.Turn{{Kind: harness.TurnPrompt, Text: "see " + strings.Repeat("x", 40)}}, 24, 5)
	if want := "> see xxxxxxxxxxxxxxxxxx\n  xxxxxxxxxxxxxxxxxxxxxx"; got != want {
		t.Errorf("wrapped:\n%q\nwant\n%q", got, want)
	}
}

func TestCostLine(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := &harness.Session{ContextTokens: 182_400, Model: "claude-opus-4-5-20251101", TokensUsed: 1_234_567,
		LastReplyAt: now.Add(-3 * time.Hour), CacheExpired: true}
	if got, want := CostLine(s, now, nil), "182k tokens · cache cold (3 h) · opus"; got != want {
		t.Errorf("cold: %q, want %q", got, want)
	}
	prices := func(model string) (float64, float64, bool) { return 6.25, 0.5, model == "claude-opus-4-5-20251101" }
	if got, want := CostLine(s, now, prices), "182k tokens · cache cold (3 h) · opus · ≈ $1.14"; got != want {
		t.Errorf("priced: %q, want %q", got, want)
	}
	s.LastReplyAt, s.CacheExpired = now.Add(-2*time.Minute), false
	if got, want := CostLine(s, now, prices), "182k tokens · cache warm (2 min) · opus · ≈ $0.09"; got != want {
		t.Errorf("warm: %q, want %q", got, want)
	}
	if got := CostLine(&harness.Session{}, now, prices); got != "" {
		t.Errorf("no response: %q", got)
	}
}

// A wrapped line is measured in display columns: a line of wide runes
// wraps at half the runes, and a combining accent takes no room.
func TestWrapCountsDisplayColumns(t *testing.T) {
	for _, tc := range []struct{ in string }{
		{strings.Repeat("日本語", 20)},
		{strings.Repeat("e\u0301tude ", 12)},
		{"id       " + strings.Repeat("x", 60)},
	} {
		for _, line := range strings.Split(Wrap(tc.in, 30), "\n") {
			if w := Width(line); w > 30 {
				t.Errorf("a line of %d columns at width 30: %q", w, line)
			}
		}
		if got := strings.Join(strings.Fields(Wrap(tc.in, 30)), ""); got != strings.Join(strings.Fields(tc.in), "") {
			t.Errorf("wrapping lost text: %q", got)
		}
	}
}
