package main

import (
	"github.com/peterbourgon/ff/v3/ffcli"

	"forgectl.dev/resume-restart/internal/outdated"
	"forgectl.dev/resume-restart/internal/restart"
	"forgectl.dev/shared/cli"
)

// helpText is a command's manual (cli.Render): what it does, usage,
// details, flags, then the sections that close it (field table, exit
// status).
func helpText(c *ffcli.Command) string {
	return cli.Render(c, cli.Manual{Title: c.ShortHelp, Tail: tails[c.Name]})
}

var tails = map[string]string{
	"resume-restart": rootExit,
	"outdated":       outdated.FieldTable + "\n\n" + outdatedExit,
	"restart":        restart.FieldTable + "\n\n" + reasons + "\n\n" + restartExit,
}

const rootHelp = `resume-restart serves two forgectl subcommands; forgectl runs it as
"resume-restart outdated|restart ARGS". Run either with --help for its manual.`

const rootExit = `EXIT STATUS
  0    done
  2    bad usage`

const outdatedHelp = `Lists live Claude Code sessions whose registry version is older than the
installed claude. It only reads.

The installed version is the target of ~/.local/bin/claude when that is a
symlink into a "versions" directory, otherwise "claude --version" of the
claude launch would run ($FORGECTL_CLAUDE_BIN, then [launch.defaults]
binary_path, then PATH). Versions compare numerically per component, so
2.1.100 is newer than 2.1.99. config.toml is read only to find claude: one
that does not load is reported, and claude is then looked up on PATH.

A registry file whose pid is dead, or whose kernel start time differs from
the file's procStart (a reused pid), is skipped. A live pid whose file has
no procStart (older claude versions write none) is listed and marked
unverified; restart never signals it. A version that
does not parse is listed and marked, never guessed at. Any status other than
exactly idle reads as busy. HERDR_PANE_ID is the process's own environment
value, not a verified pane: a claude started inside another session inherits
its parent's. A missing or unreadable registry lists as empty. Codex threads
are not listed: not supported yet (Codex writes no such registry).`

const outdatedExit = `EXIT STATUS
  0    listed (whether or not any session is outdated)
  1    the installed claude version cannot be determined
  2    bad usage
  Any other code is a failure.`

const restartHelp = `Stops each session "resume outdated" lists, only when that is provably
safe, and resumes it in the same herdr pane. --session narrows the set.
Codex threads are not restarted: not supported yet; a Claude Code session
whose launch profile sets harness = "codex" is skipped, harness_unsupported.

Panes. One "herdr pane list" per run finds the pane herdr labels with the
session (agent claude, that session id). The process's HERDR_PANE_ID is the
fallback, with a note, when no pane carries the session or the list fails;
"pane <found> (found by session; env said <old>)" shows a difference. Two
panes labelled with one session are refused. When herdr answers
pane_not_found in a real run, the list is read once more for that session:
another pane holding it continues the checks there, none ends it pane_gone.

Checks, immediately before the signal: identity (the registry file still
names the session and procStart, the kernel start time matches, the process
is a claude executable); status exactly idle; herdr pane get labels the pane
with the session and the pid is the pane's foreground process; the input
line (the ❯ line between the screen's last two rules, read with its styling
so that dim suggestions are not drafts) is empty. A busy session, a draft,
an unrecognisable screen, a scrolled-back pane or a herdr error other than
pane_not_found waits, re-checked every few seconds up to --timeout. A failed
identity or pane check is reported and never signalled. A session with no
pane, an unparseable version, an unverified pid (no procStart), or one this
run is inside is reported with the command to resume it by hand. Background,
daemon and SDK-driven sessions (registry kind bg, daemon or daemon-worker;
entrypoint sdk-*) are skipped as not_interactive.

The relaunch. Before any signal the run asks the forgectl it will type,
"<forgectl> resume --dry-run --json --assume-stopped <pid> <id>", whether
that relaunch would succeed once the pid has exited: the same session
lookup, the directory, config.toml and [proxy] launch_profile, the launch
profile and the claude binary, resolved with the session's own HOME, PATH,
CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME, FORGECTL_CONFIG_DIR and
FORGECTL_CLAUDE_BIN (the pane's shell started it with them). Anything that
would fail skips the session, never signalled: no_transcript (Claude Code
writes a transcript at the first prompt, so a claude opened and never
prompted has nothing to resume; the hint says to quit it and start claude
in its directory, or run forgectl launch there), cwd_gone, no_cwd,
bad_launch_profile, config_invalid, harness_unsupported, claude_not_found,
or relaunch_refused for any other refusal, each with forgectl's hint.
forgectl is asked when the run plans (so --dry-run shows it) and again
after the capture, right before the last checks, which end by checking
that the transcript it resolved still exists. A forgectl that gives no
verdict (an older one, or none within 60 s) fails the session as
relaunch_unverified; nothing is stopped.

The stop. First the same capture as "resume snapshot", and the relaunch line
is rendered: "<forgectl> resume <id>", forgectl's absolute path quoted for
the shell. Then SIGTERM; the run waits for the pid to exit, its registry
file to go and the pane's shell to hold the foreground again, refuses if the
session already runs again, sends Ctrl-U, checks the foreground once more,
types the line with "herdr pane run" and waits for the session to register
again. A pane run killed at its 10 s bound still waits, and reports resumed
or delivery_unknown.

One run at a time: a run holds restart.lock in forgectl's config directory,
and a second run exits at once. Ctrl-C, SIGTERM and SIGHUP end the waiting,
never a restart already signalled. Progress goes to stderr; results to
stdout, with a hint line where a person has a next step. --dry-run reads
only: it takes no lock, captures nothing, does not re-read the pane list,
and exits 0 (forgectl's dry run may refresh its listing cache).

ENVIRONMENT
  FORGECTL_SELF        forgectl's path, set by forgectl when it runs this
  FORGECTL_HERDR_BIN   the herdr to run (else herdr on PATH)
  FORGECTL_CLAUDE_BIN  the claude whose version is installed
  FORGECTL_CONFIG_DIR  forgectl's config directory
  CLAUDE_CONFIG_DIR    Claude Code's directory (default ~/.claude)
  HERDR_SOCKET_PATH, HERDR_SESSION  passed to herdr, which picks its server`

const reasons = `REASONS
  skipped: version_unparseable, not_interactive, unverified,
           inside_session, no_pane, duplicate_pane, identity_mismatch,
           pane_mismatch, not_foreground, exited, already_running,
           not_outdated; the relaunch would fail: no_transcript, cwd_gone,
           no_cwd, bad_launch_profile, config_invalid, harness_unsupported,
           claude_not_found, relaunch_refused
  waiting: busy, draft, input_unrecognized, scrolled, herdr_error,
           registry_unreadable, capture_failed, not_checked
  failed:  relaunch_invalid, relaunch_unverified, signal_failed, still_running,
           registry_file_remains, shell_not_back, herdr_error, not_registered
  pane_gone: pane_not_found     delivery_unknown: run_timeout`

const restartExit = `EXIT STATUS
  0    every session was resumed or skipped with a reason, a relaunch that
       would fail included (always with --dry-run); the update watcher
       still records such a skip as incomplete and retries it
  1    a stop or relaunch failed, the timeout or a signal left sessions
       waiting, a session ended pane_gone, another run holds the lock, or
       the installed claude version cannot be determined
  2    bad usage
  Any other code is a failure.`
