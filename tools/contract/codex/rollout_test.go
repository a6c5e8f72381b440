//go:build contract

package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/tools/contract/tmuxrig"
)

// record is one rollout line.
type record struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Ordinal *int            `json:"ordinal"`
	size    int
}

// meta is the part of a session_meta payload the harness relies on.
type meta struct {
	ID           string `json:"id"`
	SessionID    string `json:"session_id"`
	Timestamp    string `json:"timestamp"`
	Cwd          string `json:"cwd"`
	Originator   string `json:"originator"`
	CliVersion   string `json:"cli_version"`
	Source       any    `json:"source"`
	ThreadSource string `json:"thread_source"`
	HistoryMode  string `json:"history_mode"`
	ForkedFromID string `json:"forked_from_id"`
	HistoryBase  *struct {
		ThreadID            string `json:"thread_id"`
		EndOrdinalExclusive int64  `json:"end_ordinal_exclusive"`
		EndByteOffset       int64  `json:"end_byte_offset"`
	} `json:"history_base"`
	Git struct {
		Branch     string `json:"branch"`
		CommitHash string `json:"commit_hash"`
	} `json:"git"`
	BaseInstructions json.RawMessage `json:"base_instructions"`
}

// rollout is one file as read.
type rollout struct {
	path    string
	records []record
	size    int64
}

func readRollout(t *testing.T, path string) rollout {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rollout{path: path, size: int64(len(b))}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var rec record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s:%d is not JSON: %v", path, n, err)
		}
		rec.size = len(sc.Bytes())
		r.records = append(r.records, rec)
	}
	return r
}

// metas are the file's session_meta payloads in order (a legacy fork has
// two).
func (r rollout) metas(t *testing.T) []meta {
	t.Helper()
	var out []meta
	for _, rec := range r.records {
		if rec.Type == "session_meta" {
			var m meta
			if err := json.Unmarshal(rec.Payload, &m); err != nil {
				t.Fatalf("%s: session_meta: %v", r.path, err)
			}
			out = append(out, m)
		}
	}
	return out
}

// first is the first line's session_meta; the test fails when the first
// line is anything else.
func (r rollout) first(t *testing.T) meta {
	t.Helper()
	if len(r.records) == 0 || r.records[0].Type != "session_meta" {
		t.Fatalf("%s: the first line is not session_meta", r.path)
	}
	return r.metas(t)[0]
}

type eventMsg struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Item    struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"item"`
}

// prompts are the typed prompts of the file, as the paginated format
// writes them (event_msg item_completed with a UserMessage item) and as the
// legacy one does (event_msg user_message).
func (r rollout) prompts() (paginated, legacy []string) {
	for _, rec := range r.records {
		if rec.Type != "event_msg" {
			continue
		}
		var e eventMsg
		if json.Unmarshal(rec.Payload, &e) != nil {
			continue
		}
		switch {
		case e.Type == "item_completed" && e.Item.Type == "UserMessage":
			var parts []string
			for _, c := range e.Item.Content {
				parts = append(parts, c.Text)
			}
			paginated = append(paginated, strings.Join(parts, ""))
		case e.Type == "user_message":
			legacy = append(legacy, e.Message)
		}
	}
	return paginated, legacy
}

// eventTypes counts the event_msg payload types.
func (r rollout) eventTypes() map[string]int {
	out := map[string]int{}
	for _, rec := range r.records {
		if rec.Type == "event_msg" {
			var e eventMsg
			json.Unmarshal(rec.Payload, &e)
			out[e.Type]++
		}
	}
	return out
}

// rolloutName is rollout-<local time>-<uuid>[_<uuid>].jsonl.
var rolloutName = regexp.MustCompile(`^rollout-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d)-([0-9a-f-]{36})(?:_([0-9a-f-]{36}))?\.jsonl$`)

// files lists the rollouts under sessions/ and archived_sessions/.
func (h *home) files() (live, archived []string) {
	filepath.WalkDir(filepath.Join(h.codex, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") {
			live = append(live, p)
		}
		return nil
	})
	archived, _ = filepath.Glob(filepath.Join(h.codex, "archived_sessions", "rollout-*"))
	sort.Strings(live)
	return live, archived
}

// thread waits for the files whose first session_meta names a thread one
// of whose prompts is prompt, and returns that thread's id and files.
func (h *home) thread(prompt string) (string, []string) {
	h.t.Helper()
	var id string
	var paths []string
	tmuxrig.Poll.Until(h.t, tmuxrig.TurnWait, "a rollout holding the prompt "+prompt, func() (bool, string) {
		live, archived := h.files()
		byID := map[string][]string{}
		id = ""
		for _, p := range append(live, archived...) {
			r := readRolloutQuiet(p)
			if len(r.records) == 0 || r.records[0].Type != "session_meta" {
				continue
			}
			var m meta
			json.Unmarshal(r.records[0].Payload, &m)
			byID[m.ID] = append(byID[m.ID], p)
			pg, lg := r.prompts()
			for _, q := range append(pg, lg...) {
				if q == prompt {
					id = m.ID
				}
			}
		}
		paths = byID[id]
		return id != "", fmt.Sprintf("files %v", append(live, archived...))
	})
	return id, paths
}

// readRolloutQuiet reads what can be read of a file being written.
func readRolloutQuiet(path string) rollout {
	b, _ := os.ReadFile(path)
	r := rollout{path: path, size: int64(len(b))}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var rec record
		if json.Unmarshal(l, &rec) == nil {
			r.records = append(r.records, rec)
		}
	}
	return r
}

// indexEntry is one line of session_index.jsonl.
type indexEntry struct {
	ID         string `json:"id"`
	ThreadName string `json:"thread_name"`
	UpdatedAt  string `json:"updated_at"`
}

// index reads session_index.jsonl; ok is false when there is none.
func (h *home) index() ([]indexEntry, bool) {
	b, err := os.ReadFile(filepath.Join(h.codex, "session_index.jsonl"))
	if err != nil {
		return nil, false
	}
	var out []indexEntry
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e indexEntry
		if json.Unmarshal(l, &e) == nil && e.ID != "" {
			out = append(out, e)
		}
	}
	return out, true
}

// name is the last non-empty thread_name the index holds for id.
func (h *home) name(id string) string {
	es, _ := h.index()
	n := ""
	for _, e := range es {
		if e.ID == id && e.ThreadName != "" {
			n = e.ThreadName
		}
	}
	return n
}

func (h *home) waitName(id, want string) {
	h.t.Helper()
	tmuxrig.Poll.Until(h.t, tmuxrig.TurnWait, fmt.Sprintf("session_index.jsonl to name %s %q", id, want), func() (bool, string) {
		es, _ := h.index()
		return h.name(id) == want, fmt.Sprintf("entries %+v", es)
	})
}

// historyEntry is one line of history.jsonl.
type historyEntry struct {
	SessionID string `json:"session_id"`
	Ts        int64  `json:"ts"`
	Text      string `json:"text"`
}

func (h *home) history() []historyEntry {
	b, _ := os.ReadFile(filepath.Join(h.codex, "history.jsonl"))
	var out []historyEntry
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e historyEntry
		if json.Unmarshal(l, &e) == nil && e.SessionID != "" {
			out = append(out, e)
		}
	}
	return out
}

// lockPath is the thread's writer lock file.
func (h *home) lockPath(id string) string {
	return filepath.Join(h.codex, "thread-writer-locks", id+".lock")
}

// lockHolders reads /proc/locks for WRITE flocks on the thread's lock file,
// matched by <major>:<minor>:<inode> (hex device numbers), without taking
// the lock: the pids holding it. No file means no holders.
func (h *home) lockHolders(id string) []int {
	fi, err := os.Stat(h.lockPath(id))
	if err != nil {
		return nil
	}
	st := fi.Sys().(*syscall.Stat_t)
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil
	}
	return writeHolders(string(b), lockKey(uint64(st.Dev), st.Ino))
}

// waitHolder waits until the thread's lock is held by exactly want.
func (h *home) waitHolder(id string, want int, what string) {
	h.t.Helper()
	tmuxrig.Poll.Until(h.t, tmuxrig.TurnWait, fmt.Sprintf("%s: the write lock of %s held by pid %d", what, id, want), func() (bool, string) {
		got := h.lockHolders(id)
		return len(got) == 1 && got[0] == want, fmt.Sprintf("holders %v (daemon %d)", got, h.daemonPid())
	})
}

// waitUnlocked waits until nobody holds the thread's lock.
func (h *home) waitUnlocked(id string, within time.Duration, what string) {
	h.t.Helper()
	tmuxrig.Poll.Until(h.t, within, fmt.Sprintf("%s: the write lock of %s released", what, id), func() (bool, string) {
		got := h.lockHolders(id)
		return len(got) == 0, fmt.Sprintf("holders %v", got)
	})
}
