package main

import "forgectl.dev/shared/exitcode"

const resumeHelp = `
forgectl resume — get back into a Claude Code session after a terminal restart

USAGE
  forgectl resume [--fork] [--dry-run] [--all] [FILTER]
  forgectl resume --search QUERY [--fork] [--dry-run] [--all] [FILTER]
  forgectl resume ls [--json] [--all] [FILTER]
  forgectl resume search [--json] [--all] [--limit N] QUERY...
  forgectl resume snapshot [--quiet]         the Stop hook (resume-snapshot's code, in-process)
  forgectl resume outdated [--json]          runs resume-restart
  forgectl resume restart --outdated ...     runs resume-restart
  forgectl resume hooks run|install|status   runs resume-hooks
  Each of these has its own --help.

Lists recent sessions across every repo — name, repo, branch, last activity —
and resumes the one you pick: it changes to the session's recorded directory,
restores its snapshotted task list, and execs claude there with that
directory's [launch] profile. It never returns; every subcommand does.

FILTER matches, in this order, the first rule with any hit winning:
  the exact session id; an id prefix (4+ characters); an exact session name;
  a case-insensitive substring of the name, the repo or the cwd.
One hit resumes it. Several print one candidate row per line on stdout (full
id first) and exit 1 instead of prompting. Without a filter, a terminal opens
the fuzzy finder; without a terminal (or with --dry-run) the candidates are
printed and it exits 1. So: candidates on stdout means ambiguous, empty
stdout means no match, exit 0 means it resumed.

THE PICKER
  Newest first; type to filter every session at once, Enter resumes the row
  under the cursor, Esc or Ctrl-C leaves (exit 130). It opens over the rows
  it showed last time (a cache beside the transcript index), lists afresh
  meanwhile and swaps the fresh rows in a moment later; whatever row is
  chosen, the fresh listing decides what happens to it. If the swap changed
  any row less than 0.3 s before Enter, the session is named and only "y"
  resumes it (anything else, or Ctrl-C, leaves with exit 130; keys typed
  ahead are thrown away first).

FLAGS
  --dry-run   print the resolved session, cwd, argv, added environment and
              tasks to restore, as "key: value" lines; exec nothing, never
              prompt; exit with the code the real run would give
  --fork      pass --fork-session: branch a new session off the transcript.
              The only way into a running session. Snapshotted tasks are
              reported, not restored: a fork starts with an empty list.
  --all       include hidden sessions (print-mode, sidechains, continued)
  --verbose   report transcripts and registry files that could not be read
  --search QUERY
              resolve to the sessions whose conversation holds every word of
              QUERY ("quote" a phrase) instead of matching names: one hit
              resumes, several open the picker over the hits (their snippets
              in the preview) or, with no terminal or --dry-run, print the
              candidates and exit 1; a FILTER narrows the hits. See 'forgectl
              resume search --help' for what is searched.

REFUSALS (exit 2)
  A running session (two claude processes on one transcript corrupt it): the
  error names its pid and, when known, its tmux pane. Use --fork, or check
  first with 'forgectl resume ls --json' (fields live, pid).
  A [proxy] launch_profile naming an undefined or empty profile: refused
  before anything else, --dry-run included.

With stdout not a terminal, --allow-dangerously-skip-permissions is withheld
from the argv (as launch does), so a piped --dry-run never shows it.

` + exitcode.Table + `
`

const lsHelp = `
forgectl resume ls — list Claude Code sessions without acting

USAGE
  forgectl resume ls [--json] [--all] [--verbose] [FILTER]

Newest first. FILTER narrows the list with the same rules as resume. Counts go
to stderr, so stdout is safe to pipe.

TABLE COLUMNS
  SESSION   full session id         TASKS   completed/total ("-": none)
  ACTIVITY  last write, relative     LIVE    live:<pid> when running
  REPO, BRANCH, NAME / LAST PROMPT

JSON (--json): an array ([] when empty) of objects with these fields
  session_id       string   Claude Code's session id (what --resume takes)
  name             string   the session's name, "" when never named
  name_source      string   agent-name | custom-title | custom-title-file
                            (the <id>/custom-title.json /rename writes, when
                            the transcript has no title row) | ai-title |
                            summary | registry (a live /rename) | snapshot
                            (kept by resume snapshot after the session
                            exited) | ""
  repo             string   the git top level's name (the main checkout's for a
                            worktree), else the cwd's base name
  branch           string   the newest gitBranch recorded ("HEAD" off-branch)
  cwd              string   the directory the session runs in (from the
                            transcript's own cwd field, never the folder name)
  cwd_exists       bool     false for a deleted directory or worktree
  last_activity    string   RFC 3339 UTC time of the transcript's last write
  first_prompt     string   the first human prompt, one line, at most 200 chars
  last_prompt      string   the newest prompt, same rendering
  last_prompt_at   string   RFC 3339 UTC time that prompt was submitted, from
                            Claude Code's prompt history; "" when it has none
  live             bool     a claude process has this session open now (its
                            registry pid is alive and its start time matches)
  pid              number   that process's pid; null when not live
  status           string   the live process's status (idle, busy, waiting,
                            shell), "" when not live
  tmux             string   the live process's tmux pane, "" when unknown
  tasks            object   {pending, in_progress, completed, total}
  tasks_source     string   live (tasks/<id>/ on disk) | snapshot | none
  entrypoint       string   cli, sdk-cli (print mode), …
  version          string   the newest claude version that wrote the transcript
  hidden           bool     hidden from the default listing
  hidden_reason    string   sidechain | print-mode | team | continued | empty | ""
  size_bytes       number   transcript size
  messages         number   conversation rows in the transcript
  transcript_path  string   the transcript file

` + exitcode.Table + `
`

const launchHelp = `
forgectl launch — start claude here with this directory's launch profile

USAGE
  forgectl launch [--dry-run] [CLAUDE ARGS...]
  forgectl launch doctor [--json]

Resolves [launch.defaults] merged with the longest-matching [[launch.project]]
for the current directory into claude's flags (--model, --effort,
--permission-mode, --add-dir, and --allow-dangerously-skip-permissions only
when stdout is a terminal) and environment ([launch] env, [proxy]
launch_profile variables), then execs claude in place. CLAUDE ARGS follow the
profile's flags (use -- before them if they start with a dash).

FLAGS
  --dry-run   print cwd, argv and added environment; exec nothing

` + exitcode.Table + `
`

const doctorHelp = `
forgectl doctor — check that session rescue is wired correctly

USAGE
  forgectl doctor [--json]

Prints one row per check: ok, warn or fail, with a hint for anything not ok.
  config        config.toml parses and its launch_profile is usable
  claude        which claude runs, and its version
  sessions      the live registry is readable; how many sessions are live
  resume tasks  the Stop hook is wired, the snapshot store is being filled, and
                Claude Code still names task directories after session ids

Because 'resume snapshot' always exits 0, a missing or misspelled Stop hook
looks exactly like one that works until a session exits and its tasks are
gone: this check is the detector.

EXIT STATUS
  0 when no check failed (warnings allowed), 1 when one did.
`

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

const initHelp = `
forgectl init — write a commented config.toml

USAGE
  forgectl init [--print]

Writes forgectl's config.toml (in $FORGECTL_CONFIG_DIR, else
~/.config/forgectl or ~/Library/Application Support/forgectl) with a commented
example of every section: [launch.defaults], [[launch.project]], [proxy], and
[[resume.on_update]]. An existing file is never overwritten (exit 2).

FLAGS
  --print   print the template to stdout instead
`
