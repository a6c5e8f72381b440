// Package picker is the fuzzy finder behind `forgectl resume`. It is the
// only package in the suite that links a terminal UI library, and it draws
// on the terminal (/dev/tty), never on stdout, so stdout stays for results.
package picker

import (
	"context"
	"errors"

	fuzzyfinder "github.com/ktr0731/go-fuzzyfinder"
)

// ErrAborted means the user left with Esc or Ctrl-C.
var ErrAborted = errors.New("picker aborted")

// Item is one row: the text that is drawn and searched, and a preview.
type Item interface {
	Row() string
	Preview(width int) string
}

// Picker chooses one item; callers depend on this interface so tests and
// non-terminal runs never touch the UI.
type Picker interface {
	Pick(ctx context.Context, header string, items []Item) (int, error)
}

// Fuzzy is the real picker.
type Fuzzy struct{}

// Pick opens the finder. Every item is searched from the first keystroke:
// nothing is loaded lazily.
func (Fuzzy) Pick(ctx context.Context, header string, items []Item) (int, error) {
	i, err := fuzzyfinder.Find(items,
		func(i int) string { return items[i].Row() },
		fuzzyfinder.WithContext(ctx),
		fuzzyfinder.WithHeader(header),
		fuzzyfinder.WithPromptString("resume> "),
		fuzzyfinder.WithPreviewWindow(func(i, width, _ int) string {
			if i < 0 || i >= len(items) {
				return ""
			}
			return items[i].Preview(width)
		}),
	)
	if errors.Is(err, fuzzyfinder.ErrAbort) || (err != nil && ctx.Err() != nil) {
		return -1, ErrAborted
	}
	return i, err
}
