package gencodex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func generate(t *testing.T, seed uint64, threads int) (*Manifest, string) {
	t.Helper()
	home := t.TempDir()
	m, err := Generate(Options{Home: home, Threads: threads, Seed: seed, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return m, home
}

// contents reads every file under home (zstd decoded), keyed by relative
// path, with home itself replaced so two homes compare.
func contents(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(home, p)
		info, _ := d.Info()
		b := readPlain(t, p)
		out[rel] = info.ModTime().UTC().Format(time.RFC3339Nano) + "\n" + strings.ReplaceAll(string(b), home, "$HOME")
		return nil
	})
	return out
}

func readPlain(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(p, ".zst") {
		dec, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		if b, err = dec.DecodeAll(b, nil); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	return b
}

func TestSameSeedSameFiles(t *testing.T) {
	_, a := generate(t, 42, 40)
	_, b := generate(t, 42, 40)
	ca, cb := contents(t, a), contents(t, b)
	if len(ca) != len(cb) {
		t.Fatalf("%d files against %d", len(ca), len(cb))
	}
	for k, v := range ca {
		if cb[k] != v {
			t.Errorf("%s differs between two runs of one seed", k)
		}
	}
	// Into the same path twice: every byte alike, the compressed ones too.
	fixed := filepath.Join(t.TempDir(), "h")
	raw := func() map[string]string {
		if _, err := Generate(Options{Home: fixed, Threads: 40, Seed: 42, Now: now}); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		filepath.WalkDir(fixed, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				out[p] = string(b)
			}
			return err
		})
		os.RemoveAll(fixed)
		return out
	}
	r1, r2 := raw(), raw()
	zst := 0
	for k, v := range r1 {
		if r2[k] != v {
			t.Errorf("%s: bytes differ between two runs into one path", k)
		}
		if strings.HasSuffix(k, ".zst") {
			zst++
		}
	}
	if zst == 0 {
		t.Error("no .zst segment among 40 threads")
	}
	_, c := generate(t, 43, 40)
	cc := contents(t, c)
	same := 0
	for k, v := range ca {
		if cc[k] == v {
			same++
		}
	}
	if same > 2 { // the two indexes may both be empty of a kind; rollouts never match
		t.Errorf("seeds 42 and 43 share %d identical files", same)
	}
}

type rec struct {
	Timestamp string          `json:"timestamp"`
	Ordinal   *int            `json:"ordinal"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	raw       []byte
}

type metaPayload struct {
	ID           string `json:"id"`
	SessionID    string `json:"session_id"`
	ForkedFromID string `json:"forked_from_id"`
	Cwd          string `json:"cwd"`
	CliVersion   string `json:"cli_version"`
	Originator   string `json:"originator"`
	Source       json.RawMessage
	ThreadSource string `json:"thread_source"`
	HistoryMode  string `json:"history_mode"`
	HistoryBase  *struct {
		ThreadID            string `json:"thread_id"`
		EndOrdinalExclusive int64  `json:"end_ordinal_exclusive"`
		EndByteOffset       int64  `json:"end_byte_offset"`
	} `json:"history_base"`
	Git struct {
		Branch string `json:"branch"`
	} `json:"git"`
}

func records(t *testing.T, b []byte) []rec {
	t.Helper()
	var out []rec
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a line is not JSON: %v", err)
		}
		r.raw = append([]byte(nil), sc.Bytes()...)
		out = append(out, r)
	}
	return out
}

func metaOf(t *testing.T, r rec) metaPayload {
	t.Helper()
	if r.Type != "session_meta" {
		t.Fatalf("not a session_meta: %s", r.Type)
	}
	var m metaPayload
	if err := json.Unmarshal(r.Payload, &m); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(r.Payload, &struct {
		Source *json.RawMessage `json:"source"`
	}{&m.Source})
	return m
}

// prompts reads the typed prompts in both formats.
func prompts(rs []rec) (paginated, legacy []string) {
	for _, r := range rs {
		if r.Type != "event_msg" {
			continue
		}
		var e struct {
			Type    string
			Message string
			Item    struct {
				Type    string
				Content []struct{ Text string }
			}
		}
		json.Unmarshal(r.Payload, &e)
		switch {
		case e.Type == "item_completed" && e.Item.Type == "UserMessage":
			paginated = append(paginated, e.Item.Content[0].Text)
		case e.Type == "user_message":
			legacy = append(legacy, e.Message)
		}
	}
	return
}

func TestShapesMatchTheManifest(t *testing.T) {
	m, home := generate(t, 7, 60)
	codex := filepath.Join(home, ".codex")
	byID := map[string]Thread{}
	kinds := map[string]int{}
	for _, th := range m.Threads {
		byID[th.ID] = th
		kinds[th.Kind]++
	}
	for _, k := range forced {
		if kinds[k] == 0 {
			t.Errorf("no %s thread among 60", k)
		}
	}
	names := map[string]string{}
	idx, _ := os.ReadFile(filepath.Join(codex, "session_index.jsonl"))
	for _, r := range strings.Split(strings.TrimSpace(string(idx)), "\n") {
		var full struct {
			ID         string `json:"id"`
			ThreadName string `json:"thread_name"`
		}
		json.Unmarshal([]byte(r), &full)
		names[full.ID] = full.ThreadName
	}
	typed := map[string][]string{}
	hist, _ := os.ReadFile(filepath.Join(codex, "history.jsonl"))
	for _, r := range strings.Split(strings.TrimSpace(string(hist)), "\n") {
		var e struct {
			SessionID string `json:"session_id"`
			Text      string `json:"text"`
		}
		json.Unmarshal([]byte(r), &e)
		typed[e.SessionID] = append(typed[e.SessionID], e.Text)
	}

	for _, th := range m.Threads {
		if len(th.Files) == 0 || th.Live != th.Files[len(th.Files)-1] {
			t.Fatalf("%s %s: files %v live %s", th.Kind, th.ID, th.Files, th.Live)
		}
		live := records(t, readPlain(t, th.Live))
		first := records(t, readPlain(t, th.Files[0]))
		lm := metaOf(t, first[0])
		if lm.ID != th.ID || lm.Cwd != th.Cwd || lm.Git.Branch != th.Branch || lm.CliVersion != th.CliVersion {
			t.Errorf("%s %s: session_meta %+v", th.Kind, th.ID, lm)
		}
		if n := len(first[0].raw); n < 20000 || n > 26000 {
			t.Errorf("%s: the first line is %d bytes, want about 22 KB", th.Kind, n)
		}
		fi, err := os.Stat(th.Live)
		if err != nil || !fi.ModTime().Equal(th.Updated) {
			t.Errorf("%s: mtime %v, want the last record's %v", th.Kind, fi.ModTime(), th.Updated)
		}
		pg, lg := prompts(live)
		if th.Format == "paginated" {
			for i, r := range live {
				if r.Ordinal == nil || *r.Ordinal != i {
					t.Errorf("%s: line %d ordinal %v", th.Kind, i, r.Ordinal)
					break
				}
			}
			if len(lg) != 0 || lm.HistoryMode != "paginated" {
				t.Errorf("%s: paginated thread with user_message %q / history_mode %q", th.Kind, lg, lm.HistoryMode)
			}
		} else if len(pg) != 0 || lm.HistoryMode != "" || live[0].Ordinal != nil {
			t.Errorf("%s: legacy thread with UserMessage items, a history_mode or ordinals", th.Kind)
		}
		want := th.Prompts
		switch th.Kind {
		case KindRewind:
			// The old file keeps everything; the segment holds the
			// replacements and points at the kept part.
			op, _ := prompts(first)
			kept := th.Prompts[:len(op)-len(th.Abandoned)]
			if !slices.Equal(op, append(slices.Clone(kept), th.Abandoned...)) {
				t.Errorf("rewind: old file prompts %q, kept %q, abandoned %q", op, kept, th.Abandoned)
			}
			sm := metaOf(t, live[0])
			if sm.ID != th.ID || !strings.Contains(filepath.Base(th.Live), th.ID+"_") {
				t.Errorf("rewind segment %s: id %s", th.Live, sm.ID)
			}
			raw := readPlain(t, th.Files[0])
			if len(kept) == 0 {
				if sm.HistoryBase != nil {
					t.Errorf("rewind to the first prompt has history_base %+v", sm.HistoryBase)
				}
			} else if b := sm.HistoryBase; b == nil || b.ThreadID != th.ID || b.EndByteOffset > int64(len(raw)) || raw[b.EndByteOffset-1] != '\n' {
				t.Errorf("rewind history_base %+v (old file %d bytes)", b, len(raw))
			} else if got, _ := prompts(records(t, raw[:b.EndByteOffset])); !slices.Equal(got, kept) || int64(len(records(t, raw[:b.EndByteOffset]))) != b.EndOrdinalExclusive {
				t.Errorf("rewind history_base ends after prompts %q, want %q", got, kept)
			}
			want = th.Prompts[len(kept):]
			if !slices.Equal(typed[th.ID], append(op, want...)) {
				t.Errorf("rewind: history.jsonl %q", typed[th.ID])
			}
		case KindLegacyFork:
			p := byID[th.Parent]
			pm := metaOf(t, live[1])
			parentFirst := records(t, readPlain(t, p.Files[0]))[0]
			if lm.ForkedFromID != p.ID || pm.ID != p.ID || !bytes.Equal(live[1].Payload, parentFirst.Payload) {
				t.Errorf("legacy fork: forked_from %s, line 2 id %s", lm.ForkedFromID, pm.ID)
			}
			// The copied lines keep their payloads and take the fork's time.
			for _, c := range live[1 : 1+len(records(t, readPlain(t, p.Files[0])))] {
				if c.Timestamp != live[0].Timestamp {
					t.Errorf("legacy fork: a copied line has time %s, the fork's first %s", c.Timestamp, live[0].Timestamp)
					break
				}
			}
			want = append(slices.Clone(p.Prompts), th.Prompts...)
		case KindFork:
			p := byID[th.Parent]
			if lm.ForkedFromID != p.ID || lm.HistoryBase == nil || lm.HistoryBase.ThreadID != p.ID || th.Name != p.Name || names[th.ID] != p.Name {
				t.Errorf("fork %+v of %s named %q (index %q), parent named %q", lm, p.ID, th.Name, names[th.ID], p.Name)
			}
		case KindSubagent:
			var src struct {
				Subagent struct {
					ThreadSpawn struct {
						ParentThreadID string `json:"parent_thread_id"`
					} `json:"thread_spawn"`
				} `json:"subagent"`
			}
			json.Unmarshal(lm.Source, &src)
			if src.Subagent.ThreadSpawn.ParentThreadID != th.Parent || lm.ThreadSource != "subagent" || lm.SessionID != th.Parent || th.HiddenReason != "subagent" {
				t.Errorf("subagent meta %+v source %s", lm, lm.Source)
			}
		case KindExec:
			if lm.Originator != "codex_exec" || string(lm.Source) != `"exec"` || th.HiddenReason != "print-mode" {
				t.Errorf("exec meta %+v", lm)
			}
		case KindArchived:
			if filepath.Dir(th.Live) != filepath.Join(codex, "archived_sessions") || th.HiddenReason != "archived" {
				t.Errorf("archived at %s", th.Live)
			}
		case KindZstd:
			if !strings.HasSuffix(th.Live, ".jsonl") && !strings.HasSuffix(th.Live, ".jsonl.zst") {
				t.Errorf("zst thread's file %s", th.Live)
			}
			if len(th.Files) == 2 {
				older, _ := prompts(records(t, readPlain(t, th.Files[0])))
				if !strings.HasSuffix(th.Files[0], ".zst") || th.Files[0] != th.Live+".zst" || len(older) >= len(pg) && len(pg) > 1 {
					t.Errorf("zst twin %v: the compressed copy should be older (%d prompts against %d)", th.Files, len(older), len(pg))
				}
			} else if !strings.HasSuffix(th.Live, ".zst") {
				t.Errorf("zst thread without a compressed file: %v", th.Files)
			}
		}
		got := pg
		if th.Format == "legacy" {
			got = lg
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %s: prompts in the file %q, want %q", th.Kind, th.ID, got, want)
		}
		if names[th.ID] != th.Name {
			t.Errorf("%s: index name %q, manifest %q", th.Kind, names[th.ID], th.Name)
		}
		if th.Kind == KindExec || th.Kind == KindSubagent {
			if len(typed[th.ID]) != 0 {
				t.Errorf("%s wrote history.jsonl", th.Kind)
			}
		} else if th.Kind != KindRewind && !slices.Equal(typed[th.ID], th.Prompts) {
			t.Errorf("%s: history.jsonl %q, want %q", th.Kind, typed[th.ID], th.Prompts)
		}
		if th.Format == "legacy" && names[th.ID] != "" {
			t.Errorf("0.142.3 wrote no index, but %s is named", th.ID)
		}
	}
}

func TestNeverOverwrites(t *testing.T) {
	_, home := generate(t, 1, 10)
	before := contents(t, home)
	if _, err := Generate(Options{Home: home, Threads: 10, Seed: 1, Now: now}); err == nil {
		t.Fatal("a second run into the same home succeeded")
	}
	after := contents(t, home)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
}

func TestAppendGrowsLiveSegments(t *testing.T) {
	m, home := generate(t, 9, 40)
	n, err := Append(home, 10, 3)
	if err != nil || n != 4 {
		t.Fatalf("Append = %d, %v; want 4 threads", n, err)
	}
	b, _ := os.ReadFile(filepath.Join(home, ManifestName))
	var after Manifest
	if err := json.Unmarshal(b, &after); err != nil {
		t.Fatal(err)
	}
	grown := 0
	for i, th := range after.Threads {
		before := m.Threads[i]
		if len(th.Prompts) == len(before.Prompts) {
			continue
		}
		grown++
		if strings.HasSuffix(th.Live, ".zst") || th.Kind == KindArchived || len(th.Prompts) != len(before.Prompts)+1 || !th.Updated.After(before.Updated) {
			t.Errorf("%s grew wrongly: %d -> %d prompts, %s", th.Kind, len(before.Prompts), len(th.Prompts), th.Live)
		}
		rs := records(t, readPlain(t, th.Live))
		pg, lg := prompts(rs)
		got := pg
		if th.Format == "legacy" {
			got = lg
		}
		if got[len(got)-1] != th.LastPrompt {
			t.Errorf("%s: the file's last prompt %q, manifest %q", th.Kind, got[len(got)-1], th.LastPrompt)
		}
		for j, r := range rs {
			if th.Format == "paginated" && (r.Ordinal == nil || *r.Ordinal != j) {
				t.Errorf("%s: after the append, line %d has ordinal %v", th.Kind, j, r.Ordinal)
				break
			}
		}
		if fi, _ := os.Stat(th.Live); !fi.ModTime().Equal(th.Updated) {
			t.Errorf("%s: mtime %v, want %v", th.Kind, fi.ModTime(), th.Updated)
		}
	}
	if grown != n {
		t.Errorf("%d threads grew, Append said %d", grown, n)
	}
}
