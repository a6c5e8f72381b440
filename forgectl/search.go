package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/transcript"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// `forgectl resume search` and `forgectl resume --search`. The session rows
// come from the listing (listSessions) through searchSessions, the one
// place that joins the two, so the listing can change under it.

func (a *app) searchCommand() *ffcli.Command {
	fs := newFlagSet("resume search", &a.flagOut)
	asJSON := fs.Bool("json", false, "print a JSON array: the ls fields plus hits (see --help)")
	all := fs.Bool("all", false, "include hidden sessions (print-mode, sidechains)")
	limit := fs.Int("limit", 0, "print at most N sessions (0: all)")
	verbose := fs.Bool("verbose", false, "report files that could not be read and what the index did")
	return &ffcli.Command{
		Name:      "search",
		FlagSet:   fs,
		UsageFunc: helpFunc(searchHelp()),
		Exec: func(ctx context.Context, args []string) error {
			if *limit < 0 {
				a.errorf("--limit must not be negative")
				a.hintf("run 'forgectl resume search --help' for usage")
				return exit(exitcode.Refused)
			}
			q, err := a.parseQuery(strings.Join(args, " "), "resume search")
			if err != nil {
				return err
			}
			found, err := a.searchSessions(ctx, q, *all, *verbose)
			if err != nil {
				return err
			}
			if *limit > 0 && len(found.idx) > *limit {
				found.idx = found.idx[:*limit]
			}
			if len(found.idx) == 0 {
				a.noHits(found, *all)
				return exit(exitcode.Failed)
			}
			if *asJSON {
				return writeSearchJSON(a.stdout, found)
			}
			return writeSearchTable(a.stdout, a.now(), found, true)
		},
	}
}

func (a *app) parseQuery(s, cmd string) (search.Query, error) {
	q, err := search.ParseQuery(s)
	if err != nil {
		if errors.Is(err, search.ErrEmptyQuery) {
			a.errorf("no words to search for")
		} else {
			a.errorf("bad query: %v", err)
		}
		a.hintf(`give words to find, all of them in one session; "quote" a phrase (run 'forgectl %s --help')`, cmd)
		return search.Query{}, exit(exitcode.Refused)
	}
	return q, nil
}

// found is a search's sessions, in listing order (newest first).
type found struct {
	list []sessions.Session
	idx  []int
	hits map[string][]search.Hit // by transcript path
	// hidden counts the matching sessions left out for being hidden.
	hidden int
}

// searchSessions runs the search, then lists just the sessions it found
// (sessions.Options.Paths): the rows of a few hits cost far less than a
// listing of every session.
func (a *app) searchSessions(ctx context.Context, q search.Query, all, verbose bool) (found, error) {
	type searched struct {
		res search.Result
		err error
	}
	ch := make(chan searched, 1)
	opt := search.Options{Projects: a.claudePaths().Projects(), Dir: filepath.Join(a.forgectlPaths().Cache(), "search")}
	go func() {
		res, err := search.Search(opt, q)
		ch <- searched{res, err}
	}()
	var s searched
	select {
	case s = <-ch:
	case <-ctx.Done():
		// Ctrl-C during a long first build: leave now. The index is only
		// ever replaced whole (a temp file renamed), so nothing half
		// written is trusted; the next search removes the leftovers.
		return found{}, exit(exitcode.Interrupted)
	}
	for _, n := range s.res.Notes {
		a.notef("%s", n)
	}
	if s.err != nil {
		a.errorf("cannot search: %v", s.err)
		a.hintf("the index under %s is a cache and safe to delete", opt.Dir)
		return found{}, exit(exitcode.Failed)
	}
	paths := make([]string, 0, len(s.res.Hits))
	for p := range s.res.Hits {
		paths = append(paths, p)
	}
	var listed []sessions.Session
	_, lerr := a.list(ctx, listing{w: a.stderr, verbose: verbose, countTasks: true, paths: paths}, func(s *sessions.Session) error {
		listed = append(listed, *s)
		return nil
	})
	if lerr != nil {
		return found{}, lerr
	}
	if verbose {
		for _, p := range s.res.Problems {
			a.notef("warning: %v", p)
		}
		st := s.res.Stats
		a.notef("search index: %d transcripts read, %d unchanged, %d removed", st.Read, st.Reused, st.Removed)
		if st.Rebuilt != "" {
			a.notef("search index built from nothing: %s", st.Rebuilt)
		}
	} else if n := len(s.res.Problems); n > 0 {
		a.notef("%d transcript(s) could not be searched; --verbose lists them", n)
	}
	f := found{list: listed, hits: s.res.Hits}
	for i := range f.list {
		if _, ok := f.hits[f.list[i].Transcript]; !ok {
			continue
		}
		if f.list[i].Hidden && !all {
			f.hidden++
			continue
		}
		f.idx = append(f.idx, i)
	}
	return f, nil
}

func (a *app) noHits(f found, all bool) {
	if f.hidden > 0 && !all {
		a.notef("%d hidden session(s) match; --all includes them", f.hidden)
	}
}

func (f found) best(i int) search.Hit {
	if h := f.hits[f.list[i].Transcript]; len(h) > 0 {
		return h[0]
	}
	return search.Hit{}
}

// writeSearchTable prints the ls table with the best hit's snippet last.
// Candidate lists (several hits for --search) have no header, so
// `awk '{print $1}'` yields ids.
func writeSearchTable(w io.Writer, now time.Time, f found, header bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if header {
		fmt.Fprintln(tw, "SESSION\tACTIVITY\tREPO\tBRANCH\tTASKS\tLIVE\tNAME / LAST PROMPT\tSNIPPET")
	}
	for _, i := range f.idx {
		s := &f.list[i]
		h := f.best(i)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s: %s\n", s.ID, age(now, s.LastActivity),
			clean(cut(orDash(s.Repo), 24)), clean(cut(orDash(s.Branch), 24)), taskCell(s), liveCell(s),
			clean(cut(title(s), 40)), h.Role, clean(cut(h.Snippet, 80)))
	}
	return tw.Flush()
}

// writeSearchJSON prints the ls array with each object's hits added.
func writeSearchJSON(w io.Writer, f found) error {
	buf := make([]byte, 0, 64<<10)
	buf = append(buf, "[\n"...)
	for k, i := range f.idx {
		buf = append(buf, "  "...)
		obj := appendSession(nil, toJSON(&f.list[i]))
		buf = append(buf, obj[:len(obj)-1]...) // the ls object, open
		buf = append(buf, `,"hits":[`...)
		for n, h := range f.hits[f.list[i].Transcript] {
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, `{"role":`...)
			buf = appendString(buf, h.Role.String())
			buf = append(buf, `,"at":`...)
			buf = appendString(buf, h.At.UTC().Format(time.RFC3339))
			buf = append(buf, `,"snippet":`...)
			buf = appendString(buf, h.Snippet)
			buf = append(buf, '}')
		}
		buf = append(buf, "]}"...)
		if k < len(f.idx)-1 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
		if len(buf) > 48<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "]\n"...)
	_, err := w.Write(buf)
	return err
}

// resolveSearch is `forgectl resume --search QUERY [FILTER]`: the sessions
// holding the query (narrowed by FILTER's rules when one is given), resolved
// as a FILTER's hits are.
func (a *app) resolveSearch(ctx context.Context, o resumeOpts) (*sessions.Session, error) {
	q, err := a.parseQuery(o.search, "resume")
	if err != nil {
		return nil, err
	}
	f, err := a.searchSessions(ctx, q, o.all, o.verbose)
	if err != nil {
		return nil, err
	}
	if o.filter != "" {
		m := match.New(o.filter, true)
		for i := range f.list {
			m.Add(&f.list[i])
		}
		keep, _ := m.Hits()
		in := map[*sessions.Session]bool{}
		for _, s := range keep {
			in[s] = true
		}
		var idx []int
		for _, i := range f.idx {
			if in[&f.list[i]] {
				idx = append(idx, i)
			}
		}
		f.idx = idx
	}
	switch {
	case len(f.idx) == 0:
		a.noHits(f, o.all)
		if o.filter != "" {
			a.errorf("no session matching %q holds %s", o.filter, strconv.Quote(o.search))
		} else {
			a.errorf("no session holds %s", strconv.Quote(o.search))
		}
		a.hintf("every word must be in the session; 'forgectl resume search' lists what does match fewer words")
		return nil, exit(exitcode.Failed)
	case len(f.idx) == 1:
		return &f.list[f.idx[0]], nil
	case !o.dryRun && a.stdinTTY && a.stdoutTTY:
		return a.pickSearchHits(ctx, f)
	}
	if err := writeSearchTable(a.stdout, a.now(), f, false); err != nil {
		return nil, err
	}
	a.errorf("%d sessions hold %s", len(f.idx), strconv.Quote(o.search))
	a.hintf("add words, or pass a session id from the first column")
	return nil, exit(exitcode.Failed)
}

// searchHelp is the manual of `resume search`. Its field table is ls's
// (taken from lsHelp, so the two cannot drift) plus hits.
func searchHelp() string {
	fields := lsHelp
	if i := strings.Index(fields, "  session_id "); i >= 0 {
		fields = fields[i:]
	}
	if i := strings.Index(fields, "EXIT STATUS"); i >= 0 {
		fields = fields[:i]
	}
	text := strings.Replace(searchHelpText, "@FIELDS@\n", strings.TrimRight(fields, "\n")+"\n", 1)
	// The caps as the readers apply them, never a copy that can drift.
	text = strings.Replace(text, "@CAP@", fmt.Sprintf("%d MiB", transcript.DecodeCap>>20), 1)
	return strings.Replace(text, "@MAXLINE@", fmt.Sprintf("%d MiB", jsonl.DefaultMaxLine>>20), 1)
}

const searchHelpText = `
forgectl resume search — find the sessions whose conversation holds words

USAGE
  forgectl resume search [--json] [--all] [--limit N] [--verbose] QUERY...
  forgectl resume --search QUERY [--fork] [--dry-run] [--all] [FILTER]

Lists the sessions holding every word of QUERY, newest first, in the ls table
with a last column: the best hit's role and snippet.

WHAT IS SEARCHED
  What a person typed and read, decoded from the transcript's JSON, so that
  quotes, backslashes, newlines and non-ASCII match as they were shown:
  prompts (string content or text blocks), assistant text replies, session
  names (custom title, agent name, AI title, summary) and the string values
  of tool-call inputs (commands, file paths, patterns, descriptions; not the
  file bodies of Write and Edit). Tool results, system reminders (isMeta)
  and thinking blocks are left out. A row is read by its top-level keys
  wherever they stand, as 'resume ls' reads it: what ls shows as a prompt
  is searched as one. A row over @CAP@ (a pasted file, an attachment) is
  not searched; ls still shows the start of such a prompt. A row over
  @MAXLINE@ is skipped by both, as a broken line.

QUERY
  Every word must appear somewhere in the session (AND), each inside one
  message. A word matches anywhere, also inside longer words ("round" finds
  "rounding"), case-insensitively by full Unicode case folding (STRASSE
  finds "Straße", "file" finds "ﬁle"; no Turkish rule: İ is i with a dot
  above), with both sides in Unicode normalization form NFC, so an accented
  letter typed as one character finds it written as a letter and a
  combining accent, and the other way round (é is still not e).

  Double quotes make a phrase that must appear as written, in order, inside
  one message; any run of white space in it matches any run of white space
  (a newline too). Quote phrases for the shell as well, as in
  search '"ship it" deploy'.
  \" is a quote character and \\ a backslash; any other backslash is itself.
  The words of several arguments are joined with spaces.

  resume --search QUERY resolves like a FILTER (an added FILTER narrows the
  hits by its rules): one hit resumes it; several open the picker over the
  hits, with their snippets in the preview; several with no terminal, or
  with --dry-run, print one candidate row per line (full id first, no header)
  and exit 1. --fork and --dry-run work as with a FILTER.

THE INDEX
  Kept in forgectl's cache/search/ and safe to delete. Each search brings it
  up to date first, reading only what was appended to each transcript since
  (a transcript rewritten in place is read again whole); deleted transcripts
  drop out. A damaged index is reported on stderr and rebuilt; its answers
  are never used. Concurrent searches take turns on a lock.

FLAGS
  --json      print a JSON array (see below); nothing, as without it, when
              nothing matches (exit 1), so stdout empty means no hit
  --all       include hidden sessions (print-mode, sidechains, continued)
  --limit N   print at most N sessions, the newest (0: all)
  --verbose   report transcripts that could not be read, and what the index did

JSON (--json): an array of objects with every field of 'resume ls --json'
@FIELDS@
and one more:
  hits             array    the best matching messages, at most 5: those
                            holding the most query words first, then the
                            newest. Each is an object:
    role           string   prompt | reply | tool (a tool call's input) | name
    at             string   RFC 3339 UTC time of the row it came from (for a
                            name, which has none, that of the newest prompt,
                            reply or tool call before it)
    snippet        string   one line of the message around the first match,
                            with … where it was cut

EXIT STATUS
  0  sessions hold the query (listed)
  1  no session holds it (stdout empty, --json too), or the search failed
  2  bad usage: no words, an unclosed quote, a bad flag
`
