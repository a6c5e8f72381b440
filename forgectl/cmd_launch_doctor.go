package main

import (
	"context"
	"flag"
)

func launchDoctorCommand() *command {
	return &command{
		name: "doctor", desc: "check claude, the config and the update-hooks watcher",
		usage: []usageLine{{"forgectl launch doctor", "check claude, the config and the update-hooks watcher"}},
		help:  func() string { return launchDoctorHelp },
		flags: launchDoctorFlags,
	}
}

func launchDoctorFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	asJSON := fs.Bool("json", false, "print the rows as a JSON array")
	return func(ctx context.Context, args []string) error {
		cfg, rows := a.configRows()
		rows = append(rows, a.claudeRow(ctx, cfg))
		rows = append(rows, a.updateHooksRows(ctx, cfg)...)
		if err := a.printRows(rows, *asJSON); err != nil {
			return err
		}
		return rowsExit(rows)
	}
}

const launchDoctorHelp = `
forgectl launch doctor — check claude, the config and the update-hooks watcher

USAGE
  forgectl launch doctor [--json]

  config        config.toml parses; [[resume.on_update]] entries are valid (a
                top-level [[on_update]] or [on_update] is reported by name)
  claude        which claude runs, and its version
  update_hooks  hooks are configured but the watcher is not installed or
                loaded; the newest audit record for the recorded version did
                not end ok; a restart is pending or gave up; a run has held the
                hooks lock longer than the longest hook timeout plus 10 minutes

EXIT STATUS
  0 when no check failed (warnings allowed), 1 when one did.
`
