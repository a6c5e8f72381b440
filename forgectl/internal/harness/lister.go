package harness

import (
	"time"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/jsonl"
)

// The listing's side of a harness. The engine (package sessions) owns the
// walk's order, the worker pool, the window that bounds how far the
// workers run ahead of a slow reader, and the index file: its framing, its
// hash tables, the mapping and its release, damage and truncation, and the
// rule that keeps a stored record valid while its file keeps its inode,
// size and mtime. A harness owns what a record says and how a file
// becomes a row: it is handed the file and the record the last listing
// stored for it, and answers with the row and the record to store next.
//
// A listing runs a Lister through these steps:
//
//  1. Join and ReadAux, concurrently with each other and with the walk.
//  2. Begin, once, with every file the walk found, newest first.
//  3. Row for each file, from the engine's workers, concurrently, in about
//     that order; a row is handed on as soon as it and those before it are.
//  4. WriteAux, when the engine rewrites the index (never for a listing of
//     given paths, which saw only a few files).
//
// Grouping. Claude Code has one file per session, so a row is a file's.
// A harness whose sessions own several files (a Codex thread: a segment
// per rewind, the newest segment the live one) has its Lister implement
// Grouper as well: the engine then asks it how the walked files group
// into sessions, and makes one row per group (see Grouper).

// OpenOptions is what one listing asks of a harness's rows.
type OpenOptions struct {
	// SkipTasks leaves task counts out (TasksSource ""), for a caller that
	// reads them for one session later: the picker's preview.
	SkipTasks bool
	// Now is the listing's time: whether a session's prompt cache is
	// still warm is judged at it (Session.CacheExpired).
	Now time.Time
}

// Lister is one listing's view of a harness: what its rows are joined
// with, read once, and how each file becomes a row.
type Lister interface {
	// Join reads what rows are joined with besides their files (Claude
	// Code: its live registry, forgectl's snapshot store, the task lists).
	// Its problems are reported, never fatal.
	Join() []error
	// ReadAux brings the harness's aux section up to date: what it keeps
	// in the index besides its files' records (Claude Code: the prompt
	// history folded by session), from stored, which the last listing
	// wrote. changed says the next index must be written even when no
	// file's record changed; err is reported, never fatal.
	ReadAux(stored Aux) (changed bool, err error)
	// Begin is told every file the listing has, newest first, before the
	// first Row (Claude Code looks a parent session up among them).
	Begin(files []File)
	// Row makes file f's row, reading the file as little as old allows;
	// path is f.Path(), sc scratch for the worker. It runs concurrently
	// with other calls of Row.
	Row(sc *jsonl.Scanner, f *File, path string, old Stored) Row
	// WriteAux writes the next index's aux section: its records into w,
	// and its state record returned. files are the listing's, as Begin had
	// them. An error (the stored index shrank under the listing, so what it
	// held cannot be copied) abandons the rewrite.
	WriteAux(w AuxWriter, files []File) (state []byte, err error)
}

// Stored is what the last listing's index holds for a file.
type Stored struct {
	// File is the file's stat when the record was made. The engine keeps
	// the record for a file the listing did not reach (a picker left
	// early) while this is still the file's.
	fresh.File
	// Payload is what the harness's Record encoded, copied out of the
	// index: it shares nothing with the mapping.
	Payload string
	// OK says there is a record; without one the rest is zero.
	OK bool
}

// Record is what a harness stores for a file, besides the file's path and
// stat, which the engine stores. Its encoding is the harness's own, and
// changes with Harness.Format.
type Record interface {
	// Encode appends the record's payload to e.
	Encode(e *binrec.Encoder)
}

// Row is what Lister.Row made of one file.
type Row struct {
	// Session is the file's row; nil leaves the file out of the listing
	// (Problem says why, or the file is part of another row).
	Session *Session
	// Record is what the next index stores for the file. Nil stores
	// nothing unless Keep: the next listing reads the file again.
	Record Record
	// Keep says the stored record still holds: it is copied into the next
	// index as it is, never decoded again.
	Keep bool
	// Scanned says the file was read, rather than its row taken from the
	// stored record.
	Scanned bool
	// Problem is a per-file failure, reported and never fatal.
	Problem error
}

// Aux is the aux section of the last listing's index: the records a
// harness keeps there, each under a key, and one state record. The engine
// stores and maps them and never decodes a payload. The payloads handed
// out are copies: none shares the mapping.
type Aux interface {
	// State is the state record's payload; "" when there is none.
	State() string
	// Len is how many records the section holds.
	Len() int
	// Get is the payload stored under key. An error says the index shrank
	// under the listing (another program truncated it): what it held is
	// gone, for this and every later call.
	Get(key string) (payload string, ok bool, err error)
	// Each calls fn with every record, in the order they were written; fn
	// must not call Get. The error is Get's.
	Each(fn func(key, payload string)) error
}

// AuxWriter takes the records of the next index's aux section.
type AuxWriter interface {
	// Put stores payload under key; the engine copies it at once.
	Put(key string, payload []byte)
}

// Grouper is what a Lister adds when one session can own several files.
// The engine still keeps one record per file (a segment that stopped
// growing is never read again), and one slot per file in its pipe: the
// files of a session are made contiguous, and the session's row is its
// first file's.
type Grouper interface {
	// Group gathers the listing's files (newest first, as Begin will have
	// them) into sessions: for each, the indexes of its files in files.
	// Every file is in exactly one group; the engine orders the groups by
	// their first file, and keeps each group's files in the order given.
	// stored(k) is what the last listing's index holds for files[k], so
	// that a file whose record still names its session is not opened.
	// Group runs before Begin and the first Row, and while ReadAux and
	// Join may still be running: it must not touch what they fill.
	Group(files []File, stored func(k int) Stored) [][]int
	// RowGroup is Row for the files of one session, with their paths and
	// stored records: one Row per file, in that order, the session's row
	// in the first and none in the others. It runs concurrently with other
	// calls of RowGroup.
	RowGroup(sc *jsonl.Scanner, files []*File, paths []string, old []Stored) []Row
}
