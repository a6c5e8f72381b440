// Code generated from the --help texts by TestManual (FORGECTL_UPDATE_MANUAL=1 go test -run TestManual); DO NOT EDIT.

// Command resume-snapshot is the Stop-hook snapshotter of forgectl resume: it
// captures what a live Claude Code session's exit would destroy, so that
// `forgectl resume` can give it back.
// Its manual is what each command's --help prints, reproduced below; the
// man page resume-snapshot(1) is made from the same text.
//
// # resume-snapshot --help
//
//	resume-snapshot — capture what a Claude Code session's exit would destroy
//
//	USAGE
//	  resume-snapshot [--quiet]
//	  forgectl resume snapshot [--quiet]   (the same code, shared/snaprun, run in-process)
//
//	Two things do not survive a Claude Code session's exit: the /rename name,
//	which lives only in the live-process registry, and the task bodies of
//	tasks/<list id>/. For every live session in the registry (a
//	sessions/<pid>.json whose pid is alive and whose procStart matches the
//	process's real start time) it records the user-given name (the registry
//	name when nameSource says a person set it, else the custom-title.json
//	beside the transcript, plus formerNames) and every task file, with the
//	recovery metadata around them: session id, cwd, claude version, pid and
//	start time, transcript path, task list id and folder, high-water mark,
//	capture times.
//
//	Run as a Claude Code Stop hook it also reads the hook's stdin JSON
//	(session_id, transcript_path, cwd) and CLAUDE_PID, so the session that just
//	stopped is captured even before its registry file says so. Stdin is read
//	only when it is not a terminal, up to 1 MiB, and for at most a second
//	(200 ms of silence ends it), so an open but silent stdin never holds up the
//	turn. No stdin is fine.
//
//	WIRING
//	  forgectl init --stop-hook merges the hook into ~/.claude/settings.json
//	  (user scope: the point is every repo); by hand, merge this into its
//	  "hooks" object:
//	    "Stop": [
//	      { "hooks": [{ "type": "command", "command": "forgectl resume snapshot --quiet" }] }
//	    ]
//	  Hooks do not inherit an interactive shell's PATH; use an absolute path if
//	  forgectl is not on the system PATH.
//
//	FLAGS
//	  --quiet     print nothing, errors included (the form a Stop hook uses)
//	  --help      print this manual
//	  --version   print the version
//
//	Without --quiet it prints one line per session captured (id, name, task
//	count) on stdout, and problems on stderr as "forgectl: error: ...".
//
//	EXIT STATUS
//	  0    always. A bad flag, a corrupt registry file, an unwritable or full
//	       store, a broken stdin, even a panic, are reported on stderr (nothing
//	       with --quiet) and the status stays 0: for a Stop hook, exit 2 would
//	       block the turn and show the message to the model. A bad flag
//	       captures nothing.
//
//	ENVIRONMENT
//	  CLAUDE_CONFIG_DIR          Claude Code's folder (default ~/.claude)
//	  FORGECTL_CONFIG_DIR        forgectl's folder (default ~/.config/forgectl, or
//	                             $XDG_CONFIG_HOME/forgectl, on Linux;
//	                             ~/Library/Application Support/forgectl on macOS)
//	  CLAUDE_PID                 the claude running this hook (Claude Code sets it)
//	  CLAUDE_CODE_TASK_LIST_ID   the hook session's task list when it is not the
//	                             session id; other sessions' values are read from
//	                             their own process environment
//	  FORGECTL_RESUME_NO_PRUNE   any non-empty value disables pruning
//
//	FILES
//	  <claude dir>/sessions/<pid>.json                  read: the live registry
//	  <claude dir>/tasks/<list id>/<n>.json             read: task bodies
//	  <claude dir>/projects/<enc cwd>/<id>.jsonl        stat: transcripts
//	  <forgectl dir>/resume-sessions/<session id>.json  written, 0600 in a 0700 folder
//	  <forgectl dir>/resume-sessions/<session id>.lock  per-session lock
//	  <forgectl dir>/resume-sessions/.prune-stamp       last prune pass and its outcome
//	  <forgectl dir>/resume-sessions/.capture-cache     fingerprints of the last full captures
//
//	SNAPSHOTS
//	  One JSON file per session, written atomically (temp file and rename),
//	  under a per-session lock file so that several hooks at once lose nothing.
//	  Snapshots merge by task id: a pass that sees fewer tasks keeps the others
//	  and marks them gone_since, because the tasks a session just lost are the
//	  ones worth rescuing. The store never shrinks to follow Claude Code.
//
//	PRUNING
//	  At most once a day (the .prune-stamp file; a fresh stamp costs one stat) a
//	  record is retired when Claude Code's transcript for its session is gone
//	  (its recorded transcript_path, else any projects/*/<id>.jsonl). A record
//	  whose transcript survives is kept however old. A pass that would retire
//	  more than half the store refuses and says so, as that is what a broken
//	  transcript lookup looks like; small stores may always retire up to 3
//	  records, never the last one. Records without a transcript last captured
//	  more than 180 days ago are retired even then. Live sessions are never
//	  retired.
//
//	SPEED
//	  It runs on every turn of every session, so a session that has not changed
//	  since its last full capture is recognised from file metadata and left
//	  alone: the Stop hook's own session by the size, mtime and inode of each
//	  task file, every other session by its task folder's mtime (Claude Code's
//	  locked task writes move it) and at least every 10 minutes in full. Files
//	  written within 2 seconds of a capture are always read again. The cache is
//	  only a cache: deleting it costs one full pass.
//
//	  Nothing holds up the turn: a FIFO, socket or device where a file should
//	  be is reported and never opened, and a run gives up after 10 seconds on
//	  whatever still blocks (a hung network mount, locks other captures hold),
//	  says so, and exits 0.
package main
