package sessions

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"syscall"

	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/transcript"
)

// historyIndex folds Claude Code's prompt history (history.jsonl, one line
// per submitted prompt) into the newest prompt of each session. The file is
// append-only between retention sweeps, so like transcripts it is read from
// where the last listing stopped; a shrunk or replaced file is read again.
type historyIndex struct {
	Ino      uint64
	Size     int64
	Offset   int64
	Sessions map[string]histEntry
}

type histEntry struct {
	LastAtMs int64  // epoch ms of the newest prompt
	Last     string // its display text, one line
}

// update reads what was appended to path since the index last saw it; it
// reports whether anything changed.
func (h *historyIndex) update(path string) (bool, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			changed := len(h.Sessions) > 0
			*h = historyIndex{Sessions: map[string]histEntry{}}
			return changed, nil
		}
		return false, err
	}
	ino := uint64(st.Ino)
	if h.Sessions == nil || ino != h.Ino || st.Size < h.Offset {
		*h = historyIndex{Sessions: map[string]histEntry{}}
	}
	if st.Size == h.Size && ino == h.Ino {
		return false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := f.Seek(h.Offset, io.SeekStart); err != nil {
		return false, err
	}
	sc := jsonl.NewScanner(f, h.Offset)
	for {
		line, ok := sc.Next()
		if !ok {
			break
		}
		var row struct {
			Display   string `json:"display"`
			Timestamp int64  `json:"timestamp"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(line, &row) != nil || row.SessionID == "" {
			continue // old lines lack sessionId; broken lines are skipped
		}
		if e, ok := h.Sessions[row.SessionID]; !ok || row.Timestamp >= e.LastAtMs {
			h.Sessions[row.SessionID] = histEntry{LastAtMs: row.Timestamp, Last: transcript.Oneline(row.Display)}
		}
	}
	h.Ino, h.Size, h.Offset = ino, st.Size, sc.Consumed()
	return true, sc.Err()
}
