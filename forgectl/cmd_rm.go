package main

import (
	"context"
	"flag"

	"forgectl.dev/shared/exitcode"
)

func rmCommand() *command {
	return &command{
		name: "rm", desc: "move sessions to forgectl's trash",
		usage:        []usageLine{{"forgectl resume rm FILTER", "move sessions to forgectl's trash (nothing is deleted)"}},
		help:         func() string { return rmHelp },
		interspersed: true,
		words:        completeFilter,
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			older := fs.String("older-than", "", "select the sessions last active more than DUR ago (30d, 2w, 36h)")
			empty := fs.Bool("empty", false, "select the sessions with no conversation (hidden_reason empty)")
			dryRun := fs.Bool("dry-run", false, "list what would move and how many bytes; move nothing")
			yes := fs.Bool("yes", false, "move several sessions without asking")
			a.harnessFlag(fs)
			return func(ctx context.Context, args []string) error {
				return a.moveRun(ctx, trashKind, args, *older, *empty, *dryRun, *yes)
			}
		},
	}
}

const rmHelp = `
forgectl resume rm — move sessions to forgectl's trash

USAGE
  forgectl resume rm FILTER... [--older-than DUR] [--empty] [--dry-run] [--yes]

Moves whole sessions out of Claude Code's tree into forgectl's trash, with
the same files, checks and crash safety as 'resume archive' (see its
--help): the transcript, its sidecar folder, its task list, its
file-history and session-env folders and forgectl's snapshot record. An
archived session (matched by its id) moves from the archive to the trash.

Nothing is deleted: 'forgectl resume trash restore FILTER' brings a session
back, and only 'forgectl resume trash empty' deletes. history.jsonl, Claude
Code's prompt history, is left alone: its lines of a removed session stay
(claude's own sweep leaves them too).

SELECTION AND FLAGS
  FILTER..., --older-than DUR, --empty, --harness NAME, --dry-run and --yes
  as for archive.
  A running session is refused with exit 2, naming its pid.

CODEX THREADS
  A Codex thread's rollouts (every segment of it, from sessions/ or
  archived_sessions/) move to the same trash, compressed and verified.
  Codex's own files are left alone: session_index.jsonl, history.jsonl and
  its state database, whose row still names the rollouts' paths. So while
  a thread is in the trash 'codex resume ID' fails ("no rollout found")
  and Codex's own picker may still show it; 'trash restore' writes the
  rollouts back to those paths, with their mode and mtime, and codex
  resumes (or, for an archived one, unarchives) it again. codex is not run.

STDOUT
  the id of each session moved, one a line

` + exitcode.Table + `
`
