package restart

import (
	"context"
	"errors"
	"fmt"
	"os"

	"forgectl.dev/resume-restart/internal/relaunch"
)

// Reasons a relaunch would fail, each a skip before any signal. The first
// ones are forgectl's own refusal names, passed through.
const (
	NoTranscript       = "no_transcript"
	CwdGone            = "cwd_gone"
	BadLaunchProfile   = "bad_launch_profile"
	ConfigInvalid      = "config_invalid"
	ClaudeNotFound     = "claude_not_found"
	HarnessUnsupported = "harness_unsupported"
	NoCwd              = "no_cwd"
	// RelaunchRefused is any other refusal forgectl gave (another process
	// runs the session, say).
	RelaunchRefused = "relaunch_refused"
	// RelaunchUnverified is no verdict at all: a failure, never a signal.
	RelaunchUnverified = "relaunch_unverified"
)

// resolve asks forgectl whether the relaunch line would work once the
// session's pid has exited, and records what it resolved.
func (r *runner) resolve(ctx context.Context, s *session) finding {
	v, err := r.Resolve(ctx, s.id, s.Entry.Pid)
	f := relaunchFinding(s, r.Forgectl, v, err)
	if ctx.Err() == nil || f.st == pass {
		s.checks.Relaunch = f.String()
	}
	if f.st == pass {
		s.transcript = v.Transcript
	}
	return f
}

func relaunchFinding(s *session, forgectl string, v relaunch.Verdict, err error) finding {
	if err != nil {
		return finding{st: broken, reason: RelaunchUnverified,
			detail: fmt.Sprintf("cannot tell whether %s would work: %v", s.line, err),
			hint:   fmt.Sprintf("see what forgectl says: %s --dry-run", s.line)}
	}
	if v.OK {
		if v.Transcript == "" {
			return finding{st: broken, reason: RelaunchUnverified,
				detail: fmt.Sprintf("forgectl resume --dry-run named no transcript for %s", s.id)}
		}
		return passed
	}
	switch v.Reason {
	case "no_match":
		// Claude Code writes a transcript at the first prompt; a session
		// opened and never prompted has nothing to resume, and stopping it
		// loses nothing but leaves the pane empty.
		cwd := s.Entry.Cwd
		launch := "forgectl launch"
		if q, qerr := shellQuote(forgectl); qerr == nil && forgectl != "" {
			launch = q + " launch"
		}
		hint := "nothing is lost by closing it: quit it and start claude again where it ran, or run " + launch + " there"
		if q, qerr := shellQuote(cwd); cwd != "" && qerr == nil {
			hint = fmt.Sprintf("nothing is lost by closing it: quit it and start claude in %s, or run `cd %s && %s`", cwd, q, launch)
		}
		return finding{st: refuse, reason: NoTranscript, noCommand: true, hint: hint,
			detail: "there is nothing to resume: it has no transcript yet (Claude Code writes one at the first prompt), so forgectl resume would find no session"}
	case CwdGone, BadLaunchProfile, ConfigInvalid, ClaudeNotFound, HarnessUnsupported, NoCwd:
		return finding{st: refuse, reason: v.Reason, hint: v.Hint,
			detail: "the relaunch would fail: " + v.Error}
	}
	return finding{st: refuse, reason: RelaunchRefused, hint: v.Hint,
		detail: fmt.Sprintf("the relaunch would fail (forgectl: %s): %s", v.Reason, v.Error)}
}

// transcriptCheck is the last check before the signal: the transcript the
// relaunch resolved must still be there, or `forgectl resume <id>` would
// find nothing after the stop.
func (s *session) transcriptCheck() finding {
	if s.transcript == "" {
		// Resolution runs before every signal, so a real run never gets
		// here without one; a dry run's checks have no signal to guard.
		return passed
	}
	if _, err := os.Stat(s.transcript); err != nil {
		return finding{st: refuse, reason: NoTranscript, noCommand: true,
			hint:   "check where its transcript went before resuming it",
			detail: fmt.Sprintf("its transcript %s is gone since the relaunch was resolved (%v), so forgectl resume would find no session", s.transcript, errors.Unwrap(err))}
	}
	return passed
}
