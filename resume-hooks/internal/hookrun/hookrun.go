// Package hookrun is `resume hooks run`: it detects a change of the
// installed version, waits for it to settle, fires the configured hooks in
// order, records the version once every hook for it has run, and retries an
// incomplete restart on later runs.
package hookrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"forgectl.dev/resume-hooks/internal/audit"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/msg"
)

// Kinds of hooks.
const (
	KindRestart = "restart"
	KindCommand = "command"
)

// Limits from the spec.
const (
	// SettleReads is how many re-reads a change gets to settle.
	SettleReads = 5
	// MaxPasses bounds how many updates one run handles.
	MaxPasses = 3
	// DefaultSettle is the interval between two reads of a changing version.
	DefaultSettle = 3 * time.Second
	// RestartBackstop is how far past its waiting timeout a restart may run
	// (stopping, relaunching, confirming) before it is killed as hung.
	RestartBackstop = 15 * time.Minute
	// NotifyTimeout bounds posting the notification for sessions a restart
	// left stopped, which may happen after the run was signalled.
	NotifyTimeout = 10 * time.Second
	// lockPoll is how often a waiting run tries the lock again.
	lockPoll = 200 * time.Millisecond
)

// Hook is one [[resume.on_update]] entry, in config order.
type Hook struct {
	Position int // 1-based
	Kind     string
	Command  []string
	Timeout  time.Duration
}

// Describe names the hook without its arguments.
func (h Hook) Describe() string { return hookstate.DescribeHook(h.ref()) }

func (h Hook) ref() *hookstate.HookRef {
	ref := &hookstate.HookRef{Position: h.Position, Kind: h.Kind}
	if h.Kind == KindCommand && len(h.Command) > 0 {
		ref.Program = filepath.Base(h.Command[0])
	}
	return ref
}

// Runner holds one run's dependencies.
type Runner struct {
	Files       hookstate.Files
	RestartLock string
	Harness     string
	Hooks       []Hook
	// ReadVersion reads the installed version the way resume outdated does.
	ReadVersion func(ctx context.Context) (string, error)
	// Settle is the interval between the reads that must agree.
	Settle  time.Duration
	Trigger string
	// RestartArgv runs the restart action, without --timeout; RestartErr
	// says why it is empty.
	RestartArgv []string
	RestartErr  error
	// Env is the environment hooks start from.
	Env    []string
	Now    func() time.Time
	Stdout io.Writer
	Stderr io.Writer
	// Notify posts a desktop notification; nil where there is none.
	Notify func(ctx context.Context, title, message string) error
	// Pid and ProcStart identify this run in the lock file.
	Pid       int
	ProcStart string
	// RestartGrace is how long a signalled run lets the restart finish a
	// relaunch already under way before killing it.
	RestartGrace time.Duration
}

// Exit statuses: the suite's one contract, shared/exitcode.
const (
	exitOK     = exitcode.OK
	exitFailed = exitcode.Failed
)

// errInterrupted ends a run stopped by SIGTERM, SIGINT or SIGHUP.
var errInterrupted = errors.New("interrupted")

// errAudit is a hook whose audit line could not be appended; the run goes
// on and exits 1.
var errAudit = errors.New("cannot append to the audit trail")

// logf writes a message line of kind k, behind the time in the watcher's
// log.
func (r *Runner) logf(k msg.Kind, format string, args ...any) {
	line := msg.Line(k, format, args...)
	if r.Trigger != hookstate.TriggerManual {
		// The watcher log has no other clock.
		line = r.Now().UTC().Format(time.RFC3339) + " " + line
	}
	fmt.Fprintln(r.Stderr, line)
}

func (r *Runner) errorf(format string, args ...any) {
	r.logf(msg.Error, format, args...)
}

// Run is one `resume hooks run`; it returns the exit status.
func (r *Runner) Run(ctx context.Context, dryRun bool) int {
	if dryRun {
		return r.plan(ctx)
	}
	if err := fsutil.MkdirPrivate(r.Files.Dir); err != nil {
		r.errorf("cannot create %s: %v", r.Files.Dir, err)
		return exitFailed
	}
	// The log can hold a bare token a hook's tail let through; one created
	// by an older install, or under a looser umask, is made owner-only
	// before it is moved or written again.
	if err := tighten(r.Files); err != nil {
		r.errorf("cannot make the watcher log owner-only: %v", err)
	}
	// launchd reopens the log for every run, so moving it here is enough.
	if _, err := audit.Rotate(r.Files.WatcherLog(), r.Files.WatcherLogRotated(), 0); err != nil {
		r.errorf("cannot rotate the watcher log: %v", err)
	}
	release, err := r.lock(ctx)
	if err != nil {
		if errors.Is(err, errInterrupted) {
			r.logf(msg.Info, "stopped while waiting for the other run; nothing fired or recorded")
		} else {
			r.errorf("%v", err)
		}
		return exitFailed
	}
	defer release()
	code, err := r.run(ctx)
	if errors.Is(err, errInterrupted) {
		r.logf(msg.Info, "stopped by a signal: no version recorded; the next run fires the hooks again")
		return exitFailed
	}
	if err != nil {
		r.errorf("%v", err)
		return exitFailed
	}
	return code
}

func (r *Runner) run(ctx context.Context) (int, error) {
	st, err := hookstate.LoadState(r.Files.State())
	if err != nil {
		return exitFailed, fmt.Errorf("cannot read the hooks state: %w (move it aside to record a new baseline)", err)
	}
	code := exitOK
	for pass := 1; pass <= MaxPasses; pass++ {
		cur, err := r.readVersion(ctx)
		if err != nil {
			return exitFailed, err
		}
		rec, recorded := st.Harness(r.Harness)
		if !recorded {
			v, err := r.settle(ctx, cur)
			if err != nil {
				return exitFailed, err
			}
			st.Harnesses[r.Harness] = hookstate.HarnessState{Version: v, RecordedAt: r.Now().UTC()}
			if err := r.save(st); err != nil {
				return exitFailed, err
			}
			r.logf(msg.Info, "recorded %s %s as the baseline; nothing fired (an install is not an update)", r.Harness, v)
			return exitOK, nil
		}
		if cur == rec.Version {
			if pass == 1 {
				return r.retryPending(ctx, st, rec)
			}
			return code, nil
		}
		v, err := r.settle(ctx, cur)
		if err != nil {
			return exitFailed, err
		}
		if v == rec.Version {
			r.logf(msg.Info, "%s went back to %s; nothing fired", r.Harness, v)
			return code, nil
		}
		r.logf(msg.Info, "%s changed from %s to %s: running %d hook(s)", r.Harness, rec.Version, v, len(r.Hooks))
		next := hookstate.HarnessState{Version: v, RecordedAt: time.Time{}}
		failed := false
		for _, h := range r.Hooks {
			if ctx.Err() != nil {
				return exitFailed, errInterrupted
			}
			out, err := r.runHook(ctx, h, rec.Version, v, 1)
			switch {
			case errors.Is(err, errAudit):
				failed = true
			case err != nil:
				return exitFailed, err
			}
			if out != hookstate.OutcomeOK {
				failed = true
				if h.Kind == KindRestart {
					next.Pending = &hookstate.Pending{
						Version: v, OldVersion: rec.Version, Attempts: 1,
						LastOutcome: out, LastAttemptAt: r.Now().UTC(),
					}
				}
			}
		}
		next.RecordedAt = r.Now().UTC()
		st.Harnesses[r.Harness] = next
		if err := r.save(st); err != nil {
			return exitFailed, err
		}
		if next.Pending != nil {
			r.logf(msg.Info, "the restart for %s %s is pending; later runs retry it (attempt 1 of %d used)", r.Harness, v, hookstate.MaxRestartAttempts)
		}
		if failed {
			code = exitFailed
		}
	}
	if cur, err := r.ReadVersion(ctx); err == nil && cur != st.Harnesses[r.Harness].Version {
		r.logf(msg.Info, "%s changed again to %s after %d updates in one run; the next run handles it", r.Harness, cur, MaxPasses)
	}
	return code, nil
}

// retryPending re-runs only the restart hooks of a pending restart for the
// unchanged version, up to MaxRestartAttempts in all.
func (r *Runner) retryPending(ctx context.Context, st hookstate.State, rec hookstate.HarnessState) (int, error) {
	p := rec.Pending
	if p == nil || p.Version != rec.Version {
		return exitOK, nil
	}
	if p.GivenUp {
		r.logf(msg.Info, "the restart for %s %s gave up after %d attempts; it is tried again at the next version", r.Harness, p.Version, p.Attempts)
		return exitOK, nil
	}
	var restarts []Hook
	for _, h := range r.Hooks {
		if h.Kind == KindRestart {
			restarts = append(restarts, h)
		}
	}
	next := *p
	if len(restarts) == 0 {
		r.logf(msg.Info, "a restart was pending for %s %s but none is configured any more; dropped", r.Harness, p.Version)
		rec.Pending = nil
		st.Harnesses[r.Harness] = rec
		return exitOK, r.save(st)
	}
	next.Attempts++
	r.logf(msg.Info, "retrying the pending restart for %s %s (attempt %d of %d)", r.Harness, p.Version, next.Attempts, hookstate.MaxRestartAttempts)
	outcome := hookstate.OutcomeOK
	auditFailed := false
	for _, h := range restarts {
		if ctx.Err() != nil {
			return exitFailed, errInterrupted
		}
		out, err := r.runHook(ctx, h, p.OldVersion, p.Version, next.Attempts)
		switch {
		case errors.Is(err, errAudit):
			auditFailed = true
		case err != nil:
			return exitFailed, err
		}
		if out != hookstate.OutcomeOK {
			outcome = out
		}
	}
	next.LastOutcome, next.LastAttemptAt = outcome, r.Now().UTC()
	code := exitOK
	switch {
	case outcome == hookstate.OutcomeOK:
		rec.Pending = nil
		r.logf(msg.Info, "the pending restart for %s %s completed", r.Harness, p.Version)
	case next.Attempts >= hookstate.MaxRestartAttempts:
		next.GivenUp = true
		rec.Pending = &next
		code = exitFailed
		r.logf(msg.Info, "the restart for %s %s gave up after %d attempts; run forgectl resume restart --outdated by hand", r.Harness, p.Version, next.Attempts)
	default:
		rec.Pending = &next
		code = exitFailed
	}
	if auditFailed {
		code = exitFailed
	}
	st.Harnesses[r.Harness] = rec
	return code, r.save(st)
}

// tighten makes the store's directory 0700 and the watcher logs 0600.
func tighten(f hookstate.Files) error {
	if err := os.Chmod(f.Dir, fsutil.DirPerm); err != nil {
		return err
	}
	for _, p := range []string{f.WatcherLog(), f.WatcherLogRotated()} {
		if err := os.Chmod(p, fsutil.FilePerm); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// readVersion is ReadVersion with its failure worded for the log; a read
// cut short by a signal is the run being stopped, not a broken claude.
func (r *Runner) readVersion(ctx context.Context) (string, error) {
	v, err := r.ReadVersion(ctx)
	switch {
	case err == nil:
		return v, nil
	case ctx.Err() != nil:
		return "", errInterrupted
	}
	return "", fmt.Errorf("cannot read the installed %s version: %w", r.Harness, err)
}

// settle re-reads a changed version until two reads in a row agree, up to
// SettleReads re-reads, so a link that moves twice or reverts during one
// update fires nothing for the value it passed through.
func (r *Runner) settle(ctx context.Context, first string) (string, error) {
	prev := first
	for range SettleReads {
		if err := sleep(ctx, r.Settle); err != nil {
			return "", errInterrupted
		}
		v, err := r.ReadVersion(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return "", errInterrupted
			}
			// A link caught mid-replacement: this read agrees with nothing.
			prev = ""
			continue
		}
		if v == prev {
			return v, nil
		}
		prev = v
	}
	return "", fmt.Errorf("the installed %s version did not settle after %d reads %s apart; nothing fired or recorded (the next run tries again)",
		r.Harness, SettleReads+1, r.Settle)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Runner) save(st hookstate.State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(r.Files.State(), append(b, '\n'), fsutil.FilePerm); err != nil {
		return fmt.Errorf("cannot record the hooks state: %w", err)
	}
	return nil
}

// lock takes run.lock, waiting (and saying so) while another run holds it.
// The returned release empties the holder record and drops the lock.
func (r *Runner) lock(ctx context.Context) (func(), error) {
	path := r.Files.RunLock()
	l, err := fsutil.TryLock(path)
	if errors.Is(err, fsutil.ErrLocked) {
		h, held, _ := hookstate.ReadHolder(path)
		who := "another hooks run"
		if held {
			who = fmt.Sprintf("the hooks run already in progress (pid %d, %s, since %s)", h.Pid, h.Trigger, h.Since.UTC().Format(time.RFC3339))
		}
		r.logf(msg.Info, "waiting for %s to finish", who)
		for errors.Is(err, fsutil.ErrLocked) {
			if sleep(ctx, lockPoll) != nil {
				return nil, errInterrupted
			}
			l, err = fsutil.TryLock(path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot take the hooks lock: %w", err)
	}
	holder := hookstate.Holder{Pid: r.Pid, ProcStart: r.ProcStart, Since: r.Now().UTC(), Trigger: r.Trigger}
	// The content is advisory (who, since when): a failed write leaves
	// status and doctor without the holder's name, nothing worse.
	_ = l.Rewrite(holder.Encode())
	return func() {
		_ = l.Rewrite(nil)
		_ = l.Unlock()
	}, nil
}

// withHookEnv returns env with the three hook variables set, replacing any
// inherited values.
func withHookEnv(env []string, harness, old, new string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "FORGECTL_HARNESS", "FORGECTL_OLD_VERSION", "FORGECTL_NEW_VERSION":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "FORGECTL_HARNESS="+harness, "FORGECTL_OLD_VERSION="+old, "FORGECTL_NEW_VERSION="+new)
}
