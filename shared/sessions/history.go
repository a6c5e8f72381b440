package sessions

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"

	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/lineage"
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
	// Clears are the /clear lines (few), which tell a /clear continuation
	// which session it continued (see lineage.Decide).
	Clears []lineage.ClearEvent
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
		id, ts, display, ok := historyLine(line)
		if !ok {
			continue // old lines lack sessionId; broken lines are skipped
		}
		if lineage.IsClearCommand(transcript.Oneline(display)) {
			h.Clears = append(h.Clears, lineage.ClearEvent{SessionID: id, AtMs: ts})
		}
		if e, seen := h.Sessions[id]; !seen || ts >= e.LastAtMs {
			h.Sessions[id] = histEntry{LastAtMs: ts, Last: transcript.Oneline(display)}
		}
	}
	h.Ino, h.Size, h.Offset = ino, st.Size, sc.Consumed()
	return true, sc.Err()
}

// historyLine extracts a history line's session id, timestamp and display
// text without decoding pastedContents, which can hold large pastes. The
// keys are top-level ones: display comes first and sessionId and timestamp
// last in every line Claude Code writes, and a key pattern cannot occur
// inside an escaped string value. A line that is not a complete object is
// rejected.
func historyLine(line []byte) (id string, ts int64, display string, ok bool) {
	line = bytes.TrimSpace(line)
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return "", 0, "", false
	}
	if id, ok = transcript.LastString(line, `"sessionId":"`); !ok || id == "" {
		return "", 0, "", false
	}
	i := bytes.LastIndex(line, []byte(`"timestamp":`))
	if i < 0 {
		return "", 0, "", false
	}
	num := line[i+len(`"timestamp":`):]
	end := 0
	for end < len(num) && num[end] >= '0' && num[end] <= '9' {
		end++
	}
	ts, err := strconv.ParseInt(string(num[:end]), 10, 64)
	if err != nil {
		return "", 0, "", false
	}
	display, _ = transcript.FirstString(line, `"display":"`)
	return id, ts, display, true
}
