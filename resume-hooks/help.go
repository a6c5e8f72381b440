package main

import (
	"forgectl.dev/shared/cli"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// helpText is a command's manual, the text --help prints and the man page
// and doc.go are generated from (cli.Render): title, usage, details,
// commands, flags, --help among them.
func helpText(c *ffcli.Command) string {
	title := "forgectl resume hooks " + c.Name + " — " + c.ShortHelp
	if c.Name == "resume-hooks" {
		title = "resume-hooks — run forgectl's update hooks when claude changes version"
	}
	return cli.Render(c, cli.Manual{Title: title, HelpFlag: true})
}

const rootHelp = `Runs the [[resume.on_update]] entries of config.toml when the installed
claude changes version, and installs the watcher that runs them. forgectl
reaches it as 'forgectl resume hooks ...' by exec'ing this binary with the
arguments that follow "hooks". Each command has its own --help. Codex has
no update hooks: not supported yet, so an entry with harness = "codex" is a
config error (exit 2).

EXIT STATUS
  0    done (for run: every hook that ran ended ok)
  1    a hook failed, timed out or was incomplete; an audit line could not
       be written; the run was signalled; the version did not settle or
       could not be read; install failed
  2    bad usage, an invalid config.toml, or a refused install
  Any other code is a failure.

ENVIRONMENT
  FORGECTL_CONFIG_DIR      forgectl's config directory (baked by install)
  CLAUDE_CONFIG_DIR        Claude Code's config directory (baked by install when set)
  FORGECTL_CLAUDE_BIN      the claude whose version is read (baked by install)
  FORGECTL_HERDR_BIN       the herdr the restart runs (baked by install)
  FORGECTL_SELF            forgectl's absolute path, set by forgectl when it dispatches
  FORGECTL_HOOKS_TRIGGER   launchd, systemd or cron when a watcher runs this; else manual
  FORGECTL_RESTART_BIN     the resume-restart binary to run (tests)
  FORGECTL_HOOKS_SETTLE    the interval between settle reads, a Go duration
                           (tests; default 3s)`

const runHelp = `Reads the installed version the way 'resume outdated' does and compares it
with the one recorded in resume-hooks/state.json. The first run records a
baseline and fires nothing. A change fires only once two reads a few
seconds apart agree (up to five re-reads); then every hook runs in config
order and the version is recorded once all of them ran. The version is read
again afterwards and an update that landed meanwhile is handled in the same
run, up to three in all. Runs take resume-hooks/run.lock and wait for each
other, saying so. SIGTERM, SIGINT and SIGHUP end the waiting, start no
further hook, record nothing and exit 1.

RESTART HOOKS
  A restart hook runs resume-restart (beside this binary, else on PATH) as
  'resume-restart restart --outdated --json --timeout D' (D the hook's
  timeout) in a process group of its own: its progress lines (stderr) go to
  the log and its per-session outcomes (the --json array) are read back.
  Exit 1 from it is "incomplete", and so is a run that skipped a session
  for a cause a person can clear: no herdr pane (no_pane), or a relaunch
  that would fail (no_transcript, cwd_gone, bad_launch_profile,
  config_invalid, claude_not_found, harness_unsupported, no_cwd,
  relaunch_refused). The restart is then pending for that version: later runs with the version unchanged re-run only the restart,
  up to 3 attempts in all, then give up until the next version. A session
  that failed to stop or relaunch, whose relaunch delivery is unknown, or
  that was signalled and not resumed is "stranded": its command is listed in
  the audit line's resume field, and on macOS a watcher run posts a
  notification (osascript display notification) naming those commands.

COMMAND HOOKS
  A command hook runs its argv with no shell, with FORGECTL_HARNESS,
  FORGECTL_OLD_VERSION and FORGECTL_NEW_VERSION in its environment, in a
  process group of its own that is killed at the hook's timeout. Neither its
  stdout nor its stderr is passed on: of a failed command only the redacted
  stderr tail is kept, in its audit line and in the log. A failing hook
  never stops the next, and neither does an audit line that cannot be
  written (a full disk): that is reported in the log and the run exits 1.

AUDIT TRAIL
  Each hook appends one JSON line to resume-hooks/runs.jsonl (0600, rotated
  to runs.jsonl.1 at 1 MiB): time, event ("hook", "install", "uninstall"),
  trigger, harness, old_version, new_version, hook {position, kind, program
  (base name only)}, attempt (restart), outcome (ok, failed, timeout,
  incomplete), exit_status (-1 when killed by a signal, named in signal),
  duration_ms, stderr_tail (a failed command only: its last 240 characters
  with the hook's argument values scrubbed, credential-looking lines
  withheld and control characters escaped), detail, and resume (the
  sessions a restart left for the user, as the commands that resume them).`

const installHelp = `macOS: writes and loads the launchd agent local.forgectl.resume-hooks in
~/Library/LaunchAgents, running '<forgectl> resume hooks run' when the
claude binary's path or its directory changes, at load, and every 30
minutes. Linux: the systemd user units forgectl-resume-hooks.{service,path,
timer}; without a systemd user instance, install prints the units and a
cron line and exits 1.

It bakes in this forgectl's absolute path, FORGECTL_CLAUDE_BIN (the claude
it watches), FORGECTL_HERDR_BIN, PATH, FORGECTL_CONFIG_DIR (always: the
directory install resolved, from FORGECTL_CONFIG_DIR or XDG_CONFIG_HOME),
CLAUDE_CONFIG_DIR and HERDR_SOCKET_PATH (when set) and
FORGECTL_HOOKS_TRIGGER, with the working directory and the log
(watcher.log, moved to watcher.log.1 past 1 MiB) under resume-hooks/:
install again after moving any of them, changing herdr servers or either
config directory. The job runs with umask 077 and the log is created 0600
by install and made 0600 again by every run, since a bare token can
survive the redaction. launchd and systemd wait 120 seconds after SIGTERM
before killing the job, so a signalled run can let a restart finish a
relaunch (up to 90 seconds) and post its notification.

A go run build of forgectl is refused (exit 2). --dry-run prints the files
only. A failed install's audit line keeps the reason. Safe to repeat.`

const uninstallHelp = `Unloads and removes the watcher install wrote, and appends an audit line.
Safe to repeat.`
