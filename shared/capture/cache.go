package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"forgectl.dev/shared/fsutil"
)

// CacheFile sits in the snapshot store and remembers, per live session,
// the fingerprint of its last full capture. It is only a cache: deleting
// it, or losing an update to a concurrent pass, costs one full capture.
const CacheFile = ".capture-cache"

const cacheVersion = 2

type cacheFile struct {
	Version  int                   `json:"version"`
	Sessions map[string]cacheEntry `json:"sessions"`
}

// cacheEntry is what the last full capture of a session saw and stored.
// The name and counts let a pass that skips the session still report it;
// the process identity lets it skip reading the process's environment,
// which cannot change after exec.
type cacheEntry struct {
	Deep      uint64    `json:"deep"`
	Shallow   uint64    `json:"shallow"`
	At        time.Time `json:"at"`
	Tasks     int       `json:"tasks"`
	Gone      int       `json:"gone"`
	Name      string    `json:"name"`
	Pid       int       `json:"pid"`
	ProcStart string    `json:"proc_start"`
	ListID    string    `json:"list_id"`
	// Transcript saves looking for it on every pass.
	Transcript string `json:"transcript,omitempty"`
}

func (c Capturer) cachePath() string { return filepath.Join(c.Store.Dir, CacheFile) }

// loadCache reads the cache; anything unreadable is simply not cached.
func loadCache(path string) map[string]cacheEntry {
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		return map[string]cacheEntry{}
	}
	var f cacheFile
	if json.Unmarshal(b, &f) != nil || f.Version != cacheVersion || f.Sessions == nil {
		return map[string]cacheEntry{}
	}
	return f.Sessions
}

func saveCache(path string, entries map[string]cacheEntry) error {
	b, err := json.Marshal(cacheFile{Version: cacheVersion, Sessions: entries})
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, append(b, '\n'), fsutil.FilePerm)
}

// current reports whether an entry still describes the store: the same
// fingerprint, every covered file safely older than the capture, a capture
// recent enough, and the record still on disk (pruning or a person may
// have removed it).
func (c Capturer) current(e cacheEntry, ok bool, p print, deep bool, now time.Time, id string) bool {
	want := e.Shallow
	if deep {
		want = e.Deep
	}
	if !ok || want != p.sum {
		return false
	}
	if age := now.Sub(e.At); age < 0 || age >= refreshAfter {
		return false
	}
	if !p.newest.Before(e.At.Add(-racyWindow)) {
		return false
	}
	_, err := os.Stat(c.Store.Path(id))
	return err == nil
}
