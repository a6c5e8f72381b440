package vault

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/shared/fsutil"
	"github.com/klauspost/compress/zstd"
)

// Entry is what the index says of one stored session: enough to list it
// without opening its manifest or any stored file.
type Entry struct {
	ID          string
	State       string
	At          time.Time
	Bytes       int64
	StoredBytes int64
	Transcript  string
	// Row is the listing row from the manifest (JSON), for an entry the
	// index does not hold; Packed is the same row as Store.Pack made it,
	// from the index. One of the two is set.
	Row    json.RawMessage
	Packed string
}

func entryOf(m *Manifest) Entry {
	return Entry{ID: m.SessionID, State: m.State, At: m.At, Bytes: m.Bytes(), StoredBytes: m.StoredBytes(), Transcript: m.Transcript(), Row: m.Row}
}

// The index, index.bin, is "FCTVAULT", binrec: Uint format, then one
// framed record (binrec.AppendRecord: length, CRC-32C, payload) per stored
// session: String id, Int stored at (Unix ns), Int bytes, Int stored bytes,
// String transcript, String packed row. A listing of 10,000 archived
// sessions decodes it in milliseconds, where JSON took a listing's budget.
const (
	indexMagic  = "FCTVAULT"
	indexFormat = 1
)

func (s *Store) indexPath() string { return filepath.Join(s.Dir, "index.bin") }

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
		if e, ok := indexed[id]; ok {
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

// readIndex reads the index: the stored sessions it holds, each in state
// Stored. A damaged index is a problem, and its entries are then read from
// their manifests (the next move rewrites it).
func (s *Store) readIndex() (map[string]Entry, []error) {
	b, err := fsutil.ReadRegular(s.indexPath())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	damaged := []error{&DamagedError{Path: s.indexPath(), SessionID: "?", Reason: "the index is damaged; the sessions are read from their manifests, and the next archive, unarchive, rm or trash run rewrites it"}}
	data := string(b)
	if !strings.HasPrefix(data, indexMagic) {
		return nil, damaged
	}
	d := binrec.Decoder{S: data[len(indexMagic):]}
	if d.Uint() != indexFormat || d.Err() != nil {
		return nil, damaged
	}
	rest := d.S
	out := map[string]Entry{}
	for len(rest) > 0 {
		n, payload, ok := binrec.RecordAt(rest)
		if !ok {
			return nil, damaged
		}
		rest = rest[n:]
		r := binrec.Decoder{S: payload}
		e := Entry{ID: r.String(), State: Stored}
		e.At = time.Unix(0, r.Int()).UTC()
		e.Bytes, e.StoredBytes = r.Int(), r.Int()
		e.Transcript, e.Packed = r.String(), r.String()
		if r.Err() != nil || e.ID == "" {
			return nil, damaged
		}
		out[e.ID] = e
	}
	return out, nil
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
	b := append(make([]byte, 0, 64+512*len(ents)), indexMagic...)
	b = binaryUvarint(b, indexFormat)
	var e binrec.Encoder
	for _, x := range ents {
		if x.State != Stored {
			continue
		}
		packed := x.Packed
		if packed == "" && s.Pack != nil {
			p, err := s.Pack(x.Row)
			if err != nil {
				continue // left to its manifest: read from there
			}
			packed = string(p)
		}
		if packed == "" {
			continue
		}
		e.B = e.B[:0]
		e.String(x.ID)
		e.Int(x.At.UnixNano())
		e.Int(x.Bytes)
		e.Int(x.StoredBytes)
		e.String(x.Transcript)
		e.String(packed)
		b = binrec.AppendRecord(b, e.B)
	}
	return fsutil.WriteAtomic(s.indexPath(), b, fsutil.FilePerm)
}

func binaryUvarint(b []byte, v uint64) []byte {
	e := binrec.Encoder{B: b}
	e.Uint(v)
	return e.B
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
	pending := map[string]bool{}
	if ents, err := fsutil.ReadDir(filepath.Join(s.Dir, ".pending")); err == nil {
		for _, e := range ents {
			pending[e.Name()] = true
			if !s.Has(e.Name()) { // restored, killed before the mark went
				os.Remove(filepath.Join(s.Dir, ".pending", e.Name()))
			}
		}
	}
	var dec *zstd.Decoder
	for _, id := range names {
		if _, ok := indexed[id]; ok && !pending[id] {
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
		case Stored:
			os.Remove(filepath.Join(s.Dir, ".pending", id)) // a restore killed before it began
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
	// The index is rewritten only when it no longer says what the
	// entries do: a restore of one session should not rewrite 10,000 rows
	// twice.
	stale := len(done) > 0 || len(indexed) != len(names)
	if !stale {
		for _, id := range names {
			if _, ok := indexed[id]; !ok {
				stale = true
				break
			}
		}
	}
	if stale {
		if err := s.WriteIndex(); err != nil {
			problems = append(problems, err)
		}
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
