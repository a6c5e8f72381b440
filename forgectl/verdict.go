package main

import (
	"context"
	"encoding/json"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/msg"
	wire "forgectl.dev/shared/verdict"
)

// verdict is `forgectl resume --dry-run --json`: whether `forgectl resume
// FILTER` would exec claude now, and if not, why, in one object. It is how
// resume restart asks, before it stops a session, whether the relaunch it
// will type can succeed: the answer comes from this same resolution, not
// from a copy of its rules.
type verdict struct{ wire.Verdict }

// verdictFields documents verdict for --help.
const verdictFields = `VERDICT (--dry-run --json: one object on stdout; the exit code is unchanged)
  ok               bool     the real run would exec claude
  reason           string   "" when ok, else the first refusal: config_invalid,
                            bad_launch_profile, no_match, ambiguous, live,
                            no_cwd, cwd_gone, harness_unsupported,
                            claude_not_found, codex_not_found, or failed
                            (anything else)
  error, hint      string   the error and hint lines printed on stderr
  exit_code        number   the exit code (the real run's, 0 when ok)
  session_id, cwd  string   the session resolved ("" when none)
  transcript_path  string   its transcript
  binary           string   the claude (or codex) that would be exec'd
  argv             array    its argv ([] when not ok)
  context_tokens, model, cache_likely_expired, tokens_used
                            what resuming the session resolved would cost,
                            as in 'resume ls --json' (0, "", false, 0 when
                            none was resolved)
  estimated_usd    number   the context at the [resume.prices] cache-write
                            price (cold cache) or cache-read price (warm);
                            null when no price is configured for the model
  over_warn_context bool    the context is above [resume] warn_context_tokens`

// why records the first refusal of a --json dry run.
func (a *app) why(reason string) {
	if a.verdict != nil && a.verdict.Reason == "" {
		a.verdict.Reason = reason
	}
}

func (v *verdict) found(s *harness.Session, o resumeOpts) {
	v.SessionID, v.Cwd, v.Transcript = s.ID, s.Cwd, s.Transcript
	v.ContextTokens, v.Model, v.CacheLikelyExpired, v.TokensUsed = s.ContextTokens, s.Model, s.CacheExpired, s.TokensUsed
	if usd, ok := render.Estimate(s, o.prices); ok {
		v.EstimatedUSD = &usd
	}
	v.OverWarnContext = overWarn(s, o)
}

func (v *verdict) fill(p plan) { v.Binary, v.Argv = p.binary, p.argv }

// record keeps the first error and hint written.
func (v *verdict) record(k msg.Kind, text string) {
	switch {
	case k == msg.Error && v.Error == "":
		v.Error = text
	case k == msg.Hint && v.Hint == "":
		v.Hint = text
	}
}

// resumeVerdict runs a dry run that may print a verdict and may treat one
// live pid as stopped. Both belong to dry runs only: a real resume that
// ignored a live process would put two claudes on one transcript.
func (a *app) resumeVerdict(ctx context.Context, o resumeOpts, asJSON bool, stopped int) error {
	if !o.dryRun {
		a.errorf("--json and --assume-stopped need --dry-run")
		a.hintf("%s", a.prog.UsageHint("resume "))
		return exit(exitcode.Refused)
	}
	if stopped < 0 {
		a.errorf("--assume-stopped takes a pid, not %d", stopped)
		a.hintf("%s", a.prog.UsageHint("resume "))
		return exit(exitcode.Refused)
	}
	a.assumeStopped = stopped
	if !asJSON {
		return a.resume(ctx, o)
	}
	v := &verdict{wire.Verdict{Argv: []string{}}}
	// The first error and hint are kept as they are written; the messages
	// still reach stderr. The candidate table of an ambiguous filter is not
	// the verdict: resume leaves it out while a.verdict is set.
	a.verdict = v
	a.said.record = v.record
	err := a.resume(ctx, o)
	a.verdict, a.said.record = nil, nil

	code, carried := cli.Code(err)
	switch {
	case err == nil:
		v.OK, v.Reason = true, ""
	case carried:
		v.ExitCode = code
	default:
		v.ExitCode = exitcode.Failed
	}
	if !v.OK {
		if v.Reason == "" {
			v.Reason = "failed"
		}
		v.Argv = []string{}
		if v.Error == "" && err != nil && !carried {
			v.Error = err.Error()
		}
	}
	b, merr := json.Marshal(v)
	if merr != nil {
		return merr
	}
	if _, werr := a.stdout.Write(append(b, '\n')); werr != nil {
		return werr
	}
	return err
}
