package gencc_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"forgectl.dev/tools/gencc"
)

// textBytes sums what search indexes of a transcript's bulk: the typed
// prompts (string content) and the closing text replies (end_turn).
func textBytes(t *testing.T, path string) (prompts, replies, nPrompts, nReplies int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var row struct {
			Type    string `json:"type"`
			IsMeta  bool   `json:"isMeta"`
			Message struct {
				Content    json.RawMessage `json:"content"`
				StopReason *string         `json:"stop_reason"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &row) != nil {
			continue
		}
		switch {
		case row.Type == "user" && !row.IsMeta:
			var s string
			if json.Unmarshal(row.Message.Content, &s) == nil {
				prompts += len(s)
				nPrompts++
			}
		case row.Type == "assistant" && row.Message.StopReason != nil && *row.Message.StopReason == "end_turn":
			var blocks []struct{ Type, Text string }
			if json.Unmarshal(row.Message.Content, &blocks) == nil && len(blocks) == 1 && blocks[0].Type == "text" {
				replies += len(blocks[0].Text)
				nReplies++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return prompts, replies, nPrompts, nReplies
}

// A text-heavy home (-prompt-bytes, -reply-bytes) has prompts and replies
// of the sizes asked for, verifies like any other, keeps the byte cap, and
// is otherwise the home the same seed gives without them.
func TestTextHeavy(t *testing.T) {
	t.Parallel()
	const maxBytes = 12 << 20
	base := gencc.Options{Mode: gencc.ModeScale, Sessions: 24, Repos: 4, Seed: 9, MaxBytes: maxBytes, HugeFiles: -1}
	plain := generate(t, base)
	heavy := base
	heavy.PromptBytes, heavy.ReplyBytes = 6000, 8000
	m := generate(t, heavy)
	verifyHome(t, m.Home)
	if m.TotalBytes > maxBytes {
		t.Errorf("total %d exceeds the cap %d", m.TotalBytes, maxBytes)
	}
	if len(m.Sessions) != len(plain.Sessions) {
		t.Fatalf("%d sessions, %d without the text options", len(m.Sessions), len(plain.Sessions))
	}
	var pb, rb, np, nr, plainText int
	for i, s := range m.Sessions {
		if s.SessionID != plain.Sessions[i].SessionID || s.PromptCount != plain.Sessions[i].PromptCount {
			t.Errorf("session %d is %s with %d prompts, %s with %d without the text options", i, s.SessionID, s.PromptCount, plain.Sessions[i].SessionID, plain.Sessions[i].PromptCount)
		}
		p, r, n, k := textBytes(t, s.TranscriptPath)
		pb, rb, np, nr = pb+p, rb+r, np+n, nr+k
		pp, pr, _, _ := textBytes(t, plain.Sessions[i].TranscriptPath)
		plainText += pp + pr
	}
	if np == 0 || nr == 0 {
		t.Fatalf("%d prompts and %d closing replies read", np, nr)
	}
	// Means of 0.5–1.5× the size asked for; the bounds leave room for chance.
	if mean := pb / np; mean < 4000 || mean > 8000 {
		t.Errorf("prompts average %d bytes, want about 6000", mean)
	}
	if mean := rb / nr; mean < 5500 || mean > 10500 {
		t.Errorf("closing replies average %d bytes, want about 8000", mean)
	}
	if pb+rb < 5*plainText {
		t.Errorf("prompts and replies hold %d bytes, %d without the text options", pb+rb, plainText)
	}
}
