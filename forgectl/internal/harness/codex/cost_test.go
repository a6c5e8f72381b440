package codex

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/forgectl/internal/sessions"
)

func listAt(t *testing.T, h *Harness, index string, now time.Time) (map[string]*harness.Session, sessions.Stats) {
	t.Helper()
	var out []*harness.Session
	st, err := sessions.List(context.Background(), sessions.Options{Harness: h, IndexPath: index, Now: now}, func(s *harness.Session) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return byID(out), st
}

// What resuming a thread costs, from its newest token_count event: the
// newest response's input tokens (cached ones included), the model of its
// turn, the thread's total, and the cache warm for 5 minutes after it, in
// both formats and kept in the index.
func TestListCost(t *testing.T) {
	hm := newHome(t)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	hm.segment(false, at(0), idTUI, "", at(3),
		codextest.MetaLine(pmeta(idTUI, at(0))),
		codextest.TokenCountNull(at(0), 1),
		codextest.TurnContext(at(0), 2, "/x"),
		codextest.User(at(0), 3, "fix the login bug"),
		codextest.Agent(at(1), 4, "fixed"),
		codextest.TokenCount(at(1), 5, 13606, 0, 14, 13620),
		codextest.User(at(2), 6, "now add a test"),
		codextest.Agent(at(2), 7, "added"),
		codextest.TokenCount(at(2), 8, 27500, 13000, 40, 41160))
	lm := codextest.Meta{ID: idLegacy, Cwd: "/work/legacy", Version: "0.142.3", Source: "cli", At: at(-30)}
	hm.segment(false, at(-30), idLegacy, "", at(-29),
		codextest.MetaLine(lm),
		codextest.TurnContext(at(-30), -1, "/x"),
		codextest.User(at(-30), -1, "legacy prompt"),
		codextest.Agent(at(-30), -1, "legacy reply"),
		codextest.TokenCount(at(-30), -1, 13693, 0, 14, 13707))
	hm.segment(false, at(-20), idExec, "", at(-19), codextest.MetaLine(pmeta(idExec, at(-20))), codextest.User(at(-20), 1, "no reply yet"))
	h := New(Paths{Root: hm.root})
	idx := filepath.Join(t.TempDir(), "idx")
	for pass, now := range []time.Time{at(2).Add(2 * time.Minute), at(2).Add(5 * time.Minute)} {
		m, st := listAt(t, h, idx, now)
		if pass == 1 && st.Scanned != 0 {
			t.Errorf("warm listing read %d segments", st.Scanned)
		}
		s := m[idTUI]
		if s.ContextTokens != 27500 || s.TokensUsed != 41160 || s.Model != "gpt-5" || !s.LastReplyAt.Equal(at(2)) {
			t.Errorf("pass %d: tui context %d used %d model %q reply at %v", pass, s.ContextTokens, s.TokensUsed, s.Model, s.LastReplyAt)
		}
		if want := pass == 1; s.CacheExpired != want {
			t.Errorf("pass %d (%v after the reply): cache expired %v, want %v", pass, now.Sub(at(2)), s.CacheExpired, want)
		}
		s = m[idLegacy]
		if s.ContextTokens != 13693 || s.TokensUsed != 13707 || s.Model != "gpt-5" || !s.CacheExpired {
			t.Errorf("pass %d: legacy context %d used %d model %q expired %v", pass, s.ContextTokens, s.TokensUsed, s.Model, s.CacheExpired)
		}
		s = m[idExec]
		if s.ContextTokens != 0 || s.TokensUsed != 0 || s.Model != "" || !s.CacheExpired {
			t.Errorf("pass %d: no response, yet context %d used %d model %q expired %v", pass, s.ContextTokens, s.TokensUsed, s.Model, s.CacheExpired)
		}
	}
}
