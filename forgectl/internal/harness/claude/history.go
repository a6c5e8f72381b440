package claude

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/transcript"
	"golang.org/x/sys/unix"
)

// history folds Claude Code's prompt history (history.jsonl, one line per
// submitted prompt) into the newest prompt of each session. The file is
// append-only between retention sweeps, so like transcripts it is read from
// where the last listing stopped: what was read before stays in the index
// (stored), what is read now is kept here (fresh). A shrunk, replaced or
// rewritten file is read again from the start (fresh.Decide says which).
type history struct {
	path    string
	file    histFile
	fresh   map[string]histEntry
	stored  harness.Aux // nil when the stored entries no longer count
	changed bool
	// whole is the history read from the start, for when the index
	// shrank under the listing and its entries went with it.
	wholeOnce sync.Once
	whole     map[string]histEntry
}

// readHistory brings the history up to date with the file at path, from
// where the last listing's index says it stopped (stored; nil for none).
func readHistory(path string, stored harness.Aux) (*history, error) {
	h := &history{path: path, fresh: map[string]histEntry{}, stored: stored}
	var old histFile
	n := 0
	if stored != nil {
		old, n = decodeHistFile(stored.State()), stored.Len()
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		h.stored = nil
		h.changed = n > 0 || old.Size != 0
		if err == nil { // a FIFO, say: never opened, and said every time
			return h, fsutil.NotRegular(path, uint32(st.Mode))
		}
		if errors.Is(err, unix.ENOENT) {
			return h, nil
		}
		return h, err
	}
	now := fresh.File{Ino: uint64(st.Ino), Size: st.Size, MtimeNs: fresh.MtimeNs(&st)}
	if old.Same(now) {
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
	if fresh.Decide(&old.Stamp, now, f) == fresh.Appended {
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
		if lineage.IsClearCommand(jsonl.Oneline(display)) {
			h.file.Clears = append(h.file.Clears, lineage.ClearEvent{SessionID: id, AtMs: ts})
		}
		if e, seen := h.fresh[id]; !seen || ts >= e.LastAtMs {
			h.fresh[id] = histEntry{LastAtMs: ts, Last: jsonl.Oneline(display)}
		}
	}
	stamp, err := fresh.Take(now, sc.Consumed(), f, sc.Spare())
	if err != nil {
		// No checksums (an I/O error): the next listing that finds the
		// file grown reads it whole.
		stamp = fresh.Stamp{File: now, Offset: sc.Consumed()}
	}
	h.file.Stamp = stamp
	return h, sc.Err()
}

// get is a session's newest prompt.
func (h *history) get(id string) (histEntry, bool) {
	e, ok := h.fresh[id]
	if h.stored == nil {
		return e, ok
	}
	s, sok, err := h.storedEntry(id)
	if err != nil {
		// The index shrank under the listing: what it held of the history
		// before the offset read on from is gone. Read the history whole,
		// once, rather than answer from half of it.
		h.wholeOnce.Do(func() {
			w, _ := readHistory(h.path, nil)
			h.whole = w.fresh
		})
		e, ok = h.whole[id]
		return e, ok
	}
	if sok && (!ok || s.LastAtMs > e.LastAtMs) {
		return s, true
	}
	return e, ok
}

// storedEntry is a session's entry in the stored history; an error says
// the index shrank under the listing, and with it what it held.
func (h *history) storedEntry(id string) (histEntry, bool, error) {
	payload, ok, err := h.stored.Get(id)
	if err != nil || !ok {
		return histEntry{}, false, err
	}
	e, ok := decodeHistEntry(payload)
	return e, ok, nil
}

// write puts every entry into the next index: first those of the listed
// sessions, in the listing's order, which is the order the next listing
// looks them up in (so it reads the section front to back, and its pages
// can be released behind it); then those of sessions with no transcript.
// It fails when the stored index shrank under the listing, whose entries
// it cannot copy then. It returns the state record.
func (h *history) write(w harness.AuxWriter, files []harness.File) ([]byte, error) {
	// Which ids are written already: a sorted slice of the names' ids and
	// a flag for each (a map of 100,000 ids was a tenth of the peak).
	ids := make([]string, len(files))
	for k := range files {
		ids[k] = strings.TrimSuffix(files[k].Name, ".jsonl")
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
	var enc binrec.Encoder
	put := func(id string, e histEntry) {
		enc.B = enc.B[:0]
		e.encode(&enc)
		w.Put(id, enc.B)
	}
	for k := range files {
		id := strings.TrimSuffix(files[k].Name, ".jsonl")
		if e, ok := h.get(id); ok && mark(id) {
			put(id, e)
		}
	}
	listed := func(id string) bool { _, found := slices.BinarySearch(ids, id); return found }
	if h.stored != nil {
		err := h.stored.Each(func(id, payload string) {
			e, ok := decodeHistEntry(payload)
			if ok && !listed(id) {
				if f, ok := h.fresh[id]; ok && f.LastAtMs >= e.LastAtMs {
					e = f // the newer of stored and fresh, as get says
				}
				put(id, e)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	for id, e := range h.fresh {
		if listed(id) {
			continue
		}
		if h.stored != nil {
			_, ok, err := h.storedEntry(id)
			if err != nil {
				return nil, err
			}
			if ok {
				continue // written above
			}
		}
		put(id, e)
	}
	enc.B = enc.B[:0]
	h.file.encode(&enc)
	return enc.B, nil
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
