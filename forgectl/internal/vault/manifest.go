// Package vault moves whole sessions out of the agent's tree into one of
// forgectl's stores (the archive, the trash) and back, crash-safely: the
// stored copy is written, flushed, read back and verified before any
// original is removed, and a restore is verified in place before the
// stored copy goes. Every step is journalled in the entry's manifest, so a
// run killed at any point leaves the session whole in at least one place,
// and the next run finishes or rolls back what it left (Recover).
//
// On disk (every directory 0700, every file 0600):
//
//	<config>/resume-archive/           the archive (Store.Dir)
//	  index.jsonl                      one listing row per stored session
//	  <sessionId>/manifest.json        the journal and the file table
//	  <sessionId>/files/<n>.gz         each file, gzip-compressed
//	  restored/<sessionId>-<unix>.json the manifest of a restored session,
//	                                   kept: it holds the original mtimes
//	<config>/resume-trash/             the trash, laid out the same way
//	<config>/resume-moves.lock         one lock for both stores' writers
//
// The index is a cache of the manifests' rows: a listing reads it, never
// a compressed file, and a damaged index is rebuilt from the manifests.
package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"forgectl.dev/shared/fsutil"
)

// Format is the manifest's version.
const Format = 1

// The states of an entry, in the order an archive or a restore passes
// them. Recover acts on each (see recover.go).
const (
	// Copying: the copy is being written; the originals are untouched.
	Copying = "copying"
	// Verified: every stored file was read back and matched; the
	// originals are being removed.
	Verified = "verified"
	// Stored: the originals are gone; the session lives in the store.
	Stored = "stored"
	// Restoring: the files are being written back; the stored copy is
	// untouched until every one is in place and verified.
	Restoring = "restoring"
)

// File is one file or directory of a session, as it was before it moved.
type File struct {
	// Path is the original absolute path.
	Path string `json:"path"`
	// Type is "file" or "dir".
	Type string `json:"type"`
	// Mode is the permission bits.
	Mode uint32 `json:"mode"`
	// Size is the file's length in bytes (0 for a dir).
	Size    int64 `json:"size"`
	MtimeNs int64 `json:"mtime_ns"`
	// SHA256 is the hex digest of the file's content.
	SHA256 string `json:"sha256,omitempty"`
	// Stored is the compressed copy's name, relative to the entry.
	Stored     string `json:"stored,omitempty"`
	StoredSize int64  `json:"stored_size,omitempty"`
	// Fresh says a restore gives it the restore's time as its mtime:
	// Claude Code's sweep deletes the transcript and the task, file-history
	// and session-env folders by their own mtime.
	Fresh bool `json:"fresh,omitempty"`
}

// Manifest is an entry's journal and file table.
type Manifest struct {
	Format    int       `json:"format"`
	Kind      string    `json:"kind"` // archive | trash
	SessionID string    `json:"session_id"`
	Harness   string    `json:"harness"`
	State     string    `json:"state"`
	At        time.Time `json:"at"` // when it was stored
	// KeepMtime is the restore's choice (RestoreOptions), journalled so
	// that a restore finished by Recover makes the same one.
	KeepMtime bool `json:"keep_mtime,omitempty"`
	// Restored is when a restore finished (restored/ manifests only).
	Restored *time.Time `json:"restored,omitempty"`
	// Files, each directory before what it holds.
	Files []File `json:"files"`
	// Row is the session's listing row when it was stored.
	Row json.RawMessage `json:"row"`
}

// Bytes is the size of the session's files.
func (m *Manifest) Bytes() (n int64) {
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// StoredBytes is the size of their compressed copies.
func (m *Manifest) StoredBytes() (n int64) {
	for _, f := range m.Files {
		n += f.StoredSize
	}
	return n
}

// Transcript is the session's first file: the one the agent resumes.
func (m *Manifest) Transcript() string {
	if len(m.Files) == 0 {
		return ""
	}
	return m.Files[0].Path
}

// ErrDamaged is wrapped by every error about a manifest or a stored file
// that cannot be used as it is.
var ErrDamaged = errors.New("damaged")

// DamagedError names the entry that is damaged and what is wrong with it.
type DamagedError struct {
	SessionID string
	Path      string
	Reason    string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("session %s: %s: %s", e.SessionID, e.Path, e.Reason)
}

func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

func writeManifest(dir string, m *Manifest) error {
	if err := writeManifestFile(dir, m); err != nil {
		return err
	}
	return syncDir(dir)
}

// writeManifestFile is writeManifest but for flushing dir, which the
// caller does, with others.
func writeManifestFile(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteDurable(filepath.Join(dir, "manifest.json"), append(b, '\n'), fsutil.FilePerm)
}

// readManifest reads the manifest of the entry at dir, which is for id.
func readManifest(dir, id string) (*Manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &DamagedError{SessionID: id, Path: path, Reason: "the manifest is missing"}
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &DamagedError{SessionID: id, Path: path, Reason: "the manifest is not valid JSON (" + err.Error() + ")"}
	}
	switch {
	case m.Format != Format:
		return nil, &DamagedError{SessionID: id, Path: path, Reason: fmt.Sprintf("unknown manifest format %d", m.Format)}
	case m.SessionID != id:
		return nil, &DamagedError{SessionID: id, Path: path, Reason: "the manifest is for session " + m.SessionID}
	case len(m.Files) == 0 || m.Files[0].Type != "file":
		return nil, &DamagedError{SessionID: id, Path: path, Reason: "the manifest lists no transcript"}
	}
	for _, f := range m.Files {
		if !filepath.IsAbs(f.Path) || (f.Type == "file" && (f.Stored == "" || !filepath.IsLocal(f.Stored))) {
			return nil, &DamagedError{SessionID: id, Path: path, Reason: "the manifest has a bad file entry " + f.Path}
		}
	}
	return &m, nil
}
