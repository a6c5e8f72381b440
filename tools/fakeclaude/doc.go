// Command fakeclaude stands in for the Claude Code CLI where forgectl's
// tests look at it: its version, its live-process registry file, the input
// box it draws, the drafts typed into it, its idle/busy status, and how it
// exits. Build it under the name claude (for example as
// ~/.local/share/claude/versions/<version> with a ~/.local/bin/claude
// symlink) so process-name checks see "claude".
//
// # Usage
//
//	claude --version | -v        prints "<version> (Claude Code)"
//	claude [--model M] [--resume ID | -r ID] [--fork-session] [--session-id UUID]
//	       [--name N | -n N] [other Claude Code flags, accepted and ignored] [prompt]
//
// The version is $FAKECLAUDE_VERSION, else the base name of the process's
// own executable (symlinks resolved) when it looks like 1.2.3, else 2.1.0.
// A test that installs versions/<v> and switches the symlink should leave
// FAKECLAUDE_VERSION unset, so a relaunched process reports the new one.
//
// The session id is --resume's id; with --fork-session, or without
// --resume, a fresh UUID; --session-id sets it (it must be a UUID). -p is
// refused with exit 1.
//
// # Registry
//
// On start it writes $CLAUDE_CONFIG_DIR/sessions/<pid>.json (default
// $HOME/.claude/sessions), one JSON line, by temp file + rename, mode 0644
// as Claude Code does:
//
//	{"pid","sessionId","cwd","startedAt" (ms),"procStart" (field 22 of
//	/proc/self/stat as a decimal string),"version","peerProtocol":1,
//	"kind":"interactive","entrypoint":"cli","name","nameSource" (user for
//	--name, else derived: <cwd base slug>-<2 hex>),"status","updatedAt",
//	"statusUpdatedAt"}
//
// It is rewritten whenever the status changes and removed on every exit
// except SIGKILL, which leaves it behind as Claude Code does.
// FAKECLAUDE_NO_REGISTRY=1 skips it.
//
// # Screen and keys
//
// With a terminal on stdin and stdout it switches to raw mode and draws
// from the top of the screen: a header (version, model, session id, cwd),
// past prompts, "✻ Working… (esc to interrupt)" while busy, then the input
// box: a full-width rule of ─ (U+2500, at least 40), the line "❯" + U+00A0
// + the draft (wrapping onto rows indented by two spaces), a second rule,
// then the status area ("  ? for shortcuts", or a notice) and a context meter
// "──────────────────── 0/200k (0%)". With an empty draft the ❯ line shows
// $FAKECLAUDE_SUGGESTION dim (SGR 2), else $FAKECLAUDE_HINT as plain text,
// like Claude Code's ghost text and idle hints.
//
// Printable characters append to the draft; Backspace deletes one; Ctrl-U
// clears it; Esc interrupts a busy turn; Enter submits a non-empty draft:
// the status becomes busy for $FAKECLAUDE_BUSY_MS milliseconds (default
// 1500), then idle again. "/exit" (or "/quit") + Enter quits. Ctrl-C or
// Ctrl-D clears a draft; at an empty prompt it asks for a second press
// within two seconds, which quits.
//
// A submitted prompt is also written where Claude Code keeps it (unless
// FAKECLAUDE_NO_TRANSCRIPT=1): a user row, an assistant row and a
// last-prompt row in projects/<encoded cwd>/<sessionId>.jsonl, and a line in
// history.jsonl, so a session that took a prompt can be found and resumed.
//
// Without a terminal it draws nothing, reads nothing and just waits for
// signals, so tests can exec it without a pty.
//
// # Signals and status control
//
//	SIGTERM, SIGHUP   exit (128+signal), removing the registry file
//	SIGINT            like Ctrl-C: twice within two seconds exits (status 0)
//	SIGUSR1           toggle a manual busy state (status busy/idle)
//	SIGKILL           dies; the registry file stays
//
// FAKECLAUDE_STATUS_FILE names a file polled every 100 ms: while it holds a
// word (idle, busy, waiting, shell, …) that word is the status; empty or
// missing gives control back to the normal busy/idle logic.
//
// # Record file
//
// When FAKECLAUDE_RECORD names a file, one JSON line is appended per event:
//
//	{"event":"start","argv":[argv0,…],"args":[…],"cwd","pid","session_id","version","env":{…},"time"}
//	{"event":"status","status","pid","session_id","time"}
//	{"event":"submit","text","pid","session_id","time"}
//	{"event":"exit","reason" (SIGTERM, SIGHUP, /exit, interrupt, context),"pid","session_id","time"}
//
// env holds HTTP_PROXY, HTTPS_PROXY, NO_PROXY, ALL_PROXY (either case) and
// every CLAUDE_*, ANTHROPIC_* and HERDR_* variable that is set, except
// names containing KEY, TOKEN or SECRET, plus the names listed
// comma-separated in FAKECLAUDE_RECORD_ENV (secret-looking or not).
//
// # Environment
//
//	FAKECLAUDE_VERSION, FAKECLAUDE_BUSY_MS, FAKECLAUDE_STATUS_FILE,
//	FAKECLAUDE_RECORD, FAKECLAUDE_RECORD_ENV, FAKECLAUDE_NO_REGISTRY,
//	FAKECLAUDE_NO_TRANSCRIPT, FAKECLAUDE_HINT, FAKECLAUDE_SUGGESTION,
//	CLAUDE_CONFIG_DIR, HOME
package main
