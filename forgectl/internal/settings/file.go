package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"forgectl.dev/shared/fsutil"
)

// BackupSuffix names the copy of the previous content kept beside the
// real file: a fixed name of forgectl's own, so it never overwrites a
// user's settings.json.bak.
const BackupSuffix = ".forgectl-backup"

// Doc is a settings file as read: Path as given, Real the file it resolves
// to through any symlinks (a dotfiles checkout, often).
type Doc struct {
	Path, Real string
	Data       []byte
	Exists     bool
	Mode       fs.FileMode
}

// ErrChanged is a file another program (Claude Code itself, say) rewrote
// between Read and Write: writing would lose that change.
var ErrChanged = errors.New("the file changed while it was being edited; nothing was written")

// ErrReadOnly is a file without its owner's write permission: replacing it
// by rename would work, but would overrule that choice.
var ErrReadOnly = errors.New("the file is read-only")

// Read loads path, following symlinks. A missing file is an empty Doc that
// Write creates; a symlink to nothing is an error, since writing would
// replace the link.
func Read(path string) (Doc, error) {
	d := Doc{Path: path, Real: path, Mode: 0o600}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return d, fmt.Errorf("%s is a symlink to %s, which does not exist", path, target)
		}
		return d, nil
	}
	if err != nil {
		return d, err
	}
	d.Real = real
	fi, err := os.Stat(real)
	if err != nil {
		return d, err
	}
	d.Data, err = fsutil.ReadRegular(real) // refuses a FIFO without blocking
	if err != nil {
		return d, err
	}
	d.Exists, d.Mode = true, fi.Mode().Perm()
	return d, nil
}

// Write replaces the real file with out, atomically (a temp file in the
// real file's directory, renamed over it), so a symlink keeps pointing at
// it. The mode is kept and the previous content is written to the backup
// first, whose path is returned ("" for a new file).
func (d Doc) Write(out []byte) (backup string, err error) {
	if !d.Exists {
		if err := os.MkdirAll(filepath.Dir(d.Real), 0o700); err != nil {
			return "", err
		}
		return "", fsutil.WriteAtomic(d.Real, out, d.Mode)
	}
	if d.Mode&0o200 == 0 {
		return "", fmt.Errorf("%s: %w (mode %04o)", d.Real, ErrReadOnly, d.Mode)
	}
	// There is no lock Claude Code honours, so check for a write since Read
	// as late as possible; the window left is the rename's.
	if now, err := fsutil.ReadRegular(d.Real); err != nil || !bytes.Equal(now, d.Data) {
		return "", fmt.Errorf("%s: %w", d.Real, ErrChanged)
	}
	backup = d.Real + BackupSuffix
	if err := fsutil.WriteAtomic(backup, d.Data, d.Mode); err != nil {
		return "", fmt.Errorf("writing the backup: %w", err)
	}
	return backup, fsutil.WriteAtomic(d.Real, out, d.Mode)
}
