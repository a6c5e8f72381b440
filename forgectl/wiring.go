package main

import (
	"context"
	"os"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/hookdoctor"
	"forgectl.dev/forgectl/internal/snapcheck"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/snapstore"
)

// resumeTasksRows is doctor's "resume tasks" check: the Stop hook is wired,
// the snapshot store is being filled, task folders are still named after
// session ids, pruning is healthy (internal/snapcheck).
func (a *app) resumeTasksRows() []checkRow {
	c := snapcheck.Checker{
		Claude:  a.claudePaths(),
		Store:   snapstore.Store{Dir: a.forgectlPaths().Snapshots()},
		Now:     a.now,
		NoPrune: a.getenv("FORGECTL_RESUME_NO_PRUNE") != "",
		Home:    a.home,
	}
	var out []checkRow
	for _, r := range c.Rows() {
		out = append(out, checkRow{Check: r.Name, Status: string(r.Status), Message: r.Message, Hint: r.Hint})
	}
	return out
}

// updateHooksRows is launch doctor's update_hooks row: it reads the hooks'
// state, audit trail and lock, and asks the service manager about the
// watcher; it never writes.
func (a *app) updateHooksRows(ctx context.Context, cfg *config.Config) []checkRow {
	env := hookstate.Env{
		Files:  hookstate.FilesFor(a.forgectlPaths()),
		GOOS:   a.goos,
		Home:   a.home,
		UID:    os.Getuid(),
		Getenv: a.getenv,
		Run:    hookstate.ExecRunner(10 * time.Second),
	}
	facts := hookdoctor.Gather(ctx, env, a.now())
	if cfg != nil {
		facts.Configured = len(cfg.Resume.OnUpdate)
		for _, o := range cfg.Resume.OnUpdate {
			facts.LongestTimeout = max(facts.LongestTimeout, o.Timeout())
		}
	}
	row := hookdoctor.Evaluate(facts)
	status := row.Status
	if status == "info" {
		status = "ok"
	}
	out := checkRow{Check: row.Name, Status: status, Message: row.Summary}
	if len(row.Warnings) > 0 {
		out.Message = strings.Join(append([]string{row.Summary}, row.Warnings...), "; ")
		out.Hint = strings.Join(row.Hints, "; ")
	}
	return []checkRow{out}
}
