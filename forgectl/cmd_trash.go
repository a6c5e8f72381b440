package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/vault"
	"forgectl.dev/shared/exitcode"
)

func trashCommand() *command {
	return &command{
		name: "trash", desc: "list, restore or empty forgectl's trash",
		usage: []usageLine{{"forgectl resume trash", "list the trash (list, restore ID, empty)"}},
		help:  func() string { return trashHelp },
		// Flags may follow the words: "trash restore X --dry-run".
		interspersed: true,
		subs:         []*command{trashListCommand(), trashRestoreCommand(), trashEmptyCommand()},
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			asJSON := fs.Bool("json", false, "print a JSON array (see 'trash list --help')")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					a.errorf("unknown trash command %q", args[0])
					a.hintf("the trash commands are list, restore and empty")
					return exit(exitcode.Usage)
				}
				return a.trashList(*asJSON)
			}
		},
	}
}

func trashListCommand() *command {
	return &command{
		name: "list", desc: "the sessions in the trash",
		usage:        []usageLine{{"forgectl resume trash list", "the sessions in the trash, newest removal first"}},
		help:         func() string { return trashListHelp },
		interspersed: true,
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			asJSON := fs.Bool("json", false, "print a JSON array")
			return func(ctx context.Context, args []string) error { return a.trashList(*asJSON) }
		},
	}
}

func trashRestoreCommand() *command {
	return &command{
		name: "restore", desc: "put trashed sessions back",
		usage:        []usageLine{{"forgectl resume trash restore", "put trashed sessions back where they were"}},
		help:         func() string { return trashRestoreHelp },
		interspersed: true,
		words:        storedCompletion(trashKind),
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			keep := fs.Bool("keep-mtime", false, "give the transcript its original mtime (the sweep may then delete it)")
			dryRun := fs.Bool("dry-run", false, "list what would be restored; restore nothing")
			return func(ctx context.Context, args []string) error {
				return a.restoreFrom(ctx, a.store(trashKind), args, *keep, *dryRun, "forgectl resume trash list")
			}
		},
	}
}

func trashEmptyCommand() *command {
	return &command{
		name: "empty", desc: "delete what is in the trash, for good",
		usage:        []usageLine{{"forgectl resume trash empty", "delete the trash for good (--older-than DUR)"}},
		help:         func() string { return trashEmptyHelp },
		interspersed: true,
		flags: func(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
			older := fs.String("older-than", "", "delete only what was trashed more than DUR ago (30d, 2w, 36h)")
			dryRun := fs.Bool("dry-run", false, "list what would be deleted; delete nothing")
			yes := fs.Bool("yes", false, "delete without asking")
			return func(ctx context.Context, args []string) error {
				return a.trashEmpty(ctx, *older, *dryRun, *yes)
			}
		},
	}
}

// trashedJSON is one line of trash list --json.
type trashedJSON struct {
	render.SessionJSON
	TrashedAt   string `json:"trashed_at"`
	StoredBytes int64  `json:"stored_bytes"`
}

func (a *app) trashList(asJSON bool) error {
	st := a.store(trashKind)
	ents, problems := st.Entries()
	for _, p := range problems {
		a.storeProblem(st, p)
	}
	rows := a.storedSessions(st, nil)
	at := map[string]vault.Entry{}
	for _, e := range ents {
		at[e.ID] = e
	}
	w := bufio.NewWriter(a.stdout)
	if asJSON {
		out := make([]trashedJSON, 0, len(rows))
		for _, s := range rows {
			e := at[s.ID]
			out = append(out, trashedJSON{SessionJSON: render.ToJSON(s), TrashedAt: e.At.UTC().Format(time.RFC3339), StoredBytes: e.StoredBytes})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		w.Write(append(b, '\n'))
	} else {
		for _, s := range rows {
			e := at[s.ID]
			fmt.Fprintf(w, "%s  trashed %s  %s  %s  %s\n", s.ID, render.Age(a.now(), e.At), humanBytes(e.Bytes), s.Repo, render.Title(s))
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	a.notef("%d sessions in the trash (%s)", len(rows), st.Dir)
	return nil
}

func (a *app) trashEmpty(ctx context.Context, older string, dryRun, yes bool) error {
	age, err := parseAge(older)
	if err != nil {
		a.errorf("%v", err)
		a.hintf("%s", a.prog.UsageHint("resume trash empty "))
		return exit(exitcode.Usage)
	}
	if !dryRun {
		l, err := a.lockMoves(ctx)
		if err != nil {
			return err
		}
		defer l.Unlock()
	}
	st := a.store(trashKind)
	ents, problems := st.Entries()
	for _, p := range problems {
		a.storeProblem(st, p)
	}
	cutoff := a.now().Add(-age)
	var drop []vault.Entry
	for _, e := range ents {
		if age == 0 || e.At.Before(cutoff) {
			drop = append(drop, e)
		}
	}
	if dryRun {
		w := bufio.NewWriter(a.stdout)
		for _, e := range drop {
			fmt.Fprintf(w, "would delete %s  %s\n", e.ID, humanBytes(e.StoredBytes))
		}
		return w.Flush()
	}
	if len(drop) == 0 {
		a.notef("nothing to delete")
		return nil
	}
	if !yes {
		if !a.stdinTTY {
			a.errorf("emptying the trash deletes %d sessions for good, and there is no terminal to confirm it", len(drop))
			a.hintf("pass --yes, or --dry-run to see what would be deleted")
			return exit(exitcode.Refused)
		}
		if err := a.confirm(2, fmt.Sprintf("delete for good %d", len(drop))+" trashed", false); err != nil {
			return err
		}
	}
	failed := 0
	for _, e := range drop {
		if err := st.Drop(e.ID); err != nil {
			a.errorf("session %s: %v", e.ID, err)
			failed++
			continue
		}
		fmt.Fprintln(a.stdout, e.ID)
	}
	if err := st.WriteIndex(); err != nil {
		a.warnf("cannot write the trash's index: %v", err)
	}
	if failed > 0 {
		return exit(exitcode.Failed)
	}
	return nil
}

const trashHelp = `
forgectl resume trash — what rm moved: list it, bring it back, delete it

USAGE
  forgectl resume trash [list] [--json]
  forgectl resume trash restore FILTER... [--keep-mtime] [--dry-run]
  forgectl resume trash empty [--older-than DUR] [--dry-run] [--yes]

'forgectl resume rm' moves sessions here whole, compressed and verified, with
the same manifest as the archive (<config>/resume-trash/<id>/manifest.json).
Nothing in the trash is ever deleted except by 'trash empty'. history.jsonl
is left alone by rm, restore and empty.

  list      the trashed sessions, newest removal first: id, when, size,
            repo, title; --json: the ls fields plus trashed_at and
            stored_bytes (the compressed size)
  restore   put each session FILTER matches back where it was, byte for
            byte and mode for mode; a file there again is never
            overwritten (exit 2). Mtimes as 'resume unarchive --help' says.
  empty     delete the trashed sessions for good, or with --older-than
            only those trashed more than DUR ago (30d, 2w, 36h); asks on a
            terminal, needs --yes without one

` + exitcode.Table + `
`

const trashListHelp = `
forgectl resume trash list — the sessions in the trash

USAGE
  forgectl resume trash list [--json]

One line per trashed session, newest removal first: its id, how long ago it
was trashed, its size, repo and title. With --json, an array ([] when empty)
of the ls --json objects (see 'resume ls --help'; hidden is true and
hidden_reason "trashed"), each with two more fields: trashed_at (RFC 3339
UTC) and stored_bytes (the compressed size).
Bare 'forgectl resume trash' is the same. See 'resume trash --help'.

` + exitcode.Table + `
`

const trashRestoreHelp = `
forgectl resume trash restore — put trashed sessions back where they were

USAGE
  forgectl resume trash restore FILTER... [--keep-mtime] [--dry-run]

Restores each trashed session FILTER matches (an id, an id prefix, a name, a
substring of the name, repo or cwd) to the paths it came from, byte for byte
and mode for mode, each file checked against its SHA-256 before it is
linked into place. A file there again is never overwritten: the restore is
refused with exit 2. Mtimes as 'resume unarchive --help' says (the
transcript gets the restore's time, so Claude Code's sweep keeps it);
--keep-mtime gives every file its original one. --dry-run prints what would
be restored. history.jsonl is left alone.

` + exitcode.Table + `
`

const trashEmptyHelp = `
forgectl resume trash empty — delete the trash for good

USAGE
  forgectl resume trash empty [--older-than DUR] [--dry-run] [--yes]

The one command that deletes a session: it removes the trashed sessions'
stored copies, or with --older-than only those trashed more than DUR ago
(30d, 2w, 36h). It asks on a terminal and needs --yes without one;
--dry-run prints what would be deleted. history.jsonl is left alone.

` + exitcode.Table + `
`
