package codex

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"golang.org/x/sys/unix"
)

// history folds history.jsonl (a line per prompt typed in the TUI) into
// the newest prompt time of each thread, kept in the listing index's aux
// section (a record per thread, the file's stamp as the state) so that a
// warm listing does not parse the whole file again. Codex appends to it;
// a file that grew is read on from where the last listing stopped, any
// other change is read whole (fresh.Decide).
type history struct {
	path   string
	stamp  fresh.Stamp
	fresh  map[string]int64 // read now: thread id to Unix seconds
	stored harness.Aux      // what the last listing kept; nil when it no longer counts
	// whole is the file read from the start, for when the index shrank
	// under the listing and its records went with it.
	wholeOnce sync.Once
	whole     map[string]int64
}

// readHistory brings the history up to date from stored (the last
// listing's aux section). changed says the aux section must be written.
func readHistory(path string, stored harness.Aux) (h *history, changed bool, err error) {
	h = &history{path: path, fresh: map[string]int64{}, stored: stored}
	var old fresh.Stamp
	n := 0
	if stored != nil {
		old, n = decodeStamp(stored.State()), stored.Len()
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		h.stored = nil
		changed = n > 0 || old.Size != 0
		switch {
		case err == nil:
			return h, changed, fsutil.NotRegular(path, uint32(st.Mode))
		case errors.Is(err, unix.ENOENT):
			return h, changed, nil
		}
		return h, changed, err
	}
	now := fresh.File{Ino: uint64(st.Ino), Size: st.Size, MtimeNs: fresh.MtimeNs(&st)}
	if old.Same(now) {
		h.stamp = old
		return h, false, nil
	}
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		h.stored = nil
		return h, true, err
	}
	defer f.Close()
	from := int64(0)
	if fresh.Decide(&old, now, f) == fresh.Appended {
		from = old.Offset
	} else {
		h.stored = nil
	}
	end, err := foldHistory(f, from, h.fresh)
	stamp, serr := fresh.Take(now, end, f)
	if serr != nil {
		stamp = fresh.Stamp{File: now, Offset: end} // no checksums: read whole when it grows
	}
	h.stamp = stamp
	return h, true, err
}

// foldHistory reads history lines from offset into at, the newest time
// per thread, and returns where it stopped (past the last whole line).
func foldHistory(f io.ReadSeeker, from int64, at map[string]int64) (int64, error) {
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return from, err
	}
	sc := jsonl.NewScanner(f, from)
	for {
		line, ok := sc.Next()
		if !ok {
			break
		}
		var e struct {
			ID string `json:"session_id"`
			Ts int64  `json:"ts"`
		}
		if json.Unmarshal(line, &e) == nil && e.ID != "" && e.Ts > at[e.ID] {
			at[e.ID] = e.Ts
		}
	}
	return sc.Consumed(), sc.Err()
}

// get is the newest prompt time of a thread, Unix seconds.
func (h *history) get(id string) (int64, bool) {
	ts, ok := h.fresh[id]
	if h.stored == nil {
		return ts, ok
	}
	p, sok, err := h.stored.Get(id)
	if err != nil {
		ts, ok = h.readWhole()[id]
		return ts, ok
	}
	if sok {
		if s, dok := decodeTs(p); dok && s > ts {
			return s, true
		}
	}
	return ts, ok || sok
}

func (h *history) readWhole() map[string]int64 {
	h.wholeOnce.Do(func() {
		h.whole = map[string]int64{}
		if f, err := fsutil.OpenRegular(h.path); err == nil {
			foldHistory(f, 0, h.whole)
			f.Close()
		}
	})
	return h.whole
}

// write puts every thread's time into the next aux section and returns
// its state record.
func (h *history) write(w harness.AuxWriter) ([]byte, error) {
	var e binrec.Encoder
	put := func(id string, ts int64) {
		e.B = e.B[:0]
		e.Int(ts)
		w.Put(id, e.B)
	}
	if h.stored != nil {
		err := h.stored.Each(func(id, p string) {
			ts, _ := decodeTs(p)
			if f, ok := h.fresh[id]; ok {
				ts = max(ts, f)
				delete(h.fresh, id)
			}
			put(id, ts)
		})
		if err != nil {
			return nil, err
		}
	}
	for id, ts := range h.fresh {
		put(id, ts)
	}
	var s binrec.Encoder
	s.Uint(h.stamp.Ino)
	s.Int(h.stamp.Size)
	s.Int(h.stamp.MtimeNs)
	s.Int(h.stamp.Offset)
	s.Uint(uint64(h.stamp.Head))
	s.Uint(uint64(h.stamp.Tail))
	return s.B, nil
}

func decodeTs(p string) (int64, bool) {
	d := binrec.Decoder{S: p}
	ts := d.Int()
	return ts, d.Err() == nil && d.Rest() == 0
}

// decodeStamp decodes the state record; one that does not decode is no
// history read, so the file is read whole.
func decodeStamp(p string) fresh.Stamp {
	if p == "" {
		return fresh.Stamp{}
	}
	d := binrec.Decoder{S: p}
	st := fresh.Stamp{File: fresh.File{Ino: d.Uint(), Size: d.Int(), MtimeNs: d.Int()}, Offset: d.Int(),
		Sums: fresh.Sums{Head: uint32(d.Uint()), Tail: uint32(d.Uint())}}
	if d.Err() != nil || d.Rest() != 0 {
		return fresh.Stamp{}
	}
	return st
}
