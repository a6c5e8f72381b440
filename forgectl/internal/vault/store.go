package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/parallel"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
)

// Store is one of forgectl's stores of moved sessions.
type Store struct {
	// Dir is the store's directory (created 0700 on the first move).
	Dir string
	// Kind is "archive" or "trash", written into each manifest.
	Kind string
	// Now is the clock: a manifest's time, a restore's fresh mtimes.
	Now func() time.Time
	// Crash is called at each named step of a move (see Steps): the
	// test hook that kills the process there. Nil in most tests.
	Crash func(step string)
	// Pack turns a manifest's listing row into what the index keeps of
	// it (see Entry.Packed); nil keeps no rows in the index.
	Pack func(row json.RawMessage) ([]byte, error)

	// codecs keeps a zstd encoder and decoder per worker: a new encoder
	// allocates its tables, which for small sessions costs more than the
	// compression.
	codecs sync.Pool
}

type codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func (s *Store) codec() (*codec, error) {
	if c, ok := s.codecs.Get().(*codec); ok {
		return c, nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	return &codec{enc: enc, dec: dec}, nil
}

// Steps are the points Crash is called at, in order: an archive's, then a
// restore's.
var Steps = []string{
	"journal", "copy", "copied", "verified", "remove", "stored",
	"restore-journal", "restore-file", "restored", "restore-done",
}

func (s *Store) crash(step string) {
	if s.Crash != nil {
		s.Crash(step)
	}
}

func (s *Store) entry(id string) string { return filepath.Join(s.Dir, id) }

// Has reports whether the store holds an entry for id, in any state.
func (s *Store) Has(id string) bool {
	_, err := os.Lstat(s.entry(id))
	return err == nil
}

// Root is a path a session's files are collected from.
type Root struct {
	Path string
	// Fresh: a restore gives it the restore's time (see File.Fresh).
	Fresh bool
	// Required: it must exist (the transcript).
	Required bool
}

// Collect lists the files under roots, each directory before what it
// holds. A symlink, FIFO, socket or device among them is refused: the
// store keeps regular files and directories only.
func Collect(roots []Root) ([]File, error) {
	var out []File
	for i, r := range roots {
		var st unix.Stat_t
		if err := unix.Lstat(r.Path, &st); err != nil {
			if err == unix.ENOENT && !r.Required {
				continue
			}
			return nil, &fs.PathError{Op: "lstat", Path: r.Path, Err: err}
		}
		if i == 0 && uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
			return nil, fsutil.NotRegular(r.Path, uint32(st.Mode))
		}
		if err := collect(r.Path, &st, r.Fresh, &out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func collect(path string, st *unix.Stat_t, isFresh bool, out *[]File) error {
	f := File{Path: path, Mode: uint32(st.Mode) & 0o7777, MtimeNs: fresh.MtimeNs(st), Fresh: isFresh}
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		f.Type, f.Size = "file", st.Size
		*out = append(*out, f)
		return nil
	case unix.S_IFDIR:
		f.Type = "dir"
		*out = append(*out, f)
	default:
		return fsutil.NotRegular(path, uint32(st.Mode))
	}
	ents, err := fsutil.ReadDir(path)
	if err != nil {
		return err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		p := filepath.Join(path, e.Name())
		var cst unix.Stat_t
		if err := unix.Lstat(p, &cst); err != nil {
			return &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		if err := collect(p, &cst, false, out); err != nil {
			return err
		}
	}
	return nil
}

// ErrExists says the store already holds an entry for the session.
var ErrExists = errors.New("already stored")

// ErrChanged says an original changed while it was being moved: the move
// was rolled back and the original is where it was.
var ErrChanged = errors.New("changed while it was being moved")

// Put moves the session m describes (SessionID, Harness, Row and the
// Files Collect found) into the store. Before removing any original it
// calls safe, which refuses a session that went live meanwhile. On an
// error nothing is lost: the originals are in place, and what was stored
// is removed again.
func (s *Store) Put(m *Manifest, safe func() error) (err error) {
	dir := s.entry(m.SessionID)
	if err := fsutil.MkdirPrivate(s.Dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, fsutil.DirPerm); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("session %s: %w in %s", m.SessionID, ErrExists, s.Dir)
		}
		return err
	}
	removing := false
	defer func() {
		if err != nil && !removing {
			os.RemoveAll(dir) // the store's own copy; the originals were never touched
		}
	}()
	if err := os.Mkdir(filepath.Join(dir, "files"), fsutil.DirPerm); err != nil {
		return err
	}
	m.Format, m.Kind, m.State, m.At = Format, s.Kind, Copying, s.Now().UTC()
	for i := range m.Files {
		if m.Files[i].Type == "file" {
			m.Files[i].Stored = filepath.Join("files", strconv.Itoa(i)+".zst")
		}
	}
	if err := writeManifest(dir, m); err != nil {
		return err
	}
	s.crash("journal")
	c, err := s.codec()
	if err != nil {
		return err
	}
	defer s.codecs.Put(c)
	enc, dec := c.enc, c.dec
	n := 0
	for i := range m.Files {
		f := &m.Files[i]
		if f.Type != "file" {
			continue
		}
		if err := storeFile(enc, f, filepath.Join(dir, f.Stored)); err != nil {
			return err
		}
		if n++; n == 1 {
			s.crash("copy")
		}
	}
	if err := syncDir(filepath.Join(dir, "files")); err != nil {
		return err
	}
	s.crash("copied")
	for _, f := range m.Files {
		if f.Type == "file" {
			if err := checkStored(dec, m.SessionID, &f, filepath.Join(dir, f.Stored)); err != nil {
				return err
			}
		}
		if err := unchanged(&f); err != nil {
			return err
		}
	}
	if safe != nil {
		if err := safe(); err != nil {
			return err
		}
	}
	m.State = Verified
	if err := writeManifest(dir, m); err != nil {
		return err
	}
	s.crash("verified")
	removing = true
	if err := s.removeOriginals(m, dec, true); err != nil {
		return err
	}
	m.State = Stored
	if err := writeManifest(dir, m); err != nil {
		return err
	}
	s.crash("stored")
	return nil
}

// removeOriginals removes the files of a verified entry: the transcript
// first (so the agent can no longer resume it), then the rest, deepest
// first. A file that changed since it was copied stops the removal and
// the move is rolled back: the files already removed are written back.
func (s *Store) removeOriginals(m *Manifest, dec *zstd.Decoder, first bool) error {
	order := make([]int, 0, len(m.Files))
	order = append(order, 0)
	for i := len(m.Files) - 1; i > 0; i-- {
		order = append(order, i)
	}
	parents := map[string]bool{}
	for k, i := range order {
		f := &m.Files[i]
		err := unchanged(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed already, by the run that was killed
		}
		if err == nil {
			if f.Type == "dir" {
				err = unix.Rmdir(f.Path)
			} else {
				err = unix.Unlink(f.Path)
			}
			if err != nil {
				err = &fs.PathError{Op: "remove", Path: f.Path, Err: err}
			}
		}
		if err != nil {
			if rerr := s.rollback(m, dec); rerr != nil {
				return errors.Join(err, rerr)
			}
			return err
		}
		parents[filepath.Dir(f.Path)] = true
		if k == 0 && first {
			s.crash("remove")
		}
	}
	for p := range parents {
		syncDir(p) // a parent removed with its session has nothing to flush
	}
	return nil
}

// rollback undoes a move whose removal stopped half way: every file
// already removed is written back from the store (none is overwritten),
// then the entry goes.
func (s *Store) rollback(m *Manifest, dec *zstd.Decoder) error {
	dir := s.entry(m.SessionID)
	if err := s.writeBack(m, dec, dir, true, nil); err != nil {
		return fmt.Errorf("session %s: the rollback stopped, and what was not written back is still in %s: %w", m.SessionID, dir, err)
	}
	os.RemoveAll(dir)
	return nil
}

// unchanged checks that f is still what was recorded: same type, size and
// mtime (a transcript appended to since has a new size or mtime).
func unchanged(f *File) error {
	var st unix.Stat_t
	if err := unix.Lstat(f.Path, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: f.Path, Err: err}
	}
	want := uint32(unix.S_IFREG)
	if f.Type == "dir" {
		want = unix.S_IFDIR
	}
	if uint32(st.Mode)&unix.S_IFMT != want {
		return fmt.Errorf("%s: %w (it is no longer a %s)", f.Path, ErrChanged, f.Type)
	}
	if f.Type == "file" && (st.Size != f.Size || fresh.MtimeNs(&st) != f.MtimeNs) {
		return fmt.Errorf("%s: %w", f.Path, ErrChanged)
	}
	return nil
}

// storeFile compresses the original of f into path (a new file), hashing
// it on the way, and flushes it.
func storeFile(enc *zstd.Encoder, f *File, path string) error {
	in, err := fsutil.OpenRegular(f.Path)
	if err != nil {
		return err
	}
	defer in.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(in.Fd()), &st); err != nil {
		return err
	}
	if st.Size != f.Size || fresh.MtimeNs(&st) != f.MtimeNs {
		return fmt.Errorf("%s: %w", f.Path, ErrChanged)
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fsutil.FilePerm)
	if err != nil {
		return err
	}
	defer out.Close()
	h := sha256.New()
	enc.Reset(out)
	n, err := io.Copy(enc, io.TeeReader(in, h))
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if n != f.Size {
		return fmt.Errorf("%s: %w (read %d bytes of %d)", f.Path, ErrChanged, n, f.Size)
	}
	if err := out.Sync(); err != nil {
		return fmt.Errorf("flushing %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	f.SHA256, f.StoredSize = hex.EncodeToString(h.Sum(nil)), fi.Size()
	return nil
}

// checkStored reads the stored copy of f back and compares it with the
// manifest: the check every removal and every restore waits for.
func checkStored(dec *zstd.Decoder, id string, f *File, path string) error {
	in, err := fsutil.OpenRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &DamagedError{SessionID: id, Path: path, Reason: "the stored copy of " + f.Path + " is missing"}
		}
		return err
	}
	defer in.Close()
	h := sha256.New()
	n, err := decodeTo(dec, in, h)
	if err != nil {
		return &DamagedError{SessionID: id, Path: path, Reason: "the stored copy of " + f.Path + " cannot be read (" + err.Error() + ")"}
	}
	if n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		return &DamagedError{SessionID: id, Path: path, Reason: "the stored copy of " + f.Path + " does not match its SHA-256"}
	}
	return nil
}

func decodeTo(dec *zstd.Decoder, in io.Reader, w io.Writer) (int64, error) {
	if err := dec.Reset(in); err != nil {
		return 0, err
	}
	return io.Copy(w, dec)
}

// RestoreOptions says how a restore sets times.
type RestoreOptions struct {
	// KeepMtime gives every file its original mtime, the fresh ones too
	// (Claude Code's sweep may then delete the session at once).
	KeepMtime bool
}

// ConflictError names a file a restore would have overwritten.
type ConflictError struct {
	SessionID, Path string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("session %s: %s exists again and differs from the stored copy", e.SessionID, e.Path)
}

// Restore writes the session id back where it was and removes it from the
// store. Each file is written beside its place, flushed, verified against
// the manifest and then linked into place, never over a file that is
// there: a transcript that reappeared meanwhile is a ConflictError, and
// nothing is changed. The stored copy goes only once every file is in
// place. It returns the manifest as it was stored.
func (s *Store) Restore(id string, o RestoreOptions) (*Manifest, error) {
	dir := s.entry(id)
	m, err := readManifest(dir, id)
	if err != nil {
		return nil, err
	}
	if m.State != Stored && m.State != Restoring {
		return nil, fmt.Errorf("session %s: the %s holds it in state %q: %w", id, s.Kind, m.State, errUnfinished)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	// Refuse before changing anything: a file in the way that is not the
	// stored one (a restore killed half way left ones that are).
	for i := range m.Files {
		f := &m.Files[i]
		if f.Type != "file" {
			continue
		}
		if same, exists := matches(f); exists && !same {
			return nil, &ConflictError{SessionID: id, Path: f.Path}
		}
		// A stored copy that is gone is reported before the journal
		// says a restore began: nothing is half restored for it.
		if st, err := os.Lstat(filepath.Join(dir, f.Stored)); err != nil || !st.Mode().IsRegular() {
			return nil, &DamagedError{SessionID: id, Path: filepath.Join(dir, f.Stored), Reason: "the stored copy of " + f.Path + " is missing"}
		}
	}
	// The index still lists the entry as stored: the pending mark is what
	// tells Recover to look at its journal.
	if err := s.markPending(id, false); err != nil {
		return nil, err
	}
	m.State, m.KeepMtime = Restoring, o.KeepMtime
	if err := writeManifestFile(dir, m); err != nil {
		return nil, err
	}
	// Both must hold before a file is placed; either alone is recovered
	// from (a journal without its mark is a stored entry whose restore
	// can be run again).
	if err := syncDirs(filepath.Join(s.Dir, ".pending"), dir); err != nil {
		return nil, err
	}
	s.crash("restore-journal")
	if err := s.writeBack(m, dec, dir, false, &o); err != nil {
		return nil, err
	}
	s.crash("restored")
	if err := s.finishRestore(m); err != nil {
		return nil, err
	}
	return m, nil
}

// finishRestore keeps the manifest in restored/ and removes the entry.
func (s *Store) finishRestore(m *Manifest) error {
	kept := filepath.Join(s.Dir, "restored")
	if err := fsutil.MkdirPrivate(kept); err != nil {
		return err
	}
	now := s.Now().UTC()
	done := *m
	done.Restored = &now
	if err := writeManifestFile(kept, &done); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(kept, "manifest.json"), filepath.Join(kept, m.SessionID+"-"+strconv.FormatInt(now.Unix(), 10)+".json")); err != nil {
		return err
	}
	if err := os.RemoveAll(s.entry(m.SessionID)); err != nil {
		return err
	}
	// The session's files are flushed in place already: the record kept
	// and the entry's removal can be flushed together.
	syncDirs(kept, s.Dir)
	s.crash("restore-done")
	os.Remove(filepath.Join(s.Dir, ".pending", m.SessionID))
	return nil
}

// markPending marks id's entry as being restored (see Recover), flushed
// when sync is set (else the caller flushes .pending).
func (s *Store) markPending(id string, sync bool) error {
	dir := filepath.Join(s.Dir, ".pending")
	if err := fsutil.MkdirPrivate(dir); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, fsutil.FilePerm)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err == nil {
		f.Close()
	}
	if !sync {
		return nil
	}
	return syncDir(dir)
}

var errUnfinished = errors.New("a move of it did not finish; run the command again to finish it")

// matches says whether f's path holds a file, and whether it is f's
// content (a restore killed half way leaves some in place).
func matches(f *File) (same, exists bool) {
	var st unix.Stat_t
	if unix.Lstat(f.Path, &st) != nil {
		return false, false
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG || st.Size != f.Size {
		return false, true
	}
	in, err := fsutil.OpenRegular(f.Path)
	if err != nil {
		return false, true
	}
	defer in.Close()
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return false, true
	}
	return hex.EncodeToString(h.Sum(nil)) == f.SHA256, true
}

// writeBack writes the entry's files to their places. With missingOnly
// (a rollback) a file already there is left as it is, whatever it holds;
// otherwise one that is there must be the stored one.
func (s *Store) writeBack(m *Manifest, dec *zstd.Decoder, dir string, missingOnly bool, o *RestoreOptions) error {
	now := s.Now()
	keep := missingOnly || (o != nil && o.KeepMtime)
	mtime := func(f *File) time.Time {
		if f.Fresh && !keep {
			return now
		}
		return time.Unix(0, f.MtimeNs)
	}
	var made, created []string // created: the folders above a place that were missing
	// Every file is written and checked beside its place first, then all
	// are flushed at once (fsyncs issued together share the journal's
	// commits: ten take about the time of two), then linked into place.
	var staged []*stagedFile
	defer func() {
		for _, sf := range staged {
			sf.discard()
		}
	}()
	for i := range m.Files {
		f := &m.Files[i]
		if f.Type == "dir" {
			var st unix.Stat_t
			if unix.Lstat(f.Path, &st) == nil {
				if uint32(st.Mode)&unix.S_IFMT != unix.S_IFDIR {
					return &ConflictError{SessionID: m.SessionID, Path: f.Path}
				}
				continue
			}
			if err := mkdirAll(filepath.Dir(f.Path), &created); err != nil {
				return err
			}
			if err := os.Mkdir(f.Path, fsutil.DirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			made = append(made, f.Path)
			continue
		}
		if same, exists := matches(f); exists {
			if same || missingOnly {
				continue
			}
			return &ConflictError{SessionID: m.SessionID, Path: f.Path}
		}
		if err := mkdirAll(filepath.Dir(f.Path), &created); err != nil {
			return err
		}
		sf, err := stageFile(dec, m.SessionID, f, filepath.Join(dir, f.Stored), mtime(f))
		if err != nil {
			return err
		}
		staged = append(staged, sf)
	}
	if err := syncStaged(staged); err != nil {
		return err
	}
	for k, sf := range staged {
		if err := sf.place(m.SessionID); err != nil {
			return err
		}
		if k == 0 && !missingOnly {
			s.crash("restore-file")
		}
	}
	// Directories last, deepest first: placing their files changed
	// their mtimes.
	for i := len(m.Files) - 1; i >= 0; i-- {
		f := &m.Files[i]
		if f.Type != "dir" {
			continue
		}
		if missingOnly && !contains(made, f.Path) {
			continue
		}
		if err := os.Chmod(f.Path, fs.FileMode(f.Mode&0o777)|modeBits(f.Mode)); err != nil {
			return err
		}
		t := mtime(f)
		if err := os.Chtimes(f.Path, t, t); err != nil {
			return err
		}
	}
	// Flush the new names: each folder written into, and the folder
	// holding each one made, together.
	dirs := map[string]bool{}
	for _, sf := range staged {
		dirs[filepath.Dir(sf.f.Path)] = true
	}
	for _, d := range append(made, created...) {
		dirs[d], dirs[filepath.Dir(d)] = true, true
	}
	// The stored copy goes once this returns: a name not flushed is an
	// error, not a hope.
	return syncDirs(slices.Collect(maps.Keys(dirs))...)
}

// mkdirAll is os.MkdirAll that adds to created each folder it made, so
// that the caller flushes their names too.
func mkdirAll(dir string, created *[]string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, fsutil.DirPerm); err != nil {
		return err
	}
	*created = append(*created, missing...)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// modeBits turns the setuid, setgid and sticky bits of a stat mode into
// fs.FileMode's.
func modeBits(m uint32) fs.FileMode {
	var out fs.FileMode
	if m&unix.S_ISUID != 0 {
		out |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		out |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		out |= fs.ModeSticky
	}
	return out
}

// stagedFile is a stored file written back beside its place, checked
// against the manifest and closed, not yet flushed nor linked.
type stagedFile struct {
	f      *File
	tmp    string
	placed bool
}

// stageFile writes the stored copy of f into a temp file beside f's
// place and checks it against f's size and SHA-256. The file is closed:
// a session of thousands of files must not hold thousands open.
func stageFile(dec *zstd.Decoder, id string, f *File, stored string, mtime time.Time) (*stagedFile, error) {
	in, err := fsutil.OpenRegular(stored)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &DamagedError{SessionID: id, Path: stored, Reason: "the stored copy of " + f.Path + " is missing"}
		}
		return nil, err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".forgectl-restore-*")
	if err != nil {
		return nil, err
	}
	sf := &stagedFile{f: f, tmp: tmp.Name()}
	fail := func(err error) (*stagedFile, error) {
		tmp.Close()
		sf.discard()
		return nil, err
	}
	h := sha256.New()
	n, err := decodeTo(dec, in, io.MultiWriter(tmp, h))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) || errors.Is(err, unix.ENOSPC) {
			return fail(fmt.Errorf("writing %s: %w", f.Path, err))
		}
		return fail(&DamagedError{SessionID: id, Path: stored, Reason: "the stored copy of " + f.Path + " cannot be read (" + err.Error() + ")"})
	}
	if n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		return fail(&DamagedError{SessionID: id, Path: stored, Reason: "the stored copy of " + f.Path + " does not match its SHA-256"})
	}
	if err := tmp.Chmod(fs.FileMode(f.Mode&0o777) | modeBits(f.Mode)); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		sf.discard()
		return nil, err
	}
	// The times are set before the flush, so that it covers them too.
	if err := os.Chtimes(sf.tmp, mtime, mtime); err != nil {
		sf.discard()
		return nil, err
	}
	return sf, nil
}

// flushWorkers bounds the fsyncs in flight: enough for the journal to
// commit them together, few enough for any descriptor and thread limit.
const flushWorkers = 16

// syncStaged flushes every staged file, several at once.
func syncStaged(staged []*stagedFile) error {
	errs := make([]error, len(staged))
	parallel.For(context.Background(), len(staged), flushWorkers, 1, func(k int) {
		sf := staged[k]
		fh, err := fsutil.OpenRegular(sf.tmp)
		if err == nil {
			err = fh.Sync()
			fh.Close()
		}
		if err != nil {
			errs[k] = fmt.Errorf("flushing %s: %w", sf.f.Path, err)
		}
	})
	return errors.Join(errs...)
}

// place links a flushed staged file into its place, never over a file
// that is there.
func (sf *stagedFile) place(id string) error {
	if err := os.Link(sf.tmp, sf.f.Path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &ConflictError{SessionID: id, Path: sf.f.Path}
		}
		return err
	}
	sf.placed = true
	// The temp name goes only once the place holds the file: a kill
	// between the two leaves a second link, which Recover removes.
	return os.Remove(sf.tmp)
}

// discard removes a staged file that was not placed.
func (sf *stagedFile) discard() {
	if !sf.placed {
		os.Remove(sf.tmp)
	}
}

// syncDir flushes a directory's entries (a new or removed name).
func syncDir(dir string) error {
	d, err := fsutil.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, unix.EINVAL) {
		return err
	}
	return nil
}

// syncDirs is syncDir over dirs, all at once: flushes issued together
// share the journal's commits.
func syncDirs(dirs ...string) error {
	errs := make([]error, len(dirs))
	parallel.For(context.Background(), len(dirs), flushWorkers, 1, func(k int) { errs[k] = syncDir(dirs[k]) })
	return errors.Join(errs...)
}

// IsTemp says name is a temp file a restore writes beside a file's place.
func IsTemp(name string) bool { return strings.HasPrefix(name, ".forgectl-restore-") }
