// Command resume-restart is "forgectl resume outdated" and "forgectl resume
// restart": forgectl runs it as `resume-restart outdated|restart ARGS`. It
// is standalone so that the update watcher can run it without a terminal.
//
// # resume outdated [--json]
//
// Lists live Claude Code sessions whose registry version is older than the
// installed claude. Read-only. The installed version is the target of
// ~/.local/bin/claude when it points into a "versions" directory, else
// `claude --version` of the claude launch finds ($FORGECTL_CLAUDE_BIN, then
// [launch.defaults] binary_path, then PATH). Versions compare numerically
// (2.1.100 > 2.1.99). A registry file whose pid is dead (or reused) is
// skipped; a live pid whose file has no procStart is listed with
// unverified, and restart never signals it; a version that does not parse
// is listed with version_unparseable; any status but exactly idle is busy;
// HERDR_PANE_ID is read from the process's own environment (/proc/<pid>/environ,
// kern.procargs2 on macOS), empty when unreadable. --json prints a stable
// array, [] when none; its field table is in --help. Exit 0 whether or not
// anything is outdated, 1 when the installed version cannot be determined,
// 2 on bad usage. config.toml is read only to find claude when neither
// $FORGECTL_CLAUDE_BIN nor the versions symlink settles the version; one
// that does not load is reported and claude is looked up on PATH.
//
// # resume restart --outdated [--session ID]... [--timeout D] [--dry-run] [--json]
//
// Stops each outdated session only when it is provably safe and resumes it
// in the same herdr pane by typing `<abs forgectl> resume <id>`; the safety
// rules are in package internal/restart, the input-line reader in
// internal/inputbox, the herdr client in internal/herdr, the question put
// to forgectl before any signal (would the relaunch succeed?) in
// internal/relaunch. Progress lines and
// notes go to stderr; per-session results (or the --json array, or the
// --dry-run plan) to stdout. Exit 0 when every session was resumed or
// skipped with a reason (and always for --dry-run), 1 when a stop or
// relaunch failed, the timeout or a signal left sessions waiting, a session
// ended pane_gone, another run holds restart.lock, or the installed version
// cannot be determined; 2 on bad usage. A session whose relaunch forgectl
// says would fail (no_transcript, cwd_gone, bad_launch_profile, …) is a
// skip with a reason: exit 0.
//
// # Environment
//
//	FORGECTL_SELF          forgectl's path for the relaunch line (set by forgectl
//	                       when it dispatches); else a forgectl beside this
//	                       executable; else forgectl on PATH. A `go run` build's
//	                       temporary path is passed over.
//	FORGECTL_HERDR_BIN     herdr to run, else herdr on PATH
//	FORGECTL_CLAUDE_BIN    the claude whose version counts as installed
//	FORGECTL_CONFIG_DIR    forgectl's config directory (config.toml, the snapshot
//	                       store, restart.lock)
//	CLAUDE_CONFIG_DIR      Claude Code's directory, default ~/.claude
//
// Test-only overrides, each a Go duration, not shown in --help:
//
//	FORGECTL_RESTART_POLL           re-check period while waiting (default 3s)
//	FORGECTL_RESTART_SETTLE         poll period after the stop (default 200ms)
//	FORGECTL_RESTART_STOP_WAIT      bound on exit, registry file gone, shell back (30s)
//	FORGECTL_RESTART_REGISTER_WAIT  bound on the relaunched session registering (60s)
//	FORGECTL_HERDR_TIMEOUT          bound on each herdr call (10s)
//	FORGECTL_RESTART_RESOLVE_TIMEOUT  bound on forgectl's dry run of the relaunch (60s)
//
// # Files
//
//	~/.claude/sessions/<pid>.json               Claude Code's live registry (read)
//	<forgectl config dir>/resume-sessions/      snapshot store (restart captures into it)
//	<forgectl config dir>/restart.lock          held for the whole of a real restart run
package main
