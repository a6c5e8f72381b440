// Code generated from the --help texts by TestManual (FORGECTL_UPDATE_MANUAL=1 go test -run TestManual); DO NOT EDIT.

// Command forgectl is the front door of forgectl resume: it lists Claude Code
// sessions across every repo, lets a person pick one, and execs `claude
// --resume` in that session's directory with its launch profile.
// Its manual is what each command's --help prints, reproduced below; the
// man page forgectl(1) is made from the same text.
//
// # forgectl --help
//
//	forgectl — get back into your Claude Code sessions
//
//	USAGE
//	  forgectl resume [FILTER]        pick a recent session from any repo and resume it in place
//	  forgectl resume ls [--json]     list sessions without acting
//	  forgectl resume search WORDS    list the sessions whose conversation holds every word
//	  forgectl resume rename FILTER NAME
//	                                  name a session that is not running, as /rename would
//	  forgectl resume archive FILTER  move sessions out of Claude Code's 30-day sweep
//	  forgectl resume unarchive ID    put archived sessions back, without resuming
//	  forgectl resume rm FILTER       move sessions to forgectl's trash (nothing is deleted)
//	  forgectl resume trash           list the trash (list, restore ID, empty)
//	  forgectl resume trash list      the sessions in the trash, newest removal first
//	  forgectl resume trash restore   put trashed sessions back where they were
//	  forgectl resume trash empty     delete the trash for good (--older-than DUR)
//	  forgectl resume snapshot        capture what a live session's exit would destroy (Stop hook)
//	  forgectl resume outdated        list live sessions running an older claude
//	  forgectl resume restart         restart outdated sessions in their herdr panes
//	  forgectl resume hooks           run hooks when claude updates (run, install, status)
//	  forgectl launch [--dry-run]     start claude here with this directory's launch profile
//	  forgectl launch doctor          check claude, the config and the update-hooks watcher
//	  forgectl doctor                 check that session rescue is wired correctly
//	  forgectl init                   write a commented config.toml
//	  forgectl init --stop-hook       wire the Stop hook into Claude Code's settings.json
//	  forgectl completion SHELL       print the bash, zsh or fish completion script
//
//	  forgectl --version              print the version
//	  forgectl COMMAND --help         the manual of one command
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
//	ENVIRONMENT
//	  CLAUDE_CONFIG_DIR     Claude Code's directory (default ~/.claude)
//	  FORGECTL_CONFIG_DIR   forgectl's directory (default ~/.config/forgectl, or
//	                        ~/Library/Application Support/forgectl on macOS)
//	  FORGECTL_CLAUDE_BIN   the claude to run (else [launch] binary_path, else PATH)
//	  CODEX_HOME            the Codex CLI's directory (default ~/.codex)
//	  FORGECTL_CODEX_BIN    the codex to run (else [resume] codex_binary_path,
//	                        else PATH)
//
// # forgectl resume --help
//
//	forgectl resume — get back into a Claude Code session or a Codex thread after a
//	terminal restart
//
//	USAGE
//	  forgectl resume [--fork] [--dry-run] [--all] [--since WHEN] [--until WHEN]
//	                  [FILTER]
//	  forgectl resume --dry-run --json [--assume-stopped PID] FILTER
//	  forgectl resume --search QUERY [--fork] [--dry-run] [--all] [FILTER]
//	  forgectl resume ls [--json] [--all] [--tree | --roots] [FILTER]
//	  forgectl resume search [--json] [--all] [--limit N] QUERY...
//	  forgectl resume snapshot [--quiet]         the Stop hook (resume-snapshot's code, in-process)
//	  forgectl resume outdated [--json]          runs resume-restart
//	  forgectl resume restart --outdated ...     runs resume-restart
//	  forgectl resume hooks run|install|status   runs resume-hooks
//	  Each of these has its own --help.
//
//	Lists recent sessions across every repo — name, repo, branch, last activity —
//	and resumes the one you pick: it changes to the session's recorded directory,
//	restores its snapshotted task list, and execs claude there with that
//	directory's [launch] profile. It never returns; every subcommand does.
//
//	FILTER matches, in this order, the first rule with any hit winning:
//	  the exact session id; an id prefix (4+ characters); an exact session name;
//	  a case-insensitive substring of the name, the repo or the cwd.
//	One hit resumes it. Several print one candidate row per line on stdout (full
//	id first) and exit 1 instead of prompting. Without a filter, a terminal opens
//	the fuzzy finder; without a terminal (or with --dry-run) the candidates are
//	printed and it exits 1. So: candidates on stdout means ambiguous, empty
//	stdout means no match, exit 0 means it resumed.
//
//	THE PICKER
//	  Newest first; type to filter every session at once, Enter resumes the row
//	  under the cursor, Esc or Ctrl-C leaves (exit 130). It opens at once and
//	  rows arrive as the listing finds them, newest first (a first run reads the
//	  newest transcripts first); rows are only ever added below, so the cursor
//	  stays on its session while they come, with or without a query typed.
//	  Enter during the fill resumes the highlighted session, once the registry
//	  and the disk are checked again: a session that started running since is
//	  refused (exit 2), one whose transcript is gone is an error (exit 1).
//	  The preview shows the session under the cursor: its facts, what resuming
//	  it costs ("context 182k tokens · cache cold (3 h) · opus": the context
//	  the resume sends again, whether the prompt cache has likely expired by
//	  Claude Code's own rule, the model; a dollar figure with [resume.prices]),
//	  then the end of its conversation, newest at the bottom, as far as the
//	  pane allows: each prompt after "> ", the opening lines of each reply, a
//	  tool call as one line after "· ", a run of them folded into a count. It
//	  is read from the transcript's end only. With [resume] warn_context_tokens
//	  set, choosing a session above it asks once before resuming ([y/N]; a no
//	  leaves as Esc does, exit 130).
//	  The finder keeps the list to the left half of the terminal; a row gives
//	  its name what the repo and branch columns can spare (they narrow to 8
//	  columns first; on a narrow terminal the name leads, then "repo @
//	  branch"). What you type matches whole values, also those a row shows
//	  cut (they follow the row, past the ".."). The rows are not coloured:
//	  the finder draws them as plain text. With --search, the preview's hits
//	  show the words found highlighted (--color as for the tables).
//
//	FLAGS
//	  --dry-run   print the resolved session, cwd, argv, added environment,
//	              what resuming costs ("context:", "used:", and a "warning:"
//	              naming the figure above [resume] warn_context_tokens) and
//	              tasks to restore, as "key: value" lines; exec nothing, never
//	              prompt; exit with the code the real run would give
//	  --fork      pass --fork-session: branch a new session off the transcript.
//	              The only way into a running session. Snapshotted tasks are
//	              reported, not restored: a fork starts with an empty list.
//	  --all       include hidden sessions (print-mode, sidechains, continued)
//	              and archived ones ('resume archive --help'); an exact id
//	              finds an archived session without it
//	  --archived  pick or match among the archived sessions only: Claude
//	              Code sessions in forgectl's archive and Codex threads in
//	              archived_sessions/. One in forgectl's archive is restored
//	              first ('resume unarchive --help' says what that does to its
//	              mtimes), then resumed; with --dry-run it is only reported
//	              ("archived: would be restored from DIR first"). A Codex thread
//	              is resumed where it is.
//	  --harness H only H's sessions: claude or codex (repeatable; see 'resume ls
//	              --help'). [resume] harnesses in the config sets the default.
//	  --verbose   report transcripts and registry files that could not be read
//	  --since WHEN, --until WHEN
//	              only sessions last active (the transcript's last write) at or
//	              after, at or before WHEN: an age (90m, 3h, 2d, 1w: that long
//	              ago), a day (2026-11-24, today, yesterday, or a weekday name,
//	              monday or mon: the last one before today) or an RFC 3339 time.
//	              A day counts whole at both ends (--until 2026-11-24 keeps all
//	              of the 24th), in the local time zone (TZ). Decided on the
//	              files' modification times, so the transcripts left out are
//	              never read. A value neither form reads is refused (exit 2).
//	  --color WHEN
//	              colour the table: auto (the default: on a terminal only),
//	              always or never. NO_COLOR (any value) turns auto off,
//	              CLICOLOR_FORCE (any value but 0) turns it on. Names are bold,
//	              times dim, lineage marks cyan, a live mark red (yellow when
//	              the session is idle), the match in a snippet bold yellow; the
//	              picker's preview likewise (its rows stay plain).
//	  --json      with --dry-run: print one verdict object instead (VERDICT)
//	  --assume-stopped PID
//	              with --dry-run: resolve as though the live claude PID had
//	              exited, so a session it runs is not refused as running (what
//	              resume restart asks before it stops a session)
//	  --search QUERY
//	              resolve to the sessions whose conversation holds every word of
//	              QUERY ("quote" a phrase) instead of matching names: one hit
//	              resumes, several open the picker over the hits (their snippets
//	              in the preview) or, with no terminal or --dry-run, print the
//	              candidates and exit 1; a FILTER narrows the hits. See 'forgectl
//	              resume search --help' for what is searched.
//	  Flags may come after the FILTER. A flag's value is the next word, unless
//	  that word starts with "-": then the value is missing (exit 2), so a
//	  forgotten value never becomes a query. Write --search=-x, or --search --
//	  -x (after "--" no word is a flag, and the flag before it takes the first).
//
//	CODEX THREADS
//	  A Codex thread resumes as 'codex resume ID' (--fork: 'codex fork ID') in
//	  the thread's recorded directory, so Codex never asks which one to use. The
//	  codex run is FORGECTL_CODEX_BIN, else [resume] codex_binary_path, else
//	  codex on PATH. The [launch] profile is Claude Code's: none of its flags
//	  or environment is given to codex. Never two writers on one thread: a
//	  thread whose write lock a codex TUI without the background daemon, or a
//	  running codex exec, holds is refused (exit 2, naming the pid); one the
//	  daemon holds is attached to, as 'codex resume' does. restart, outdated,
//	  task restore and [[resume.on_update]] are Claude Code's alone: harness =
//	  "codex" there is refused with "not supported yet".
//
//	REFUSALS (exit 2)
//	  A running session (two claude processes on one transcript corrupt it): the
//	  error names its pid and, when known, its tmux pane. Use --fork, or check
//	  first with 'forgectl resume ls --json' (fields live, pid).
//	  A [proxy] launch_profile naming an undefined or empty profile: refused
//	  before anything else, --dry-run included.
//
//	With stdout not a terminal, --allow-dangerously-skip-permissions is withheld
//	from the argv (as launch does), so a piped --dry-run never shows it.
//
//	VERDICT (--dry-run --json: one object on stdout; the exit code is unchanged)
//	  ok               bool     the real run would exec claude
//	  reason           string   "" when ok, else the first refusal: config_invalid,
//	                            bad_launch_profile, no_match, ambiguous, live,
//	                            no_cwd, cwd_gone, harness_unsupported,
//	                            claude_not_found, codex_not_found, or failed
//	                            (anything else)
//	  error, hint      string   the error and hint lines printed on stderr
//	  exit_code        number   the exit code (the real run's, 0 when ok)
//	  session_id, cwd  string   the session resolved ("" when none)
//	  transcript_path  string   its transcript
//	  binary           string   the claude (or codex) that would be exec'd
//	  argv             array    its argv ([] when not ok)
//	  context_tokens, model, cache_likely_expired, tokens_used
//	                            what resuming the session resolved would cost,
//	                            as in 'resume ls --json' (0, "", false, 0 when
//	                            none was resolved)
//	  estimated_usd    number   the context at the [resume.prices] cache-write
//	                            price (cold cache) or cache-read price (warm);
//	                            null when no price is configured for the model
//	  over_warn_context bool    the context is above [resume] warn_context_tokens
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume ls --help
//
//	forgectl resume ls — list Claude Code sessions and Codex threads without acting
//
//	USAGE
//	  forgectl resume ls [--json] [--all | --archived] [--verbose]
//	                    [--tree | --roots] [--since WHEN] [--until WHEN]
//	                    [--harness claude|codex]... [FILTER]
//
//	Newest first, printed as the listing finds them (with a FILTER, once the
//	listing is done: which rule matched is known only then). FILTER narrows the
//	list with the same rules as resume. Counts go to stderr, so stdout is safe to
//	pipe.
//
//	FLAGS
//	  --json      print a JSON array (fields below)
//	  --all       include hidden sessions (print-mode, sidechains, continued,
//	              archived in Claude Code's picker) and the ones in forgectl's
//	              archive (hidden_reason "archived"), in activity order
//	  --archived  only the archived sessions (hidden_reason "archived") of
//	              every harness listed, newest first: Claude Code sessions in
//	              forgectl's archive ('resume archive --help'), read from the
//	              archive's index (nothing is decompressed; such a row's
//	              transcript_path is where its transcript goes back to), and
//	              Codex threads in archived_sessions/. Composes with FILTER,
//	              --since, --until, --harness, --tree and --roots.
//	  --tree      print each session below its parent, behind tree glyphs at the
//	              start of the line; the tree with the newest activity first,
//	              children newest first. A parent that is hidden or filtered out
//	              is stepped over: the child goes under the nearest ancestor
//	              shown. Indentation stops at 8 levels: a deeper row keeps that
//	              indentation and shows its depth where the glyph would be,
//	              "…(12) " for a session 12 below its root. With --json: the same
//	              objects, each with a "children" array of the objects below it
//	              ([] for none), nested at most 64 sessions below a root (jq 1.6
//	              and 1.7 stop at 256 levels of JSON, about 85 sessions): the
//	              sessions deeper than that are listed flat, in tree order, in
//	              the children of their ancestor 63 below the root, each naming
//	              its parent in parent_session_id.
//	  --roots     only sessions that are nobody's child among those shown (one
//	              row per line of work); composes with FILTER and --all. A
//	              session whose parent's transcript is gone counts as a root.
//	  --verbose   report files that could not be read
//	  --since WHEN, --until WHEN
//	              only sessions last active (the transcript's last write) at or
//	              after, at or before WHEN: an age (90m, 3h, 2d, 1w: that long
//	              ago), a day (2026-11-24, today, yesterday, or a weekday name,
//	              monday or mon: the last one before today) or an RFC 3339 time.
//	              A day counts whole at both ends (--until 2026-11-24 keeps all
//	              of the 24th), in the local time zone (TZ). Decided on the
//	              files' modification times, so the transcripts left out are
//	              never read. A value neither form reads is refused (exit 2).
//	  --color WHEN
//	              colour the table: auto (the default: on a terminal only),
//	              always or never. NO_COLOR (any value) turns auto off,
//	              CLICOLOR_FORCE (any value but 0) turns it on. Names are bold,
//	              times dim, lineage marks cyan, a live mark red (yellow when
//	              the session is idle), the match in a snippet bold yellow; the
//	              picker's preview likewise (its rows stay plain).
//	  --harness H only H's sessions: claude or codex (repeatable). Without it,
//	              [resume] harnesses in the config, else every agent whose home
//	              exists: Claude Code, and Codex when $CODEX_HOME (else ~/.codex)
//	              is a folder. Rows from more than one carry a mark before the
//	              title: cc (Claude Code), cx (Codex).
//	  --tree and --roots together are refused (exit 2).
//
//	TABLE COLUMNS
//	  SESSION   full session id         TASKS   completed/total ("-": none)
//	  ACTIVITY  last write, relative     LIVE    live:<pid> when running
//	  REPO, BRANCH, NAME / LAST PROMPT
//	  Piped, every value is whole and every column kept; widths come from the
//	  first 200 rows, and a longer value further down pushes its line right.
//	  On a terminal (COLUMNS when its width cannot be read) the table fits the
//	  width: the name shrinks first, then repo and branch, cut values ending in
//	  …; a TASKS or LIVE column that is "-" on every row is left out; where the
//	  name would still get under 20 columns, BRANCH and then REPO make way
//	  (search's snippet first moves to a line of its own). Widths count display
//	  columns (a wide character is two). Ids are never cut.
//	  A child's title ends with its lineage: [fork of b3b98d6c], [branch of …],
//	  [after /clear of …] (the parent's id prefix), "(gone)" after it when the
//	  parent's transcript is no longer on disk. The picker's rows and the
//	  candidates an ambiguous FILTER prints carry the same mark.
//
//	LINEAGE (parent_session_id, relation), from Claude Code's files alone
//	  branch  /branch copied the parent's rows, each marked forkedFrom.
//	  fork    claude --resume X --fork-session (forgectl resume --fork) copied
//	          them; each copied reply keeps requestSessionId, the session that
//	          made it. Copies come first in a transcript, so the session named
//	          by the last copied row is the nearest ancestor: the one whose rows
//	          it shares most (a fork of a fork names the fork, not the original).
//	  clear   /clear opened a new transcript that begins with the /clear command.
//	          Its parent is the session the prompt history logged that /clear
//	          under just before (several /clears in one process make a chain);
//	          without that history line, the session the process started as
//	          (each row of a continuation names it).
//
//	JSON (--json): an array ([] when empty) of objects with these fields
//	  session_id       string   Claude Code's session id (what --resume takes)
//	  harness          string   the agent the session belongs to: claude | codex
//	  name             string   the session's name, "" when never named
//	  name_source      string   agent-name | custom-title | custom-title-file
//	                            (the <id>/custom-title.json /rename writes, when
//	                            the transcript has no title row) | ai-title |
//	                            summary | registry (a live /rename) | snapshot
//	                            (kept by resume snapshot after the session
//	                            exited) | session-index (Codex's
//	                            session_index.jsonl) | thread-name-event | ""
//	  repo             string   the git top level's name (the main checkout's for a
//	                            worktree), else the cwd's base name
//	  branch           string   the newest gitBranch recorded ("HEAD" off-branch)
//	  cwd              string   the directory the session runs in (from the
//	                            transcript's own cwd field, never the folder name)
//	  cwd_exists       bool     false for a deleted directory or worktree
//	  last_activity    string   RFC 3339 UTC time of the transcript's last write
//	  first_prompt     string   the first human prompt, one line, at most 200 chars
//	  last_prompt      string   the newest prompt, same rendering
//	  last_prompt_at   string   RFC 3339 UTC time that prompt was submitted, from
//	                            Claude Code's prompt history; "" when it has none
//	  live             bool     a claude process has this session open now (its
//	                            registry pid is alive and its start time matches)
//	  pid              number   that process's pid; null when not live
//	  status           string   the live process's status (idle, busy, waiting,
//	                            shell), "" when not live
//	  tmux             string   the live process's tmux pane, "" when unknown
//	  tasks            object   {pending, in_progress, completed, total}
//	  tasks_source     string   live (tasks/<id>/ on disk) | snapshot | none
//	  entrypoint       string   cli, sdk-cli (print mode), …; Codex's originator:
//	                            codex-tui, codex_exec
//	  version          string   the newest claude version that wrote the transcript
//	  hidden           bool     hidden from the default listing
//	  hidden_reason    string   archived-in-claude (Claude Code's own mark:
//	                            <id>/archived.json says archived, and no prompt
//	                            came after it) | sidechain | print-mode | team |
//	                            continued | empty | subagent | archived (in
//	                            forgectl's archive, or a Codex thread in
//	                            archived_sessions/) | trashed | ""
//	  size_bytes       number   transcript size
//	  messages         number   conversation rows in the transcript
//	  transcript_path  string   the transcript file
//	  parent_session_id string  the session this one was branched or forked from,
//	                            or continued after /clear; "" for none
//	  relation         string   branch | fork | clear | subagent | "" (LINEAGE)
//	  parent_exists    bool     the parent's transcript is still on disk, in
//	                            the agent's tree or forgectl's archive (false
//	                            for a deleted one, whose id is still named)
//	  context_tokens   number   the context a resume sends again: the newest
//	                            response's input + cache-read + cache-creation
//	                            tokens (after a compaction with no reply since,
//	                            what the compaction left); 0 when none
//	  model            string   the model of the newest response, "" when none
//	  cache_likely_expired bool the prompt cache has likely expired, by Claude
//	                            Code's own rule (5 minutes after the newest
//	                            response, 1 hour when it wrote 1-hour cache;
//	                            always after a compaction); true with no reply
//	  tokens_used      number   the tokens (input, cache read and write, output)
//	                            of every response in the session
//	  live_holder      string   Codex only, when live: who holds the thread's
//	                            write lock: daemon (Codex's background server) |
//	                            tui | exec; absent otherwise
//
//	CODEX (harness codex; see docs/codex.md)
//	  A thread is one row however many rollout files it has (a rewind writes a
//	  second): files group by their session_meta id, never by name. The newest
//	  file is transcript_path and gives cwd, branch and version; the first gives
//	  first_prompt. size_bytes and messages add up every file. Names come from
//	  session_index.jsonl (the last non-empty wins), last_prompt_at from
//	  history.jsonl. Hidden: codex exec threads (print-mode), subagents
//	  (subagent, parent_session_id names the parent) and archived_sessions/
//	  (archived). A fork is relation fork with its own first prompt. live is a
//	  WRITE flock held on thread-writer-locks/<id>.lock, read from /proc/locks
//	  (on macOS, which has none, a thread never shows live).
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume search --help
//
//	forgectl resume search — find the sessions whose conversation holds words
//
//	USAGE
//	  forgectl resume search [--json] [--all] [--limit N] [--verbose]
//	                        [--since WHEN] [--until WHEN]
//	                        [--harness claude|codex]... QUERY...
//	  forgectl resume --search QUERY [--fork] [--dry-run] [--all] [FILTER]
//
//	Lists the sessions holding every word of QUERY, newest first, in the ls table
//	with a last column: the best hit's role and snippet.
//
//	WHAT IS SEARCHED
//	  What a person typed and read, decoded from the transcript's JSON, so that
//	  quotes, backslashes, newlines and non-ASCII match as they were shown:
//	  prompts (string content or text blocks), assistant text replies, session
//	  names (custom title, agent name, AI title, summary) and the string values
//	  of tool-call inputs (commands, file paths, patterns, descriptions; not the
//	  file bodies of Write and Edit). Tool results, system reminders (isMeta)
//	  and thinking blocks are left out. A row is read by its top-level keys
//	  wherever they stand, as 'resume ls' reads it: what ls shows as a prompt
//	  is searched as one. A row over 4 MiB (a pasted file, an attachment) is
//	  not searched; ls still shows the start of such a prompt. A row over
//	  16 MiB is skipped by both, as a broken line.
//	  Codex threads the same way: prompts as typed, agent replies, the string
//	  inputs of tool calls and the thread's names; never tool output, reasoning,
//	  or the blocks Codex injects (environment context, AGENTS.md, skills).
//	  --harness narrows the search as it narrows ls; each agent has its own
//	  index.
//
//	QUERY
//	  Every word must appear somewhere in the session (AND), each inside one
//	  message. A word matches anywhere, also inside longer words ("round" finds
//	  "rounding"), case-insensitively by full Unicode case folding (STRASSE
//	  finds "Straße", "file" finds "ﬁle"; no Turkish rule: İ is i with a dot
//	  above), with both sides in Unicode normalization form NFC, so an accented
//	  letter typed as one character finds it written as a letter and a
//	  combining accent, and the other way round (é is still not e).
//
//	  Double quotes make a phrase that must appear as written, in order, inside
//	  one message; any run of white space in it matches any run of white space
//	  (a newline too). Quote phrases for the shell as well, as in
//	  search '"ship it" deploy'.
//	  \" is a quote character and \\ a backslash; any other backslash is itself.
//	  The words of several arguments are joined with spaces.
//
//	  resume --search QUERY resolves like a FILTER (an added FILTER narrows the
//	  hits by its rules): one hit resumes it; several open the picker over the
//	  hits, with their snippets in the preview; several with no terminal, or
//	  with --dry-run, print one candidate row per line (full id first, no header)
//	  and exit 1. --fork and --dry-run work as with a FILTER.
//
//	THE INDEX
//	  Kept in forgectl's cache/search/ and safe to delete. Each search brings it
//	  up to date first, reading only what was appended to each transcript since
//	  (a transcript rewritten in place is read again whole); deleted transcripts
//	  drop out. A damaged index is reported on stderr and rebuilt; its answers
//	  are never used. Concurrent searches take turns on a lock.
//	  The first search (no index yet) reads the transcripts newest first and,
//	  on a terminal, prints each hit as it is read, newest first, while the
//	  index is built behind them; the rows, and their order, are those a warm
//	  search prints, and the index is complete when the command ends. Ctrl-C
//	  during that build keeps the rows printed and writes no index (the next
//	  search builds it again). On a terminal the table is laid out for its
//	  width from the start, with no TASKS or LIVE column (a live hit says
//	  live:<pid> after its title); piped or with --json, the output comes
//	  whole at the end, as before.
//
//	FLAGS
//	  --json      print a JSON array (see below); [] when nothing matches
//	              (exit 1), as 'resume ls --json' prints
//	  --all       include hidden sessions (print-mode, sidechains, continued)
//	              and archived ones
//	  --archived  only archived sessions, of every harness searched: Claude
//	              Code sessions in forgectl's archive and Codex threads in
//	              archived_sessions/. An archived session's text stays in the
//	              index while its transcript is in forgectl's archive: 'resume
//	              archive' brings the index up to date (building it if there is
//	              none) before it moves anything.
//	  --limit N   print at most N sessions, the newest (0: all)
//	  --verbose   report transcripts that could not be read, and what the index did
//	  --since WHEN, --until WHEN
//	              only sessions last active (the transcript's last write) at or
//	              after, at or before WHEN: an age (90m, 3h, 2d, 1w: that long
//	              ago), a day (2026-11-24, today, yesterday, or a weekday name,
//	              monday or mon: the last one before today) or an RFC 3339 time.
//	              A day counts whole at both ends (--until 2026-11-24 keeps all
//	              of the 24th), in the local time zone (TZ). Decided on the
//	              files' modification times, so the transcripts left out are
//	              never read. A value neither form reads is refused (exit 2).
//	  --color WHEN
//	              colour the table: auto (the default: on a terminal only),
//	              always or never. NO_COLOR (any value) turns auto off,
//	              CLICOLOR_FORCE (any value but 0) turns it on. Names are bold,
//	              times dim, lineage marks cyan, a live mark red (yellow when
//	              the session is idle), the match in a snippet bold yellow; the
//	              picker's preview likewise (its rows stay plain).
//	  Flags may come after the words. A word that starts with "-" is a flag
//	  unless it follows "--": search -- --force finds "--force".
//
//	JSON (--json): an array of objects with every field of 'resume ls --json'
//	  session_id       string   Claude Code's session id (what --resume takes)
//	  harness          string   the agent the session belongs to: claude | codex
//	  name             string   the session's name, "" when never named
//	  name_source      string   agent-name | custom-title | custom-title-file
//	                            (the <id>/custom-title.json /rename writes, when
//	                            the transcript has no title row) | ai-title |
//	                            summary | registry (a live /rename) | snapshot
//	                            (kept by resume snapshot after the session
//	                            exited) | session-index (Codex's
//	                            session_index.jsonl) | thread-name-event | ""
//	  repo             string   the git top level's name (the main checkout's for a
//	                            worktree), else the cwd's base name
//	  branch           string   the newest gitBranch recorded ("HEAD" off-branch)
//	  cwd              string   the directory the session runs in (from the
//	                            transcript's own cwd field, never the folder name)
//	  cwd_exists       bool     false for a deleted directory or worktree
//	  last_activity    string   RFC 3339 UTC time of the transcript's last write
//	  first_prompt     string   the first human prompt, one line, at most 200 chars
//	  last_prompt      string   the newest prompt, same rendering
//	  last_prompt_at   string   RFC 3339 UTC time that prompt was submitted, from
//	                            Claude Code's prompt history; "" when it has none
//	  live             bool     a claude process has this session open now (its
//	                            registry pid is alive and its start time matches)
//	  pid              number   that process's pid; null when not live
//	  status           string   the live process's status (idle, busy, waiting,
//	                            shell), "" when not live
//	  tmux             string   the live process's tmux pane, "" when unknown
//	  tasks            object   {pending, in_progress, completed, total}
//	  tasks_source     string   live (tasks/<id>/ on disk) | snapshot | none
//	  entrypoint       string   cli, sdk-cli (print mode), …; Codex's originator:
//	                            codex-tui, codex_exec
//	  version          string   the newest claude version that wrote the transcript
//	  hidden           bool     hidden from the default listing
//	  hidden_reason    string   archived-in-claude (Claude Code's own mark:
//	                            <id>/archived.json says archived, and no prompt
//	                            came after it) | sidechain | print-mode | team |
//	                            continued | empty | subagent | archived (in
//	                            forgectl's archive, or a Codex thread in
//	                            archived_sessions/) | trashed | ""
//	  size_bytes       number   transcript size
//	  messages         number   conversation rows in the transcript
//	  transcript_path  string   the transcript file
//	  parent_session_id string  the session this one was branched or forked from,
//	                            or continued after /clear; "" for none
//	  relation         string   branch | fork | clear | subagent | "" (LINEAGE)
//	  parent_exists    bool     the parent's transcript is still on disk, in
//	                            the agent's tree or forgectl's archive (false
//	                            for a deleted one, whose id is still named)
//	  context_tokens   number   the context a resume sends again: the newest
//	                            response's input + cache-read + cache-creation
//	                            tokens (after a compaction with no reply since,
//	                            what the compaction left); 0 when none
//	  model            string   the model of the newest response, "" when none
//	  cache_likely_expired bool the prompt cache has likely expired, by Claude
//	                            Code's own rule (5 minutes after the newest
//	                            response, 1 hour when it wrote 1-hour cache;
//	                            always after a compaction); true with no reply
//	  tokens_used      number   the tokens (input, cache read and write, output)
//	                            of every response in the session
//	  live_holder      string   Codex only, when live: who holds the thread's
//	                            write lock: daemon (Codex's background server) |
//	                            tui | exec; absent otherwise
//
//	CODEX (harness codex; see docs/codex.md)
//	  A thread is one row however many rollout files it has (a rewind writes a
//	  second): files group by their session_meta id, never by name. The newest
//	  file is transcript_path and gives cwd, branch and version; the first gives
//	  first_prompt. size_bytes and messages add up every file. Names come from
//	  session_index.jsonl (the last non-empty wins), last_prompt_at from
//	  history.jsonl. Hidden: codex exec threads (print-mode), subagents
//	  (subagent, parent_session_id names the parent) and archived_sessions/
//	  (archived). A fork is relation fork with its own first prompt. live is a
//	  WRITE flock held on thread-writer-locks/<id>.lock, read from /proc/locks
//	  (on macOS, which has none, a thread never shows live).
//	and one more:
//	  hits             array    the best matching messages, at most 5: those
//	                            holding the most query words first, then the
//	                            newest. Each is an object:
//	    role           string   prompt | reply | tool (a tool call's input) | name
//	    at             string   RFC 3339 UTC time of the row it came from (for a
//	                            name, which has none, that of the newest prompt,
//	                            reply or tool call before it)
//	    snippet        string   one line of the message around the first match,
//	                            with … where it was cut
//
//	EXIT STATUS
//	  0  sessions hold the query (listed)
//	  1  no session holds it (stdout empty; [] with --json; the hint on stderr
//	     says what would find something), or the search failed
//	  2  bad usage: no words, an unclosed quote, a bad flag
//
// # forgectl resume rename --help
//
//	forgectl resume rename — name a session from outside it, as /rename does
//
//	USAGE
//	  forgectl resume rename [--all] FILTER NAME
//
//	Names the one session FILTER selects (the rules of 'forgectl resume': an
//	exact id, an id prefix, an exact name, then a substring of the name, repo or
//	cwd), writing what the agent's own /rename writes:
//
//	  Claude Code  a custom-title row and an agent-name row appended to the
//	               transcript, and <id>/custom-title.json beside it
//	               ({"customTitle", "by":"user", "at"})
//	  Codex        a line appended to $CODEX_HOME/session_index.jsonl
//	               ({"id", "thread_name", "updated_at"}); the rollout is not
//	               touched
//
//	Claude Code's own picker ('claude --resume') and forgectl's listing and
//	search show the new name, and a resumed session keeps it. Codex (0.171.0)
//	does not: its picker and a resumed thread show the name its state database
//	cached, which only /rename inside Codex changes; forgectl's listing and
//	search show the new one.
//
//	  forgectl resume rename 1fc9d747 'Login bugfix'
//	  forgectl resume rename 'old name' 'new name'
//	  forgectl resume rename 1fc9d747 -- '-draft-'    # a NAME starting with -
//
//	For Claude Code the append moves the transcript's mtime to now, as /rename
//	does: the session sorts first again, and Claude Code's retention sweep,
//	which goes by that mtime, starts its count again. A Codex thread keeps its
//	place: its rollout is not written.
//
//	A running session is refused, naming the pid: the running claude appends to
//	the same transcript and keeps its own name, which would win. A Codex thread
//	is running while any process holds its write lock, Codex's background
//	daemon included (it keeps a thread loaded for about a minute after its last
//	client quits): the holder writes the thread's names too. Rename it with
//	/rename inside it.
//
//	NAME is stored as typed, trimmed of surrounding spaces. A name the agent
//	would change or refuse is refused instead: an empty one, one with a newline,
//	tab or other control character (Claude Code would make it a space; Codex's
//	rename box takes one line), or, for Claude Code, one over 200 characters
//	(it would be cut).
//
//	Safety: the rows go in one append after whatever the file holds; a file
//	that does not end in a newline (a writer killed mid-line) gets one first,
//	and a write that fails part way is cut back off, so the file stays readable
//	to the agent either way.
//
//	FLAGS
//	  --all       let FILTER match hidden sessions too (an exact id always does)
//
//	EXIT STATUS
//	  0    renamed
//	  1    no session matched, FILTER matched several (they are listed on stdout),
//	       the transcript is gone, or the write failed
//	  2    the session is running (its pid is named), NAME was refused, or bad
//	       usage
//	  Any other code is a failure.
//
// # forgectl resume archive --help
//
//	forgectl resume archive — keep sessions safe from Claude Code's sweep
//
//	USAGE
//	  forgectl resume archive FILTER... [--older-than DUR] [--empty] [--dry-run] [--yes]
//
//	Claude Code deletes every transcript whose mtime is older than
//	cleanupPeriodDays (default 30), with its sidecar folder, its task list and
//	its file-history, at most once a day and without a word. Its own
//	archived.json mark does not spare a session. archive moves whole sessions
//	out of its tree into forgectl's archive, where the sweep cannot reach them:
//
//	  the transcript             projects/<cwd>/<id>.jsonl
//	  its sidecar folder         projects/<cwd>/<id>/ (subagents, titles, tool results)
//	  its task list              tasks/<id>/
//	  its file history and env   file-history/<id>/, session-env/<id>/
//	  forgectl's snapshot        resume-sessions/<id>.json
//
//	Each file is compressed (zstd) into the archive, flushed, read back and
//	checked against its SHA-256 before any original is removed; a run killed at
//	any point leaves the session whole in at least one place, and the next
//	archive, unarchive, rm or trash run finishes or rolls back what it left.
//	history.jsonl is left alone.
//
//	Archived sessions stay findable: 'resume ls --archived' lists them,
//	'ls --all' with hidden_reason "archived"; 'resume --all' and
//	'resume search --all' find them, and 'forgectl resume <id>' restores one
//	and resumes it. 'resume unarchive' restores without resuming.
//
//	SELECTION
//	  FILTER...          each FILTER as resume reads one (an id, an id prefix, a
//	                     name, a substring of the name, repo or cwd); each must
//	                     match, and the run takes every session they match
//	  --older-than DUR   sessions last active more than DUR ago: 30d, 2w, 36h
//	  --empty            sessions with no conversation (hidden_reason empty)
//	  --harness NAME     only this agent's sessions: claude or codex (repeatable)
//	  Together, FILTERs and the flags narrow each other.
//
//	FLAGS
//	  --dry-run   print each session that would move, its files and sizes, and
//	              the total bytes, on stdout; move nothing
//	  --yes       move several sessions without asking (needed without a
//	              terminal; on one, archive asks)
//
//	A running session is refused with exit 2, naming its pid: exit that claude
//	first. A session resumed while it is being copied is left in place.
//
//	CODEX THREADS
//	  A Codex thread is archived by codex itself: forgectl runs 'codex archive
//	  ID' in the thread's directory (codex is FORGECTL_CODEX_BIN, else [resume]
//	  codex_binary_path, else PATH, as for resume), which moves its rollout to
//	  $CODEX_HOME/archived_sessions/ and marks it archived in Codex's database.
//	  Nothing of it goes into forgectl's archive: Codex sweeps nothing, and a
//	  rollout moved there by hand is one the real Codex can neither resume nor
//	  unarchive. 'ls --archived' lists it, 'codex resume ID' asks to unarchive
//	  it, and 'forgectl resume unarchive' runs 'codex unarchive ID'. A thread
//	  Codex holds (its background server keeps one for about a minute after
//	  the last codex quits) is refused with exit 2, naming the pid. A codex
//	  that fails is reported with its error line, exit 1; no codex is exit 2.
//	  --harness claude leaves Codex threads out (of --older-than and --empty
//	  too); --harness codex, Claude Code's sessions.
//
//	FILES
//	  <config>/resume-archive/<id>/manifest.json   the journal and, per file, its
//	                                               original path, size, mode,
//	                                               mtime and SHA-256
//	  <config>/resume-archive/<id>/files/<n>.zst   the compressed copies
//	  <config>/resume-archive/index.jsonl          the listing rows, so a listing
//	                                               never decompresses anything
//	  <config>/resume-moves.lock                   one run moves at a time
//	  (<config> is ~/.config/forgectl, or FORGECTL_CONFIG_DIR; every folder 0700,
//	  every file 0600)
//
//	STDOUT
//	  the id of each session archived (and each Codex thread), one a line
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume unarchive --help
//
//	forgectl resume unarchive — put archived sessions back without resuming them
//
//	USAGE
//	  forgectl resume unarchive FILTER... [--keep-mtime] [--dry-run]
//
//	Restores each archived session FILTER matches (any tier, as resume reads a
//	filter) to the paths it came from. A Codex thread in archived_sessions/ is
//	unarchived by codex itself: forgectl runs 'codex unarchive ID' in the
//	thread's directory (codex found as for archive; missing, exit 2), which
//	moves it back under sessions/ by its date. A Claude Code session is
//	restored from forgectl's archive: every file byte-identical in content and
//	mode, checked against its SHA-256 before it is linked into place. A file
//	that exists there again (the session was started or copied back meanwhile)
//	is never overwritten: the restore is refused with exit 2, and nothing is
//	changed. The stored copy is removed only once every file is in place; its
//	manifest is kept in <config>/resume-archive/restored/.
//
//	MTIMES AND LAST ACTIVITY
//	  Claude Code's sweep deletes a transcript, a task list and a file-history
//	  folder by its own mtime, minutes after the next claude's first prompt. So
//	  a restore gives those the time of the restore, and every other file its
//	  original mtime; the original ones stay in the kept manifest. A restored
//	  session therefore shows the restore as its last activity (ls's ACTIVITY,
//	  last_activity), until claude writes to it again.
//
//	FLAGS
//	  --keep-mtime   give every file its original mtime (a session older than
//	                 cleanupPeriodDays is then deleted by the next sweep)
//	  --dry-run      print what would be restored, and where; restore nothing
//
//	STDOUT
//	  the id of each session restored (and each Codex thread), one a line
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume rm --help
//
//	forgectl resume rm — move sessions to forgectl's trash
//
//	USAGE
//	  forgectl resume rm FILTER... [--older-than DUR] [--empty] [--dry-run] [--yes]
//
//	Moves whole sessions out of Claude Code's tree into forgectl's trash, with
//	the same files, checks and crash safety as 'resume archive' (see its
//	--help): the transcript, its sidecar folder, its task list, its
//	file-history and session-env folders and forgectl's snapshot record. An
//	archived session (matched by its id) moves from the archive to the trash.
//
//	Nothing is deleted: 'forgectl resume trash restore FILTER' brings a session
//	back, and only 'forgectl resume trash empty' deletes. history.jsonl, Claude
//	Code's prompt history, is left alone: its lines of a removed session stay
//	(claude's own sweep leaves them too).
//
//	SELECTION AND FLAGS
//	  FILTER..., --older-than DUR, --empty, --harness NAME, --dry-run and --yes
//	  as for archive.
//	  A running session is refused with exit 2, naming its pid.
//
//	CODEX THREADS
//	  A Codex thread's rollouts (every segment of it, from sessions/ or
//	  archived_sessions/) move to the same trash, compressed and verified.
//	  Codex's own files are left alone: session_index.jsonl, history.jsonl and
//	  its state database, whose row still names the rollouts' paths. So while
//	  a thread is in the trash 'codex resume ID' fails ("no rollout found")
//	  and Codex's own picker may still show it; 'trash restore' writes the
//	  rollouts back to those paths, with their mode and mtime, and codex
//	  resumes (or, for an archived one, unarchives) it again. codex is not run.
//
//	STDOUT
//	  the id of each session moved, one a line
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume trash --help
//
//	forgectl resume trash — what rm moved: list it, bring it back, delete it
//
//	USAGE
//	  forgectl resume trash [list] [--json]
//	  forgectl resume trash restore FILTER... [--keep-mtime] [--dry-run]
//	  forgectl resume trash empty [--older-than DUR] [--dry-run] [--yes]
//
//	'forgectl resume rm' moves sessions here whole, compressed and verified, with
//	the same manifest as the archive (<config>/resume-trash/<id>/manifest.json).
//	Nothing in the trash is ever deleted except by 'trash empty'. history.jsonl
//	is left alone by rm, restore and empty.
//
//	  list      the trashed sessions, newest removal first: id, when, size,
//	            repo, title; --json: the ls fields plus trashed_at and
//	            stored_bytes (the compressed size)
//	  restore   put each session FILTER matches back where it was, byte for
//	            byte and mode for mode; a file there again is never
//	            overwritten (exit 2). Mtimes as 'resume unarchive --help' says.
//	  empty     delete the trashed sessions for good, or with --older-than
//	            only those trashed more than DUR ago (30d, 2w, 36h); asks on a
//	            terminal, needs --yes without one
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume trash list --help
//
//	forgectl resume trash list — the sessions in the trash
//
//	USAGE
//	  forgectl resume trash list [--json]
//
//	One line per trashed session, newest removal first: its id, how long ago it
//	was trashed, its size, repo and title. With --json, an array ([] when empty)
//	of the ls --json objects (see 'resume ls --help'; hidden is true and
//	hidden_reason "trashed"), each with two more fields: trashed_at (RFC 3339
//	UTC) and stored_bytes (the compressed size).
//	Bare 'forgectl resume trash' is the same. See 'resume trash --help'.
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume trash restore --help
//
//	forgectl resume trash restore — put trashed sessions back where they were
//
//	USAGE
//	  forgectl resume trash restore FILTER... [--keep-mtime] [--dry-run]
//
//	Restores each trashed session FILTER matches (an id, an id prefix, a name, a
//	substring of the name, repo or cwd) to the paths it came from, byte for byte
//	and mode for mode, each file checked against its SHA-256 before it is
//	linked into place. A file there again is never overwritten: the restore is
//	refused with exit 2. Mtimes as 'resume unarchive --help' says (the
//	transcript gets the restore's time, so Claude Code's sweep keeps it);
//	--keep-mtime gives every file its original one. --dry-run prints what would
//	be restored. history.jsonl is left alone.
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl resume trash empty --help
//
//	forgectl resume trash empty — delete the trash for good
//
//	USAGE
//	  forgectl resume trash empty [--older-than DUR] [--dry-run] [--yes]
//
//	The one command that deletes a session: it removes the trashed sessions'
//	stored copies, or with --older-than only those trashed more than DUR ago
//	(30d, 2w, 36h). It asks on a terminal and needs --yes without one;
//	--dry-run prints what would be deleted. history.jsonl is left alone.
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl launch --help
//
//	forgectl launch — start claude here with this directory's launch profile
//
//	USAGE
//	  forgectl launch [--dry-run] [CLAUDE ARGS...]
//	  forgectl launch doctor [--json]
//
//	Resolves [launch.defaults] merged with the longest-matching [[launch.project]]
//	for the current directory into claude's flags (--model, --effort,
//	--permission-mode, --add-dir, and --allow-dangerously-skip-permissions only
//	when stdout is a terminal) and environment ([launch] env, [proxy]
//	launch_profile variables), then execs claude in place. CLAUDE ARGS follow the
//	profile's flags (use -- before them if they start with a dash).
//
//	FLAGS
//	  --dry-run   print cwd, argv and added environment; exec nothing
//
//	EXIT STATUS
//	  0    done
//	  1    no session matched, the filter was ambiguous, or an action failed
//	  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
//	  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
//	       a second Ctrl-C ends a command at once)
//	  143  stopped by SIGTERM
//	  Any other code is a failure.
//
// # forgectl launch doctor --help
//
//	forgectl launch doctor — check claude, the config and the update-hooks watcher
//
//	USAGE
//	  forgectl launch doctor [--json]
//
//	  config        config.toml parses; [[resume.on_update]] entries are valid (a
//	                top-level [[on_update]] or [on_update] is reported by name)
//	  claude        which claude runs, and its version
//	  update_hooks  hooks are configured but the watcher is not installed or
//	                loaded; the newest audit record for the recorded version did
//	                not end ok; a restart is pending or gave up; a run has held the
//	                hooks lock longer than the longest hook timeout plus 10 minutes
//
//	EXIT STATUS
//	  0 when no check failed (warnings allowed), 1 when one did.
//
// # forgectl doctor --help
//
//	forgectl doctor — check that session rescue is wired correctly
//
//	USAGE
//	  forgectl doctor [--json]
//
//	Prints one row per check: ok, warn or fail, with a hint for anything not ok.
//	  config        config.toml parses and its launch_profile is usable
//	  claude        which claude runs, and its version
//	  sessions      the live registry is readable; how many sessions are live
//	  resume tasks  the Stop hook is wired, the snapshot store is being filled, and
//	                Claude Code still names task directories after session ids
//	  retention     what Claude Code's retention sweep deletes next: the effective
//	                cleanupPeriodDays (see RETENTION), how many sessions are past
//	                the cutoff and how many pass it within 7 days, the task lists
//	                and file histories it deletes by their own folder's age (a
//	                recent session's old task list too), when the last sweep
//	                ran, and what keeps them
//
//	Because 'resume snapshot' always exits 0, a missing or misspelled Stop hook
//	looks exactly like one that works until a session exits and its tasks are
//	gone: this check is the detector. It reads settings.json as Claude Code
//	does: the last of duplicate keys counts, a leading byte-order mark and UTF-16
//	text are accepted, and each hook command is split as /bin/sh splits it.
//
//	RETENTION
//	Claude Code deletes every transcript whose mtime is older than
//	cleanupPeriodDays (default 30), with its <id>/ folder, and every tasks/<id>/
//	and file-history/<id>/ older than that by its own mtime. Its own
//	archived.json mark does not spare a session; history.jsonl keeps its lines.
//	The sweep runs about 10 minutes after a TUI session's first prompt, or 5 s
//	into a claude -p, at most once a day (~/.claude/.last-cleanup).
//
//	The value is Claude Code's merge (2.1.333): managed settings
//	(/etc/claude-code/managed-settings.json, then managed-settings.d/*.json; on
//	macOS under /Library/Application Support/ClaudeCode) over
//	.claude/settings.local.json over .claude/settings.json (both in the directory
//	claude starts in: doctor reads the current one) over ~/.claude/settings.json.
//	A value must be a whole number of at least 1. While a settings file does not
//	parse, or cleanupPeriodDays is 0, negative, a fraction or a string, Claude
//	Code skips the sweep; the row warns, since fixing the file starts it again.
//	It warns whenever a session is past the cutoff or passes it within 7 days,
//	and is quiet otherwise (a large value, or the old sessions archived). The
//	count comes from the listing's stat walk: no transcript is opened.
//
//	EXIT STATUS
//	  0 when no check failed (warnings allowed), 1 when one did.
//
// # forgectl init --help
//
//	forgectl init — write a commented config.toml, or wire the Stop hook
//
//	USAGE
//	  forgectl init [--print]
//	  forgectl init --stop-hook [--dry-run]
//	  forgectl init --remove-stop-hook [--dry-run]
//
//	Without flags, writes forgectl's config.toml (in $FORGECTL_CONFIG_DIR, else
//	~/.config/forgectl or ~/Library/Application Support/forgectl) with a
//	commented example of every section: [launch.defaults], [[launch.project]],
//	[proxy], and [[resume.on_update]]. An existing file is never overwritten
//	(exit 2).
//
//	--stop-hook merges the Stop hook that runs 'forgectl resume snapshot
//	--quiet' into Claude Code's user settings ($CLAUDE_CONFIG_DIR/settings.json,
//	else ~/.claude/settings.json). Only the entry's own text is inserted,
//	indented like its neighbours: every other key keeps its value, its place
//	and its bytes, other Stop hooks included. The command names forgectl bare
//	when the forgectl on PATH is this one, else by this one's absolute path
//	(hooks do not inherit the interactive shell's PATH). A symlinked file is
//	followed and written through: atomically, beside the real file, keeping its
//	mode, with the previous content in <real file>.forgectl-backup. A missing
//	file is created (0600). When a Stop hook already runs the snapshotter,
//	nothing changes. A file that is not valid JSON is refused with
//	file:line:column and left untouched.
//
//	The path is quoted for /bin/sh, which runs hook commands, so any install
//	folder works (spaces, quotes, $, backslashes). The edit goes where Claude
//	Code reads: into the last of duplicate "hooks" or "Stop" keys. A leading
//	byte-order mark is kept; a UTF-16 file is read but not rewritten (exit 2).
//	The file keeps its owner: when it cannot (init run as someone who may not
//	give the new file to the old owner), nothing is written (exit 1).
//
//	--remove-stop-hook removes only the Stop entry --stop-hook writes (a group
//	holding just that one command), then a "Stop" or "hooks" it left empty.
//
//	FLAGS
//	  --print              print the config template to stdout instead
//	  --stop-hook          merge the Stop hook into the user settings.json
//	  --remove-stop-hook   remove the Stop hook --stop-hook added
//	  --dry-run            print the settings edit as a unified diff; write nothing
//
//	EXIT STATUS
//	  0    done, or nothing to do (already wired; nothing to remove)
//	  1    the file could not be written (read-only, owned by another user, or
//	       changed under the edit), or a Stop hook already runs the snapshotter
//	       from a program that is not there
//	  2    refused: config.toml exists; settings.json cannot be read (a
//	       directory, a FIFO, a dangling link, no permission), is not valid
//	       JSON, is UTF-16, or its "hooks" is not an object; a go run build; or
//	       bad usage
//	  Any other code is a failure.
//
// # forgectl completion --help
//
//	forgectl completion — print a shell completion script
//
//	USAGE
//	  forgectl completion bash|zsh|fish
//
//	Completes the whole roster: subcommands and flags of forgectl and of the
//	commands it hands to its sibling binaries (resume ls --json, restart
//	--outdated --session, hooks run, ...). FILTER words complete to session
//	ids (a typed prefix becomes the full id), names and repos from the
//	listing's index; restart --session completes to the live sessions. The
//	script asks 'forgectl __complete WORDS...', a hidden command, for each
//	completion.
//
//	Load it for the current shell:
//	  bash   source <(forgectl completion bash)
//	  zsh    source <(forgectl completion zsh)     (after compinit)
//	  fish   forgectl completion fish | source
//
//	'make install' puts the scripts where each shell finds them itself:
//	  PREFIX/share/bash-completion/completions/forgectl
//	  PREFIX/share/zsh/site-functions/_forgectl
//	  PREFIX/share/fish/vendor_completions.d/forgectl.fish
//
//	EXIT STATUS
//	  0    printed
//	  2    no shell, or one not listed
package main
