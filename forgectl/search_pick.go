package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/forgectl/internal/search"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/sessions"
)

// The picker over search hits goes through the picker's existing entry
// point (a Source set once, then Pick): the hits are known before the
// finder opens, so none of the listing-while-picking machinery applies.

// searchItem is a picker row for a search hit: the session's row, and a
// preview that leads with the hits.
type searchItem struct {
	pickItem
	hits []search.Hit
}

func (s searchItem) Preview(width int) string {
	var b strings.Builder
	for _, h := range s.hits {
		fmt.Fprintf(&b, "%-7s %s  %s\n", h.Role, age(s.now, h.At), clean(h.Snippet))
	}
	b.WriteString("\n")
	return wrap(b.String(), width) + "\n" + s.pickItem.Preview(width)
}

// pickSearchHits opens the picker over the hits; the rows are final (the
// listing is done), so the picker shows them at once.
func (a *app) pickSearchHits(ctx context.Context, f found) (*sessions.Session, error) {
	now := a.now()
	claude := a.claudePaths()
	items := make([]picker.Item, len(f.idx))
	for k, i := range f.idx {
		s := &f.list[i]
		items[k] = searchItem{pickItem: pickItem{s: s, now: now, row: pickRow(now, s), claude: claude}, hits: f.hits[s.Transcript]}
	}
	src := picker.NewSource()
	src.Set(items)
	it, err := a.picker.Pick(ctx, "Enter resumes · Esc cancels · type to filter the hits", src)
	var unsettled *picker.Unsettled
	if errors.As(err, &unsettled) {
		it, err = unsettled.Item, nil // the rows never change here
	}
	switch {
	case errors.Is(err, picker.ErrAborted), errors.Is(err, picker.ErrBlank):
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
	return si.s, nil
}
