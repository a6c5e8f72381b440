package claude

import (
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/transcript"
)

// Claude Code's prompt-cache rule, as its 2.1.333 bundle computes
// prompt_cache_likely_expired for the SessionStart hook of a resumed
// session (function v_s, beside dLo and R_s, at byte 351874101 of the
// linux-x64 binary; facts/claude-code.md §g):
//
//   - the clock starts at the newest assistant row whose model is not
//     "<synthetic>" (yq), at its timestamp;
//   - the time to live is 1 hour when that row's usage wrote 1-hour cache
//     (cache_creation.ephemeral_1h_input_tokens > 0 and no 5-minute
//     writes; Yyt), else 5 minutes (Y2=300000, gx=3600000 ms). A row that
//     wrote no cache falls back to the account's main-thread default,
//     which only Claude Code knows: forgectl takes 5 minutes;
//   - expired when the age, rounded to whole seconds, is at least the time
//     to live: from the time to live less half a second on;
//   - always expired when a compaction came after the newest metered
//     response (R_s false).
const (
	cacheShort = 5 * time.Minute
	cacheLong  = time.Hour
)

// cacheWarmUntil is when the session's prompt cache counts as expired by
// that rule; zero when it already does whatever the time.
func cacheWarmUntil(u *transcript.Usage) time.Time {
	if u.ReplyAtMs == 0 || u.Compacted {
		return time.Time{}
	}
	ttl := cacheShort
	if u.TTL == "1h" {
		ttl = cacheLong
	}
	return time.UnixMilli(u.ReplyAtMs).UTC().Add(ttl - 500*time.Millisecond)
}

// setCost fills in what resuming s would cost, from its summary's usage.
func setCost(s *harness.Session, u *transcript.Usage) {
	s.ContextTokens, s.Model, s.TokensUsed = u.Context, u.Model, u.TokensUsed()
	if u.ReplyAtMs != 0 {
		s.LastReplyAt = time.UnixMilli(u.ReplyAtMs).UTC()
	}
	s.CacheWarmUntil = cacheWarmUntil(u)
}

// cacheExpired is the rule at now.
func cacheExpired(s *harness.Session, now time.Time) bool {
	return s.CacheWarmUntil.IsZero() || !now.Before(s.CacheWarmUntil)
}
