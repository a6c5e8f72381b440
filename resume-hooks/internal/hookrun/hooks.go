package hookrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"time"

	"forgectl.dev/resume-hooks/internal/audit"
	"forgectl.dev/resume-hooks/internal/hookexec"
	"forgectl.dev/resume-hooks/internal/redact"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/msg"
)

// runHook runs one hook, appends its audit record and returns its outcome.
// The error is errInterrupted when the run was signalled meanwhile, else
// errAudit when the record could not be appended (already reported: the
// remaining hooks still run).
func (r *Runner) runHook(ctx context.Context, h Hook, old, new string, attempt int) (string, error) {
	rec := hookstate.Record{
		Time: r.Now().UTC(), Event: hookstate.EventHook, Trigger: r.Trigger,
		Harness: r.Harness, OldVersion: old, NewVersion: new, Hook: h.ref(),
	}
	r.logf(msg.Info, "%s: starting", h.Describe())
	var res hookexec.Result
	if h.Kind == KindRestart {
		rec.Attempt = attempt
		res = r.restart(ctx, h, &rec)
	} else {
		res = r.command(ctx, h, old, new, &rec)
	}
	rec.DurationMS = res.Duration.Milliseconds()
	status := rec.Outcome
	switch {
	case rec.Signal != "":
		status += " (" + rec.Signal + ")"
	case rec.ExitStatus >= 0:
		status += fmt.Sprintf(" (exit %d)", rec.ExitStatus)
	}
	if rec.Detail != "" {
		status += ": " + rec.Detail
	}
	r.logf(msg.Info, "%s: %s after %s", h.Describe(), status, res.Duration.Round(10*time.Millisecond))
	if rec.StderrTail != "" {
		// The same redacted tail the audit line keeps, never more: the
		// command's own stderr is not passed to the log.
		r.logf(msg.Info, "%s: stderr tail (redacted):\n    %s", h.Describe(), strings.ReplaceAll(rec.StderrTail, "\n", "\n    "))
	}
	var err error
	if aerr := audit.Append(r.Files, rec); aerr != nil {
		// A full disk must not cost the hooks after this one their run.
		r.errorf("cannot append to the audit trail (%s: %s): %v", h.Describe(), rec.Outcome, aerr)
		err = errAudit
	}
	if res.Interrupted || ctx.Err() != nil {
		return rec.Outcome, errInterrupted
	}
	return rec.Outcome, err
}

func (r *Runner) command(ctx context.Context, h Hook, old, new string, rec *hookstate.Record) hookexec.Result {
	res := hookexec.Run(ctx, hookexec.Spec{
		Argv:    h.Command,
		Env:     withHookEnv(r.Env, r.Harness, old, new),
		Timeout: h.Timeout,
		// Neither stream is passed on: stdout is never stored, and stderr
		// (which can echo a token from the argv or an auth header) is only
		// captured, for the redacted tail of a failed run.
	})
	rec.ExitStatus, rec.Signal = res.ExitStatus, res.Signal
	switch {
	case res.StartErr != nil:
		rec.Outcome = hookstate.OutcomeFailed
		rec.Detail = "could not start " + rec.Hook.Program + ": " + startReason(res.StartErr)
		return res
	case res.TimedOut:
		rec.Outcome = hookstate.OutcomeTimeout
		rec.Detail = "killed at the " + h.Timeout.String() + " timeout"
	case res.ExitStatus == 0 && !res.Interrupted:
		rec.Outcome = hookstate.OutcomeOK
		return res
	default:
		rec.Outcome = hookstate.OutcomeFailed
		if res.Interrupted {
			rec.Detail = "stopped by a signal to the run"
		}
	}
	if tail := redact.Tail(res.Captured, h.Command[1:]); tail != "" {
		rec.StderrTail = tail
	}
	return res
}

// startReason keeps an exec failure's reason without echoing the program's
// full path or anything else from the argv.
func startReason(err error) string {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return "not found"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

func (r *Runner) restart(ctx context.Context, h Hook, rec *hookstate.Record) hookexec.Result {
	if r.RestartErr != nil || len(r.RestartArgv) == 0 {
		rec.Outcome, rec.ExitStatus = hookstate.OutcomeFailed, -1
		rec.Detail = "resume-restart not found"
		if r.RestartErr != nil {
			rec.Detail = r.RestartErr.Error()
		}
		return hookexec.Result{ExitStatus: -1}
	}
	// resume-restart takes restart.lock itself; looking first names the
	// reason in the audit trail instead of leaving it in the log.
	if l, err := fsutil.TryLock(r.RestartLock); errors.Is(err, fsutil.ErrLocked) {
		rec.Outcome, rec.ExitStatus = hookstate.OutcomeIncomplete, -1
		rec.Detail = "another restart holds restart.lock"
		return hookexec.Result{ExitStatus: -1}
	} else if err == nil {
		_ = l.Unlock()
	}
	argv := append(append([]string(nil), r.RestartArgv...), "--json", "--timeout", h.Timeout.String())
	grace := r.RestartGrace
	if grace <= 0 {
		grace = 90 * time.Second
	}
	res := hookexec.Run(ctx, hookexec.Spec{
		Argv: argv,
		Env:  r.Env,
		// The restart bounds its own waiting by --timeout; this deadline
		// only catches a runner that hangs past it.
		Timeout: h.Timeout + RestartBackstop,
		// Progress lines (stderr) go to the log; the per-session outcomes
		// (stdout, --json) are read here.
		Stderr:     r.Stderr,
		KeepStdout: true,
		Capture:    4 << 20,
		Grace:      grace,
	})
	rec.ExitStatus, rec.Signal = res.ExitStatus, res.Signal
	switch {
	case res.StartErr != nil:
		rec.Outcome = hookstate.OutcomeFailed
		rec.Detail = "could not start resume-restart: " + startReason(res.StartErr)
		return res
	case res.TimedOut:
		rec.Outcome = hookstate.OutcomeTimeout
		rec.Detail = fmt.Sprintf("killed %s past its %s timeout", RestartBackstop, h.Timeout)
	case res.ExitStatus == 0 && !res.Interrupted:
		rec.Outcome = hookstate.OutcomeOK
	case res.ExitStatus == 2:
		rec.Outcome = hookstate.OutcomeFailed
		rec.Detail = "resume-restart refused its arguments"
	default:
		rec.Outcome = hookstate.OutcomeIncomplete
	}
	sessions, err := ParseOutcomes(res.Stdout)
	if err != nil {
		if rec.Outcome != hookstate.OutcomeOK {
			r.errorf("cannot read resume-restart's per-session outcomes: %v", err)
		}
		return res
	}
	for _, s := range sessions {
		if s.Outcome != "resumed" {
			r.logf(msg.Info, "session %s: %s (%s)", s.SessionID, s.Outcome, s.Reason)
		}
		// resume-restart skips a session with no herdr pane, or one whose
		// relaunch would fail (exit 0: the person at the terminal is told
		// why), but for the watcher nobody is told: it stays outdated, so
		// the hook is incomplete, retried, and reported by launch doctor.
		if why, ok := leftOutdated[s.Reason]; ok && s.Outcome == "skipped" && rec.Outcome == hookstate.OutcomeOK {
			rec.Outcome = hookstate.OutcomeIncomplete
			rec.Detail = why
		}
		if s.Stranded() {
			rec.Resume = append(rec.Resume, s.Command)
		}
	}
	if len(rec.Resume) > 0 && r.Notify != nil && r.Trigger != hookstate.TriggerManual {
		msg := fmt.Sprintf("could not restart %d session(s) after the %s update; resume with: %s",
			len(rec.Resume), r.Harness, strings.Join(rec.Resume, "; "))
		// A signalled run is exactly when sessions are left stopped, so
		// the notification outlives the run's context, bounded on its own.
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), NotifyTimeout)
		err := r.Notify(nctx, "forgectl resume hooks", msg)
		cancel()
		if err != nil {
			r.errorf("cannot post the notification: %v", err)
		}
	}
	return res
}

// leftOutdated maps the skip reasons that leave a session outdated for a
// cause a person can clear (a pane herdr lost, a session not prompted yet, a
// deleted directory, a broken config or profile, a missing claude) to the
// audit detail. A restart that skips any session for one of them did not
// finish its job, so it records incomplete, never ok.
var leftOutdated = map[string]string{
	"no_pane":             "a session has no herdr pane",
	"no_transcript":       "a session has no transcript yet, so there is nothing to resume",
	"cwd_gone":            "a session's directory no longer exists",
	"bad_launch_profile":  "[proxy] launch_profile is broken, so no relaunch would start",
	"config_invalid":      "config.toml does not load, so no relaunch would start",
	"claude_not_found":    "the relaunch would not find claude",
	"harness_unsupported": "the session's launch profile names an unsupported harness",
	"no_cwd":              "a session's transcript records no directory",
	"relaunch_refused":    "forgectl would refuse a session's relaunch",
}

// Session is the part of one element of `resume-restart restart --json`
// this package reads.
type Session struct {
	SessionID string `json:"session_id"`
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason"`
	Signalled bool   `json:"signalled"`
	Command   string `json:"command"`
}

// Stranded reports a session the restart stopped and could not bring
// back: signalled and not resumed, which includes a relaunch whose delivery
// is unknown. A failure before the signal (a relaunch line that could not
// be rendered, say) left the session running, and sessions still waiting or
// skipped untouched are left to the retries and the log.
func (s Session) Stranded() bool {
	return s.Command != "" && s.Signalled && s.Outcome != "resumed"
}

// ParseOutcomes reads the restart's --json array.
func ParseOutcomes(stdout []byte) ([]Session, error) {
	var out []Session
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &out); err != nil {
		return nil, err
	}
	return out, nil
}
