package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/interrupt"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/msg"
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
	a.harnessFlag(fs)
	limit := fs.Int("limit", 0, "print at most N sessions (0: all)")
	verbose := fs.Bool("verbose", false, "report files that could not be read and what the index did")
	dates := dateFlags(a, fs, "resume search ")
	color := colorFlag(a, fs, "resume search ")
	archived := fs.Bool("archived", false, "only archived sessions: forgectl's archive and Codex's archived_sessions/")
	return func(ctx context.Context, args []string) error {
		active, err := dates()
		if err != nil {
			return err
		}
		o, err := color()
		if err != nil {
			return err
		}
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
		if !*asJSON && o.width > 0 && !*archived {
			return a.searchToTerminal(ctx, q, query, *all, *verbose, active, *limit, o)
		}
		found, err := a.searchSessions(ctx, q, *all || *archived, *verbose, active)
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
			err = a.writeSearchTable(o, q, found, true)
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
	// outside counts the matching sessions --since or --until left out.
	outside int
}

// rawSearch runs the search alone, leaving on Ctrl-C at once: the search
// itself stops between transcripts, but may be waiting for another
// search's lock. Each harness has its own index; their hits are by path,
// which no two harnesses share, and owners names the harness of each.
// early, when not nil, hears of hits as a first build finds them
// (search.Options.Early and Passed), with the harness they are of, and of
// each harness's result as its search ends; the harnesses are then
// searched side by side, so that their early hits can be merged newest
// first (earlyMerge). Without it they are searched in turn.
func (a *app) rawSearch(ctx context.Context, q search.Query, early *earlyHooks) (search.Result, map[string]string, error) {
	type searched struct {
		res    search.Result
		owners map[string]string
		err    error
	}
	ch := make(chan searched, 1)
	go func() {
		hs := a.harnesses()
		results := make([]search.Result, len(hs))
		errs := make([]error, len(hs))
		// One harness's failure ends the others' searches: side by side,
		// a first build of the other index could run on for minutes.
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		one := func(k int) {
			h := hs[k]
			opt := a.searchOptionsFor(h)
			opt.OnExit = func(fn func()) func() { return interrupt.OnExit(ctx, fn) }
			name := h.Name()
			if early != nil {
				opt.Early = func(p string, hits []search.Hit) { early.hit(name, p, hits) }
				if early.passed != nil {
					opt.Passed = func(m int64) { early.passed(name, m) }
				}
			}
			if a.searchSeam != nil {
				a.searchSeam(&opt)
			}
			results[k], errs[k] = search.Search(sctx, opt, q)
			if errs[k] != nil {
				cancel()
			} else if early != nil && early.done != nil {
				early.done(name, results[k])
			}
		}
		if early != nil && len(hs) > 1 {
			var wg sync.WaitGroup
			for k := range hs {
				wg.Go(func() { one(k) })
			}
			wg.Wait()
		} else {
			for k := range hs {
				if one(k); errs[k] != nil {
					break
				}
			}
		}
		var all search.Result
		owners := map[string]string{}
		if err := firstCause(ctx, errs); err != nil {
			ch <- searched{all, owners, err}
			return
		}
		for k, h := range hs {
			res := results[k]
			for p := range res.Hits {
				owners[p] = h.Name()
			}
			if all.Hits == nil {
				all = res
				continue
			}
			for p, hs := range res.Hits {
				all.Hits[p] = hs
			}
			all.Problems = append(all.Problems, res.Problems...)
			all.Notes = append(all.Notes, res.Notes...)
			all.Stats.Read += res.Stats.Read
			all.Stats.Reused += res.Stats.Reused
			all.Stats.Removed += res.Stats.Removed
			if all.Stats.Rebuilt == "" {
				all.Stats.Rebuilt = res.Stats.Rebuilt
			}
		}
		ch <- searched{all, owners, nil}
	}()
	select {
	case s := <-ch:
		return s.res, s.owners, s.err
	case <-ctx.Done():
		// Ctrl-C during a long first build: leave now. The index is only
		// ever replaced whole (a temp file renamed), so nothing half
		// written is trusted; the segment being written is removed as
		// the process ends (Options.OnExit).
		return search.Result{}, nil, exit(exitcode.Interrupted)
	}
}

func (a *app) searchOptions() search.Options {
	return a.searchOptionsFor(a.primary())
}

// searchOptionsFor is the search index of one harness, in forgectl's
// cache (harness.About's Search). The primary harness's keeps the entries
// of the transcripts in forgectl's archive while they are away: the
// archive holds only its sessions.
func (a *app) searchOptionsFor(h harness.Harness) search.Options {
	dir := filepath.Join(a.forgectlPaths().Cache(), h.About().Search)
	opt := search.Options{Harness: h, Dir: dir}
	if h.Name() == harnessRoster()[0].name {
		if paths := a.archivedTranscripts(); len(paths) > 0 {
			opt.Keep = func(p string) bool { return paths[p] }
		}
	}
	return opt
}

// byOwner is paths by the harness owners names for each.
func byOwner(paths []string, owners map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, p := range paths {
		out[owners[p]] = append(out[owners[p]], p)
	}
	return out
}

// searchSessions runs the search, then lists just the sessions it found
// (sessions.Options.Paths): the rows of a few hits cost far less than a
// listing of every session.
func (a *app) searchSessions(ctx context.Context, q search.Query, all, verbose bool, active when.Window) (found, error) {
	res, owners, err := a.runSearch(ctx, q, nil)
	if err != nil {
		return found{}, err
	}
	paths := make([]string, 0, len(res.Hits))
	for p := range res.Hits {
		paths = append(paths, p)
	}
	f, err := a.listHits(ctx, res.Hits, byOwner(paths, owners), all, verbose, active)
	if err == nil {
		a.searchNotes(res, verbose)
	}
	return f, err
}

// searchNotes reports what the index did (--verbose) and the transcripts
// it could not read.
func (a *app) searchNotes(res search.Result, verbose bool) {
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
}

// runSearch is rawSearch with its notes and failure reported;
// early hears of hits as a first build finds them (search.Options.Early).
func (a *app) runSearch(ctx context.Context, q search.Query, early *earlyHooks) (search.Result, map[string]string, error) {
	res, owners, err := a.rawSearch(ctx, q, early)
	if _, ok := cli.Code(err); ok {
		return res, owners, err
	}
	for _, n := range res.Notes {
		a.notef("%s", n)
	}
	if err != nil {
		a.errorf("cannot search: %v", err)
		// The index is the likely culprit only when there are sessions
		// to index.
		if p := a.primary().HomeProblem(); p != "" {
			a.hintf("%s", p)
		} else {
			a.hintf("the index under %s is a cache and safe to delete", a.searchOptions().Dir)
		}
		return res, owners, exit(exitcode.Failed)
	}
	return res, owners, nil
}

// listHits lists the sessions of paths (by harness), which hold hits,
// newest first, the hidden ones (without all) and those outside active
// set apart.
func (a *app) listHits(ctx context.Context, hits map[string][]search.Hit, paths map[string][]string, all, verbose bool, active when.Window) (found, error) {
	var listed []harness.Session
	_, lerr := a.list(ctx, listing{w: a.stderr, verbose: verbose, countTasks: true, paths: paths, active: active}, func(s *harness.Session) error {
		listed = append(listed, *s)
		return nil
	})
	if lerr != nil {
		return found{}, lerr
	}
	// A hit in an archived transcript is the archive's row (hidden, so
	// shown with --all or --archived): the tree does not hold it.
	n := 0
	for _, ps := range paths {
		n += len(ps)
	}
	if len(listed) < n {
		listedPaths := make(map[string]bool, len(listed))
		for i := range listed {
			listedPaths[listed[i].Transcript] = true
		}
		asked := make(map[string]bool, n)
		for _, ps := range paths {
			for _, p := range ps {
				asked[p] = true
			}
		}
		for _, s := range a.archivedRows(ctx, nil, active) {
			if asked[s.Transcript] && !listedPaths[s.Transcript] {
				listed = append(listed, *s)
			}
		}
	}
	f := found{list: listed, hits: hits}
	if !active.Open() {
		f.outside = n - len(listed)
	}
	for i := range f.list {
		// A thread of several files has its hits under its newest.
		for _, p := range f.list[i].Segments {
			if hs, ok := f.hits[p]; ok && p != f.list[i].Transcript {
				f.hits[f.list[i].Transcript] = append(f.hits[f.list[i].Transcript], hs...)
			}
		}
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
	case whole.outside > 0:
		return fmt.Sprintf("%d session(s) hold it, last active outside --since/--until; widen the dates", whole.outside)
	}
	if p := a.primary().HomeProblem(); p != "" {
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
		res, _, err := a.rawSearch(ctx, search.Query{Terms: []search.Term{t}}, nil)
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

// searchToTerminal is search on a terminal: the table is laid out for
// the terminal at once (render.Table.Stream) and a first search's hits are
// printed as the index build finds them, newest first; the hits a search
// of an index that exists finds follow when it is done. Either way the
// rows and their order are those of a warm search, and the index is
// complete when it returns (an interrupted build leaves none: the next
// search builds it again).
func (a *app) searchToTerminal(ctx context.Context, q search.Query, query string, all, verbose bool, active when.Window, limit int, o output) error {
	t := render.NewTable(a.stdout, a.now(), true, render.Search)
	t.Fit(o.width, o.style, snippetMarks(q))
	t.Mark = a.markRows()
	var (
		mu     sync.Mutex
		queue  []string
		owners = map[string]string{}
		hits   = map[string][]search.Hit{}
		wake   = make(chan struct{}, 1)
	)
	early := func(owner, path string, h []search.Hit) {
		mu.Lock()
		queue = append(queue, path)
		owners[path] = owner
		hits[path] = h
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	// take hands over the queued paths with their hits: a copy, since
	// early goes on adding to hits while the rows are listed.
	take := func() ([]string, map[string][]search.Hit) {
		mu.Lock()
		defer mu.Unlock()
		q := queue
		queue = nil
		h := make(map[string][]search.Hit, len(q))
		for _, p := range q {
			h[p] = hits[p]
		}
		return q, h
	}
	// With more than one harness their first builds run side by side and
	// their early hits are merged newest first, as the listing merges
	// their sessions.
	hooks := &earlyHooks{hit: early}
	if names := a.harnessNames(); len(names) > 1 {
		hooks = newEarlyMerge(names, early).hooks()
	}
	type searched struct {
		res search.Result
		err error
	}
	done := make(chan searched, 1)
	go func() {
		res, own, err := a.runSearch(ctx, q, hooks)
		mu.Lock()
		for p, h := range own {
			owners[p] = h
		}
		mu.Unlock()
		done <- searched{res, err}
	}()
	var whole found
	shown := 0
	handled := map[string]bool{}
	// show lists paths' sessions and writes the rows, in listing order;
	// paths come newest first, so batch after batch keeps that order.
	show := func(paths []string, h map[string][]search.Hit) error {
		if len(paths) == 0 {
			return nil
		}
		mu.Lock()
		byHarness := byOwner(paths, owners)
		mu.Unlock()
		f, err := a.listHits(ctx, h, byHarness, all, verbose, active)
		if err != nil {
			return err
		}
		for _, p := range paths {
			handled[p] = true
		}
		whole.hidden = append(whole.hidden, f.hidden...)
		whole.outside += f.outside
		for _, i := range f.idx {
			if limit > 0 && shown >= limit {
				break
			}
			if shown == 0 {
				t.Stream()
			}
			t.Add(&f.list[i], snippetCell(f.best(i)))
			whole.idx = append(whole.idx, i)
			shown++
		}
		return nil
	}
	var res search.Result
	for waiting := true; waiting; {
		select {
		case <-wake:
			if err := show(take()); err != nil {
				return err
			}
			continue
		case r := <-done:
			if r.err != nil {
				t.Close()
				return r.err
			}
			res, waiting = r.res, false
		}
	}
	if err := show(take()); err != nil {
		return err
	}
	// What was not streamed (an index that existed): the rest, in order.
	var rest []string
	for p := range res.Hits {
		if !handled[p] {
			rest = append(rest, p)
		}
	}
	if err := show(rest, res.Hits); err != nil {
		return err
	}
	a.searchNotes(res, verbose)
	if err := t.Close(); err != nil {
		return err
	}
	if shown == 0 {
		return a.noHit(ctx, q, query, "", whole, whole)
	}
	return nil
}

// snippetMarks highlights a snippet cell's matches, not a word of its
// role ("prompt: ").
func snippetMarks(q search.Query) func(string) [][2]int {
	return func(v string) [][2]int {
		at := strings.Index(v, ": ") + 2
		marks := q.Marks(v[at:])
		for k := range marks {
			marks[k][0] += at
			marks[k][1] += at
		}
		return marks
	}
}

// snippetCell is the SNIPPET column: the best hit's role and text, whole
// (a terminal's table cuts it to fit).
func snippetCell(h search.Hit) string { return h.Role.String() + ": " + h.Snippet }

// writeSearchTable prints the ls table with the best hit's snippet last,
// every row with its lineage mark. Candidate lists (several hits for
// --search) have no header, so `awk '{print $1}'` yields ids.
func (a *app) writeSearchTable(o output, q search.Query, f found, header bool) error {
	t := render.NewTable(a.stdout, a.now(), header, render.Search)
	t.Fit(o.width, o.style, snippetMarks(q))
	t.Mark = a.markRows()
	for _, i := range f.idx {
		t.Add(&f.list[i], snippetCell(f.best(i)))
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
	whole, err := a.searchSessions(ctx, q, o.all, o.verbose, o.active)
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
		return a.pickSearchHits(ctx, f, q, o)
	}
	a.why("ambiguous")
	if a.verdict == nil { // a verdict is one object: no candidate table
		if err := a.writeSearchTable(o.out, q, f, false); err != nil {
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
	text = strings.Replace(text, "@CAP@", fmt.Sprintf("%d MiB", jsonl.DecodeCap>>20), 1)
	return strings.Replace(text, "@MAXLINE@", fmt.Sprintf("%d MiB", jsonl.DefaultMaxLine>>20), 1)
}

const searchHelpText = `
forgectl resume search — find the sessions whose conversation holds words

USAGE
  forgectl resume search [--json] [--all] [--limit N] [--verbose]
                        [--since WHEN] [--until WHEN]
                        [--harness claude|codex]... QUERY...
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
  Codex threads the same way: prompts as typed, agent replies, the string
  inputs of tool calls and the thread's names; never tool output, reasoning,
  or the blocks Codex injects (environment context, AGENTS.md, skills).
  --harness narrows the search as it narrows ls; each agent has its own
  index.

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
  The first search (no index yet) reads the transcripts newest first and,
  on a terminal, prints each hit as it is read, newest first, while the
  index is built behind them; the rows, and their order, are those a warm
  search prints, and the index is complete when the command ends. Ctrl-C
  during that build keeps the rows printed and writes no index (the next
  search builds it again). On a terminal the table is laid out for its
  width from the start, with no TASKS or LIVE column (a live hit says
  live:<pid> after its title); piped or with --json, the output comes
  whole at the end, as before.

FLAGS
  --json      print a JSON array (see below); [] when nothing matches
              (exit 1), as 'resume ls --json' prints
  --all       include hidden sessions (print-mode, sidechains, continued)
              and archived ones
  --archived  only archived sessions, of every harness searched: Claude
              Code sessions in forgectl's archive and Codex threads in
              archived_sessions/. An archived session's text stays in the
              index while its transcript is in forgectl's archive: 'resume
              archive' brings the index up to date (building it if there is
              none) before it moves anything.
  --limit N   print at most N sessions, the newest (0: all)
  --verbose   report transcripts that could not be read, and what the index did
` + datesHelp + colorHelp + `  Flags may come after the words. A word that starts with "-" is a flag
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

// firstCause is the first error of errs that is not the cancel one
// harness's failure sent the others (ctx itself still running), else the
// first error.
func firstCause(ctx context.Context, errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil || !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return first
}
