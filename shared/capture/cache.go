package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"forgectl.dev/shared/fsutil"
)

// CacheFile sits in the snapshot store and remembers, per live session,
// the fingerprint of its last full capture. It is only a cache: deleting
// it, or losing an update to a concurrent pass, costs one full capture.
const CacheFile = ".capture-cache"

const cacheHeader = "forgectl capture cache v1"

// cacheEntry is what the last full capture of a session saw and stored.
// The name and counts let a pass that skips the session still report it.
type cacheEntry struct {
	sum   uint64
	at    time.Time
	tasks int
	gone  int
	name  string
}

func (c Capturer) cachePath() string { return filepath.Join(c.Store.Dir, CacheFile) }

// loadCache reads the cache; anything unreadable is simply not cached.
func loadCache(path string) map[string]cacheEntry {
	b, err := os.ReadFile(path)
	if err != nil {
		return map[string]cacheEntry{}
	}
	out := map[string]cacheEntry{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() || sc.Text() != cacheHeader {
		return out
	}
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 6)
		if len(f) != 6 {
			continue
		}
		sum, err1 := strconv.ParseUint(f[1], 16, 64)
		at, err2 := strconv.ParseInt(f[2], 10, 64)
		n, err3 := strconv.Atoi(f[3])
		g, err4 := strconv.Atoi(f[4])
		name, err5 := strconv.Unquote(f[5])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || !plausibleID(f[0]) {
			continue
		}
		out[f[0]] = cacheEntry{sum: sum, at: time.Unix(0, at), tasks: n, gone: g, name: name}
	}
	return out
}

func saveCache(path string, entries map[string]cacheEntry, order []string) error {
	var b strings.Builder
	b.WriteString(cacheHeader + "\n")
	for _, id := range order {
		e, ok := entries[id]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%s %x %d %d %d %s\n", id, e.sum, e.at.UnixNano(), e.tasks, e.gone, strconv.Quote(e.name))
	}
	return fsutil.WriteAtomic(path, []byte(b.String()), fsutil.FilePerm)
}

// current reports whether an entry still describes the store: the same
// fingerprint, every covered file safely older than the capture, a capture
// recent enough, and the record still on disk (pruning or a person may
// have removed it).
func (c Capturer) current(e cacheEntry, ok bool, p print, now time.Time, id string) bool {
	if !ok || e.sum != p.sum {
		return false
	}
	if age := now.Sub(e.at); age < 0 || age >= refreshAfter {
		return false
	}
	if !p.newest.Before(e.at.Add(-racyWindow)) {
		return false
	}
	_, err := os.Stat(c.Store.Path(id))
	return err == nil
}
