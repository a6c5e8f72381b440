package sessions

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/transcript"
)

// history folds Claude Code's prompt history (history.jsonl, one line per
// submitted prompt) into the newest prompt of each session. The file is
// append-only between retention sweeps, so like transcripts it is read from
// where the last listing stopped: what was read before stays in the index
// (stored), what is read now is kept here (fresh). A shrunk, replaced or
// rewritten file is read again from the start.
type history struct {
	file    histFile
	fresh   map[string]histEntry
	stored  *storedIndex // nil when the stored entries no longer count
	changed bool
}

// readHistory brings the history up to date with the file at path.
func readHistory(path string, ix *storedIndex) (*history, error) {
	h := &history{fresh: map[string]histEntry{}, stored: ix}
	old := ix.histState
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		h.stored = nil
		h.changed = ix.nHist > 0 || old.Size != 0
		if err == nil { // a FIFO, say: never opened, and said every time
			return h, fsutil.NotRegular(path, uint32(st.Mode))
		}
		if errors.Is(err, syscall.ENOENT) {
			return h, nil
		}
		return h, err
	}
	h.file = histFile{Ino: uint64(st.Ino), Size: st.Size}
	if old.Ino == h.file.Ino && old.Size == st.Size {
		h.file = old
		return h, nil
	}
	h.changed = true
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		h.stored = nil
		return h, err
	}
	defer f.Close()
	from := int64(0)
	if old.Ino == h.file.Ino && st.Size >= old.Offset && old.Guard.holds(f, old.Offset) {
		from = old.Offset
		h.file.Clears = append(h.file.Clears, old.Clears...)
	} else {
		h.stored = nil
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return h, err
	}
	sc := jsonl.NewScanner(f, from)
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
			h.file.Clears = append(h.file.Clears, lineage.ClearEvent{SessionID: id, AtMs: ts})
		}
		if e, seen := h.fresh[id]; !seen || ts >= e.LastAtMs {
			h.fresh[id] = histEntry{LastAtMs: ts, Last: transcript.Oneline(display)}
		}
	}
	h.file.Offset = sc.Consumed()
	h.file.Guard, _ = guardOf(f, h.file.Offset)
	return h, sc.Err()
}

// get is a session's newest prompt.
func (h *history) get(id string) (histEntry, bool) {
	e, ok := h.fresh[id]
	if h.stored != nil {
		if s, sok := h.stored.history(id); sok && (!ok || s.LastAtMs > e.LastAtMs) {
			return s, true
		}
	}
	return e, ok
}

// write puts every entry into the next index: first those of the listed
// sessions, in the listing's order, which is the order the next listing
// looks them up in (so it reads the section front to back, and its pages
// can be released behind it); then those of sessions with no transcript.
func (h *history) write(w *indexWriter, files []fileRef) {
	// Which ids are written already: a sorted slice of the names' ids and
	// a flag for each (a map of 100,000 ids was a tenth of the peak).
	ids := make([]string, len(files))
	for k := range files {
		ids[k] = strings.TrimSuffix(files[k].name, ".jsonl")
	}
	sort.Strings(ids)
	ids = slices.Compact(ids)
	written := make([]bool, len(ids))
	mark := func(id string) bool { // reports whether id was not written yet
		i, found := slices.BinarySearch(ids, id)
		if !found {
			return true // not a listed session: written once, below
		}
		if written[i] {
			return false
		}
		written[i] = true
		return true
	}
	for k := range files {
		id := strings.TrimSuffix(files[k].name, ".jsonl")
		if e, ok := h.get(id); ok && mark(id) {
			w.history(id, e)
		}
	}
	listed := func(id string) bool { _, found := slices.BinarySearch(ids, id); return found }
	if h.stored != nil {
		h.stored.eachHistory(func(id string, _ histEntry) {
			if !listed(id) {
				e, _ := h.get(id) // the newer of stored and fresh
				w.history(id, e)
			}
		})
	}
	for id, e := range h.fresh {
		if listed(id) {
			continue
		}
		if h.stored != nil {
			if _, ok := h.stored.history(id); ok {
				continue // written above
			}
		}
		w.history(id, e)
	}
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
