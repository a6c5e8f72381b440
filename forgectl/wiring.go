package main

import (
	"context"
	"os"
	"strings"
	"time"

	"forgectl.dev/shared/config"
	"forgectl.dev/shared/hookstate"
)

// resumeTasksRows is doctor's "resume tasks" check (shared/snapcheck).
func (a *app) resumeTasksRows() []checkRow {
	return nil
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
	facts := hookstate.Gather(ctx, env, a.now())
	if cfg != nil {
		facts.Configured = len(cfg.Resume.OnUpdate)
		for _, o := range cfg.Resume.OnUpdate {
			facts.LongestTimeout = max(facts.LongestTimeout, o.Timeout())
		}
	}
	row := hookstate.Evaluate(facts)
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
