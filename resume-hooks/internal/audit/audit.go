// Package audit appends to the update hooks' audit trail (runs.jsonl) and
// rotates it, and the watcher log, at hookstate.RotateSize.
package audit

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/hookstate"
)

// lockWait bounds the wait for another appender; appends take microseconds.
const lockWait = 5 * time.Second

// Append writes one record as a line of runs.jsonl, first moving the file
// to runs.jsonl.1 when it has reached the rotation size. The directory is
// created owner-only and the file is owner-only whatever the umask.
func Append(f hookstate.Files, r hookstate.Record) error {
	if err := fsutil.MkdirPrivate(f.Dir); err != nil {
		return err
	}
	// MkdirAll leaves an existing directory's mode alone; the trail can
	// hold a bare token, so the directory is tightened every time.
	if err := os.Chmod(f.Dir, fsutil.DirPerm); err != nil {
		return err
	}
	lock, err := fsutil.LockWait(f.AuditLock(), lockWait)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	r.Time = r.Time.UTC().Truncate(time.Millisecond)
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// Rotating before the line would take the file past the size keeps
	// runs.jsonl itself within it.
	if _, err := Rotate(f.Runs(), f.RunsRotated(), int64(len(line)+1)); err != nil {
		return err
	}
	// Through the opener: a FIFO or a device at runs.jsonl fails the
	// append, naming the file, where a plain open would wait for a reader
	// for good. The caller reports a failed append and goes on.
	file, err := fsutil.OpenAppend(f.Runs(), fsutil.FilePerm)
	if err != nil {
		return err
	}
	if err := file.Chmod(fsutil.FilePerm); err != nil {
		file.Close()
		return err
	}
	// One write per line so a concurrent reader never sees half of it
	// interleaved with another line.
	if _, err := file.Write(append(line, '\n')); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// Rotate moves path to rotated when adding more bytes would take it past
// hookstate.RotateSize, replacing an older rotated file. With adding 0 it
// moves a file that has already passed the size (the watcher log, which
// launchd writes). It reports whether it moved anything.
func Rotate(path, rotated string, adding int64) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if st.Size() == 0 || st.Size()+adding <= hookstate.RotateSize {
		return false, nil
	}
	if err := os.Rename(path, rotated); err != nil {
		return false, err
	}
	return true, nil
}
