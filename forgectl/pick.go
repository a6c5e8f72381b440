package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/tasks"
)

// pickerHeadStart is how long the picker waits for its first rows before
// it opens the finder empty. Rows that are there when it opens are drawn
// at once; later ones wait for its 30 ms reload tick. An empty home (no
// transcripts) lists in a few milliseconds, so it gets its message without
// the finder flashing on screen.
const pickerHeadStart = 40 * time.Millisecond

// leaveWait bounds how long leaving the picker waits for the listing to
// stop and write its index: it is stopped, not run to its end, so this is
// only the file it was reading and the index write.
const leaveWait = 3 * time.Second

// errNoSessions ends the picker when the listing found nothing.
var errNoSessions = errors.New("no sessions")

// pickWhileListing opens the picker while the sessions are listed: rows
// are appended as the listing hands them on, newest first, and the list
// only grows, so no row moves under the cursor (see picker.Source). Enter
// during the fill resumes the highlighted row, once it is checked against
// the registry and the disk again: a listing's facts are as old as the
// listing.
//
// Task counts are left out of the listing (the preview reads them for the
// one session shown).
func (a *app) pickWhileListing(ctx context.Context, o resumeOpts) (*harness.Session, error) {
	src := picker.NewSource()
	now := a.now()
	// The finder owns the terminal: what the listing has to say waits
	// until it has let go.
	held := &heldNotes{}
	defer held.flushTo(a.stderr)
	listCtx, stopListing := context.WithCancel(ctx)
	defer stopListing()
	listed := make(chan error, 1)
	fam := render.NewKin(nil)
	cols := a.termWidth() // the rows are laid out for the list's half of it
	go func() {
		rows := 0
		_, err := a.list(listCtx, listing{w: held, verbose: o.verbose, active: o.active}, func(s *harness.Session) error {
			fam.Add(s) // a hidden parent is still named in a preview
			if (s.Hidden && !o.all) || (o.archived && s.HiddenReason != archivedReason) {
				return nil
			}
			rows++
			src.Append(pickItem{s: s, now: now, row: a.pickRow(now, s, cols), h: a.harnessOf(s), kin: fam, prices: o.prices, tail: &tailCache{}, style: o.out.style})
			return nil
		})
		if err == nil && (o.all || o.archived) {
			// The archive's rows come last: they are read from its index
			// once the tree's are all there.
			for _, s := range a.archivedRows(listCtx, nil, o.active) {
				fam.Add(s)
				rows++
				src.Append(pickItem{s: s, now: now, row: a.pickRow(now, s, cols), h: a.harnessOf(s), kin: fam, prices: o.prices, tail: &tailCache{}, style: o.out.style})
			}
		}
		switch {
		case err != nil && listCtx.Err() == nil:
			src.End(err)
		case rows == 0 && err == nil:
			src.End(errNoSessions)
		default:
			src.End(nil)
		}
		listed <- err
	}()

	select {
	case <-src.Ready():
	case <-time.After(pickerHeadStart):
	case <-ctx.Done():
	}
	it, err := a.picker.Pick(ctx, render.PickHeader(cols, "Enter resumes · Esc cancels · type to filter"), src)
	// Whatever was chosen, the rest of the listing is not needed now: stop
	// it, and let it write what it read to the index (a first run's next
	// run starts from there), so that a resume (which replaces this
	// process) never cuts the write short.
	stopListing()
	select {
	case <-listed:
	case <-time.After(leaveWait):
	}
	held.flushTo(a.stderr)
	switch {
	case errors.Is(err, errNoSessions):
		// The primary's words, whichever harnesses are listed: what this
		// has always said (a resume without the picker names the first
		// harness listed, noneFound).
		e, h := a.primary().NoneFound()
		a.errorf("%s", e)
		a.hintf("%s", h)
		return nil, exit(exitcode.Failed)
	case errors.Is(err, picker.ErrAborted):
		return nil, exit(exitcode.Interrupted)
	case err != nil:
		if _, ok := cli.Code(err); ok {
			return nil, err
		}
		a.errorf("picker: %v", err)
		return nil, exit(exitcode.Failed)
	}
	if ctx.Err() != nil { // Ctrl-C as the choice was made: nothing is done
		return nil, exit(exitcode.Interrupted)
	}
	pi, ok := it.(pickItem)
	if !ok {
		a.errorf("picker: row %q names no session", it.Row())
		return nil, exit(exitcode.Failed)
	}
	s := *pi.s
	if a.inArchive(&s) {
		return &s, nil // restored, then resumed (resumeSession)
	}
	if gone := a.harnessOf(&s).Refresh(&s); gone {
		a.errorf("session %s is no longer on disk (%s)", s.ID, s.Transcript)
		a.hintf("run 'forgectl resume' again to pick from the sessions there are now")
		return nil, exit(exitcode.Failed)
	}
	if err := a.confirmContext(&s, o); err != nil {
		return nil, err
	}
	return &s, nil
}

// confirmContext asks, once, before a picked session whose context is
// above [resume] warn_context_tokens is resumed: the picker is the one
// place a person chooses without having seen the figure. Anything but a
// yes leaves as Esc in the picker does.
func (a *app) confirmContext(s *harness.Session, o resumeOpts) error {
	if !overWarn(s, o) {
		return nil
	}
	a.warnf("%s", warnText(s, o))
	fmt.Fprintf(a.stderr, "forgectl: resume %s anyway? [y/N] ", render.ShortID(s.ID))
	answer, _ := bufio.NewReader(a.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	a.notef("not resumed")
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

// pickItem adapts a session to the picker.
type pickItem struct {
	s   *harness.Session
	now time.Time
	row string
	h   harness.Harness // to count tasks and read the conversation for the preview
	kin *render.Kin     // the rows so far, for the preview's parent and children
	// prices gives the dollar estimate ([resume.prices]; nil: none).
	prices render.Prices
	// tail keeps the conversation the preview read, for its next drawing.
	tail *tailCache
	// style colours the preview (--color; the finder's preview reads SGR
	// escapes, its rows do not).
	style render.Style
}

func (p pickItem) Row() string { return p.row }

// Preview is the session's facts, then as much of the end of its
// conversation as the pane has lines for, the newest at the bottom.
func (p pickItem) Preview(width, height int) string {
	head := p.style.Preview(render.Preview(p.s, p.now, width, p.kin, func(s *harness.Session) (tasks.Counts, string) {
		return p.h.Tasks(s)
	}, p.prices), p.s)
	return p.withConversation(head, width, height)
}

// withConversation puts the session's last turns below head, in the
// lines of the pane head leaves (a blank one between).
func (p pickItem) withConversation(head string, width, height int) string {
	room := height - strings.Count(head, "\n") - 2
	if room < 1 || p.tail == nil {
		return head
	}
	turns, err := p.tail.get(p.h, p.s, room)
	if err != nil {
		return head + "\n\n" + render.Clean("(the conversation cannot be read: "+err.Error()+")")
	}
	if conv := render.Conversation(turns, width, room); conv != "" {
		return head + "\n\n" + conv
	}
	return head
}

// tailCache is one session's conversation as the preview last read it:
// the finder draws the preview again at every keystroke and reload, and
// the turns are read again only for a taller pane or a grown transcript.
type tailCache struct {
	mu    sync.Mutex
	max   int
	size  int64
	turns []harness.Turn
	err   error
}

func (c *tailCache) get(h harness.Harness, s *harness.Session, max int) ([]harness.Turn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max >= max && c.size == s.Size {
		return c.turns, c.err
	}
	c.turns, c.err = h.Tail(s, max)
	c.max, c.size = max, s.Size
	return c.turns, c.err
}
