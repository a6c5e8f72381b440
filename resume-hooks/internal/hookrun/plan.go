package hookrun

import (
	"context"
	"errors"
	"fmt"

	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/msg"
)

// plan is --dry-run: one read of the version, no lock, no settle wait, no
// hook started and nothing written. It prints what a run would do now.
func (r *Runner) plan(ctx context.Context) int {
	st, err := hookstate.LoadState(r.Files.State())
	if err != nil {
		r.errorf("cannot read the hooks state: %v", err)
		return exitFailed
	}
	cur, err := r.readVersion(ctx)
	if errors.Is(err, errInterrupted) {
		r.logf(msg.Info, "stopped by a signal")
		return exitFailed
	}
	if err != nil {
		r.errorf("%v", err)
		return exitFailed
	}
	out := r.Stdout
	rec, recorded := st.Harness(r.Harness)
	switch {
	case !recorded:
		fmt.Fprintf(out, "%s %s installed, nothing recorded: a run would record it as the baseline and fire nothing\n", r.Harness, cur)
	case cur != rec.Version:
		fmt.Fprintf(out, "%s %s installed, %s recorded: once the version settles, a run would fire:\n", r.Harness, cur, rec.Version)
		r.planHooks(r.Hooks, "")
	case rec.Pending != nil && rec.Pending.Version == cur && rec.Pending.GivenUp:
		fmt.Fprintf(out, "%s %s installed and recorded; its restart gave up after %d attempts: nothing until the next version\n", r.Harness, cur, rec.Pending.Attempts)
	case rec.Pending != nil && rec.Pending.Version == cur:
		fmt.Fprintf(out, "%s %s installed and recorded; its restart is pending: a run would retry it (attempt %d of %d):\n",
			r.Harness, cur, rec.Pending.Attempts+1, hookstate.MaxRestartAttempts)
		r.planHooks(r.Hooks, KindRestart)
	default:
		fmt.Fprintf(out, "%s %s installed and recorded: nothing to fire\n", r.Harness, cur)
	}
	return exitOK
}

func (r *Runner) planHooks(hooks []Hook, kind string) {
	n := 0
	for _, h := range hooks {
		if kind != "" && h.Kind != kind {
			continue
		}
		n++
		what := "timeout " + h.Timeout.String()
		if h.Kind == KindRestart {
			what = "waits up to " + h.Timeout.String() + " for sessions to go idle"
		}
		fmt.Fprintf(r.Stdout, "  %s (%s)\n", h.Describe(), what)
	}
	if n == 0 {
		fmt.Fprintln(r.Stdout, "  (no hooks configured)")
	}
}
