package hookstate

import (
	"encoding/json"
	"errors"
	"io/fs"
	"time"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/proc"
)

// Holder is the content a run writes into run.lock once it holds it, so
// that others can say who holds the lock and since when without touching
// the lock itself (a probe flock would make a waiting run believe, for a
// moment, that someone else holds it).
type Holder struct {
	Pid int `json:"pid"`
	// ProcStart is the kernel start time of Pid (proc.StartTime), so a
	// reused pid is not taken for the holder.
	ProcStart string    `json:"proc_start"`
	Since     time.Time `json:"since"`
	Trigger   string    `json:"trigger"`
}

// Encode is the lock file's content.
func (h Holder) Encode() []byte {
	b, _ := json.Marshal(h)
	return append(b, '\n')
}

// ReadHolder returns the run that holds run.lock. held is false when the
// file is missing, empty (released cleanly), unreadable as a Holder, or
// names a process that is gone or whose pid was reused: a run killed outright
// leaves its content behind, and the kernel dropped its flock with it.
func ReadHolder(path string) (h Holder, held bool, err error) {
	b, err := fsutil.ReadRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, err
	}
	if len(b) == 0 || json.Unmarshal(b, &h) != nil || h.Pid <= 0 {
		return Holder{}, false, nil
	}
	if !proc.Alive(h.Pid) {
		return h, false, nil
	}
	if start, err := proc.StartTime(h.Pid); err == nil && h.ProcStart != "" && start != h.ProcStart {
		return h, false, nil
	}
	return h, true, nil
}
