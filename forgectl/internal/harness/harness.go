// Package harness is the boundary between forgectl and the coding agents
// whose sessions it lists, searches and resumes. A harness (Claude Code,
// in package claude below this one) says where its session files live and
// how to walk them, how a file becomes a row of the listing (joined with
// whatever the agent keeps beside it, see Lister), what is hidden and why,
// whether a session is live, what resuming one would cost (Session's
// cost fields, kept in its record) and the end of its conversation for
// the picker's preview (Tail), and how to resume one of its sessions
// (ResumeArgs, Busy, and Binary when the [launch] profile does not start
// it), with what forgectl shows of it (About, HomeProblem, NoneFound); the
// listing, search, the picker, rename and resume go through it, so
// another agent is one more package and one more line in forgectl's
// roster (harnessRoster in forgectl/harnesses.go). Codex, in package
// codex, is the second.
//
// What stays common lives outside: the walk's order and the one walk per
// invocation, the indexes, their files and their freshness rule
// (internal/fresh), the worker pool and the listing's window (package
// sessions), repository names, search's index and query, rendering,
// filters and the exit contract.
package harness

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/tasks"
)

// Harness is one coding agent.
type Harness interface {
	// Name is how ls --json and the config name it ("claude").
	Name() string
	// Walk stats the agent's session files, in no particular order: no
	// file is opened. A file that cannot be used (a FIFO named like a
	// transcript) is a problem, reported and skipped; err is for a walk
	// that could not run at all.
	Walk(ctx context.Context) (files []File, problems []error, err error)
	// Stat is Walk for the given paths: one that is gone, or is not one of
	// the agent's session files, is left out. A harness whose sessions own
	// several files adds the other files of those sessions (a row needs
	// them all).
	Stat(paths []string) []File
	// Text reads the searchable text of the session file f from offset
	// up to size, with sc as scratch: prompts, replies, the string inputs
	// of tool calls and names, never tool output or what the agent injects.
	// lastAt and earlier are what reading the file before offset found.
	Text(sc *jsonl.Scanner, f *os.File, offset, size, lastAt int64, earlier []Message) (TextRead, error)
	// Format is the version of what the harness's Lister stores in the
	// listing's index (its Records and its aux section), below 1<<16. The
	// engine folds it into the index's header: a change makes the next
	// listing rebuild the index.
	Format() uint64
	// Open starts one listing of the agent's sessions (see Lister).
	Open(opt OpenOptions) Lister
	// Indexed makes the row of file f from its stored record alone,
	// reading no session file: shell completion's read of the index, which
	// must answer within a keystroke (Codex reads its small name index
	// once, since names live only there). Identity, names, cwd and the
	// hidden flag are filled in; ok is false for a record that does not
	// decode, or for a file that is not the one row of its session (a
	// later segment of a Codex thread).
	Indexed(f *File, path string, old Stored) (s Session, ok bool)
	// Refresh brings what can change between a listing and a resume up to
	// date on s: whether it is live now. It reports a session whose files
	// are gone.
	Refresh(s *Session) (gone bool)
	// Tasks counts s's task list for a preview, when the listing left task
	// counts out (the picker's does, to open sooner); the source is what
	// Session.TasksSource would say.
	Tasks(s *Session) (counts tasks.Counts, source string)
	// Tail reads the newest turns of s's conversation, oldest first, for
	// the picker's preview: enough to fill max preview lines (see Turns),
	// read backwards from the end of its files and never more than
	// TailBytes of them.
	Tail(s *Session, max int) ([]Turn, error)
	// ResumeArgs are the agent's arguments, after those of the launch
	// profile, that resume s in place, or with fork branch a new session
	// off it. The directory it runs in is s.Cwd.
	ResumeArgs(s *Session, fork bool) []string
	// Busy is the error and hint that refuse resuming s in place while it
	// is live (two writers on one file corrupt it); both are "" when the
	// process that has it open lets another attach (Codex's daemon). A
	// fork is never refused.
	Busy(s *Session) (err, hint string)

	// About is how forgectl names the harness and where it keeps what it
	// derives from it.
	About() About
	// Present says the agent's home exists, so that it is listed when the
	// config names no [resume] harnesses. Claude Code always is: its
	// messages say where its sessions are expected.
	Present() bool
	// HomeProblem says why the agent's home has no sessions to find (it is
	// missing, not a folder, unreadable), "" when it can be read: a note
	// for an empty listing.
	HomeProblem() string
	// NoneFound is the error and hint for a resume that found none of the
	// agent's sessions at all.
	NoneFound() (err, hint string)
}

// About is what forgectl shows of a harness, and keeps for it, apart
// from its sessions.
type About struct {
	// Mark goes before each title in a list of more than one harness
	// ("cc"): two letters, so it costs no column.
	Mark string
	// Desc describes the name as a value of --harness in completion.
	Desc string
	// Index is the file name of the listing's index in forgectl's cache.
	Index string
	// Search is the folder of the search index in forgectl's cache.
	Search string
	// ByHand is the command a person resumes a session with
	// ("claude --resume"), named in hints before the id.
	ByHand string
}

// As is h as the optional interface T (Renamer, Binary, Archiver), looking through
// WalkOnce; ok is false for a harness that does not have it.
func As[T any](h Harness) (t T, ok bool) {
	if w, isWalk := h.(*walkOnce); isWalk {
		h = w.Harness
	}
	t, ok = h.(T)
	return t, ok
}

// File is a session file as a walk found it.
type File struct {
	// Dir is shared by the files of one directory: at 100,000 sessions
	// the walk's list is most of a warm listing's memory.
	Dir  *string
	Name string
	fresh.File
	// Folder says the session has a folder of its own beside the file
	// (Claude Code keeps subagents, tool results and a /rename's title
	// there).
	Folder bool
}

// Path is the file's whole path.
func (f *File) Path() string { return *f.Dir + string(filepath.Separator) + f.Name }

// WalkOnce is h with one walk per invocation: the first Walk's result is
// handed to every later call, so a command that searches and then lists
// the hits, or searches again for a hint, stats the tree once. Every
// caller gets the same slice: one may sort it (the listing orders it
// newest first, which is the same order whoever sorts it), none may change
// a file in it.
func WalkOnce(h Harness) Harness { return &walkOnce{Harness: h} }

type walkOnce struct {
	Harness
	mu       sync.Mutex
	done     bool
	files    []File
	problems []error
}

func (w *walkOnce) Walk(ctx context.Context) ([]File, []error, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return w.files, w.problems, nil
	}
	files, problems, err := w.Harness.Walk(ctx)
	if err != nil {
		return nil, nil, err // not kept: a cancelled walk is not the tree
	}
	w.done, w.files, w.problems = true, files, problems
	return files, problems, nil
}

// SortNewestFirst orders files by mtime, newest first (ties by folder,
// then name, so that the order is the same every time): the listing's
// order, which a first search's streamed hits follow too.
func SortNewestFirst(files []File) {
	sort.Slice(files, func(a, b int) bool {
		fa, fb := &files[a], &files[b]
		if fa.MtimeNs != fb.MtimeNs {
			return fa.MtimeNs > fb.MtimeNs
		}
		if *fa.Dir != *fb.Dir {
			return *fa.Dir < *fb.Dir
		}
		return fa.Name < fb.Name
	})
}

// Binary is a harness whose program forgectl finds itself. The [launch]
// profile is Claude Code's flags, environment and binary, so a harness
// without Binary is started through it.
type Binary interface {
	// Binary finds the program a resume runs (an error says why none can
	// be used, with a config.BinaryError's hint).
	Binary(getenv func(string) string, cfg *config.Config, lookPath func(string) (string, error)) (string, error)
}

// Archiver is a harness that archives its sessions itself, in its own
// layout, with its own program (found by Binary): forgectl's archive and
// unarchive run that program instead of moving the files into forgectl's
// archive. Codex is one: a rollout moved into archived_sessions/ by hand is
// a thread it can neither resume nor unarchive (its state database keeps
// the old path), so `codex archive ID` does it. rm still moves such a
// harness's files (the session's Transcript, or all its Segments) into
// forgectl's trash, and trash restore writes them back where they were.
type Archiver interface {
	Binary
	// ArchiveArgs are the program's arguments that archive s, or with
	// undo put an archived s back.
	ArchiveArgs(s *Session, undo bool) []string
	// ArchiveDir is where the harness keeps its archived sessions, for a
	// dry run to name.
	ArchiveDir() string
}
