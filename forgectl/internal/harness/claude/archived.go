package claude

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/fsutil"
	"golang.org/x/sys/unix"
)

// ArchivedName is Claude Code's own archive mark in a session's folder:
// <projectDir>/<sessionId>/archived.json, {"archived": <bool>, "at":
// "<RFC 3339 with offset>"} (2.1.333 bundle: the zod object {archived:
// boolean, at: datetime({offset: true})}, read with a 4 KiB cap; its
// picker reads and writes it only behind a feature flag, off offline, see
// docs/retention.md). forgectl hides the session.
const ArchivedName = "archived.json"

// maxArchived is the bundle's cap: a bigger file marks nothing.
const maxArchived = 4096

// archived brings the archive mark up to date. Only a session with a
// folder can have one, and the walk already knows which do, so a session
// without one costs nothing; one with a folder costs a stat, and the file
// is read only when its size or mtime moved. It returns ent itself when
// nothing changed, else an updated copy.
func archived(f *harness.File, path string, ent *indexEntry) (*indexEntry, error) {
	mark := archEntry{Size: -1}
	var st unix.Stat_t
	// The path is made only for a session with a folder: a warm listing
	// calls this for every transcript.
	var p string
	if f.Folder {
		p = filepath.Join(filepath.Dir(path), strings.TrimSuffix(f.Name, ".jsonl"), ArchivedName)
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			mark.Size, mark.MtimeNs = st.Size, fresh.MtimeNs(&st)
		}
	}
	if mark.Size == ent.Arch.Size && mark.MtimeNs == ent.Arch.MtimeNs {
		return ent, nil
	}
	var err error
	if mark.Size >= 0 && mark.Size <= maxArchived {
		b, rerr := fsutil.ReadRegular(p)
		if rerr != nil {
			err = rerr
			mark = archEntry{Size: -2} // not cached: read again next time
		} else {
			mark.Archived, mark.AtMs = parseArchived(b)
		}
	}
	next := *ent // a record of the stored index is left as it was
	next.Arch = mark
	return &next, err
}

// parseArchived reads an archived.json as Claude Code does: a JSON object
// whose "archived" is a boolean and whose "at" is an RFC 3339 time (other
// keys ignored, the last of duplicate keys counts, keys match exactly). A
// file that is not such an object marks nothing.
func parseArchived(b []byte) (archivedMark bool, atMs int64) {
	if len(b) > maxArchived {
		return false, 0
	}
	var obj map[string]json.RawMessage // exact keys; encoding/json's struct match ignores case
	if json.Unmarshal(b, &obj) != nil {
		return false, 0
	}
	var flag bool
	var at string
	if json.Unmarshal(obj["archived"], &flag) != nil || json.Unmarshal(obj["at"], &at) != nil {
		return false, 0
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return false, 0
	}
	return flag, t.UnixMilli()
}

// archivedNow says whether the mark hides the session: Claude Code drops
// it once a prompt newer than its "at" is in the transcript (it looks in
// the first and last 64 KiB); forgectl asks the prompt history, which the
// listing has already read, rather than read the transcript again.
func (a archEntry) archivedNow(lastPromptAt time.Time) bool {
	if !a.Archived {
		return false
	}
	return lastPromptAt.IsZero() || lastPromptAt.UnixMilli() <= a.AtMs
}
