// Package hookdoctor judges the update-hooks watcher for launch doctor's
// update_hooks row, from the files resume-hooks keeps (shared/hookstate).
// Only forgectl asks it.
package hookdoctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"forgectl.dev/shared/hookstate"
)

// StuckMargin is how much longer than the longest hook timeout a run may
// hold the hooks lock before doctor calls it stuck (on a permission prompt,
// a hung call).
const StuckMargin = 10 * time.Minute

// Facts is everything the update_hooks row is judged on. Gather fills all
// but the configuration, which the caller has loaded already.
type Facts struct {
	// Configured is the number of [[resume.on_update]] entries.
	Configured int
	// LongestTimeout is the longest Timeout() among them.
	LongestTimeout time.Duration

	Harness  string // "claude"
	State    hookstate.State
	StateErr error
	Records  []hookstate.Record
	// RecordsErr is a read error of the audit trail.
	RecordsErr error
	Holder     hookstate.Holder
	Held       bool
	Watcher    hookstate.Watcher
	Now        time.Time
}

// Gather reads state.json, the audit trail and run.lock, and asks the
// service manager about the watcher. It never writes.
func Gather(ctx context.Context, env hookstate.Env, now time.Time) Facts {
	f := Facts{Harness: "claude", Now: now}
	f.State, f.StateErr = hookstate.LoadState(env.Files.State())
	f.Records, f.RecordsErr = hookstate.ReadRecords(env.Files, 200)
	var err error
	f.Holder, f.Held, err = hookstate.ReadHolder(env.Files.RunLock())
	if err != nil {
		f.Held = false
	}
	f.Watcher = hookstate.InspectWatcher(ctx, env)
	return f
}

// Row is the update_hooks doctor row.
type Row struct {
	Name string // "update_hooks"
	// Status is "ok", "warn" or "info" (nothing configured, nothing wrong).
	Status   string
	Summary  string
	Warnings []string
	// Hints are next steps, one per warning that has one.
	Hints []string
}

// Evaluate turns the facts into the row. It warns when hooks are configured
// and the watcher is not installed or not loaded; when the newest audit
// record for the recorded version did not end ok; when a restart is pending
// or gave up; and when a run has held the hooks lock longer than the longest
// hook timeout plus StuckMargin. launchd's last exit code is not consulted:
// the next run with nothing to do resets it to 0.
func Evaluate(f Facts) Row {
	row := Row{Name: "update_hooks", Warnings: []string{}, Hints: []string{}}
	warn := func(msg, hint string) {
		row.Warnings = append(row.Warnings, msg)
		if hint != "" {
			row.Hints = append(row.Hints, hint)
		}
	}
	var summary []string
	if f.Configured == 0 {
		summary = append(summary, "no [[resume.on_update]] hooks configured")
	} else {
		summary = append(summary, plural(f.Configured, "hook")+" configured")
	}

	w := f.Watcher
	switch {
	case w.Kind == "":
		summary = append(summary, "no watcher on this platform (run forgectl resume hooks run from a scheduler)")
	case w.Unreachable != "":
		summary = append(summary, fmt.Sprintf("%s watcher installed: %s, loaded: unknown (%s)", w.Kind, yesNo(w.Installed), w.Unreachable))
		// Hooks nobody runs never fire: warn even when the service manager
		// cannot be asked, and name the way out that needs none.
		if f.Configured > 0 && !w.Installed {
			warn(fmt.Sprintf("hooks are configured but the %s watcher is not installed", w.Kind),
				"run forgectl resume hooks install, or run forgectl resume hooks run from your own scheduler (cron)")
		}
	default:
		summary = append(summary, fmt.Sprintf("%s watcher installed: %s, loaded: %s", w.Kind, yesNo(w.Installed), yesNo(w.Loaded)))
		if f.Configured > 0 {
			switch {
			case !w.Installed:
				warn(fmt.Sprintf("hooks are configured but the %s watcher is not installed", w.Kind), "run forgectl resume hooks install")
			case !w.Loaded:
				warn(fmt.Sprintf("hooks are configured but the %s watcher is installed and not loaded", w.Kind), "run forgectl resume hooks install to load it again")
			}
		}
	}

	if f.StateErr != nil {
		warn("cannot read the hooks state: "+f.StateErr.Error(), "move state.json aside; the next run records a new baseline")
	}
	if f.RecordsErr != nil {
		warn("cannot read the hooks audit trail: "+f.RecordsErr.Error(), "")
	}
	h, recorded := f.State.Harness(f.Harness)
	if recorded {
		summary = append(summary, fmt.Sprintf("%s %s recorded %s", f.Harness, h.Version, h.RecordedAt.UTC().Format(time.RFC3339)))
		if r, ok := hookstate.NewestFor(f.Records, f.Harness, h.Version); ok && r.Outcome != hookstate.OutcomeOK {
			warn(fmt.Sprintf("the newest hook run for %s %s ended %s (%s, %s)", f.Harness, h.Version, r.Outcome,
				hookstate.DescribeHook(r.Hook), r.Time.UTC().Format(time.RFC3339)), "run forgectl resume hooks status for the details")
		}
		if p := h.Pending; p != nil {
			if p.GivenUp {
				warn(fmt.Sprintf("the restart for %s %s gave up after %s (last %s)", f.Harness, p.Version, plural(p.Attempts, "attempt"), p.LastOutcome),
					"run forgectl resume restart --outdated by hand; the next version is tried again")
			} else {
				warn(fmt.Sprintf("a restart for %s %s is pending: %d of %d attempts used (last %s)", f.Harness, p.Version, p.Attempts, hookstate.MaxRestartAttempts, p.LastOutcome),
					"the watcher retries it; or run forgectl resume restart --outdated")
			}
		}
	} else if f.StateErr == nil {
		summary = append(summary, "no version recorded yet")
	}

	if f.Held {
		held := f.Now.Sub(f.Holder.Since)
		if held > f.LongestTimeout+StuckMargin {
			who := "a hooks run"
			if w.Running && (w.Pid == 0 || w.Pid == f.Holder.Pid) {
				who = "the watcher's run"
			}
			warn(fmt.Sprintf("%s (pid %d, %s) has held the hooks lock since %s, longer than the longest hook timeout plus %s",
				who, f.Holder.Pid, f.Holder.Trigger, f.Holder.Since.UTC().Format(time.RFC3339), StuckMargin),
				fmt.Sprintf("it may be stuck on a permission prompt or a hung call: read %s, then kill %d", "resume-hooks/watcher.log", f.Holder.Pid))
		} else {
			summary = append(summary, fmt.Sprintf("a run (pid %d) is in progress", f.Holder.Pid))
		}
	}

	row.Summary = strings.Join(summary, "; ")
	switch {
	case len(row.Warnings) > 0:
		row.Status = "warn"
	case f.Configured == 0:
		row.Status = "info"
	default:
		row.Status = "ok"
	}
	return row
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
