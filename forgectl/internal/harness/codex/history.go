package codex

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"

	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
	"golang.org/x/sys/unix"
)

// The files beside the rollouts that rows are joined with, history.jsonl
// (a line per prompt typed in the TUI) and session_index.jsonl (a line
// per name given), are folded into one value per thread and kept in the
// listing index's aux section, so that a warm listing parses neither
// again. Codex appends to both: a file that grew is read on from where the
// last listing stopped, any other change is read whole (fresh.Decide).

// foldRule says how a file folds into a value per thread.
type foldRule struct {
	// prefix keys the file's records in the aux section, which the two
	// files share.
	prefix string
	// line is what one line says: the thread and the value, a payload.
	line func(line []byte) (id, v string, ok bool)
	// merge is the value after old when v comes later in the file.
	merge func(old, v string) string
}

// historyRule: the newest prompt time (Unix seconds) per thread.
var historyRule = foldRule{prefix: "h", line: func(line []byte) (string, string, bool) {
	id, ts, ok := decodeHistory(line)
	if !ok || id == "" {
		return "", "", false
	}
	var b binrec.Encoder
	b.Int(ts)
	return id, string(b.B), true
}, merge: func(old, v string) string {
	if a, _ := decodeTs(old); a > mustTs(v) {
		return old
	}
	return v
}}

// namesRule: the last non-empty thread_name per thread (a fork's first
// entry is its parent's name; a /rename comes later).
var namesRule = foldRule{prefix: "n", line: func(line []byte) (string, string, bool) {
	if !bytes.Contains(line, []byte(`"thread_name"`)) {
		return "", "", false
	}
	id, name, ok := decodeName(line)
	if !ok || id == "" || strings.TrimSpace(name) == "" {
		return "", "", false
	}
	return id, name, true
}, merge: func(_, v string) string { return v }}

func mustTs(p string) int64 { ts, _ := decodeTs(p); return ts }

func decodeTs(p string) (int64, bool) {
	d := binrec.Decoder{S: p}
	ts := d.Int()
	return ts, d.Err() == nil && d.Rest() == 0
}

// folded is one file, folded by its rule.
type folded struct {
	rule   foldRule
	path   string
	stamp  fresh.Stamp
	fresh  map[string]string // read now
	stored harness.Aux       // the last listing's records; nil when they no longer count
	// whole is the file read from the start, for when the index shrank
	// under the listing and its records went with it.
	wholeOnce sync.Once
	whole     map[string]string
}

// fold brings the file at path up to date from stored, the last
// listing's records under the rule's prefix and the file's state (old).
// changed says the aux section must be written.
func fold(rule foldRule, path string, stored harness.Aux, old fresh.Stamp) (f *folded, changed bool, err error) {
	f = &folded{rule: rule, path: path, fresh: map[string]string{}, stored: stored}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.stored = nil
		changed = old.Size != 0 || old.Ino != 0
		switch {
		case err == nil:
			return f, changed, fsutil.NotRegular(path, uint32(st.Mode))
		case errors.Is(err, unix.ENOENT):
			return f, changed, nil
		}
		return f, changed, err
	}
	now := fresh.File{Ino: uint64(st.Ino), Size: st.Size, MtimeNs: fresh.MtimeNs(&st)}
	if old.Same(now) {
		f.stamp = old
		return f, false, nil
	}
	fh, err := fsutil.OpenRegular(path)
	if err != nil {
		f.stored = nil
		return f, true, err
	}
	defer fh.Close()
	from := int64(0)
	if fresh.Decide(&old, now, fh) == fresh.Appended {
		from = old.Offset
	} else {
		f.stored = nil
	}
	end, err := f.read(fh, from, f.fresh)
	stamp, serr := fresh.Take(now, end, fh, nil)
	if serr != nil {
		stamp = fresh.Stamp{File: now, Offset: end} // no checksums: read whole when it grows
	}
	f.stamp = stamp
	return f, true, err
}

// read folds the lines from offset into into, and returns where it
// stopped (past the last whole line).
func (f *folded) read(r io.ReadSeeker, from int64, into map[string]string) (int64, error) {
	if _, err := r.Seek(from, io.SeekStart); err != nil {
		return from, err
	}
	sc := jsonl.NewScanner(r, from)
	for {
		line, ok := sc.Next()
		if !ok {
			break
		}
		if id, v, ok := f.rule.line(line); ok {
			if old, seen := into[id]; seen {
				v = f.rule.merge(old, v)
			}
			into[id] = v
		}
	}
	return sc.Consumed(), sc.Err()
}

// get is a thread's value.
func (f *folded) get(id string) (string, bool) {
	v, ok := f.fresh[id]
	if f.stored == nil {
		return v, ok
	}
	p, sok, err := f.stored.Get(f.rule.prefix + id)
	if err != nil {
		v, ok = f.readWhole()[id]
		return v, ok
	}
	switch {
	case sok && ok:
		return f.rule.merge(p, v), true
	case sok:
		return p, true
	}
	return v, ok
}

func (f *folded) readWhole() map[string]string {
	f.wholeOnce.Do(func() {
		f.whole = map[string]string{}
		if fh, err := fsutil.OpenRegular(f.path); err == nil {
			f.read(fh, 0, f.whole)
			fh.Close()
		}
	})
	return f.whole
}

// write puts every thread's value into the next aux section.
func (f *folded) write(w harness.AuxWriter) error {
	if f.stored != nil {
		err := f.stored.Each(func(key, p string) {
			id, ok := strings.CutPrefix(key, f.rule.prefix)
			if !ok {
				return
			}
			if v, ok := f.fresh[id]; ok {
				p = f.rule.merge(p, v)
				delete(f.fresh, id)
			}
			w.Put(key, []byte(p))
		})
		if err != nil {
			return err
		}
	}
	for id, v := range f.fresh {
		w.Put(f.rule.prefix+id, []byte(v))
	}
	return nil
}

// joined are both files, as a listing reads them.
type joined struct {
	history, names *folded
}

// readJoined folds both files from the aux section stored.
func readJoined(p Paths, stored harness.Aux) (*joined, bool, []error) {
	hs, ns := decodeState(stored.State())
	var j joined
	var problems []error
	var ch, cn bool
	var err error
	if j.history, ch, err = fold(historyRule, p.History(), stored, hs); err != nil {
		problems = append(problems, err)
	}
	if j.names, cn, err = fold(namesRule, p.Index(), stored, ns); err != nil {
		problems = append(problems, err)
	}
	return &j, ch || cn, problems
}

// write writes both into the next aux section and returns its state.
func (j *joined) write(w harness.AuxWriter) ([]byte, error) {
	if err := j.history.write(w); err != nil {
		return nil, err
	}
	if err := j.names.write(w); err != nil {
		return nil, err
	}
	var e binrec.Encoder
	for _, st := range []fresh.Stamp{j.history.stamp, j.names.stamp} {
		e.Uint(st.Ino)
		e.Int(st.Size)
		e.Int(st.MtimeNs)
		e.Int(st.Offset)
		e.Uint(uint64(st.Head))
		e.Uint(uint64(st.Tail))
	}
	return e.B, nil
}

// decodeState is both files' stamps; a state that does not decode is no
// file read, so both are read whole.
func decodeState(p string) (history, names fresh.Stamp) {
	if p == "" {
		return
	}
	d := binrec.Decoder{S: p}
	var out [2]fresh.Stamp
	for k := range out {
		out[k] = fresh.Stamp{File: fresh.File{Ino: d.Uint(), Size: d.Int(), MtimeNs: d.Int()}, Offset: d.Int(),
			Sums: fresh.Sums{Head: uint32(d.Uint()), Tail: uint32(d.Uint())}}
	}
	if d.Err() != nil || d.Rest() != 0 {
		return fresh.Stamp{}, fresh.Stamp{}
	}
	return out[0], out[1]
}
