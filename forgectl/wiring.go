package main

import (
	"context"

	"forgectl.dev/shared/config"
)

// resumeTasksRows is doctor's "resume tasks" check (shared/snapcheck).
func (a *app) resumeTasksRows() []checkRow {
	return nil
}

// updateHooksRows is launch doctor's update_hooks row (shared/hookstate).
func (a *app) updateHooksRows(ctx context.Context, cfg *config.Config) []checkRow {
	return nil
}
