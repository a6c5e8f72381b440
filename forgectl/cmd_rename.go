package main

import (
	"context"
	"errors"
	"flag"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/msg"
)

func renameCommand() *command {
	return &command{
		name: "rename", desc: "name a session from outside it, as /rename does",
		usage:        []usageLine{{"forgectl resume rename FILTER NAME", "name a session that is not running, as /rename would"}},
		help:         func() string { return renameHelp },
		interspersed: true,
		words:        completeFilter,
		flags:        renameFlags,
	}
}

func renameFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	all := fs.Bool("all", false, "let FILTER match hidden sessions too (an exact id always does)")
	return func(ctx context.Context, args []string) error {
		if len(args) != 2 {
			a.errorf("rename takes a FILTER and a NAME, got %d word(s)", len(args))
			a.hintf("quote a name with spaces: forgectl resume rename 1fc9d747 'Login bugfix'")
			return exit(exitcode.Usage)
		}
		filter, name := args[0], args[1]
		hits, err := a.matching(ctx, resumeOpts{filter: filter, all: *all})
		if err != nil {
			return err
		}
		switch {
		case len(hits) == 0:
			a.errorf("no session matches %s", msg.Quoted(filter))
			a.hintf("'forgectl resume ls' lists every session; --all includes hidden ones")
			return exit(exitcode.Failed)
		case len(hits) > 1:
			t := render.NewTable(a.stdout, a.now(), false, render.Listing)
			t.Mark = a.markRows()
			for _, s := range hits {
				t.Add(s)
			}
			if err := t.Close(); err != nil {
				return err
			}
			a.errorf("%d sessions match %s", len(hits), msg.Quoted(filter))
			a.hintf("a rename names one session: pass its id from the first column")
			return exit(exitcode.Failed)
		}
		s := hits[0]
		r, ok := harness.As[harness.Renamer](a.harnessOf(s))
		if !ok {
			a.errorf("%s sessions cannot be renamed from outside yet", s.Harness)
			a.hintf("rename it inside the session (/rename)")
			return exit(exitcode.Refused)
		}
		if name, err = r.CheckName(name); err != nil {
			a.errorf("%v", err)
			a.hintf("give a name on one line, without control characters (Claude Code keeps at most 200 characters)")
			return exit(exitcode.Usage)
		}
		// The listing may be a moment old: ask the registry again, just
		// before writing.
		if gone := a.harnessOf(s).Refresh(s); gone {
			a.errorf("the transcript of session %s is gone", s.ID)
			a.hintf("it was deleted or moved since the listing; 'forgectl resume ls' shows what is left")
			return exit(exitcode.Failed)
		}
		if s.Live {
			a.errorf("session %s is running (pid %d)", s.ID, s.Pid)
			a.hintf("%s", r.LiveHint(name))
			return exit(exitcode.Refused)
		}
		if err := r.Rename(s, name, a.now()); err != nil {
			a.errorf("cannot rename session %s: %v", s.ID, err)
			if errors.Is(err, harness.ErrLive) {
				return exit(exitcode.Refused)
			}
			return exit(exitcode.Failed)
		}
		// Search reads a file again when its stamp changes, and a Codex
		// thread's name is not in its files: the renamed session's entries
		// are dropped (for any harness; reading one session again is
		// cheap), so the next search reads the name.
		files := s.Segments
		if len(files) == 0 {
			files = []string{s.Transcript}
		}
		if err := search.Forget(a.searchOptionsFor(a.harnessOf(s)), files); err != nil {
			a.notef("search may find session %s by its old name until its files change: %v", s.ID, err)
		}
		old := s.Name
		if old == "" {
			old = "(unnamed)"
		}
		a.notef("renamed session %s: %s -> %s", s.ID, msg.Quoted(old), msg.Quoted(name))
		if n := r.Renamed(); n != "" {
			a.notef("%s", n)
		}
		return nil
	}
}

const renameHelp = `
forgectl resume rename — name a session from outside it, as /rename does

USAGE
  forgectl resume rename [--all] FILTER NAME

Names the one session FILTER selects (the rules of 'forgectl resume': an
exact id, an id prefix, an exact name, then a substring of the name, repo or
cwd), writing what the agent's own /rename writes:

  Claude Code  a custom-title row and an agent-name row appended to the
               transcript, and <id>/custom-title.json beside it
               ({"customTitle", "by":"user", "at"})
  Codex        a line appended to $CODEX_HOME/session_index.jsonl
               ({"id", "thread_name", "updated_at"}); the rollout is not
               touched

Claude Code's own picker ('claude --resume') and forgectl's listing and
search show the new name, and a resumed session keeps it. Codex (0.171.0)
does not: its picker and a resumed thread show the name its state database
cached, which only /rename inside Codex changes; forgectl's listing and
search show the new one.

  forgectl resume rename 1fc9d747 'Login bugfix'
  forgectl resume rename 'old name' 'new name'
  forgectl resume rename 1fc9d747 -- '-draft-'    # a NAME starting with -

For Claude Code the append moves the transcript's mtime to now, as /rename
does: the session sorts first again, and Claude Code's retention sweep,
which goes by that mtime, starts its count again. A Codex thread keeps its
place: its rollout is not written.

A running session is refused, naming the pid: the running claude appends to
the same transcript and keeps its own name, which would win. A Codex thread
is running while any process holds its write lock, Codex's background
daemon included (it keeps a thread loaded for about a minute after its last
client quits): the holder writes the thread's names too. Rename it with
/rename inside it.

NAME is stored as typed, trimmed of surrounding spaces. A name the agent
would change or refuse is refused instead: an empty one, one with a newline,
tab or other control character (Claude Code would make it a space; Codex's
rename box takes one line), or, for Claude Code, one over 200 characters
(it would be cut).

Safety: the rows go in one append after whatever the file holds; a file
that does not end in a newline (a writer killed mid-line) gets one first,
and a write that fails part way is cut back off, so the file stays readable
to the agent either way.

FLAGS
  --all       let FILTER match hidden sessions too (an exact id always does)

EXIT STATUS
  0    renamed
  1    no session matched, FILTER matched several (they are listed on stdout),
       the transcript is gone, or the write failed
  2    the session is running (its pid is named), NAME was refused, or bad
       usage
  Any other code is a failure.
`
