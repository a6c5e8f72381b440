// Package pickcache keeps the rows the picker listed last, so that the next
// `forgectl resume` puts rows on the screen at once instead of after a full
// listing (a stat of every transcript, then the index: longer than a person
// should wait for a first screen at 10,000 sessions). The picker then lists
// afresh in the background and the fresh rows replace these within a few
// tens of milliseconds; a choice is always resolved against the fresh
// listing, so nothing is ever resumed, refused or restored on the strength
// of this cache.
//
// Loading must take a few milliseconds, so each entry holds its row already
// drawn but for the age column (which depends on the clock), and the
// session fields a preview shows stay encoded until a preview asks.
//
// It is a cache: a missing, foreign or damaged file is not used, and the
// next picker writes a new one.
package pickcache

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/fsutil"
)

const (
	magic = "FCPICK"
	// format changes with the encoding below.
	format = 1
	// maxPrompt caps each prompt kept: the preview shows a few lines of
	// it, and the fresh listing brings the rest a moment later.
	maxPrompt = 480
)

// Entry is one cached session.
type Entry struct {
	LastActivity time.Time
	Hidden       bool
	// Tail is the session's picker row after its age column.
	Tail   string
	detail string // the preview's fields, encoded
}

// Session decodes the fields a preview shows: id, name and its source,
// first and last prompt (cut to a few hundred bytes), cwd and whether it
// existed, repo, branch, last activity, and the live pid and tmux pane.
// Everything else is zero.
func (e *Entry) Session() (sessions.Session, error) {
	s := sessions.Session{LastActivity: e.LastActivity, Hidden: e.Hidden}
	d := binrec.Decoder{S: e.detail}
	for _, v := range detailStrings(&s) {
		*v = d.String()
	}
	s.Pid = int(d.Int())
	s.CwdExists = d.Bool()
	s.Live = d.Bool()
	if d.Err() == nil && (d.Rest() != 0 || s.ID == "") {
		return s, binrec.ErrCorrupt
	}
	return s, d.Err()
}

func detailStrings(s *sessions.Session) []*string {
	return []*string{&s.ID, &s.Name, &s.NameSource, &s.FirstPrompt, &s.LastPrompt, &s.Cwd, &s.Repo, &s.Branch, &s.Tmux}
}

// The file: magic, format, root, the number of entries, then the rows
// section (per entry: last activity, hidden, the row's tail, where its
// detail ends in the details section), then the details section. Loading
// reads only the rows section; a preview decodes one detail.

// Encode returns the cache file for list, the listing of the Claude Code
// tree whose projects folder is root; tail draws a session's row after its
// age column. The same list encodes to the same bytes, so a caller can skip
// writing an unchanged cache.
func Encode(root string, list []sessions.Session, tail func(*sessions.Session) string) []byte {
	e := binrec.Encoder{B: make([]byte, 0, 64+len(list)*130)}
	e.B = append(e.B, magic...)
	e.Uint(format)
	e.String(root)
	e.Uint(uint64(len(list)))
	details := binrec.Encoder{B: make([]byte, 0, len(list)*280)}
	for i := range list {
		s := list[i] // a copy: the prompts are cut below
		s.FirstPrompt, s.LastPrompt = capText(s.FirstPrompt), capText(s.LastPrompt)
		for _, v := range detailStrings(&s) {
			details.String(*v)
		}
		details.Int(int64(s.Pid))
		details.Bool(s.CwdExists)
		details.Bool(s.Live)

		e.Int(s.LastActivity.UnixNano())
		e.Bool(s.Hidden)
		e.String(tail(&list[i]))
		e.Uint(uint64(len(details.B)))
	}
	return append(e.B, details.B...)
}

// Load reads the cache at path, written for the projects folder root. It
// returns the entries and the file's bytes (to compare a new encoding
// with); a missing file is (nil, "", nil), and a damaged or foreign one an
// error with no entries. The file is mapped, not read: the entries refer
// into the mapping, and only the rows section's pages are touched.
func Load(path, root string) ([]Entry, string, error) {
	b, err := fsutil.MapFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", nil
		}
		return nil, "", err
	}
	if !strings.HasPrefix(b, magic) {
		return nil, b, fmt.Errorf("%s: not a picker cache", path)
	}
	d := binrec.Decoder{S: b[len(magic):]}
	if d.Uint() != format {
		return nil, b, nil // another version's cache: not an error, just not used
	}
	if r := d.String(); r != root || d.Err() != nil {
		// Another CLAUDE_CONFIG_DIR's sessions: never show them, even briefly.
		return nil, b, d.Err()
	}
	list := make([]Entry, d.Count())
	ends := make([]uint64, len(list))
	for i := range list {
		list[i] = Entry{LastActivity: time.Unix(0, d.Int()).UTC(), Hidden: d.Bool(), Tail: d.String()}
		ends[i] = d.Uint()
	}
	if d.Err() != nil {
		return nil, b, fmt.Errorf("%s: %w", path, d.Err())
	}
	details := d.S
	var start uint64
	for i, end := range ends {
		if end < start || end > uint64(len(details)) {
			return nil, b, fmt.Errorf("%s: %w", path, binrec.ErrCorrupt)
		}
		list[i].detail = details[start:end]
		start = end
	}
	if start != uint64(len(details)) {
		return nil, b, fmt.Errorf("%s: %w", path, binrec.ErrCorrupt)
	}
	return list, b, nil
}

// Path is the cache file in dir for the projects folder root: one per
// Claude Code tree, so that a person switching CLAUDE_CONFIG_DIR between
// two trees keeps a cache for each.
func Path(dir, root string) string {
	h := fnv.New64a()
	h.Write([]byte(root))
	return filepath.Join(dir, fmt.Sprintf("picker-rows-%016x", h.Sum64()))
}

// Save replaces the cache at path with data (from Encode).
func Save(path string, data []byte) error {
	if err := fsutil.MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	// A picker left while a slow listing ran may have been cut short mid-write.
	fsutil.RemoveStaleTemps(path, time.Minute)
	return fsutil.WriteAtomic(path, data, fsutil.FilePerm)
}

// capText cuts s to at most maxPrompt bytes on a rune boundary.
func capText(s string) string {
	if len(s) <= maxPrompt {
		return s
	}
	i := maxPrompt
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
