package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/match"
	"forgectl.dev/forgectl/internal/pickcache"
	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/sessions"
)

// pickerHeadStart is how long the picker waits for the listing before it
// opens empty, when it has no cached rows to show. A warm listing of 10,000
// sessions takes well under it, and rows ready before the finder opens are
// drawn at once, while rows arriving later wait for the finder's 30 ms
// reload tick. A cold listing, which takes seconds, fills the open finder
// when it is done.
const pickerHeadStart = 300 * time.Millisecond

// minCachedRows is the smallest listing worth showing from the cache: a
// smaller one lists in a few milliseconds, and showing it from the cache
// would only mean replacing it on screen a moment later.
const minCachedRows = 200

// firstDrawWait bounds how long the fresh listing waits for the cached
// rows to be drawn (they normally are within a few tens of milliseconds).
const firstDrawWait = 150 * time.Millisecond

// abandonListing bounds how long leaving the picker (Esc, an error) waits
// for the fresh listing to finish.
const abandonListing = time.Second

// errNoSessions ends the picker when the listing found nothing.
var errNoSessions = errors.New("no sessions")

// listing is the picker's fresh listing, once it is done.
type listing struct {
	sessions []sessions.Session
	err      error
}

// pickWhileListing opens the picker over the rows it cached last time, if
// any, and lists afresh at the same time; the fresh rows replace the cached
// ones as soon as they are ready, and the cache is rewritten when they
// differ. A full listing stats every transcript, which on 10,000 sessions
// takes longer than a person should wait for a first screen; the cache is
// read in a few milliseconds. Whatever row is chosen, the session resumed is
// the fresh listing's: a cached row only ever decides what is drawn.
//
// Task counts are left out of the listing (the preview reads them for the
// one session shown).
func (a *app) pickWhileListing(ctx context.Context, o resumeOpts) (*sessions.Session, error) {
	claude := a.claudePaths()
	root := claude.Projects()
	cachePath := pickcache.Path(a.forgectlPaths().Cache(), root)
	cached, raw, err := pickcache.Load(cachePath, root)
	if err != nil && o.verbose {
		a.notef("warning: the picker's row cache is not usable (it is rewritten): %v", err)
	}
	src := picker.NewSource()
	// One clock for the cached and the fresh rows: an age that ticked over
	// in between ("5s ago", "6s ago") would count as a changed row.
	now := a.now()
	var items []picker.Item
	if len(cached) >= a.pickCacheMin {
		items = cachedItems(cached, o.all, now, claude)
	}
	if len(items) > 0 {
		src.Set(items)
	}

	// The finder owns the terminal: what the listing has to say waits
	// until it has let go.
	held := &heldNotes{}
	defer held.flushTo(a.stderr)  // what an abandoned listing wrote late
	picked := make(chan struct{}) // closed when the finder has returned
	fresh := make(chan listing, 1)
	go func() {
		if len(items) > 0 {
			// The cached rows are on their way to the screen: list once
			// they are drawn. Listing allocates tens of megabytes on the
			// cores the finder needs, and started at once it made the
			// first screen later by half (measured).
			select {
			case <-src.Drawn():
			case <-picked:
			case <-time.After(firstDrawWait):
			}
		}
		res, err := a.listSessions(held, o.verbose, false)
		if err != nil {
			src.Fail(err)
			fresh <- listing{err: err}
			return
		}
		if items := pickItems(res.Sessions, o.all, now, claude); len(items) > 0 {
			src.Set(items)
		} else {
			src.Fail(errNoSessions)
		}
		// Written before the choice is acted on, so that a resume (which
		// replaces this process) never leaves half a temp file behind.
		if enc := pickcache.Encode(root, res.Sessions, rowTail); string(enc) != raw {
			if err := pickcache.Save(cachePath, enc); err != nil && o.verbose {
				noteTo(held, "warning: cannot save the picker's row cache: %v", err)
			}
		}
		fresh <- listing{sessions: res.Sessions}
	}()

	// Without cached rows, give a warm listing a head start: rows ready
	// before the finder opens are drawn at once, rows arriving later wait
	// for its 30 ms reload tick.
	select {
	case <-src.Ready():
	case <-time.After(pickerHeadStart):
	case <-ctx.Done():
	}
	it, err := a.picker.Pick(ctx, "Enter resumes · Esc cancels · type to filter", src)
	close(picked)
	// Chosen as the rows changed: resolved like any choice, then confirmed.
	var unsettled *picker.Unsettled
	if errors.As(err, &unsettled) {
		it, err = unsettled.Item, nil
	}
	if err != nil {
		// Leaving: let a listing that is about done write its caches, so
		// that exiting does not cut a write short. A long (cold) listing is
		// abandoned; should that leave a temp file beside a cache, the next
		// write of that cache removes it.
		select {
		case <-fresh:
		case <-time.After(abandonListing):
		}
		held.flushTo(a.stderr)
	}
	switch {
	case errors.Is(err, errNoSessions):
		a.errorf("no Claude Code sessions found under %s", root)
		a.hintf("sessions appear once a claude session has received a prompt; CLAUDE_CONFIG_DIR moves the tree")
		return nil, exit(exitcode.Failed)
	case errors.Is(err, picker.ErrAborted):
		return nil, exit(exitcode.Interrupted)
	case errors.Is(err, picker.ErrBlank):
		a.notef("nothing chosen: that row was empty (the list had just become shorter)")
		return nil, exit(exitcode.Interrupted)
	case err != nil:
		var ce *codeError
		if errors.As(err, &ce) {
			return nil, err
		}
		a.errorf("picker: %v", err)
		return nil, exit(exitcode.Failed)
	}
	// A cached row, chosen before the fresh rows arrived, names a session:
	// resume what the fresh listing says of it.
	var l listing
	select {
	case l = <-fresh:
	case <-time.After(300 * time.Millisecond):
		// Chosen before a slow (cold) listing finished: say why nothing
		// happens yet.
		a.notef("listing sessions…")
		select {
		case l = <-fresh:
		case <-ctx.Done(): // Ctrl-C: nothing is done
			held.flushTo(a.stderr)
			return nil, exit(exitcode.Interrupted)
		}
	case <-ctx.Done():
		held.flushTo(a.stderr)
		return nil, exit(exitcode.Interrupted)
	}
	held.flushTo(a.stderr)
	if l.err != nil {
		return nil, l.err
	}
	s, err := a.resolvePick(it, l.sessions)
	if err != nil || unsettled == nil {
		return s, err
	}
	return s, a.confirmPick(ctx, s)
}

// resolvePick is the fresh listing's session for a chosen row.
func (a *app) resolvePick(it picker.Item, fresh []sessions.Session) (*sessions.Session, error) {
	var id string
	switch it := it.(type) {
	case pickItem:
		return it.s, nil
	case *cachedItem:
		s, err := it.e.Session()
		if err != nil {
			a.errorf("the picker's row cache was damaged (it is rewritten from the fresh listing)")
			a.hintf("run 'forgectl resume' again")
			return nil, exit(exitcode.Failed)
		}
		id = s.ID
	default:
		a.errorf("picker: row %q names no session", it.Row())
		return nil, exit(exitcode.Failed)
	}
	for i := range fresh { // newest first, as claude --resume would pick
		if fresh[i].ID == id {
			return &fresh[i], nil
		}
	}
	a.errorf("session %s is no longer on disk", id)
	a.hintf("run 'forgectl resume' again to pick from the sessions there are now")
	return nil, exit(exitcode.Failed)
}

// confirmPick asks before resuming a session chosen just as a swap of rows
// put it under the cursor, when the person may have meant the session that
// was there a moment before. Only "y" resumes: keys typed ahead are thrown
// away first (a second Enter must not answer a question not yet read), and
// Ctrl-C leaves.
func (a *app) confirmPick(ctx context.Context, s *sessions.Session) error {
	if f, ok := a.stdin.(*os.File); ok {
		discardTypedAhead(f)
	}
	fmt.Fprintf(a.stderr, "forgectl: the list changed as you chose. Resume %s (%s @ %s, %s)? [y/N] ",
		clean(cut(title(s), 60)), orDash(s.Repo), orDash(s.Branch), age(a.now(), s.LastActivity))
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return nil
		}
		if line == "" || !strings.HasSuffix(line, "\n") {
			fmt.Fprintln(a.stderr)
		}
	case <-ctx.Done():
		fmt.Fprintln(a.stderr)
	}
	return exit(exitcode.Interrupted)
}

// heldNotes keeps messages written while the picker draws, for after.
type heldNotes struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (h *heldNotes) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.Write(p)
}

func (h *heldNotes) flushTo(w io.Writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.Write(h.buf.Bytes())
	h.buf.Reset()
}

// pickItems makes the picker's rows of list, newest first as listed.
func pickItems(list []sessions.Session, all bool, now time.Time, claude paths.Claude) []picker.Item {
	hits, _ := match.Find(list, "", all)
	items := make([]picker.Item, len(hits))
	fam := newFamily(list)
	// Rows for 10,000 sessions are a noticeable part of the time to first
	// rows: build them on every core.
	sessions.Parallel(len(hits), 0, func(k int) {
		s := &list[hits[k]]
		items[k] = pickItem{s: s, now: now, row: pickRow(now, s), claude: claude, fam: fam}
	})
	return items
}

// cachedItems makes rows of the picker's cache, as pickItems would have
// made them of the listing it was written from. The rows share one
// allocation and the items one slice: the first screen waits for this.
func cachedItems(list []pickcache.Entry, all bool, now time.Time, claude paths.Claude) []picker.Item {
	size := 0
	for i := range list {
		size += 10 + len(list[i].Tail)
	}
	var rows strings.Builder
	rows.Grow(size)
	ends := make([]int, 0, len(list))
	kept := make([]cachedItem, 0, len(list))
	env := &itemEnv{now: now, claude: claude}
	var age []byte
	for i := range list {
		e := &list[i]
		if e.Hidden && !all {
			continue
		}
		age = appendAgeColumn(age[:0], now, e.LastActivity)
		rows.Write(age)
		rows.WriteString(e.Tail)
		ends = append(ends, rows.Len())
		kept = append(kept, cachedItem{e: e, env: env})
	}
	text := rows.String()
	items := make([]picker.Item, len(kept))
	start := 0
	for k := range kept {
		kept[k].row = text[start:ends[k]]
		start = ends[k]
		items[k] = &kept[k]
	}
	return items
}
