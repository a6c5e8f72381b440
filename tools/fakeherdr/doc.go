// Command fakeherdr is a test double for the herdr terminal multiplexer's
// CLI, backed by a private tmux server: herdr panes are real tmux panes
// running real shells, so process groups, foreground switches and screen
// reads are real. Its output follows the contract recorded in
// shared/facts/herdr.md (section 1.9): argument grammar, JSON shapes with
// alphabetically sorted keys, error envelopes and exit codes. It is built
// for end-to-end tests of `forgectl resume restart` and is not a herdr.
//
// # herdr verbs
//
//	fakeherdr [--session NAME] pane list [--workspace ID]
//	fakeherdr [--session NAME] pane get PANE_ID
//	fakeherdr [--session NAME] pane process-info [--pane PANE_ID | --current]
//	fakeherdr [--session NAME] pane read PANE_ID [--source visible|recent|recent-unwrapped|detection]
//	                                     [--lines N] [--format text|ansi] [--ansi] [--raw]
//	fakeherdr [--session NAME] pane send-keys PANE_ID KEY...
//	fakeherdr [--session NAME] pane send-text PANE_ID TEXT...
//	fakeherdr [--session NAME] pane run PANE_ID COMMAND...
//	fakeherdr [--session NAME] pane rename PANE_ID (LABEL | --clear)
//
// list, get, process-info and rename print one compact JSON line on stdout
// with ids cli:pane:list, cli:pane:get, cli:pane:process_info and
// cli:pane:rename and result types pane_list, pane_info, pane_process_info
// and pane_info. Optional fields are omitted, never null. read prints the
// screen text as tmux's capture-pane gives it (with -e for --ansi, --raw or
// --format ansi), no JSON and no added newline; visible is the screen as
// scrolled by `admin scroll`, recent the last N (default 80, at most 1000)
// non-trailing-blank lines of scrollback and screen. send-keys, send-text
// and run print nothing.
//
// process-info without --pane or --current answers for the focused pane;
// --current uses $HERDR_PANE_ID. run joins its arguments with single spaces
// (a literal -- is typed too) and types the line, then Enter, in one tmux
// call; send-text types the joined text as raw bytes without Enter. Keys for
// send-keys: enter, esc/escape, tab, shift+tab, backspace, up, down, left,
// right, home, end, pageup, pagedown, delete, insert, space, f1..f12, minus,
// plus, ctrl+X, alt+X, the aliases C-x and M-x, and any single printable
// character; names are case-insensitive. All keys are checked before any is
// sent.
//
// PaneInfo fields: pane_id, terminal_id (term-N), workspace_id, tab_id,
// focused, agent_status and revision always; cwd (the pane shell's),
// foreground_cwd, agent, agent_session, label and scroll when known.
// agent is "claude" when a process of the pane's foreground process group
// is named claude or claude-code (process name or argv0 base name), as in
// herdr. agent_status stands in for herdr's screen detection: it maps that
// claude's registry file ($CLAUDE_CONFIG_DIR or $HOME/.claude, read from the
// process's environment, sessions/<pid>.json) status idle→idle,
// busy→working, waiting→blocked, anything else (or no claude)→unknown, unless
// `admin status` overrides it. agent_session is
// {"agent":"claude","kind":"id","source":"herdr:claude","value":ID}; by
// default ("auto") ID is that claude's registry sessionId, which is what
// herdr's installed Claude integration would report, and it disappears when
// the claude exits. scroll is {max_offset_from_bottom (tmux history size),
// offset_from_bottom (set by admin scroll), viewport_rows}.
//
// process_info is {pane_id, shell_pid (the tmux pane's pid),
// foreground_process_group_id (the tty's foreground group, field 8 of
// /proc/<shell_pid>/stat), foreground_processes [{pid, name, argv0, argv,
// cmdline, cwd}] (the group's live members from /proc, leader first)}.
//
// # Exit status and errors
//
// 0 on success. 2 on a usage error, with plain text on stderr. 1 on an API
// error, with {"error":{"code":C,"message":M},"id":"cli:pane:VERB"} on
// stderr. Codes produced: pane_not_found ("pane <id> not found"; "pane not
// found" for process-info), server_not_running, invalid_key ("unsupported
// key X"), pane_send_failed (tmux refused the keys), workspace_not_found,
// internal_error (tmux failed), plus any code scripted with `admin fault`.
// server_not_running is returned when the socket herdr would use is not a
// Unix socket that accepts a connection: --session NAME selects
// $XDG_CONFIG_HOME/herdr/sessions/NAME/herdr.sock (or ~/.config/herdr/…),
// otherwise $HERDR_SOCKET_PATH, then $HERDR_SESSION, then
// ~/.config/herdr/herdr.sock. Tests create the socket with net.Listen("unix",
// path) or run `fakeherdr admin serve-socket PATH`. A missing
// FAKEHERDR_STATE is reported as "fakeherdr: error: …" on stderr, exit 1.
//
// # Admin verbs (test-only; not herdr)
//
//	fakeherdr admin create-pane [--id ID] [--workspace W] [--tab T] [--cwd DIR] [--env K=V]...
//	                            [--size COLSxROWS] [--socket PATH] [--focus] [--run LINE] [-- CMD ARG...]
//
// Opens a tmux window (default 120x40) as a new herdr pane and prints
// {"pane_id","shell_pid","tab_id","terminal_id","tmux_pane","workspace_id"}.
// The id defaults to the workspace's next number (w1:p1, w1:p2, …); the tab
// to <workspace>:t1. The pane runs $FAKEHERDR_SHELL (split on spaces) or
// `bash --noprofile --norc` with PS1='$ ' and HISTFILE=/dev/null, or CMD
// when given after --. Its environment gets HERDR_ENV=1, HERDR_SOCKET_PATH
// (--socket, default the caller's), HERDR_PANE_ID, HERDR_TAB_ID,
// HERDR_WORKSPACE_ID, FAKEHERDR_STATE and FAKEHERDR_TMUX, then --env values
// (PATH included: tmux takes a new pane's PATH from its client, so the
// fake runs that client with the pane's PATH). Everything else comes from
// the environment of the create-pane call itself.
// --run types LINE and Enter once the shell has drawn something, so a
// program started that way is the shell's foreground job, as in real use.
// The first pane (or --focus) becomes the focused pane.
//
//	fakeherdr admin close-pane ID                 kill the pane and forget it
//	fakeherdr admin session ID --auto|--none|--value UUID|--same-as OTHER
//	    agent_session: from the foreground claude (default) / never (Claude
//	    integration not installed) / always UUID / OTHER's current value
//	    (two panes claiming one session)
//	fakeherdr admin label ID TEXT|--clear         set the manual label
//	fakeherdr admin status ID STATUS|--auto       force agent_status (idle, working, blocked, done, unknown)
//	fakeherdr admin scroll ID N                   scroll.offset_from_bottom = N; pane read visible shows that view
//	fakeherdr admin focus ID                      make ID the focused pane
//	fakeherdr admin paste ID on|off               `pane run` wraps its text in ESC[200~ … ESC[201~
//	fakeherdr admin renumber                      herdr server restart: every pane gets a new id and terminal
//	                                              id (next numbers), old ids answer pane_not_found; prints
//	                                              {"old":"new",…}; processes keep their stale HERDR_PANE_ID
//	fakeherdr admin set-id OLD NEW                give one pane a chosen id (id reuse)
//	fakeherdr admin fault VERB [--times N] [--pane ID] MODE
//	    VERB is list, get, process-info, read, send-keys, send-text, run,
//	    rename or any; --times N (default 1, 0 = until clear-faults); --pane
//	    limits it to calls naming that pane. MODE is one of:
//	      --error CODE [--message M] [--exit0]   JSON error on stderr, exit 1
//	                                              (--exit0: on stdout, exit 0)
//	      --truncated                            half a JSON error on stderr, exit 1
//	      --stdout TEXT / --stderr TEXT [--exit N]
//	                                              raw output; exit N (default 1 with
//	                                              --stderr, else 0)
//	      --hang [--seconds S] [--after]         sleep S seconds (default 300) in a
//	                                              child process of the same process
//	                                              group (its stdio is /dev/null), then
//	                                              answer normally; --after does the
//	                                              verb's effect (types the line) before
//	                                              hanging and prints its output after
//	fakeherdr admin clear-faults
//	fakeherdr admin state                         mapping, faults and liveness as JSON
//	fakeherdr admin wait ID --contains T|--absent T [--timeout D] [--ansi]
//	                                              poll the visible screen; exit 1 on timeout
//	fakeherdr admin serve-socket PATH             listen on a Unix socket until SIGTERM/SIGINT;
//	                                              prints "ready" once listening
//	fakeherdr admin kill-server                   kill the private tmux server
//
// Admin errors print "fakeherdr: error: …" and exit 1 (2 for bad usage).
//
// # Environment
//
//	FAKEHERDR_STATE   state directory (required except for usage errors and serve-socket)
//	FAKEHERDR_TMUX    tmux socket name for `tmux -L` (default fakeherdr-<hash of the state dir>)
//	FAKEHERDR_SHELL   the default pane command, split on spaces
//	HERDR_SOCKET_PATH, HERDR_SESSION, XDG_CONFIG_HOME, HOME
//	                  choose the socket checked for server_not_running
//	HERDR_PANE_ID     the pane of process-info --current
//
// # Files in $FAKEHERDR_STATE
//
//	state.json   pane mapping (herdr id → tmux %N and its pane pid), scripted
//	             state and faults; rewritten by temp file + rename under an
//	             flock of "lock", so concurrent invocations are safe
//	calls.jsonl  the argv (without the program name) of every herdr-verb
//	             invocation, usage errors included, one JSON array a line;
//	             admin verbs are not recorded
//	typed.jsonl  one line per successful run / send-text / send-keys:
//	             {"pane_id","tmux_pane","verb","text"|"keys","enter","bracketed_paste","time"}
//	hangs.jsonl  one line per scripted hang: {"argv","pid","child_pid","seconds","time"}
//
// A pane whose process exits disappears (tmux closes it), and its id then
// answers pane_not_found. When the last pane closes, tmux exits; the next
// create-pane starts a fresh server and forgets every old mapping.
package main
