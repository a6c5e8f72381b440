package main

import (
	"context"
	"flag"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/exitcode"
)

func archiveCommand() *command {
	return &command{
		name: "archive", desc: "move sessions out of Claude Code's sweep into forgectl's archive",
		usage: []usageLine{{"forgectl resume archive FILTER", "move sessions out of Claude Code's 30-day sweep"}},
		help:  func() string { return archiveHelp },
		// Flags may follow the filters, as for resume and ls.
		interspersed: true,
		words:        completeFilter,
		flags:        archiveFlags,
	}
}

func archiveFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	older := fs.String("older-than", "", "select the sessions last active more than DUR ago (30d, 2w, 36h)")
	empty := fs.Bool("empty", false, "select the sessions with no conversation (hidden_reason empty)")
	dryRun := fs.Bool("dry-run", false, "list what would move and how many bytes; move nothing")
	yes := fs.Bool("yes", false, "move several sessions without asking")
	a.harnessFlag(fs)
	return func(ctx context.Context, args []string) error {
		return a.moveRun(ctx, archiveKind, args, *older, *empty, *dryRun, *yes)
	}
}

// moveRun is archive and rm: select, refuse, plan, confirm, move.
func (a *app) moveRun(ctx context.Context, kind string, filters []string, older string, empty, dryRun, yes bool) error {
	cmd, verb, done := "archive", "archive", "archived"
	if kind == trashKind {
		cmd, verb, done = "rm", "move to the trash", "moved to the trash"
	}
	age, err := parseAge(older)
	if err != nil {
		a.errorf("%v", err)
		a.hintf("%s", a.prog.UsageHint("resume "+cmd+" "))
		return exit(exitcode.Usage)
	}
	sel := selection{filters: filters, olderThan: age, empty: empty}
	if !dryRun {
		// Taken before the selection: a second run waits, then sees
		// what the first left.
		l, err := a.lockMoves(ctx)
		if err != nil {
			return err
		}
		defer l.Unlock()
	}
	ss, err := a.selectSessions(ctx, sel, cmd, true)
	if err != nil {
		return err
	}
	if kind == archiveKind {
		kept := ss[:0]
		for _, s := range ss {
			if s.HiddenReason == archivedReason {
				if len(filters) > 0 { // named: say why nothing moves
					a.notef("session %s is archived already", s.ID)
				}
				continue
			}
			kept = append(kept, s)
		}
		if len(kept) == 0 && len(ss) > 0 {
			return nil // a second run of the same command: done
		}
		ss = kept
	}
	if len(ss) == 0 {
		a.errorf("no session is selected")
		a.hintf("'forgectl resume ls --all' lists every session with its last activity")
		return exit(exitcode.Failed)
	}
	if err := a.refuseLive(ss, "forgectl resume "+cmd); err != nil {
		return err
	}
	ps, err := a.planMoves(ss, kind)
	if err != nil {
		return err
	}
	// Codex threads are archived by codex itself (agentmoves.go); the
	// rest go into the store.
	var stored []planned
	var own []*harness.Session
	for _, p := range ps {
		if p.own {
			own = append(own, p.s)
		} else {
			stored = append(stored, p)
		}
	}
	bins, err := a.archiverBinaries(own)
	if err != nil {
		return err
	}
	if dryRun {
		a.writePlan(verb, ps, bins)
		return nil
	}
	if err := a.confirm(len(ps), verb, yes); err != nil {
		return err
	}
	if len(stored) > 0 {
		a.keepSearchText(ctx)
		err = a.moveInto(ctx, a.store(kind), stored, done)
		if kind == trashKind {
			a.store(archiveKind).WriteIndex() // an archived session may have moved on
		}
	}
	if len(own) > 0 {
		err = worse(err, a.archiveOwn(ctx, bins, own, false))
	}
	return err
}

func unarchiveCommand() *command {
	return &command{
		name: "unarchive", desc: "restore archived sessions without resuming them",
		usage:        []usageLine{{"forgectl resume unarchive ID", "put archived sessions back, without resuming"}},
		help:         func() string { return unarchiveHelp },
		interspersed: true,
		words:        storedCompletion(archiveKind),
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			keep := fs.Bool("keep-mtime", false, "give the transcript its original mtime (the sweep may then delete it)")
			dryRun := fs.Bool("dry-run", false, "list what would be restored; restore nothing")
			return func(ctx context.Context, args []string) error {
				return a.restoreFrom(ctx, a.store(archiveKind), args, *keep, *dryRun, "forgectl resume ls --archived")
			}
		},
	}
}

const archiveHelp = `
forgectl resume archive — keep sessions safe from Claude Code's sweep

USAGE
  forgectl resume archive FILTER... [--older-than DUR] [--empty] [--dry-run] [--yes]

Claude Code deletes every transcript whose mtime is older than
cleanupPeriodDays (default 30), with its sidecar folder, its task list and
its file-history, at most once a day and without a word. Its own
archived.json mark does not spare a session. archive moves whole sessions
out of its tree into forgectl's archive, where the sweep cannot reach them:

  the transcript             projects/<cwd>/<id>.jsonl
  its sidecar folder         projects/<cwd>/<id>/ (subagents, titles, tool results)
  its task list              tasks/<id>/
  its file history and env   file-history/<id>/, session-env/<id>/
  forgectl's snapshot        resume-sessions/<id>.json

Each file is compressed (zstd) into the archive, flushed, read back and
checked against its SHA-256 before any original is removed; a run killed at
any point leaves the session whole in at least one place, and the next
archive, unarchive, rm or trash run finishes or rolls back what it left.
history.jsonl is left alone.

Archived sessions stay findable: 'resume ls --archived' lists them,
'ls --all' with hidden_reason "archived"; 'resume --all' and
'resume search --all' find them, and 'forgectl resume <id>' restores one
and resumes it. 'resume unarchive' restores without resuming.

SELECTION
  FILTER...          each FILTER as resume reads one (an id, an id prefix, a
                     name, a substring of the name, repo or cwd); each must
                     match, and the run takes every session they match
  --older-than DUR   sessions last active more than DUR ago: 30d, 2w, 36h
  --empty            sessions with no conversation (hidden_reason empty)
  --harness NAME     only this agent's sessions: claude or codex (repeatable)
  Together, FILTERs and the flags narrow each other.

FLAGS
  --dry-run   print each session that would move, its files and sizes, and
              the total bytes, on stdout; move nothing
  --yes       move several sessions without asking (needed without a
              terminal; on one, archive asks)

A running session is refused with exit 2, naming its pid: exit that claude
first. A session resumed while it is being copied is left in place.

CODEX THREADS
  A Codex thread is archived by codex itself: forgectl runs 'codex archive
  ID' in the thread's directory (codex is FORGECTL_CODEX_BIN, else [resume]
  codex_binary_path, else PATH, as for resume), which moves its rollout to
  $CODEX_HOME/archived_sessions/ and marks it archived in Codex's database.
  Nothing of it goes into forgectl's archive: Codex sweeps nothing, and a
  rollout moved there by hand is one the real Codex can neither resume nor
  unarchive. 'ls --archived' lists it, 'codex resume ID' asks to unarchive
  it, and 'forgectl resume unarchive' runs 'codex unarchive ID'. A thread
  Codex holds (its background server keeps one for about a minute after
  the last codex quits) is refused with exit 2, naming the pid. A codex
  that fails is reported with its error line, exit 1; no codex is exit 2.
  --harness claude leaves Codex threads out (of --older-than and --empty
  too); --harness codex, Claude Code's sessions.

FILES
  <config>/resume-archive/<id>/manifest.json   the journal and, per file, its
                                               original path, size, mode,
                                               mtime and SHA-256
  <config>/resume-archive/<id>/files/<n>.zst   the compressed copies
  <config>/resume-archive/index.jsonl          the listing rows, so a listing
                                               never decompresses anything
  <config>/resume-moves.lock                   one run moves at a time
  (<config> is ~/.config/forgectl, or FORGECTL_CONFIG_DIR; every folder 0700,
  every file 0600)

STDOUT
  the id of each session archived (and each Codex thread), one a line

` + exitcode.Table + `
`

const unarchiveHelp = `
forgectl resume unarchive — put archived sessions back without resuming them

USAGE
  forgectl resume unarchive FILTER... [--keep-mtime] [--dry-run]

Restores each archived session FILTER matches (any tier, as resume reads a
filter) to the paths it came from. A Codex thread in archived_sessions/ is
unarchived by codex itself: forgectl runs 'codex unarchive ID' in the
thread's directory (codex found as for archive; missing, exit 2), which
moves it back under sessions/ by its date. A Claude Code session is
restored from forgectl's archive: every file byte-identical in content and
mode, checked against its SHA-256 before it is linked into place. A file
that exists there again (the session was started or copied back meanwhile)
is never overwritten: the restore is refused with exit 2, and nothing is
changed. The stored copy is removed only once every file is in place; its
manifest is kept in <config>/resume-archive/restored/.

MTIMES AND LAST ACTIVITY
  Claude Code's sweep deletes a transcript, a task list and a file-history
  folder by its own mtime, minutes after the next claude's first prompt. So
  a restore gives those the time of the restore, and every other file its
  original mtime; the original ones stay in the kept manifest. A restored
  session therefore shows the restore as its last activity (ls's ACTIVITY,
  last_activity), until claude writes to it again.

FLAGS
  --keep-mtime   give every file its original mtime (a session older than
                 cleanupPeriodDays is then deleted by the next sweep)
  --dry-run      print what would be restored, and where; restore nothing

STDOUT
  the id of each session restored (and each Codex thread), one a line

` + exitcode.Table + `
`
