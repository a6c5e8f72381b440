package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/shared/exitcode"
)

// The picker over search hits is the picker over a listing that is done
// before the finder opens: every row is appended, then the Source ends.

// searchItem is a picker row for a search hit: the session's row, and a
// preview that leads with the hits.
type searchItem struct {
	pickItem
	hits []search.Hit
	// q marks the query's words in the hits, in pickItem's style (the
	// finder's preview reads SGR escapes; its rows do not).
	q search.Query
}

func (s searchItem) Preview(width, height int) string {
	var b strings.Builder
	for _, h := range s.hits {
		fmt.Fprintf(&b, "%-7s %s  %s\n", h.Role, render.Age(s.now, h.At), render.Clean(h.Snippet))
	}
	b.WriteString("\n")
	// Wrapped first, then coloured line by line, so that no escape is
	// counted as text or cut in two.
	wrapped := render.Wrap(b.String(), width)
	lines := strings.Split(wrapped, "\n")
	for k, l := range lines {
		lines[k] = s.style.Marked(l, s.q.Marks(l))
	}
	return strings.Join(lines, "\n") + "\n" + s.pickItem.Preview(width, height-strings.Count(wrapped, "\n")-1)
}

// pickSearchHits opens the picker over the hits; the rows are final (the
// listing is done), so the picker shows them at once.
func (a *app) pickSearchHits(ctx context.Context, f found, q search.Query, o resumeOpts) (*harness.Session, error) {
	now := a.now()
	cols := a.termWidth()
	items := make([]picker.Item, len(f.idx))
	for k, i := range f.idx {
		s := &f.list[i]
		items[k] = searchItem{pickItem: pickItem{s: s, now: now, row: a.pickRow(now, s, cols), h: a.harnessOf(s), prices: o.prices, tail: &tailCache{}, style: o.out.style}, hits: f.hits[s.Transcript], q: q}
	}
	src := picker.NewSource()
	src.Append(items...)
	src.End(nil)
	it, err := a.picker.Pick(ctx, render.PickHeader(cols, "Enter resumes · Esc cancels · type to filter the hits"), src)
	switch {
	case errors.Is(err, picker.ErrAborted):
		return nil, exit(exitcode.Interrupted)
	case err != nil:
		a.errorf("picker: %v", err)
		return nil, exit(exitcode.Failed)
	}
	si, ok := it.(searchItem)
	if !ok {
		a.errorf("picker: row %q names no session", it.Row())
		return nil, exit(exitcode.Failed)
	}
	if err := a.confirmContext(si.s, o); err != nil {
		return nil, err
	}
	return si.s, nil
}
