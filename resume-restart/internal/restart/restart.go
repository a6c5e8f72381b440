// Package restart stops outdated Claude Code sessions and resumes them in
// the same herdr pane, only when that is provably safe.
//
// A run plans once (one herdr pane list, each session's pane, what makes a
// session ineligible), then loops: every pending session is checked; one
// whose four checks pass is captured, checked again, stopped with SIGTERM,
// and relaunched by typing `<abs forgectl> resume <id>` into its pane; one
// that is busy or holds a draft waits for the next round, until the timeout
// or a signal ends the waiting. The four checks, immediately before the
// signal:
//
//  1. identity: the registry file still names the same session id and
//     procStart, the pid's kernel start time equals procStart, and the
//     process is a claude executable (a reused pid is never signalled);
//  2. status: the registry status is exactly "idle";
//  3. pane: herdr pane get labels the pane with this session, and the pid
//     is the pane's foreground process (a nested claude inherits its
//     parent's HERDR_PANE_ID, so neither the label nor the environment is
//     trusted alone);
//  4. input: the pane's input line is empty (package inputbox);
//
// then identity and status once more, because the herdr calls of checks 3
// and 4 can take seconds and a prompt submitted meanwhile leaves the box
// empty and the session busy, and last that the transcript the relaunch
// resolved still exists.
//
// The relaunch itself is resolved before any of that can lead to a signal:
// forgectl is asked (package relaunch) whether `forgectl resume <id>` would
// succeed once the pid has exited, when the run plans and again after the
// capture. A session whose relaunch would fail (no transcript yet, a
// deleted directory, a broken profile or config, no claude) is skipped with
// that reason; it is never stopped to find out.
//
// A failed identity or pane check ends the session's turn unsignalled; a
// busy session, a draft, a scrolled-back pane or a herdr error other than
// pane_not_found waits. Once a session is signalled, the rest of its
// restart ignores the run's cancellation: a signal ends the waiting, never
// a restart in progress.
package restart

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"forgectl.dev/resume-restart/internal/herdr"
	"forgectl.dev/resume-restart/internal/outdated"
	"forgectl.dev/resume-restart/internal/relaunch"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/registry"
)

// Herdr is the part of the herdr client a run uses.
type Herdr interface {
	PaneList(ctx context.Context) ([]herdr.Pane, error)
	PaneGet(ctx context.Context, id string) (herdr.Pane, error)
	ProcessInfo(ctx context.Context, id string) (herdr.ProcessInfo, error)
	ReadVisible(ctx context.Context, id string) (string, error)
	SendKeys(ctx context.Context, id string, keys ...string) error
	Run(ctx context.Context, id, line string) error
}

// Defaults for Config's intervals.
const (
	DefaultTimeout      = 30 * time.Minute
	DefaultPoll         = 3 * time.Second
	DefaultSettle       = 200 * time.Millisecond
	DefaultStopWait     = 30 * time.Second
	DefaultRegisterWait = 60 * time.Second
)

// Config is one run: what to act on, how, and every dependency. Zero
// function fields use the real implementations.
type Config struct {
	// Sessions is the set to act on: resume outdated's list, narrowed.
	Sessions []outdated.Session
	// Unmatched are --session ids that name no outdated live session.
	Unmatched []string
	// Timeout bounds the waiting for sessions to become safe to stop.
	Timeout time.Duration
	// DryRun reads only, and reports what every check says now.
	DryRun bool

	// Herdr is the herdr client; nil when herdr could not be found, and
	// HerdrMissing says why.
	Herdr        Herdr
	HerdrMissing error

	// Forgectl is forgectl's absolute path, typed into the pane; when it
	// could not be found, ForgectlErr says why and nothing is stopped.
	Forgectl    string
	ForgectlErr error

	// Capture runs the same capture as `resume snapshot` for one session,
	// before it is stopped. A failure means it is not stopped.
	Capture func(ctx context.Context, e registry.Entry) error

	// Resolve asks whether the relaunch line, `<Forgectl> resume <id>`,
	// would succeed once pid has exited (package relaunch); nil runs
	// Forgectl's own dry run. It is asked when the run plans and again
	// before each signal: anything that would fail the relaunch skips the
	// session instead of being discovered after the stop.
	Resolve func(ctx context.Context, id string, pid int) (relaunch.Verdict, error)

	// RegistryDir is Claude Code's sessions directory.
	RegistryDir string
	// Self is this process's pid: a session whose pid is an ancestor of it
	// is the one this run is inside.
	Self       int
	IsAncestor func(pid, self int) bool
	Lookup     func(pid int) (proc.Info, error)
	Args       func(pid int) ([]string, error)
	StartTime  func(pid int) (string, error)
	Check      func(registry.Entry) registry.State
	// Terminate sends SIGTERM to pid only while it still started at procStart.
	Terminate func(pid int, procStart string) error
	Now       func() time.Time

	// Poll is how often waiting sessions are checked again.
	Poll time.Duration
	// Settle is how often the steps after the stop poll.
	Settle time.Duration
	// StopWait bounds the wait for the stopped process to exit, its
	// registry file to go and its shell to hold the pane again.
	StopWait time.Duration
	// RegisterWait bounds the wait for the relaunched session to register.
	RegisterWait time.Duration

	// Progress receives progress lines and notes (stderr).
	Progress io.Writer
}

func (c *Config) defaults() {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Settle <= 0 {
		c.Settle = DefaultSettle
	}
	if c.StopWait <= 0 {
		c.StopWait = DefaultStopWait
	}
	if c.RegisterWait <= 0 {
		c.RegisterWait = DefaultRegisterWait
	}
	if c.IsAncestor == nil {
		c.IsAncestor = proc.IsAncestor
	}
	if c.Lookup == nil {
		c.Lookup = proc.Lookup
	}
	if c.Args == nil {
		c.Args = proc.Args
	}
	if c.StartTime == nil {
		c.StartTime = proc.StartTime
	}
	if c.Check == nil {
		c.Check = registry.Check
	}
	if c.Terminate == nil {
		st := c.StartTime
		c.Terminate = func(pid int, procStart string) error { return Terminate(pid, procStart, st) }
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Capture == nil {
		c.Capture = func(context.Context, registry.Entry) error { return nil }
	}
	if c.Resolve == nil {
		c.Resolve = relaunch.Resolver{Forgectl: c.Forgectl}.Resolve
	}
}

// Outcome values.
const (
	Resumed         = "resumed"          // stopped, relaunched, registered again
	Skipped         = "skipped"          // left alone, with a reason
	Waiting         = "waiting"          // still not safe when the timeout or a signal ended the run
	Failed          = "failed"           // a stop or relaunch failed
	PaneGone        = "pane_gone"        // herdr lost the pane; a renumbered pane can come back
	DeliveryUnknown = "delivery_unknown" // pane run killed at its bound; the session did not register
	// Dry-run only.
	Ready     = "ready"      // a real run would stop and resume it now
	WouldWait = "would_wait" // a real run would wait for it
)

// Checks is what each check said last; "" when not run. Relaunch is
// forgectl's verdict on the relaunch line and, right before the signal,
// that the transcript it resolved still exists.
type Checks struct {
	Identity string `json:"identity"`
	Status   string `json:"status"`
	Pane     string `json:"pane"`
	Input    string `json:"input"`
	Relaunch string `json:"relaunch"`
}

// Outcome is the result for one session; also the element of --json.
type Outcome struct {
	SessionID        string `json:"session_id"`
	Pid              int    `json:"pid"`
	Version          string `json:"version"`
	InstalledVersion string `json:"installed_version"`
	Outcome          string `json:"outcome"`
	Reason           string `json:"reason"`
	Detail           string `json:"detail"`
	Hint             string `json:"hint"`
	PaneID           string `json:"pane_id"`
	EnvPaneID        string `json:"env_pane_id"`
	PaneSource       string `json:"pane_source"`
	Signalled        bool   `json:"signalled"`
	NewPid           int    `json:"new_pid"`
	Command          string `json:"command"`
	Checks           Checks `json:"checks"`
}

// Incomplete reports whether the outcome makes the run exit 1.
func (o Outcome) Incomplete() bool {
	switch o.Outcome {
	case Waiting, Failed, PaneGone, DeliveryUnknown:
		return true
	}
	return false
}

// FieldTable documents Outcome for --help.
const FieldTable = `JSON FIELDS (one object per session; [] when none)
  session_id         string  Claude Code session id
  pid                number  the claude process id the run found
  version            string  its registry version
  installed_version  string  the installed claude version
  outcome            string  resumed, skipped, waiting, failed, pane_gone or
                             delivery_unknown; with --dry-run: ready,
                             would_wait, skipped, failed or pane_gone
  reason             string  machine-readable cause (see REASONS)
  detail             string  the same, for people
  hint               string  the next step for a person ("" when none)
  pane_id            string  the herdr pane checked ("" when none)
  env_pane_id        string  the process's HERDR_PANE_ID ("" when unreadable)
  pane_source        string  "session" (found by session id in herdr's pane
                             list), "env" (HERDR_PANE_ID fallback) or ""
  signalled          bool    SIGTERM was sent
  new_pid            number  the relaunched claude's pid (0 when none)
  command            string  the command to resume it by hand ("" when
                             nothing is left to do, or nothing can be
                             resumed: no_transcript)
  checks             object  identity, status, pane, input, relaunch: what
                             each check said last ("ok", "<reason>:
                             <detail>", or "" when it did not run);
                             relaunch is forgectl's own dry run of the
                             relaunch line`

// Report is a whole run's result.
type Report struct {
	Outcomes []Outcome
}

// Incomplete reports whether any session makes the run exit 1.
func (r Report) Incomplete() bool {
	for _, o := range r.Outcomes {
		if o.Incomplete() {
			return true
		}
	}
	return false
}

// session is one session's state through the run.
type session struct {
	outdated.Session
	id         string
	pane       string
	envPane    string
	source     string // "session", "env" or ""
	reread     bool
	line       string
	shellPid   int
	transcript string // the transcript forgectl resolved for the relaunch
	waitReason string
	waitDetail string
	checks     Checks
	done       *Outcome
}

func (s *session) outcome(kind, reason, detail string) Outcome {
	o := Outcome{
		SessionID: s.id, Pid: s.Entry.Pid, Version: s.Entry.Version, InstalledVersion: s.Installed,
		Outcome: kind, Reason: reason, Detail: detail,
		PaneID: s.pane, EnvPaneID: s.envPane, PaneSource: s.source, Checks: s.checks,
	}
	switch kind {
	case Resumed, Ready, WouldWait:
	default:
		o.Command = handCommand(s.line, s.id)
	}
	return o
}

func (s *session) finish(o Outcome) { s.done = &o }

type runner struct {
	Config
	sessions []*session
}

func (r *runner) progress(format string, args ...any) {
	msg.Infof(r.Progress, format, args...)
}

// Run carries out a restart (or, with DryRun, reports one) and returns
// every session's outcome, in the order of cfg.Sessions.
func Run(ctx context.Context, cfg Config) Report {
	cfg.defaults()
	r := &runner{Config: cfg}
	r.plan(ctx)
	if !r.DryRun {
		r.loop(ctx)
	} else {
		r.dryRun(ctx)
	}
	rep := Report{Outcomes: []Outcome{}}
	for _, s := range r.sessions {
		rep.Outcomes = append(rep.Outcomes, *s.done)
	}
	for _, id := range r.Unmatched {
		rep.Outcomes = append(rep.Outcomes, Outcome{
			SessionID: id, Outcome: Skipped, Reason: "not_outdated",
			Detail: "no live session with this id runs an older claude",
		})
	}
	return rep
}

// plan reads herdr's pane list once and settles what needs no waiting.
func (r *runner) plan(ctx context.Context) {
	var panes []herdr.Pane
	listOK := false
	if len(r.Sessions) > 0 {
		switch {
		case r.Herdr == nil:
			r.progress("note: herdr not found (%v): sessions have no pane to restart in", r.HerdrMissing)
		default:
			var err error
			panes, err = r.Herdr.PaneList(ctx)
			if err != nil {
				r.progress("note: herdr pane list failed (%v): falling back to each process's HERDR_PANE_ID", err)
			} else {
				listOK = true
			}
		}
	}
	for _, cand := range r.Sessions {
		s := &session{Session: cand, id: cand.Entry.SessionID, envPane: cand.PaneEnv}
		r.sessions = append(r.sessions, s)
		lineErr := r.ForgectlErr
		if r.Forgectl != "" {
			s.line, lineErr = RelaunchLine(r.Forgectl, s.id)
		}
		if r.Herdr != nil {
			found := panesFor(panes, s.id)
			switch {
			case len(found) == 1:
				s.pane, s.source = found[0], "session"
			case len(found) > 1:
				s.pane = ""
				s.finish(s.outcome(Skipped, "duplicate_pane",
					fmt.Sprintf("panes %s are all labelled with this session (a nested claude can relabel its parent's pane); resume it by hand", strings.Join(found, ", "))))
			case s.envPane != "":
				s.pane, s.source = s.envPane, "env"
				if listOK {
					r.progress("note: no herdr pane is labelled with session %s: using its HERDR_PANE_ID %s", s.id, s.envPane)
				}
			}
		}
		if s.done != nil {
			continue
		}
		switch {
		case s.VersionUnparseable:
			s.finish(s.outcome(Skipped, "version_unparseable",
				fmt.Sprintf("its version %q does not parse, so it is not known to be outdated; resume it by hand if it is", s.Entry.Version)))
		case notInteractive(s.Entry) != "":
			o := s.outcome(Skipped, "not_interactive",
				notInteractive(s.Entry)+": it has no prompt to resume into, so it is left to whatever started it")
			o.Command = "" // resuming it by hand would make it a different, interactive session
			s.finish(o)
		case s.Unverified:
			s.finish(s.outcome(Skipped, "unverified",
				"its registry file has no procStart (or the start time is unreadable), so nothing proves the pid is still the claude that wrote it; resume it by hand"))
		case r.IsAncestor(s.Entry.Pid, r.Self):
			s.finish(s.outcome(Skipped, "inside_session", "this run is inside the session (its pid is an ancestor of this process); resume it by hand"))
		}
		if s.done != nil {
			continue
		}
		// Before the pane: a session with nothing to resume is reported as
		// that, whatever else is wrong with it.
		if s.line != "" && lineErr == nil {
			f := r.resolve(ctx, s)
			if ctx.Err() != nil {
				continue // interrupted: left to the loop, which reports it waiting
			}
			if f.st != pass {
				r.settle(s, f)
				continue
			}
		}
		switch {
		case s.pane == "":
			why := "no herdr pane carries the session and its process has no HERDR_PANE_ID"
			switch {
			case r.Herdr == nil:
				why = "herdr not found"
			case !listOK:
				why = "herdr's pane list failed and the process has no HERDR_PANE_ID"
			}
			s.finish(s.outcome(Skipped, "no_pane", why+"; resume it by hand"))
		case s.line == "" || lineErr != nil:
			s.finish(s.outcome(Failed, "relaunch_invalid",
				fmt.Sprintf("the relaunch command cannot be rendered (%v); nothing was stopped", lineErr)))
		}
	}
}

// notInteractive says why a registry entry is not a person's session
// (a background or daemon claude, or one an SDK program drives), or "".
func notInteractive(e registry.Entry) string {
	switch e.Kind {
	case "bg", "daemon", "daemon-worker":
		return fmt.Sprintf("it is a %s session", e.Kind)
	}
	if strings.HasPrefix(e.Entrypoint, "sdk-") {
		return fmt.Sprintf("it was started by an SDK program (entrypoint %s)", e.Entrypoint)
	}
	return ""
}

// panesFor returns the panes herdr labels with this claude session.
func panesFor(panes []herdr.Pane, id string) []string {
	var out []string
	for _, p := range panes {
		if p.ClaudeSession() == id && p.PaneID != "" {
			out = append(out, p.PaneID)
		}
	}
	return out
}

// paneLabel renders the pane for progress lines.
func (s *session) paneLabel() string {
	if s.source == "session" && s.envPane != "" && s.envPane != s.pane {
		return fmt.Sprintf("pane %s (found by session; env said %s)", s.pane, s.envPane)
	}
	if s.source == "env" {
		return fmt.Sprintf("pane %s (from HERDR_PANE_ID)", s.pane)
	}
	return "pane " + s.pane
}

// loop checks pending sessions every Poll until none is pending, the
// timeout passes, or ctx ends.
func (r *runner) loop(ctx context.Context) {
	deadline := r.Now().Add(r.Timeout)
	for _, s := range r.sessions {
		if s.done == nil {
			r.progress("%s: %s, claude %s (installed %s): checking", s.id, s.paneLabel(), s.Entry.Version, s.Installed)
		} else {
			r.reportDone(s)
		}
	}
	for {
		pending := 0
		for _, s := range r.sessions {
			if s.done != nil {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			r.attempt(ctx, s)
			if s.done != nil {
				r.reportDone(s)
			} else {
				pending++
			}
		}
		if pending == 0 && ctx.Err() == nil {
			return
		}
		now := r.Now()
		if ctx.Err() != nil || !now.Before(deadline) {
			cause := fmt.Sprintf("when the %s timeout passed", r.Timeout)
			if ctx.Err() != nil {
				cause = "when the run was interrupted"
			}
			for _, s := range r.sessions {
				if s.done == nil {
					reason, detail := s.waitReason, s.waitDetail
					if reason == "" {
						reason, detail = "not_checked", "not checked yet"
					}
					s.finish(s.outcome(Waiting, reason, fmt.Sprintf("still %s %s; nothing was stopped", detail, cause)))
					r.reportDone(s)
				}
			}
			return
		}
		wait := min(r.Poll, deadline.Sub(now))
		sleep(ctx, wait)
	}
}

// reportDone prints a finished session's progress line, and its hint.
func (r *runner) reportDone(s *session) {
	what := s.done.Outcome
	if s.done.Reason != "" {
		what += ": " + s.done.Reason
	}
	r.progress("%s: %s: %s", s.id, what, s.done.Detail)
	if s.done.Hint != "" {
		r.progress("%s: hint: %s", s.id, s.done.Hint)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// finding is one check's verdict.
type finding struct {
	st     checkState
	reason string
	detail string
	hint   string
	// noCommand: resuming it by hand cannot work either (no transcript).
	noCommand bool
}

type checkState int

const (
	pass    checkState = iota
	hold               // wait and check again
	refuse             // reported, never signalled
	broken             // the run cannot tell: failed, never signalled
	exited             // the session ended by itself
	missing            // herdr answered pane_not_found
)

func (f finding) String() string {
	if f.st == pass {
		return "ok"
	}
	return f.reason + ": " + f.detail
}

var passed = finding{st: pass}

// attempt checks one session and, when every check passes, restarts it.
func (r *runner) attempt(ctx context.Context, s *session) {
	f, e := r.checkAll(ctx, s)
	if ctx.Err() != nil {
		return // interrupted mid-check: keep the last real reason
	}
	if f.st != pass {
		r.settle(s, f)
		return
	}
	if err := r.Capture(ctx, e); err != nil {
		// Stopping now could lose what the snapshot exists to keep; a torn
		// task file or a busy store usually clears by the next round.
		r.settle(s, finding{st: hold, reason: "capture_failed", detail: fmt.Sprintf("unable to take its snapshot (%v), so not stopped", err)})
		return
	}
	// The relaunch is resolved again, as late as a forgectl run allows:
	// the directory, the config or the claude binary may have changed
	// since the plan. What it resolved is re-checked in checkAll below.
	if f := r.resolve(ctx, s); ctx.Err() != nil {
		return
	} else if f.st != pass {
		r.settle(s, f)
		return
	}
	// The capture took time: the checks run again right before the signal.
	f, e = r.checkAll(ctx, s)
	if ctx.Err() != nil {
		return // interrupted: the waiting ends, nothing is signalled
	}
	if f.st != pass {
		r.settle(s, f)
		return
	}
	r.restart(s, e)
}

// settle records a finding that did not pass.
func (r *runner) settle(s *session, f finding) {
	defer func() {
		if s.done != nil {
			s.done.Hint = f.hint
			if f.noCommand {
				s.done.Command = ""
			}
		}
	}()
	switch f.st {
	case hold:
		if f.reason != s.waitReason || f.detail != s.waitDetail {
			r.progress("%s: waiting: %s", s.id, f.detail)
		}
		s.waitReason, s.waitDetail = f.reason, f.detail
	case refuse:
		s.finish(s.outcome(Skipped, f.reason, f.detail+"; it was not signalled"))
	case broken:
		s.finish(s.outcome(Failed, f.reason, f.detail+"; nothing was stopped"))
	case exited:
		s.finish(s.outcome(Skipped, f.reason, f.detail))
	case missing:
		s.finish(s.outcome(PaneGone, f.reason, f.detail+"; herdr may have renumbered it, so a later run can retry"))
	}
}

// checkAll runs the four checks in order, cheapest first, stopping at the
// first that does not pass, then the identity and status checks once more.
// A pane_not_found re-reads herdr's pane list once per session and
// continues on the pane that now holds the session.
func (r *runner) checkAll(ctx context.Context, s *session) (finding, registry.Entry) {
	s.checks = Checks{Relaunch: s.checks.Relaunch}
	f, e := r.identity(s)
	s.checks.Identity = f.String()
	if f.st != pass {
		return f, e
	}
	f = status(e)
	s.checks.Status = f.String()
	if f.st != pass {
		return f, e
	}
	f = r.paneCheck(ctx, s)
	s.checks.Pane = f.String()
	if f.st == pass {
		f = r.inputCheck(ctx, s)
		s.checks.Input = f.String()
	}
	if f.st == missing && !r.DryRun && !s.reread {
		if nf, moved := r.reread(ctx, s); !moved {
			return nf, e
		}
		return r.checkAll(ctx, s)
	}
	if f.st != pass {
		return f, e
	}
	// The herdr calls above can take up to 10 s each, and a prompt
	// submitted meanwhile empties the input box while claude turns busy:
	// the registry is read again, last, so the idle that lets the signal
	// through is no older than the screen that showed an empty box.
	f, e = r.identity(s)
	s.checks.Identity = f.String()
	if f.st != pass {
		return f, e
	}
	f = status(e)
	s.checks.Status = f.String()
	if f.st != pass {
		return f, e
	}
	f = s.transcriptCheck()
	s.checks.Relaunch = f.String()
	return f, e
}

// reread looks the session up in a fresh pane list after pane_not_found.
func (r *runner) reread(ctx context.Context, s *session) (finding, bool) {
	s.reread = true
	old := s.pane
	panes, err := r.Herdr.PaneList(ctx)
	if err != nil {
		return finding{st: missing, reason: "pane_not_found", detail: fmt.Sprintf("herdr answered pane_not_found for %s, and the pane list could not be read again (%v)", old, err)}, false
	}
	found := panesFor(panes, s.id)
	switch {
	case len(found) > 1:
		return finding{st: refuse, reason: "duplicate_pane", detail: fmt.Sprintf("after pane_not_found for %s, panes %s are all labelled with this session; resume it by hand", old, strings.Join(found, ", "))}, false
	case len(found) == 0 || found[0] == old:
		return finding{st: missing, reason: "pane_not_found", detail: fmt.Sprintf("herdr answered pane_not_found for %s and no other pane holds the session", old)}, false
	}
	s.pane, s.source = found[0], "session"
	r.progress("%s: %s after pane_not_found for %s", s.id, s.paneLabel(), old)
	return passed, true
}

// identity re-reads the registry file and the process.
func (r *runner) identity(s *session) (finding, registry.Entry) {
	want := s.Entry
	e, err := registry.ReadFile(want.File)
	if errors.Is(err, os.ErrNotExist) {
		if st, serr := r.StartTime(want.Pid); serr == nil && st == want.ProcStart {
			return finding{st: refuse, reason: "identity_mismatch", detail: fmt.Sprintf("pid %d still runs but its registry file is gone", want.Pid)}, want
		}
		return finding{st: exited, reason: "exited", detail: "the session exited before it could be restarted"}, want
	}
	if err != nil {
		return finding{st: hold, reason: "registry_unreadable", detail: fmt.Sprintf("unreadable in the registry (%v)", err)}, want
	}
	if e.SessionID != want.SessionID {
		return finding{st: refuse, reason: "identity_mismatch", detail: fmt.Sprintf("pid %d now runs session %s", want.Pid, e.SessionID)}, e
	}
	if e.ProcStart != want.ProcStart || e.ProcStart == "" {
		return finding{st: refuse, reason: "identity_mismatch", detail: fmt.Sprintf("the registry file's procStart changed from %q to %q", want.ProcStart, e.ProcStart)}, e
	}
	info, err := r.Lookup(want.Pid)
	if errors.Is(err, proc.ErrNoProcess) {
		return finding{st: exited, reason: "exited", detail: "the session exited before it could be restarted"}, e
	}
	if err != nil {
		return finding{st: refuse, reason: "identity_mismatch", detail: fmt.Sprintf("pid %d cannot be examined (%v)", want.Pid, err)}, e
	}
	if info.StartTime != want.ProcStart {
		return finding{st: refuse, reason: "identity_mismatch", detail: fmt.Sprintf("pid %d started at %q, not at the registry's procStart %q: the pid was reused", want.Pid, info.StartTime, want.ProcStart)}, e
	}
	args, _ := r.Args(want.Pid)
	if !IsClaudeExecutable(info, args) {
		return finding{st: refuse, reason: "identity_mismatch", detail: fmt.Sprintf("pid %d runs %q, not a claude executable", want.Pid, info.Name)}, e
	}
	return passed, e
}

// IsClaudeExecutable recognises claude as the native installer, npm and a
// plain binary on PATH run it: a process named claude or claude-code, an
// executable in a claude/versions directory, or node running the
// @anthropic-ai/claude-code package.
func IsClaudeExecutable(info proc.Info, args []string) bool {
	named := func(p string) bool {
		switch strings.TrimSuffix(filepath.Base(p), ".exe") {
		case "claude", "claude-code":
			return true
		}
		return false
	}
	exe := strings.TrimSuffix(info.Exe, " (deleted)")
	if named(info.Name) || (exe != "" && named(exe)) || (len(args) > 0 && named(args[0])) {
		return true
	}
	if dir := filepath.Dir(exe); exe != "" && filepath.Base(dir) == "versions" && filepath.Base(filepath.Dir(dir)) == "claude" {
		return true
	}
	for _, a := range args[min(1, len(args)):min(3, len(args))] {
		if strings.Contains(a, "@anthropic-ai/claude-code") {
			return true
		}
	}
	return false
}

func status(e registry.Entry) finding {
	if e.Status == "idle" {
		return passed
	}
	st := e.Status
	if st == "" {
		st = "none recorded"
	}
	return finding{st: hold, reason: "busy", detail: fmt.Sprintf("busy (status %s)", st)}
}

// herdrFinding turns a herdr error into a finding.
func herdrFinding(err error, pane string) finding {
	if herdr.IsCode(err, herdr.CodePaneNotFound) {
		return finding{st: missing, reason: "pane_not_found", detail: fmt.Sprintf("herdr answered pane_not_found for %s", pane)}
	}
	return finding{st: hold, reason: "herdr_error", detail: fmt.Sprintf("getting herdr errors (%v)", err)}
}

// paneCheck asks herdr whether the pane is this session's and the pid its
// foreground process.
func (r *runner) paneCheck(ctx context.Context, s *session) finding {
	p, err := r.Herdr.PaneGet(ctx, s.pane)
	if err != nil {
		return herdrFinding(err, s.pane)
	}
	if got := p.ClaudeSession(); got != s.id {
		if got == "" {
			return finding{st: refuse, reason: "pane_mismatch", detail: fmt.Sprintf("herdr labels pane %s with no claude session (is herdr's claude integration installed?)", s.pane)}
		}
		return finding{st: refuse, reason: "pane_mismatch", detail: fmt.Sprintf("herdr labels pane %s with session %s", s.pane, got)}
	}
	pi, err := r.Herdr.ProcessInfo(ctx, s.pane)
	if err != nil {
		return herdrFinding(err, s.pane)
	}
	if !pi.InForeground(s.Entry.Pid) {
		return finding{st: refuse, reason: "not_foreground", detail: fmt.Sprintf("pid %d is not the foreground process of pane %s (foreground group %d, shell %d)", s.Entry.Pid, s.pane, pi.ForegroundProcessGroupID, pi.ShellPid)}
	}
	s.shellPid = pi.ShellPid
	if p.ScrolledBack() {
		// The visible screen is history then, which can show an old, empty box.
		return finding{st: hold, reason: "scrolled", detail: fmt.Sprintf("scrolled back in pane %s, so its input line cannot be read", s.pane)}
	}
	return passed
}
