package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/interrupt"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/transcript"
)

// `forgectl resume search` and `forgectl resume --search`. The session rows
// come from the listing (listSessions) through searchSessions, the one
// place that joins the two, so the listing can change under it.

func searchCommand() *command {
	return &command{
		name: "search", desc: "sessions whose conversation holds every word",
		usage:        []usageLine{{"forgectl resume search WORDS", "list the sessions whose conversation holds every word"}},
		interspersed: true,
		help:         func() string { return searchHelp() },
		flags:        searchFlags,
	}
}

func searchFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	asJSON := fs.Bool("json", false, "print a JSON array: the ls fields plus hits (see --help)")
	all := fs.Bool("all", false, "include hidden sessions (print-mode, sidechains)")
	limit := fs.Int("limit", 0, "print at most N sessions (0: all)")
	verbose := fs.Bool("verbose", false, "report files that could not be read and what the index did")
	archived := fs.Bool("archived", false, "only archived sessions (see 'resume archive --help')")
	return func(ctx context.Context, args []string) error {
		if *limit < 0 {
			a.errorf("--limit must not be negative")
			a.hintf("%s", a.prog.UsageHint("resume search "))
			return exit(exitcode.Refused)
		}
		query := strings.Join(args, " ")
		q, err := a.parseQuery(query, "resume search")
		if err != nil {
			return err
		}
		found, err := a.searchSessions(ctx, q, *all || *archived, *verbose)
		if err != nil {
			return err
		}
		if *archived {
			kept := found.idx[:0]
			for _, i := range found.idx {
				if found.list[i].HiddenReason == archivedReason {
					kept = append(kept, i)
				}
			}
			found.idx = kept
		}
		if *limit > 0 && len(found.idx) > *limit {
			found.idx = found.idx[:*limit]
		}
		// --json prints its array, [] too, as ls --json does.
		if *asJSON {
			err = writeSearchJSON(a.stdout, found)
		} else if len(found.idx) > 0 {
			err = writeSearchTable(a.stdout, a.now(), found, true)
		}
		if err == nil && len(found.idx) == 0 {
			err = a.noHit(ctx, q, query, "", found, found)
		}
		return err
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
	list []harness.Session
	idx  []int
	hits map[string][]search.Hit // by transcript path
	// hidden are the matching sessions left out for being hidden (indexes
	// into list).
	hidden []int
}

// rawSearch runs the search alone, leaving on Ctrl-C at once: the search
// itself stops between transcripts, but may be waiting for another
// search's lock.
func (a *app) rawSearch(ctx context.Context, q search.Query) (search.Result, error) {
	type searched struct {
		res search.Result
		err error
	}
	ch := make(chan searched, 1)
	opt := a.searchOptions()
	opt.OnExit = func(fn func()) func() { return interrupt.OnExit(ctx, fn) }
	go func() {
		res, err := search.Search(ctx, opt, q)
		ch <- searched{res, err}
	}()
	select {
	case s := <-ch:
		return s.res, s.err
	case <-ctx.Done():
		// Ctrl-C during a long first build: leave now. The index is only
		// ever replaced whole (a temp file renamed), so nothing half
		// written is trusted; the segment being written is removed as
		// the process ends (Options.OnExit).
		return search.Result{}, exit(exitcode.Interrupted)
	}
}

func (a *app) searchOptions() search.Options {
	opt := search.Options{Harness: a.harness(), Dir: filepath.Join(a.forgectlPaths().Cache(), "search")}
	// The archive's transcripts keep their entries while they are away.
	if paths := a.archivedTranscripts(); len(paths) > 0 {
		opt.Keep = func(p string) bool { return paths[p] }
	}
	return opt
}

// searchSessions runs the search, then lists just the sessions it found
// (sessions.Options.Paths): the rows of a few hits cost far less than a
// listing of every session.
func (a *app) searchSessions(ctx context.Context, q search.Query, all, verbose bool) (found, error) {
	res, err := a.rawSearch(ctx, q)
	if _, ok := cli.Code(err); ok {
		return found{}, err
	}
	for _, n := range res.Notes {
		a.notef("%s", n)
	}
	if err != nil {
		a.errorf("cannot search: %v", err)
		// The index is the likely culprit only when there are sessions
		// to index.
		if p := a.projectsProblem(); p != "" {
			a.hintf("%s", p)
		} else {
			a.hintf("the index under %s is a cache and safe to delete", a.searchOptions().Dir)
		}
		return found{}, exit(exitcode.Failed)
	}
	paths := make([]string, 0, len(res.Hits))
	for p := range res.Hits {
		paths = append(paths, p)
	}
	var listed []harness.Session
	_, lerr := a.list(ctx, listing{w: a.stderr, verbose: verbose, countTasks: true, paths: paths}, func(s *harness.Session) error {
		listed = append(listed, *s)
		return nil
	})
	if lerr != nil {
		return found{}, lerr
	}
	// A hit in an archived transcript is the archive's row (hidden, so
	// shown with --all or --archived).
	listedPaths := make(map[string]bool, len(listed))
	for i := range listed {
		listedPaths[listed[i].Transcript] = true
	}
	for _, s := range a.archivedRows(ctx, nil) {
		if _, hit := res.Hits[s.Transcript]; hit && !listedPaths[s.Transcript] {
			listed = append(listed, *s)
		}
	}
	if verbose {
		for _, p := range res.Problems {
			a.warnf("%v", p)
		}
		st := res.Stats
		a.notef("search index: %d transcripts read, %d unchanged, %d removed", st.Read, st.Reused, st.Removed)
		if st.Rebuilt != "" {
			a.notef("search index built from nothing: %s", st.Rebuilt)
		}
	} else if n := len(res.Problems); n > 0 {
		a.notef("%d transcript(s) could not be searched; --verbose lists them", n)
	}
	f := found{list: listed, hits: res.Hits}
	for i := range f.list {
		if _, ok := f.hits[f.list[i].Transcript]; !ok {
			continue
		}
		if f.list[i].Hidden && !all {
			f.hidden = append(f.hidden, i)
			continue
		}
		f.idx = append(f.idx, i)
	}
	return f, nil
}

// noHit reports a search that has nothing to show: whole is what the
// query found, shown what is left after the FILTER (the same without one).
func (a *app) noHit(ctx context.Context, q search.Query, query, filter string, whole, shown found) error {
	a.why("no_match")
	if filter != "" {
		a.errorf("no session matching %s holds %s", msg.Quoted(filter), msg.Quoted(query))
	} else {
		a.errorf("no session holds %s", msg.Quoted(query))
	}
	a.hintf("%s", a.noHitHint(ctx, q, filter, whole, shown))
	return exit(exitcode.Failed)
}

// maxTermsExplained bounds the one-word searches a hint runs.
const maxTermsExplained = 8

// noHitHint says what would find something, true for the case: the
// hidden sessions that hold the query, the hits the FILTER left out, no
// sessions at all, or the words no session holds on their own.
func (a *app) noHitHint(ctx context.Context, q search.Query, filter string, whole, shown found) string {
	switch {
	case len(shown.hidden) > 0:
		return fmt.Sprintf("%d hidden session(s) match; --all includes them", len(shown.hidden))
	case len(whole.idx) > 0:
		return fmt.Sprintf("%d session(s) hold it, none matching %s; leave the filter out", len(whole.idx), msg.Quoted(filter))
	case len(whole.hidden) > 0:
		return fmt.Sprintf("%d hidden session(s) hold it, none matching %s; leave the filter out and add --all", len(whole.hidden), msg.Quoted(filter))
	}
	if p := a.projectsProblem(); p != "" {
		return p
	}
	if len(q.Terms) == 1 {
		return "check the spelling, or search for part of the word (it matches inside longer words); tool output is not searched"
	}
	if len(q.Terms) > maxTermsExplained {
		return fmt.Sprintf("no session holds all %d words; try fewer", len(q.Terms))
	}
	var none []string
	for _, t := range q.Terms {
		res, err := a.rawSearch(ctx, search.Query{Terms: []search.Term{t}})
		if err != nil {
			return "no session holds every word; try fewer words"
		}
		if len(res.Hits) == 0 {
			w := t.Text
			if t.Phrase {
				w = `"` + w + `"`
			}
			none = append(none, w)
		}
	}
	switch len(none) {
	case 0:
		return "each word is in some session, but no one session holds them all; try fewer words"
	case 1:
		return fmt.Sprintf("no session holds %s at all; leave it out or check its spelling", msg.Quoted(none[0]))
	case len(q.Terms):
		return "no session holds any of the words, even alone; check their spelling"
	}
	return fmt.Sprintf("no session holds any of %s, even alone; leave them out or check their spelling", msg.Quoted(strings.Join(none, " ")))
}

func (f found) best(i int) search.Hit {
	if h := f.hits[f.list[i].Transcript]; len(h) > 0 {
		return h[0]
	}
	return search.Hit{}
}

// writeSearchTable prints the ls table with the best hit's snippet last,
// every row with its lineage mark. Candidate lists (several hits for
// --search) have no header, so `awk '{print $1}'` yields ids.
func writeSearchTable(w io.Writer, now time.Time, f found, header bool) error {
	t := render.NewTable(w, now, header, render.Search)
	for _, i := range f.idx {
		h := f.best(i)
		t.Add(&f.list[i], h.Role.String()+": "+msg.Cut(h.Snippet, 80))
	}
	return t.Close()
}

// writeSearchJSON prints the ls array with each object's hits added.
func writeSearchJSON(w io.Writer, f found) error {
	j := render.NewJSONArray(w)
	for _, i := range f.idx {
		hits := f.hits[f.list[i].Transcript]
		j.Add(&f.list[i], func(b []byte) []byte {
			b = append(b, `,"hits":[`...)
			for n, h := range hits {
				if n > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"role":`...)
				b = jsonl.AppendString(b, h.Role.String())
				b = append(b, `,"at":`...)
				b = jsonl.AppendString(b, h.At.UTC().Format(time.RFC3339))
				b = append(b, `,"snippet":`...)
				b = jsonl.AppendString(b, h.Snippet)
				b = append(b, '}')
			}
			return append(b, ']')
		})
	}
	return j.Close()
}

// resolveSearch is `forgectl resume --search QUERY [FILTER]`: the sessions
// holding the query (narrowed by FILTER's rules when one is given), resolved
// as a FILTER's hits are.
func (a *app) resolveSearch(ctx context.Context, o resumeOpts) (*harness.Session, error) {
	q, err := a.parseQuery(o.search, "resume")
	if err != nil {
		return nil, err
	}
	whole, err := a.searchSessions(ctx, q, o.all, o.verbose)
	if err != nil {
		return nil, err
	}
	f := whole
	if o.filter != "" {
		m := match.New(o.filter, true)
		for i := range f.list {
			m.Add(&f.list[i])
		}
		keep, _ := m.Hits()
		in := map[*harness.Session]bool{}
		for _, s := range keep {
			in[s] = true
		}
		narrow := func(idx []int) []int {
			var out []int
			for _, i := range idx {
				if in[&f.list[i]] {
					out = append(out, i)
				}
			}
			return out
		}
		f.idx, f.hidden = narrow(f.idx), narrow(f.hidden)
	}
	switch {
	case len(f.idx) == 0:
		return nil, a.noHit(ctx, q, o.search, o.filter, whole, f)
	case len(f.idx) == 1:
		return &f.list[f.idx[0]], nil
	case !o.dryRun && a.stdinTTY && a.stdoutTTY:
		return a.pickSearchHits(ctx, f)
	}
	a.why("ambiguous")
	if a.verdict == nil { // a verdict is one object: no candidate table
		if err := writeSearchTable(a.stdout, a.now(), f, false); err != nil {
			return nil, err
		}
	}
	a.errorf("%d sessions hold %s", len(f.idx), msg.Quoted(o.search))
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
  --json      print a JSON array (see below); [] when nothing matches
              (exit 1), as 'resume ls --json' prints
  --all       include hidden sessions (print-mode, sidechains, continued)
              and archived ones
  --archived  only archived sessions. An archived session's text stays in
              the index while its transcript is in the archive: 'resume
              archive' brings the index up to date (building it if there is
              none) before it moves anything.
  --limit N   print at most N sessions, the newest (0: all)
  --verbose   report transcripts that could not be read, and what the index did
  Flags may come after the words. A word that starts with "-" is a flag
  unless it follows "--": search -- --force finds "--force".

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
  1  no session holds it (stdout empty; [] with --json; the hint on stderr
     says what would find something), or the search failed
  2  bad usage: no words, an unclosed quote, a bad flag
`
