// Package verdict is the answer of `forgectl resume --dry-run --json`:
// whether `forgectl resume FILTER` would exec claude now, and if not, why.
// forgectl writes it and resume-restart reads it before it stops a
// session, so its shape is defined once, here; its fields are documented
// in forgectl's `resume --help` (VERDICT).
package verdict

// Verdict is one answer.
type Verdict struct {
	OK bool `json:"ok"`
	// Reason names the first refusal; "" when OK.
	Reason     string   `json:"reason"`
	Error      string   `json:"error"`
	Hint       string   `json:"hint"`
	ExitCode   int      `json:"exit_code"`
	SessionID  string   `json:"session_id"`
	Cwd        string   `json:"cwd"`
	Transcript string   `json:"transcript_path"`
	Binary     string   `json:"binary"`
	Argv       []string `json:"argv"`
	// What the resume would cost, for the session resolved (zero when
	// none): as in ls --json, with the dollar estimate of [resume.prices]
	// (nil without a price for the model) and whether the context is above
	// [resume] warn_context_tokens.
	ContextTokens      int64    `json:"context_tokens"`
	Model              string   `json:"model"`
	CacheLikelyExpired bool     `json:"cache_likely_expired"`
	TokensUsed         int64    `json:"tokens_used"`
	EstimatedUSD       *float64 `json:"estimated_usd"`
	OverWarnContext    bool     `json:"over_warn_context"`
}
