package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/snapstore"
)

// usageRow is an assistant row as 2.1.333 writes it, with its usage.
func usageRow(cwd, id, msgID string, at time.Time, in, cr, cc, out, m5, h1 int) string {
	return fmt.Sprintf(`{"parentUuid":"u1","isSidechain":false,"message":{"model":"claude-opus-4-5-20251101","id":%q,"type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":%d},"output_tokens":%d,"service_tier":"standard"}},"requestId":"req_1","type":"assistant","uuid":"a-%s","timestamp":%q,"userType":"external","entrypoint":"cli","cwd":%q,"sessionId":%q,"version":"2.1.333","gitBranch":"main"}`+"\n",
		msgID, in, cc, cr, m5, h1, out, msgID, at.UTC().Format("2006-01-02T15:04:05.000Z"), cwd, id)
}

func TestCostFromTheNewestResponse(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "src", "api")
	os.MkdirAll(repo, 0o755)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// warm: the newest reply 2 minutes ago, 5-minute cache. cold: 3 hours
	// ago. long: 1-hour cache written 50 minutes ago. edge: 5-minute cache,
	// 4 min 59.5 s ago, which Claude Code's rounding already counts as 5
	// minutes, so expired.
	at := map[string]time.Duration{"warm": 2 * time.Minute, "cold": 3 * time.Hour, "long": 50 * time.Minute, "edge": 5*time.Minute - 500*time.Millisecond, "nearly": 5*time.Minute - 501*time.Millisecond}
	for id, ago := range at {
		m5, h1 := 300, 0
		if id == "long" {
			m5, h1 = 0, 300
		}
		f.transcript(repo, id, now.Add(-ago),
			row(repo, id, "main", "cli", "look at the invoice rounding"),
			usageRow(repo, id, "msg_1", now.Add(-ago-time.Minute), 12, 40000, 2000, 100, 2000, 0),
			usageRow(repo, id, "msg_1", now.Add(-ago-time.Minute), 12, 40000, 2000, 350, 2000, 0),
			usageRow(repo, id, "msg_2", now.Add(-ago), 3, 42000, 300, 90, m5, h1))
	}
	idx := filepath.Join(f.home, "idx")
	opt := sessions.Options{IndexPath: idx, Now: now}
	for pass, want := range []int{len(at), 0} {
		r, err := listAll(f.claude, snapstore.Store{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if r.Scanned != want {
			t.Fatalf("pass %d read %d transcripts, want %d (a warm listing reads none for the cost)", pass, r.Scanned, want)
		}
		byID := map[string]harness.Session{}
		for _, s := range r.Sessions {
			byID[s.ID] = s
		}
		for id := range at {
			s := byID[id]
			// By hand: the newest response's 3 + 42000 + 300; every
			// response once, msg_1 at its last row.
			if s.ContextTokens != 3+42000+300 || s.Model != "claude-opus-4-5-20251101" || s.TokensUsed != (12+40000+2000+350)+(3+42000+300+90) {
				t.Errorf("pass %d %s: context %d model %q used %d", pass, id, s.ContextTokens, s.Model, s.TokensUsed)
			}
			wantExpired := id == "cold" || id == "edge"
			if s.CacheExpired != wantExpired {
				t.Errorf("pass %d %s (reply %v before now): cache expired %v, want %v", pass, id, at[id], s.CacheExpired, wantExpired)
			}
		}
	}
}

// After a compaction with no metered reply since, Claude Code counts the
// cache as expired however recent the reply (R_s in the bundle).
func TestCacheColdAfterACompaction(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "src", "api")
	os.MkdirAll(repo, 0o755)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	boundary := `{"parentUuid":null,"isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":44000,"postTokens":5200},"uuid":"c1","timestamp":"` + now.Add(-30*time.Second).Format(time.RFC3339) + `","cwd":"` + repo + `","sessionId":"compacted","version":"2.1.333","gitBranch":"main"}` + "\n"
	f.transcript(repo, "compacted", now.Add(-30*time.Second),
		row(repo, "compacted", "main", "cli", "look at the invoice rounding"),
		usageRow(repo, "compacted", "msg_1", now.Add(-time.Minute), 3, 42000, 300, 90, 300, 0),
		boundary)
	r, err := listAll(f.claude, snapstore.Store{}, sessions.Options{Now: now})
	if err != nil || len(r.Sessions) != 1 {
		t.Fatalf("%v %d", err, len(r.Sessions))
	}
	if s := r.Sessions[0]; !s.CacheExpired || s.ContextTokens != 5200 {
		t.Errorf("compacted a minute after the reply: expired %v, context %d; want expired, the compaction's 5200", s.CacheExpired, s.ContextTokens)
	}
}

// An append is read on from where the index stopped, and the cost moves
// with it: the new response is the context, and the tokens add up.
func TestCostFollowsAnAppend(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "src", "api")
	os.MkdirAll(repo, 0o755)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p := f.transcript(repo, "grows", now.Add(-time.Hour),
		row(repo, "grows", "main", "cli", "look at the invoice rounding"),
		usageRow(repo, "grows", "msg_1", now.Add(-time.Hour), 12, 40000, 2000, 350, 2000, 0))
	opt := sessions.Options{IndexPath: filepath.Join(f.home, "idx"), Now: now}
	if _, err := listAll(f.claude, snapstore.Store{}, opt); err != nil {
		t.Fatal(err)
	}
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(usageRow(repo, "grows", "msg_2", now.Add(-time.Minute), 3, 42000, 300, 90, 300, 0))
	fh.Close()
	os.Chtimes(p, now.Add(-time.Minute), now.Add(-time.Minute))
	r, err := listAll(f.claude, snapstore.Store{}, opt)
	if err != nil || len(r.Sessions) != 1 {
		t.Fatalf("%v %d", err, len(r.Sessions))
	}
	s := r.Sessions[0]
	if s.ContextTokens != 42303 || s.TokensUsed != 42362+42393 || s.CacheExpired {
		t.Errorf("after the append: context %d, used %d, expired %v; want 42303, %d, warm", s.ContextTokens, s.TokensUsed, s.CacheExpired, 42362+42393)
	}
}
