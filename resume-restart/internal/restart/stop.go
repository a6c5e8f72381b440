package restart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"forgectl.dev/resume-restart/internal/herdr"
	"forgectl.dev/resume-restart/internal/inputbox"
	"forgectl.dev/shared/registry"
)

// inputCheck reads the pane's screen and looks for an unsent draft.
func (r *runner) inputCheck(ctx context.Context, s *session) finding {
	screen, err := r.Herdr.ReadVisible(ctx, s.pane)
	if err != nil {
		return herdrFinding(err, s.pane)
	}
	res := inputbox.Read(screen)
	switch res.Verdict {
	case inputbox.Empty:
		return passed
	case inputbox.Draft:
		return finding{st: hold, reason: "draft", detail: "holding an unsent draft (" + res.Reason + ")"}
	}
	return finding{st: hold, reason: "input_unrecognized", detail: "showing no recognisable input box (" + res.Reason + "), which counts as a draft"}
}

// restart stops the session and relaunches it in its pane. It runs to the
// end whatever happens to the run's context: a session once signalled is
// always relaunched or reported.
func (r *runner) restart(s *session, e registry.Entry) {
	ctx := context.Background()
	pid := s.Entry.Pid
	r.progress("%s: idle with an empty input line: stopping pid %d in %s", s.id, pid, s.paneLabel())
	switch err := r.Terminate(pid, s.Entry.ProcStart); {
	case errors.Is(err, ErrExited):
		s.finish(s.outcome(Skipped, "exited", "the session exited by itself just before the signal; it was not relaunched"))
		return
	case errors.Is(err, ErrReused):
		s.finish(s.outcome(Skipped, "identity_mismatch", fmt.Sprintf("pid %d was reused just before the signal; it was not signalled", pid)))
		return
	case err != nil:
		s.finish(s.outcome(Failed, "signal_failed", fmt.Sprintf("SIGTERM to pid %d failed (%v)", pid, err)))
		return
	}
	signalled := func(kind, reason, detail string) {
		o := s.outcome(kind, reason, detail)
		o.Signalled = true
		s.finish(o)
	}

	deadline := r.Now().Add(r.StopWait)
	if !r.until(deadline, func() bool { return r.gone(pid, s.Entry.ProcStart) }) {
		signalled(Failed, "still_running", fmt.Sprintf("pid %d was sent SIGTERM and is still running after %s; check the pane", pid, r.StopWait))
		return
	}
	if !r.until(deadline, func() bool { _, err := os.Lstat(e.File); return errors.Is(err, os.ErrNotExist) }) {
		signalled(Failed, "registry_file_remains", fmt.Sprintf("pid %d exited but its registry file is still there after %s; nothing was typed", pid, r.StopWait))
		return
	}
	var lastErr error
	shellBack := func() bool {
		pi, err := r.Herdr.ProcessInfo(ctx, s.pane)
		lastErr = err
		return err == nil && pi.ShellPid == s.shellPid && pi.ShellForeground()
	}
	if !r.until(deadline, shellBack) {
		switch {
		case herdr.IsCode(lastErr, herdr.CodePaneNotFound):
			signalled(PaneGone, "pane_not_found", fmt.Sprintf("the session stopped, then herdr answered pane_not_found for %s; nothing was typed", s.pane))
		case lastErr != nil:
			signalled(Failed, "herdr_error", fmt.Sprintf("the session stopped, then herdr failed (%v); nothing was typed", lastErr))
		default:
			signalled(Failed, "shell_not_back", fmt.Sprintf("the session stopped, but pane %s's shell (pid %d) did not hold the foreground again within %s; nothing was typed", s.pane, s.shellPid, r.StopWait))
		}
		return
	}
	if other := r.liveEntry(s.id, pid); other != nil {
		signalled(Skipped, "already_running", fmt.Sprintf("the session stopped and is already running again as pid %d; nothing was typed", other.Pid))
		// Resuming it by hand would be refused: it is running.
		s.done.Command = ""
		return
	}
	// Clears what may have been typed at the shell prompt in the gap; safe
	// only now that the shell, not claude, reads the keys.
	if err := r.Herdr.SendKeys(ctx, s.pane, "ctrl+u"); err != nil {
		signalled(failKind(err), "herdr_error", fmt.Sprintf("the session stopped, then clearing the prompt failed (%v); nothing was typed", err))
		return
	}
	pi, err := r.Herdr.ProcessInfo(ctx, s.pane)
	if err != nil {
		signalled(failKind(err), "herdr_error", fmt.Sprintf("the session stopped, then herdr failed (%v); nothing was typed", err))
		return
	}
	if pi.ShellPid != s.shellPid || !pi.ShellForeground() {
		signalled(Failed, "shell_not_back", fmt.Sprintf("the session stopped, but pane %s's shell no longer holds the foreground; nothing was typed", s.pane))
		return
	}
	r.progress("%s: stopped; typing the relaunch into %s", s.id, s.paneLabel())
	runErr := r.Herdr.Run(ctx, s.pane, s.line)
	unknown := herdr.IsTimeout(runErr)
	if runErr != nil && !unknown {
		signalled(failKind(runErr), "herdr_error", fmt.Sprintf("the session stopped, then typing the relaunch failed (%v)", runErr))
		return
	}
	var fresh *registry.Entry
	r.until(r.Now().Add(r.RegisterWait), func() bool {
		fresh = r.liveEntry(s.id, pid)
		return fresh != nil
	})
	switch {
	case fresh != nil:
		o := s.outcome(Resumed, "", fmt.Sprintf("registered again as pid %d", fresh.Pid))
		o.Signalled, o.NewPid = true, fresh.Pid
		if unknown {
			o.Detail += " (the pane run call was killed at its bound, but the line arrived)"
		}
		s.finish(o)
	case unknown:
		signalled(DeliveryUnknown, "run_timeout", fmt.Sprintf("the session stopped; the pane run call was killed at its bound and the session did not register within %s; check pane %s before resuming it by hand", r.RegisterWait, s.pane))
	default:
		signalled(Failed, "not_registered", fmt.Sprintf("the relaunch was typed into %s but the session did not register within %s; check the pane", s.pane, r.RegisterWait))
	}
}

func failKind(err error) string {
	if herdr.IsCode(err, herdr.CodePaneNotFound) {
		return PaneGone
	}
	return Failed
}

// until polls cond every Settle until it holds or the deadline passes.
func (r *runner) until(deadline time.Time, cond func() bool) bool {
	for {
		if cond() {
			return true
		}
		if !r.Now().Before(deadline) {
			return false
		}
		time.Sleep(min(r.Settle, max(deadline.Sub(r.Now()), time.Millisecond)))
	}
}

// gone reports whether the process that started at procStart has exited.
func (r *runner) gone(pid int, procStart string) bool {
	st, err := r.StartTime(pid)
	return err != nil || st != procStart
}

// liveEntry returns a verified live registry entry for the session, other
// than the stopped pid. An entry without procStart counts: it cannot be
// proven stale, and a second claude on one transcript corrupts it.
func (r *runner) liveEntry(id string, stopped int) *registry.Entry {
	entries, _ := registry.Read(r.RegistryDir)
	for _, e := range entries {
		if e.SessionID != id || e.Pid == stopped {
			continue
		}
		if st := r.Check(e); st == registry.Alive || st == registry.Unverified {
			return &e
		}
	}
	return nil
}

// dryRun reports what each check says now, reading only.
func (r *runner) dryRun(ctx context.Context) {
	for _, s := range r.sessions {
		if s.done != nil {
			continue
		}
		idf, e := r.identity(s)
		s.checks.Identity = idf.String()
		stf := status(e)
		if idf.st == pass {
			s.checks.Status = stf.String()
		}
		pf := r.paneCheck(ctx, s)
		s.checks.Pane = pf.String()
		inf := r.inputCheck(ctx, s)
		s.checks.Input = inf.String()

		findings := []finding{idf}
		if idf.st == pass {
			findings = append(findings, stf)
		}
		findings = append(findings, pf, inf)
		var first *finding
		for i := range findings {
			if findings[i].st != pass && findings[i].st != hold {
				first = &findings[i]
				break
			}
		}
		switch {
		case first != nil && first.st == missing:
			s.finish(s.outcome(PaneGone, first.reason, first.detail+"; a real run would read the pane list once more"))
		case first != nil:
			s.finish(s.outcome(Skipped, first.reason, first.detail))
		default:
			var waits []string
			for _, f := range findings {
				if f.st == hold {
					waits = append(waits, f.detail)
				}
			}
			if len(waits) > 0 {
				o := s.outcome(WouldWait, findings[0].reason, "would wait: "+joinAnd(waits))
				for _, f := range findings {
					if f.st == hold {
						o.Reason = f.reason
						break
					}
				}
				s.finish(o)
			} else {
				s.finish(s.outcome(Ready, "", "would capture, stop and type: "+s.line))
			}
		}
	}
}

func joinAnd(ss []string) string {
	out := ""
	for i, s := range ss {
		switch {
		case i == 0:
		case i == len(ss)-1:
			out += " and "
		default:
			out += ", "
		}
		out += s
	}
	return out
}
