package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"forgectl.dev/shared/fsutil"
	"golang.org/x/sys/unix"
)

// AppendRows appends rows (whole lines, each ending in a newline) to the
// file at path in one write(2) on an O_APPEND descriptor, so they land
// whole after whatever the file holds, for a rename written as the agent
// writes one. A file that does not end in a newline (a writer killed
// mid-line) gets one first, so the cut line stays a line of its own that
// readers skip. A write that fails part way (a full disk, a file-size
// limit) is cut back off, so the agent's next line does not land on half
// a row; when another writer appended after it meanwhile, the part is
// ended with a newline instead, so only that line is lost.
//
// create is the mode of a file made when path is missing; 0 never makes
// one (a transcript deleted meanwhile must not come back holding only the
// rows).
func AppendRows(path string, rows []byte, create fs.FileMode) error {
	f, err := fsutil.OpenAppendExisting(path)
	if errors.Is(err, fs.ErrNotExist) && create != 0 {
		// Opened write-only, so it cannot be read: fine while it is empty,
		// and anything that made it meanwhile is read through a new open.
		if f, err = fsutil.OpenAppend(path, create); err == nil {
			if st, serr := f.Stat(); serr != nil || st.Size() > 0 {
				f.Close()
				f, err = fsutil.OpenAppendExisting(path)
			}
		}
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	out := rows
	if size := st.Size(); size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return fmt.Errorf("read the end of %s: %w", path, err)
		}
		if last[0] != '\n' {
			out = append([]byte{'\n'}, rows...)
		}
	}
	n, err := f.Write(out)
	if err == nil && n != len(out) {
		err = errors.New("short write")
	}
	if err != nil {
		if n > 0 {
			if cerr := cutBack(f, int64(n)); cerr != nil {
				return fmt.Errorf("append to %s: %w (and cutting the partial row off failed: %v)", path, err, cerr)
			}
		}
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// cutBack removes the n bytes a failed write left at the end of f, where
// the O_APPEND offset says they went; when the file has grown past them
// (another writer), it ends them with a newline instead.
func cutBack(f *os.File, n int64) error {
	end, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_CUR)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() == end {
		return f.Truncate(end - n)
	}
	_, err = f.Write([]byte{'\n'})
	return err
}
