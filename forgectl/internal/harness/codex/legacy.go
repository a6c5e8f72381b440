package codex

import (
	"bytes"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/jsonl"
)

// A legacy fork (Codex 0.142.3) starts with its own session_meta, then a
// copy of its parent's rollout: the parent's lines in order, each with the
// same payload and a timestamp rewritten to when the fork wrote it. The
// copy is the parent's, not the fork's. Where it ends is decided exactly
// when the parent's file is there: the run of lines whose type and payload
// equal the parent's lines, from its line 1. The segment's record keeps
// the outcome (and how far the match got, for a fork read on as it
// grows), so a warm listing reads neither file again.
//
// With the parent's file gone (or not the one copied: its line 1 is not
// the fork's line 2), the copy is the lines up to the first one that
// carries a turn_id minted after the fork's own id. Both are UUIDv7s,
// which begin with their time in milliseconds: every copied turn is the
// parent's and older than the fork, and the fork's own first turn is
// minted after the fork. The time between the copy and that turn is no
// rule: in a real run on a loaded machine the copy took 11 ms and the
// fork's own turn came 475 ms after it, half a second inside the one-second
// window an earlier guess used.

// parentFile is a legacy fork's parent's rollout, open while the fork is
// read.
type parentFile struct {
	sc    *jsonl.Scanner
	close func()
}

// openParent opens the first segment of thread id, created at created
// (the copied session_meta's timestamp), or nil when it is not there.
// Codex names the file rollout-<local time>-<id>.jsonl under the day it
// was made in local time, so the days either side of created's UTC day
// are looked in (any zone is within a day of UTC), and then
// archived_sessions/. Each folder is read afresh; a listing reads each
// once (folders).
func (h *Harness) openParent(id, created string) *parentFile {
	return h.openRollout(h.findRollout(id, created, readFolder))
}

func (h *Harness) openRollout(path string) *parentFile {
	if path == "" {
		return nil
	}
	_, r, done, err := h.openSegment(path)
	if err != nil {
		return nil
	}
	sc, _ := h.parents.Get().(*jsonl.Scanner)
	if sc == nil {
		sc = jsonl.NewScanner(r, 0)
	} else {
		sc.Reset(r, 0)
	}
	return &parentFile{sc: sc, close: func() { done(); sc.Reset(nil, 0); h.parents.Put(sc) }}
}

// findRollout looks for the file in the folders, whose names (sorted)
// names gives.
func (h *Harness) findRollout(id, created string, names func(dir string) []string) string {
	var dirs []string
	if t, err := time.Parse(time.RFC3339Nano, created); err == nil {
		for _, d := range []int{0, -1, 1} {
			dirs = append(dirs, filepath.Join(h.paths.Sessions(), t.UTC().AddDate(0, 0, d).Format("2006/01/02")))
		}
	}
	dirs = append(dirs, h.paths.Archived())
	for _, dir := range dirs {
		ns := names(dir)
		for _, ext := range []string{".jsonl", ".jsonl" + zstSuffix} {
			// rollout-*-<id><ext>; a rewind's later segments
			// (<id>_<uuid>) do not match.
			tail := "-" + id + ext
			for _, n := range ns {
				if len(n) >= len("rollout-")+len(tail) && strings.HasPrefix(n, "rollout-") && strings.HasSuffix(n, tail) {
					return filepath.Join(dir, n)
				}
			}
		}
	}
	return ""
}

// readFolder is a folder's names, sorted; none when it cannot be read
// (a missing day is the usual case).
func readFolder(dir string) []string {
	f, err := fsutil.OpenDir(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	slices.Sort(names)
	return names
}

// folders reads each folder once for a listing: every legacy fork looks
// for its parent in four folders under two names, and a busy day's
// folder holds hundreds of rollouts. The listing's rows are made
// concurrently.
type folders struct {
	mu    sync.Mutex
	names map[string][]string
}

func (f *folders) get(dir string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ns, ok := f.names[dir]; ok {
		return ns
	}
	if f.names == nil {
		f.names = map[string][]string{}
	}
	ns := readFolder(dir)
	f.names[dir] = ns
	return ns
}

// copied says the line (its type and payload) is still the parent's copy;
// when it is not, the copy is over.
func (g *segment) copied(typ string, payload []byte) bool {
	if g.CopyLines >= 0 {
		if g.copy == nil && g.open != nil {
			g.copy = g.open(g.CopyOf, g.CopyCreated)
			// A fork read on from where the last read stopped: the lines
			// matched then are passed over.
			for k := 0; g.copy != nil && k < g.CopyLines; k++ {
				if _, ok := g.copy.sc.Next(); !ok {
					g.closeCopy()
				}
			}
		}
		if g.copy != nil {
			pl, ok := g.copy.sc.Next()
			if ok && samePayload(typ, payload, pl) {
				g.CopyLines++
				return true
			}
			if ok && g.CopyLines == 0 {
				g.closeCopy() // not the file copied: fall back
			} else {
				g.closeCopy()
				g.Copying = false
				return false
			}
		}
		g.CopyLines = -1
	}
	if newerTurn(payload, g.ID) {
		g.Copying = false
		return false
	}
	return true
}

func (g *segment) closeCopy() {
	if g.copy != nil {
		g.copy.close()
		g.copy = nil
	}
}

// samePayload says a parent's line has the fork's line's type and payload.
func samePayload(typ string, payload, parentLine []byte) bool {
	ptyp, _, pp := envelope(parentLine)
	return ptyp == typ && bytes.Equal(bytes.TrimSpace(pp), bytes.TrimSpace(payload))
}

// newerTurn says the payload carries a turn_id minted at or after the
// UUIDv7 fork; a turn_id that is not a UUIDv7 (or a fork id that is not)
// ends the copy too, so a fork never loses its own prompts.
func newerTurn(payload []byte, fork string) bool {
	turn := field(payload, `"turn_id":"`)
	if turn == nil {
		return false
	}
	tm, ok1 := uuid7Ms(string(turn))
	fm, ok2 := uuid7Ms(fork)
	return !ok1 || !ok2 || tm >= fm
}

// uuid7Ms is a version-7 UUID's time, its first 48 bits.
func uuid7Ms(id string) (int64, bool) {
	if len(id) != 36 || id[8] != '-' || id[14] != '7' {
		return 0, false
	}
	var b [6]byte
	if _, err := hex.Decode(b[:], []byte(id[:8]+id[9:13])); err != nil {
		return 0, false
	}
	var ms int64
	for _, c := range b {
		ms = ms<<8 | int64(c)
	}
	return ms, true
}
