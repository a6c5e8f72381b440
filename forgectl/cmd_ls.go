package main

import (
	"context"
	"flag"
	"sort"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/exitcode"
)

func lsCommand() *command {
	return &command{
		name: "ls", desc: "list sessions without acting",
		usage:        []usageLine{{"forgectl resume ls [--json]", "list sessions without acting"}},
		help:         func() string { return lsHelp },
		interspersed: true,
		words:        completeFilter,
		flags:        lsFlags,
	}
}

func lsFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	asJSON := fs.Bool("json", false, "print a JSON array (see the field table in --help)")
	all := fs.Bool("all", false, "include hidden sessions (print-mode, sidechains)")
	a.harnessFlag(fs)
	verbose := fs.Bool("verbose", false, "report files that could not be read")
	tree := fs.Bool("tree", false, "print children below their parent (branches, forks, /clear continuations)")
	rootsOnly := fs.Bool("roots", false, "only sessions that are nobody's child: one row per line of work")
	archived := fs.Bool("archived", false, "only archived sessions: forgectl's archive and Codex's archived_sessions/")
	dates := dateFlags(a, fs, "resume ls ")
	color := colorFlag(a, fs, "resume ls ")
	return func(ctx context.Context, args []string) error {
		active, err := dates()
		if err != nil {
			return err
		}
		o, err := color()
		if err != nil {
			return err
		}
		if *tree && *rootsOnly {
			a.errorf("--tree and --roots cannot be combined")
			a.hintf("--tree already starts each line of work at its root; --roots lists the roots alone")
			return exit(exitcode.Refused)
		}
		if *tree || *rootsOnly {
			return a.lsLineage(ctx, strings.Join(args, " "), *all, *archived, *verbose, *asJSON, *tree, active, o)
		}
		if *archived {
			return a.lsArchived(ctx, strings.Join(args, " "), *verbose, *asJSON, active, o)
		}
		m := match.New(strings.Join(args, " "), *all)
		out, closeOut := a.sessionWriter(*asJSON, o)
		filtered := strings.TrimSpace(strings.Join(args, " ")) != ""
		var total, shown, hidden, live int
		// With --all the archive's rows join the listing in its order;
		// without it they are never read.
		var stored []*harness.Session
		if *all {
			stored = a.archivedRows(ctx, nil, active)
			total, hidden = len(stored), len(stored)
		}
		_, err = a.list(ctx, listing{w: a.stderr, verbose: *verbose, countTasks: true, bounded: !filtered, active: active}, func(s *harness.Session) error {
			for !filtered && len(stored) > 0 && stored[0].LastActivity.After(s.LastActivity) {
				shown++
				out(stored[0])
				stored = stored[1:]
			}
			total++
			if s.Hidden {
				hidden++
			}
			if s.Live {
				live++
			}
			// Without a filter every visible row is written as it
			// comes, and kept by nobody; a filter's tier is known
			// only at the end.
			if filtered {
				m.Add(s)
			} else if !s.Hidden || *all {
				shown++
				out(s)
			}
			return nil
		})
		if err != nil {
			if !*asJSON {
				// The rows a table has gathered are printed, as they
				// would have been had it written each at once: an
				// interrupted listing keeps what it showed. A JSON
				// array is left unclosed, so that no parser takes a
				// part for the whole.
				closeOut()
			}
			return err
		}
		if filtered {
			for _, s := range stored {
				m.Add(s)
			}
			stored = nil
		}
		for _, s := range stored {
			shown++
			out(s)
		}
		if filtered {
			hits, _ := m.Hits()
			if *all {
				sort.SliceStable(hits, func(i, j int) bool { return hits[i].LastActivity.After(hits[j].LastActivity) })
			}
			for _, s := range hits {
				out(s)
			}
			shown = len(hits)
		}
		if err := closeOut(); err != nil {
			return err
		}
		a.notef("%d shown of %d sessions (%d hidden, %d live)", shown, total, hidden, live)
		if total == 0 {
			for _, why := range a.noSessionsWhy() {
				a.notef("%s", why)
			}
		}
		return nil
	}
}

// lsLineage is ls --tree and ls --roots: both need the whole listing (a
// child can be listed before its parent), so the sessions are collected
// first.
func (a *app) lsLineage(ctx context.Context, filter string, all, archived, verbose, asJSON, tree bool, active when.Window, o output) error {
	var list []harness.Session
	_, err := a.list(ctx, listing{w: a.stderr, verbose: verbose, countTasks: true, active: active}, func(s *harness.Session) error {
		if !archived || s.HiddenReason == archivedReason {
			list = append(list, *s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if all || archived {
		list = a.withArchived(ctx, list, active)
	}
	m := match.New(filter, all || archived)
	at := make(map[*harness.Session]int, len(list))
	var visible []int
	for i := range list {
		at[&list[i]] = i
		if all || archived || !list[i].Hidden {
			visible = append(visible, i)
		}
		m.Add(&list[i])
	}
	matched, _ := m.Hits()
	hits := make([]int, len(matched))
	for k, s := range matched {
		hits[k] = at[s]
	}
	if !tree {
		hits = render.Roots(list, hits, visible)
		out, closeOut := a.sessionWriter(asJSON, o)
		for _, i := range hits {
			out(&list[i])
		}
		err = closeOut()
	} else {
		forest := render.Tree(list, hits)
		if asJSON {
			err = render.WriteTreeJSON(a.stdout, list, forest)
		} else if len(hits) > 0 {
			// The tree's rows carry the harness mark as the flat table's
			// do: a fork of a Codex thread is still Codex's.
			t := a.table(o, true, render.Listing)
			t.Mark = a.markRows()
			err = render.WriteTreeTable(t, list, forest)
		}
	}
	if err != nil {
		return err
	}
	a.notef("%d shown of %d sessions", len(hits), len(list))
	return nil
}

// sessionWriter is ls's output as it streams: the JSON array or the table.
func (a *app) sessionWriter(asJSON bool, o output) (add func(*harness.Session), close func() error) {
	if asJSON {
		j := render.NewJSONArray(a.stdout)
		return func(s *harness.Session) { j.Add(s, nil) }, j.Close
	}
	t := a.table(o, true, render.Listing)
	t.MarkLater = a.markRows
	return func(s *harness.Session) { t.Add(s) }, t.Close
}

const lsHelp = `
forgectl resume ls — list Claude Code sessions and Codex threads without acting

USAGE
  forgectl resume ls [--json] [--all | --archived] [--verbose]
                    [--tree | --roots] [--since WHEN] [--until WHEN]
                    [--harness claude|codex]... [FILTER]

Newest first, printed as the listing finds them (with a FILTER, once the
listing is done: which rule matched is known only then). FILTER narrows the
list with the same rules as resume. Counts go to stderr, so stdout is safe to
pipe.

FLAGS
  --json      print a JSON array (fields below)
  --all       include hidden sessions (print-mode, sidechains, continued,
              archived in Claude Code's picker) and the ones in forgectl's
              archive (hidden_reason "archived"), in activity order
  --archived  only the archived sessions (hidden_reason "archived") of
              every harness listed, newest first: Claude Code sessions in
              forgectl's archive ('resume archive --help'), read from the
              archive's index (nothing is decompressed; such a row's
              transcript_path is where its transcript goes back to), and
              Codex threads in archived_sessions/. Composes with FILTER,
              --since, --until, --harness, --tree and --roots.
  --tree      print each session below its parent, behind tree glyphs at the
              start of the line; the tree with the newest activity first,
              children newest first. A parent that is hidden or filtered out
              is stepped over: the child goes under the nearest ancestor
              shown. Indentation stops at 8 levels: a deeper row keeps that
              indentation and shows its depth where the glyph would be,
              "…(12) " for a session 12 below its root. With --json: the same
              objects, each with a "children" array of the objects below it
              ([] for none), nested at most 64 sessions below a root (jq 1.6
              and 1.7 stop at 256 levels of JSON, about 85 sessions): the
              sessions deeper than that are listed flat, in tree order, in
              the children of their ancestor 63 below the root, each naming
              its parent in parent_session_id.
  --roots     only sessions that are nobody's child among those shown (one
              row per line of work); composes with FILTER and --all. A
              session whose parent's transcript is gone counts as a root.
  --verbose   report files that could not be read
` + datesHelp + colorHelp + `  --harness H only H's sessions: claude or codex (repeatable). Without it,
              [resume] harnesses in the config, else every agent whose home
              exists: Claude Code, and Codex when $CODEX_HOME (else ~/.codex)
              is a folder. Rows from more than one carry a mark before the
              title: cc (Claude Code), cx (Codex).
  --tree and --roots together are refused (exit 2).

TABLE COLUMNS
  SESSION   full session id         TASKS   completed/total ("-": none)
  ACTIVITY  last write, relative     LIVE    live:<pid> when running
  REPO, BRANCH, NAME / LAST PROMPT
  Piped, every value is whole and every column kept; widths come from the
  first 200 rows, and a longer value further down pushes its line right.
  On a terminal (COLUMNS when its width cannot be read) the table fits the
  width: the name shrinks first, then repo and branch, cut values ending in
  …; a TASKS or LIVE column that is "-" on every row is left out; where the
  name would still get under 20 columns, BRANCH and then REPO make way
  (search's snippet first moves to a line of its own). Widths count display
  columns (a wide character is two). Ids are never cut.
  A child's title ends with its lineage: [fork of b3b98d6c], [branch of …],
  [after /clear of …] (the parent's id prefix), "(gone)" after it when the
  parent's transcript is no longer on disk. The picker's rows and the
  candidates an ambiguous FILTER prints carry the same mark.

LINEAGE (parent_session_id, relation), from Claude Code's files alone
  branch  /branch copied the parent's rows, each marked forkedFrom.
  fork    claude --resume X --fork-session (forgectl resume --fork) copied
          them; each copied reply keeps requestSessionId, the session that
          made it. Copies come first in a transcript, so the session named
          by the last copied row is the nearest ancestor: the one whose rows
          it shares most (a fork of a fork names the fork, not the original).
  clear   /clear opened a new transcript that begins with the /clear command.
          Its parent is the session the prompt history logged that /clear
          under just before (several /clears in one process make a chain);
          without that history line, the session the process started as
          (each row of a continuation names it).

JSON (--json): an array ([] when empty) of objects with these fields
  session_id       string   Claude Code's session id (what --resume takes)
  harness          string   the agent the session belongs to: claude | codex
  name             string   the session's name, "" when never named
  name_source      string   agent-name | custom-title | custom-title-file
                            (the <id>/custom-title.json /rename writes, when
                            the transcript has no title row) | ai-title |
                            summary | registry (a live /rename) | snapshot
                            (kept by resume snapshot after the session
                            exited) | session-index (Codex's
                            session_index.jsonl) | thread-name-event | ""
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
  entrypoint       string   cli, sdk-cli (print mode), …; Codex's originator:
                            codex-tui, codex_exec
  version          string   the newest claude version that wrote the transcript
  hidden           bool     hidden from the default listing
  hidden_reason    string   archived-in-claude (Claude Code's own mark:
                            <id>/archived.json says archived, and no prompt
                            came after it) | sidechain | print-mode | team |
                            continued | empty | subagent | archived (in
                            forgectl's archive, or a Codex thread in
                            archived_sessions/) | trashed | ""
  size_bytes       number   transcript size
  messages         number   conversation rows in the transcript
  transcript_path  string   the transcript file
  parent_session_id string  the session this one was branched or forked from,
                            or continued after /clear; "" for none
  relation         string   branch | fork | clear | subagent | "" (LINEAGE)
  parent_exists    bool     the parent's transcript is still on disk, in
                            the agent's tree or forgectl's archive (false
                            for a deleted one, whose id is still named)
  context_tokens   number   the context a resume sends again: the newest
                            response's input + cache-read + cache-creation
                            tokens (after a compaction with no reply since,
                            what the compaction left); 0 when none
  model            string   the model of the newest response, "" when none
  cache_likely_expired bool the prompt cache has likely expired, by Claude
                            Code's own rule (5 minutes after the newest
                            response, 1 hour when it wrote 1-hour cache;
                            always after a compaction); true with no reply
  tokens_used      number   the tokens (input, cache read and write, output)
                            of every response in the session
  live_holder      string   Codex only, when live: who holds the thread's
                            write lock: daemon (Codex's background server) |
                            tui | exec; absent otherwise

CODEX (harness codex; see docs/codex.md)
  A thread is one row however many rollout files it has (a rewind writes a
  second): files group by their session_meta id, never by name. The newest
  file is transcript_path and gives cwd, branch and version; the first gives
  first_prompt. size_bytes and messages add up every file. Names come from
  session_index.jsonl (the last non-empty wins), last_prompt_at from
  history.jsonl. Hidden: codex exec threads (print-mode), subagents
  (subagent, parent_session_id names the parent) and archived_sessions/
  (archived). A fork is relation fork with its own first prompt. live is a
  WRITE flock held on thread-writer-locks/<id>.lock, read from /proc/locks
  (on macOS, which has none, a thread never shows live).

` + exitcode.Table + `
`

// lsArchived is ls --archived: the archived rows of every harness listed,
// newest activity first (see archivedSessions).
func (a *app) lsArchived(ctx context.Context, filter string, verbose, asJSON bool, active when.Window, o output) error {
	rows, err := a.archivedSessions(ctx, verbose, active)
	if err != nil {
		return err
	}
	if strings.TrimSpace(filter) != "" {
		m := match.New(filter, true)
		for _, s := range rows {
			m.Add(s)
		}
		rows, _ = m.Hits()
	}
	out, closeOut := a.sessionWriter(asJSON, o)
	for _, s := range rows {
		out(s)
	}
	if err := closeOut(); err != nil {
		return err
	}
	a.notef("%d archived sessions shown", len(rows))
	return nil
}

// withArchived adds the archive's rows to a listing, newest first, and
// links lineage across the two: a parent in the archive exists.
func (a *app) withArchived(ctx context.Context, list []harness.Session, active when.Window) []harness.Session {
	for _, s := range a.archivedRows(ctx, nil, active) {
		list = append(list, *s)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].LastActivity.After(list[j].LastActivity) })
	ids := make(map[string]bool, len(list))
	for i := range list {
		ids[list[i].ID] = true
	}
	for i := range list {
		if p := list[i].ParentID; p != "" {
			list[i].ParentExists = ids[p]
		}
	}
	return list
}
