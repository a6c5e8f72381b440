package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

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
	// UID and GID own the real file; Write gives them to the new one.
	UID, GID int
}

// ErrChanged is a file another program (Claude Code itself, say) rewrote
// between Read and Write: writing would lose that change.
var ErrChanged = errors.New("the file changed while it was being edited; nothing was written")

// ErrReadOnly is a file without its owner's write permission: replacing it
// by rename would work, but would overrule that choice.
var ErrReadOnly = errors.New("the file is read-only")

// ErrDanglingLink is a settings path that is a symlink to nothing: writing
// would replace the link, and Claude Code reads no settings through it.
var ErrDanglingLink = errors.New("a symlink to a file that does not exist")

// OwnerError is a file Write cannot replace without changing its owner: the
// new file is created by whoever runs forgectl, and chown to the old owner
// was refused.
type OwnerError struct {
	Path     string
	UID, GID int
	Err      error
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("it is owned by %s, and replacing it would hand it to %s: %v", ownerName(e.UID, e.GID), ownerName(os.Geteuid(), os.Getegid()), e.Err)
}

func (e *OwnerError) Unwrap() error { return e.Err }

// ownerName is "alice (uid 1000, gid 1000)", or the ids alone.
func ownerName(uid, gid int) string {
	ids := fmt.Sprintf("uid %d, gid %d", uid, gid)
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username + " (" + ids + ")"
	}
	return ids
}

// Owner is the name of the file's owner when the system knows it, else its
// uid: for a hint that says whom to run as.
func (d Doc) Owner() string {
	if u, err := user.LookupId(strconv.Itoa(d.UID)); err == nil {
		return u.Username
	}
	return "#" + strconv.Itoa(d.UID)
}

// Read loads path, following symlinks. A missing file is an empty Doc that
// Write creates; a symlink to nothing is an error, since writing would
// replace the link.
func Read(path string) (Doc, error) {
	d := Doc{Path: path, Real: path, Mode: 0o600}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return d, fmt.Errorf("%s is %w (%s)", path, ErrDanglingLink, target)
		}
		return d, nil
	}
	if err != nil {
		return d, err
	}
	d.Real = real
	// A directory, FIFO or device is refused without opening it for good
	// (a FIFO's open would block): fsutil.ErrNotRegular, naming the kind.
	d.Data, err = fsutil.ReadRegular(real)
	if err != nil {
		return d, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return d, err
	}
	d.Exists, d.Mode = true, fi.Mode().Perm()
	d.UID, d.GID = -1, -1
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		d.UID, d.GID = int(st.Uid), int(st.Gid)
	}
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
	// The backup goes first and carries the same owner, so a refused chown
	// stops the edit before anything is replaced.
	backup = d.Real + BackupSuffix
	if err := fsutil.WriteAtomicOwned(backup, d.Data, d.Mode, d.UID, d.GID); err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op == "chown" {
			return "", &OwnerError{Path: d.Real, UID: d.UID, GID: d.GID, Err: pe.Err}
		}
		return "", fmt.Errorf("writing the backup: %w", err)
	}
	return backup, fsutil.WriteAtomicOwned(d.Real, out, d.Mode, d.UID, d.GID)
}

// ReadMessage words an error of Read for a person: "cannot read P:
// permission denied", or "P is a directory, not a file".
func ReadMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("cannot read %s: %v", pe.Path, pe.Err)
	}
	return err.Error()
}

// ReadHint is the next step for an error of Read, about the actual problem
// (not "run init", which cannot read the file either); "" when there is
// nothing better to say than the error.
func ReadHint(err error, path string) string {
	var pe *fs.PathError
	var kind *fsutil.NotRegularError
	switch {
	case errors.Is(err, ErrDanglingLink):
		return "create the file the link points to, or remove the link: Claude Code reads no settings through it"
	case errors.As(err, &kind) && kind.Kind == "directory":
		return "move the directory aside: Claude Code reads its user settings from a file at " + path
	case errors.Is(err, fsutil.ErrNotRegular):
		return "replace " + path + " with a regular file holding the settings JSON: Claude Code reads none from it"
	case errors.Is(err, fs.ErrPermission) && errors.As(err, &pe):
		return fmt.Sprintf("check its owner and mode (ls -l %s): Claude Code, running as you, cannot read it either", pe.Path)
	}
	return ""
}
