package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"forgectl.dev/shared/fsutil"
	"github.com/klauspost/compress/zstd"
)

// Entry is what the index says of one stored session: enough to list it
// without opening its manifest or any stored file.
type Entry struct {
	ID          string          `json:"id"`
	State       string          `json:"state"`
	At          time.Time       `json:"at"`
	Bytes       int64           `json:"bytes"`
	StoredBytes int64           `json:"stored_bytes"`
	Transcript  string          `json:"transcript"`
	Row         json.RawMessage `json:"row"`
}

func entryOf(m *Manifest) Entry {
	return Entry{ID: m.SessionID, State: m.State, At: m.At, Bytes: m.Bytes(), StoredBytes: m.StoredBytes(), Transcript: m.Transcript(), Row: m.Row}
}

func (s *Store) indexPath() string { return filepath.Join(s.Dir, "index.jsonl") }

// Entries lists the store's sessions, oldest stored first, without taking
// the lock: the index's rows, less those whose entry is gone, plus the
// entries the index does not know yet (a run still moving them, or one
// that was killed), read from their manifests. A manifest that cannot be
// read is a problem naming the session, never fatal.
func (s *Store) Entries() ([]Entry, []error) {
	names, err := s.entryNames()
	if err != nil {
		return nil, []error{err}
	}
	indexed, problems := s.readIndex()
	out := make([]Entry, 0, len(names))
	for _, id := range names {
		if e, ok := indexed[id]; ok && e.State == Stored {
			out = append(out, e)
			continue
		}
		m, err := readManifest(s.entry(id), id)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		out = append(out, entryOf(m))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, problems
}

// entryNames are the entry directories' names: session ids.
func (s *Store) entryNames() ([]string, error) {
	ents, err := fsutil.ReadDir(s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.IsDir() && e.Name() != "restored" && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// readIndex reads the index; a damaged line is a problem and is skipped
// (its entry is then read from its manifest).
func (s *Store) readIndex() (map[string]Entry, []error) {
	b, err := fsutil.ReadRegular(s.indexPath())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	out := map[string]Entry{}
	var problems []error
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil || e.ID == "" {
			problems = append(problems, &DamagedError{Path: s.indexPath(), SessionID: "?", Reason: "a line of the index is damaged; it is rebuilt from the manifests on the next move"})
			continue
		}
		out[e.ID] = e
	}
	return out, problems
}

// WriteIndex rewrites the index from the entries; the caller holds the lock.
func (s *Store) WriteIndex() error {
	ents, _ := s.Entries()
	if len(ents) == 0 {
		if err := os.Remove(s.indexPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, e := range ents {
		if e.State != Stored {
			continue
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return fsutil.WriteAtomic(s.indexPath(), b.Bytes(), fsutil.FilePerm)
}

// Manifest reads id's manifest.
func (s *Store) Manifest(id string) (*Manifest, error) { return readManifest(s.entry(id), id) }

// Verify reads every stored file of id back and checks it against the
// manifest.
func (s *Store) Verify(id string) error {
	m, err := s.Manifest(id)
	if err != nil {
		return err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer dec.Close()
	for _, f := range m.Files {
		if f.Type == "file" {
			if err := checkStored(dec, id, &f, filepath.Join(s.entry(id), f.Stored)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Drop deletes id's entry for good: trash empty, the one deletion.
func (s *Store) Drop(id string) error {
	if !s.Has(id) {
		return nil
	}
	return os.RemoveAll(s.entry(id))
}

// Move hands id's entry, stored whole, to the store to (rm of an archived
// session moves it from the archive to the trash): one rename.
func (s *Store) Move(id string, to *Store) error {
	m, err := s.Manifest(id)
	if err != nil {
		return err
	}
	if m.State != Stored {
		return errUnfinished
	}
	if err := fsutil.MkdirPrivate(to.Dir); err != nil {
		return err
	}
	if to.Has(id) {
		return ErrExists
	}
	m.Kind = to.Kind
	if err := writeManifest(s.entry(id), m); err != nil {
		return err
	}
	if err := os.Rename(s.entry(id), to.entry(id)); err != nil {
		return err
	}
	syncDir(s.Dir)
	return syncDir(to.Dir)
}

// Recover finishes or rolls back every move a killed run left, and
// rewrites the index; the caller holds the lock. It returns what it did,
// one line per session, and the entries it could not use.
func (s *Store) Recover() (done []string, problems []error) {
	names, err := s.entryNames()
	if err != nil {
		return nil, []error{err}
	}
	indexed, _ := s.readIndex()
	var dec *zstd.Decoder
	for _, id := range names {
		if e, ok := indexed[id]; ok && e.State == Stored {
			continue
		}
		m, err := readManifest(s.entry(id), id)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if dec == nil {
			if dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)); err != nil {
				return done, append(problems, err)
			}
			defer dec.Close()
		}
		switch m.State {
		case Copying:
			// Nothing was removed before the copy was verified.
			if err := os.RemoveAll(s.entry(id)); err != nil {
				problems = append(problems, err)
				continue
			}
			done = append(done, "session "+id+": rolled back an interrupted move; it is where it was")
		case Verified:
			if err := s.removeOriginals(m, dec, false); err != nil {
				problems = append(problems, err)
				continue
			}
			m.State = Stored
			if err := writeManifest(s.entry(id), m); err != nil {
				problems = append(problems, err)
				continue
			}
			done = append(done, "session "+id+": finished an interrupted move into the "+s.Kind)
		case Restoring:
			removeTemps(m)
			if err := s.writeBack(m, dec, s.entry(id), false, &RestoreOptions{KeepMtime: m.KeepMtime}); err != nil {
				problems = append(problems, err)
				continue
			}
			if err := s.finishRestore(m); err != nil {
				problems = append(problems, err)
				continue
			}
			done = append(done, "session "+id+": finished an interrupted restore")
		}
	}
	if err := s.WriteIndex(); err != nil {
		problems = append(problems, err)
	}
	return done, problems
}

// removeTemps removes the temp files a killed restore left beside the
// session's places: regular files named as placeFile names them.
func removeTemps(m *Manifest) {
	seen := map[string]bool{}
	for _, f := range m.Files {
		d := filepath.Dir(f.Path)
		if seen[d] {
			continue
		}
		seen[d] = true
		ents, err := fsutil.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if IsTemp(e.Name()) && e.Type().IsRegular() {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
}
