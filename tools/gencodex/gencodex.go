package gencodex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Options tell Generate what to write.
type Options struct {
	// Home receives .codex/ (unless CodexHome is set), src/<repo>/ and the
	// manifest.
	Home string
	// CodexHome overrides Home/.codex, as $CODEX_HOME does.
	CodexHome string
	// Threads and Repos default to 24 and 4.
	Threads int
	Repos   int
	// Seed makes the output reproducible.
	Seed uint64
	// Now anchors every time: threads spread over the 60 days before it.
	// Zero means time.Now().
	Now time.Time
	// Location is the zone of the folder dates and file-name times, which
	// Codex writes in local time (default UTC, for reproducible names).
	Location *time.Location
	// MaxTurns bounds a thread's turns (default 6).
	MaxTurns int
	// Progress, when set, receives a line per thousand threads written.
	Progress io.Writer
}

// Kinds of thread.
const (
	KindTUI        = "tui"
	KindExec       = "exec"
	KindSubagent   = "subagent"
	KindFork       = "fork"
	KindRewind     = "rewind"
	KindLegacy     = "legacy"
	KindLegacyFork = "legacy-fork"
	KindArchived   = "archived"
	KindZstd       = "zst"
)

// The versions the two formats are written as.
const (
	CurrentVersion = "0.171.0"
	LegacyVersion  = "0.142.3"
)

// Thread is the truth about one generated thread, as forgectl should list
// it.
type Thread struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Format     string `json:"format"` // paginated | legacy
	CliVersion string `json:"cli_version"`
	// Name is the last non-empty thread_name session_index.jsonl holds.
	Name string `json:"name"`
	// Prompts are the typed prompts of the thread's own live history, in
	// order: a fork's own only, a rewound thread's kept ones and then the
	// replacements.
	Prompts     []string `json:"prompts"`
	FirstPrompt string   `json:"first_prompt"`
	LastPrompt  string   `json:"last_prompt"`
	// Abandoned are the prompts a rewind dropped (still in the old file
	// and in history.jsonl).
	Abandoned    []string `json:"abandoned"`
	Cwd          string   `json:"cwd"`
	Branch       string   `json:"branch"`
	Hidden       bool     `json:"hidden"`
	HiddenReason string   `json:"hidden_reason"` // print-mode | subagent | archived | ""
	Relation     string   `json:"relation"`      // fork | subagent | ""
	Parent       string   `json:"parent"`
	// Files are the thread's rollouts, oldest segment first; Live is the
	// one whose history is current (for a .zst segment with a plain twin,
	// the plain file).
	Files   []string  `json:"files"`
	Live    string    `json:"live"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Manifest is the ground truth of a generated home.
type Manifest struct {
	CodexHome string    `json:"codex_home"`
	Seed      uint64    `json:"seed"`
	Now       time.Time `json:"now"`
	Threads   []Thread  `json:"threads"`
}

// ManifestName is the manifest's file name, in Options.Home.
const ManifestName = "gencodex-manifest.json"

func (o *Options) normalize() error {
	if o.Home == "" {
		return errors.New("home directory is required")
	}
	home, err := filepath.Abs(o.Home)
	if err != nil {
		return err
	}
	o.Home = home
	if o.CodexHome == "" {
		o.CodexHome = filepath.Join(home, ".codex")
	}
	if o.Threads <= 0 {
		o.Threads = 24
	}
	if o.Repos <= 0 {
		o.Repos = 4
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Millisecond)
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.MaxTurns <= 0 {
		o.MaxTurns = 6
	}
	return nil
}

// forced is the order of the first threads, so that a small home holds one
// of each kind; a parent comes before its children.
var forced = []string{KindTUI, KindLegacy, KindExec, KindSubagent, KindFork, KindRewind, KindLegacyFork, KindArchived, KindZstd}

// weights draw the kinds after the forced ones, in percent.
var weights = []struct {
	kind string
	w    int
}{{KindTUI, 52}, {KindExec, 8}, {KindSubagent, 8}, {KindFork, 6}, {KindRewind, 6}, {KindLegacy, 9}, {KindLegacyFork, 3}, {KindArchived, 5}, {KindZstd, 3}}

// Generate writes the home and its manifest, and returns the manifest.
func Generate(o Options) (*Manifest, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	g := &gen{o: o, m: &Manifest{CodexHome: o.CodexHome, Seed: o.Seed, Now: o.Now}, files: map[string][]byte{}}
	for r := 0; r < o.Repos; r++ {
		dir := filepath.Join(o.Home, "src", repoName(r))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		g.repos = append(g.repos, dir)
	}
	for _, d := range []string{filepath.Join(o.CodexHome, "sessions"), filepath.Join(o.CodexHome, "archived_sessions")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	for i := 0; i < o.Threads; i++ {
		if err := g.thread(i); err != nil {
			return nil, err
		}
		if o.Progress != nil && (i+1)%1000 == 0 {
			fmt.Fprintf(o.Progress, "gencodex: %d threads\n", i+1)
		}
	}
	if err := g.writeIndexes(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(g.m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeNew(filepath.Join(o.Home, ManifestName), append(b, '\n'), o.Now); err != nil {
		return nil, err
	}
	return g.m, nil
}

type indexEntry struct {
	at   time.Time
	line []byte
}

type gen struct {
	o     Options
	m     *Manifest
	repos []string
	// files keeps each root thread's first file's bytes, for forks of it.
	files   map[string][]byte
	index   []indexEntry
	history []indexEntry
}

// kindOf is thread i's kind and its parent (an index into m.Threads, or
// -1), drawn from r.
func (g *gen) kindOf(i int, r *rand.Rand) (string, int) {
	kind := ""
	if i < len(forced) {
		kind = forced[i]
	} else {
		n := r.IntN(100)
		for _, w := range weights {
			if n < w.w {
				kind = w.kind
				break
			}
			n -= w.w
		}
	}
	want := ""
	switch kind {
	case KindFork, KindSubagent:
		want = KindTUI
	case KindLegacyFork:
		want = KindLegacy
	default:
		return kind, -1
	}
	var cands []int
	for j, t := range g.m.Threads {
		if t.Kind == want {
			cands = append(cands, j)
		}
	}
	if len(cands) == 0 {
		if want == KindLegacy {
			return KindLegacy, -1
		}
		return KindTUI, -1
	}
	return kind, cands[r.IntN(len(cands))]
}

func (g *gen) thread(i int) error {
	r := rand.New(rand.NewPCG(g.o.Seed, uint64(i)+1))
	kind, parent := g.kindOf(i, r)
	t := Thread{Kind: kind, Format: "paginated", CliVersion: CurrentVersion}
	if kind == KindLegacy || kind == KindLegacyFork {
		t.Format, t.CliVersion = "legacy", LegacyVersion
	}
	var p *Thread
	created := g.o.Now.Add(-time.Duration(r.Int64N(int64(60 * 24 * time.Hour)))).Truncate(time.Millisecond)
	if parent >= 0 {
		p = &g.m.Threads[parent]
		t.Parent = p.ID
		t.Cwd, t.Branch = p.Cwd, p.Branch
		created = p.Updated.Add(time.Minute + time.Duration(r.Int64N(int64(48*time.Hour)))).Truncate(time.Millisecond)
		if created.After(g.o.Now) {
			created = g.o.Now
		}
	} else {
		t.Cwd = g.repos[r.IntN(len(g.repos))]
		t.Branch = branches[r.IntN(len(branches))]
	}
	t.Created = created
	t.ID = uuid7(created, r)
	w := &writer{t: &t, r: r, g: g, at: created, paginated: t.Format == "paginated"}
	turns := 1 + r.IntN(g.o.MaxTurns)

	switch kind {
	case KindExec:
		t.Hidden, t.HiddenReason = true, "print-mode"
	case KindSubagent:
		t.Hidden, t.HiddenReason, t.Relation = true, "subagent", "subagent"
	case KindFork, KindLegacyFork:
		t.Relation = "fork"
	case KindArchived:
		t.Hidden, t.HiddenReason = true, "archived"
	}

	dir := g.dayDir(created)
	if kind == KindArchived {
		dir = filepath.Join(g.o.CodexHome, "archived_sessions")
	}
	name := "rollout-" + created.In(g.o.Location).Format("2006-01-02T15-04-05") + "-" + t.ID + ".jsonl"
	path := filepath.Join(dir, name)

	w.meta(metaOpts{kind: kind, parent: p})
	if kind == KindLegacyFork {
		// The parent's whole file, its session_meta as line 2: the same
		// payloads, each line's timestamp the fork's (as 0.142.3 copies).
		ts := []byte(`{"timestamp":"` + w.lastAt.UTC().Format("2006-01-02T15:04:05.000Z") + `"`)
		for _, l := range bytes.SplitAfter(g.files[p.ID], []byte("\n")) {
			if len(l) > len(ts) {
				w.buf.Write(ts)
				w.buf.Write(l[len(ts):])
			}
		}
	}
	keep := 0 // a rewind keeps this many turns in its new segment
	var ends []int
	for k := 0; k < turns || (kind == KindRewind && k < 2); k++ {
		w.turn(k == 0 && kind != KindLegacyFork)
		ends = append(ends, w.buf.Len())
	}
	w.prompts = append([]string(nil), w.typed...)
	// The title call follows the first prompt ever typed, even one a
	// rewind later abandons.
	firstTyped := w.typed[0]
	if kind == KindZstd && r.IntN(2) == 0 {
		// An older compressed copy beside the plain file: the plain wins.
		if err := writeZstd(path+".zst", w.buf.Bytes()[:ends[0]], w.lastAt.Add(-time.Second)); err != nil {
			return err
		}
		t.Files = append(t.Files, path+".zst")
	}
	if kind == KindZstd && len(t.Files) == 0 {
		path += ".zst"
		if err := writeZstd(path, w.buf.Bytes(), w.lastAt); err != nil {
			return err
		}
	} else if err := writeNew(path, w.buf.Bytes(), w.lastAt); err != nil {
		return err
	}
	t.Files = append(t.Files, path)
	t.Live = path
	if kind == KindTUI || kind == KindLegacy {
		g.files[t.ID] = append([]byte(nil), w.buf.Bytes()...)
	}

	if kind == KindRewind {
		keep = r.IntN(len(ends)) // 0: rewound to the first prompt, no history_base
		t.Abandoned = append([]string(nil), w.typed[keep:]...)
		kept := append([]string(nil), w.typed[:keep]...)
		at := w.lastAt.Add(time.Duration(10+r.IntN(600)) * time.Second).Truncate(time.Millisecond)
		seg := &writer{t: &t, r: r, g: g, at: at, paginated: true}
		var base *historyBase
		if keep > 0 {
			base = &historyBase{ThreadID: t.ID, EndOrdinal: lineCount(w.buf.Bytes()[:ends[keep-1]]), EndByte: int64(ends[keep-1])}
		}
		seg.meta(metaOpts{kind: kind, segment: true, base: base})
		for k := 0; k < 1+r.IntN(2); k++ {
			seg.turn(k == 0)
		}
		segName := "rollout-" + at.In(g.o.Location).Format("2006-01-02T15-04-05") + "-" + t.ID + "_" + uuid7(at, r) + ".jsonl"
		segPath := filepath.Join(g.dayDir(at), segName)
		if err := writeNew(segPath, seg.buf.Bytes(), seg.lastAt); err != nil {
			return err
		}
		t.Files = append(t.Files, segPath)
		t.Live = segPath
		w.prompts = append(kept, seg.typed...)
		w.lastAt = seg.lastAt
		w.history = append(w.history, seg.history...)
	}
	t.Prompts = w.prompts
	t.FirstPrompt, t.LastPrompt = "", ""
	if len(t.Prompts) > 0 {
		t.FirstPrompt, t.LastPrompt = t.Prompts[0], t.Prompts[len(t.Prompts)-1]
	}
	t.Updated = w.lastAt

	// Names: titles and renames for the TUI's paginated threads; a fork
	// takes its parent's name; exec, subagents and 0.142.3 write none.
	switch kind {
	case KindTUI, KindRewind, KindArchived, KindZstd:
		t.Name = title(firstTyped)
		g.name(t.ID, t.Name, created.Add(2*time.Second))
		if r.IntN(10) < 3 {
			t.Name = renames[r.IntN(len(renames))]
			g.name(t.ID, t.Name, t.Updated.Add(-time.Second))
		}
	case KindFork:
		if p.Name != "" {
			t.Name = p.Name
			g.name(t.ID, t.Name, created)
		}
	}
	if kind != KindExec && kind != KindSubagent {
		for _, h := range w.history {
			line, _ := json.Marshal(struct {
				SessionID string `json:"session_id"`
				Ts        int64  `json:"ts"`
				Text      string `json:"text"`
			}{t.ID, h.at.Unix(), h.text})
			g.history = append(g.history, indexEntry{h.at, line})
		}
	}
	if t.Prompts == nil {
		t.Prompts = []string{}
	}
	if t.Abandoned == nil {
		t.Abandoned = []string{}
	}
	g.m.Threads = append(g.m.Threads, t)
	return nil
}

func (g *gen) name(id, name string, at time.Time) {
	line, _ := json.Marshal(struct {
		ID         string `json:"id"`
		ThreadName string `json:"thread_name"`
		UpdatedAt  string `json:"updated_at"`
	}{id, name, at.UTC().Format(time.RFC3339Nano)})
	g.index = append(g.index, indexEntry{at, line})
}

func (g *gen) dayDir(at time.Time) string {
	l := at.In(g.o.Location)
	return filepath.Join(g.o.CodexHome, "sessions", l.Format("2006"), l.Format("01"), l.Format("02"))
}

// writeIndexes writes session_index.jsonl and history.jsonl in time order,
// as the append-only files they are.
func (g *gen) writeIndexes() error {
	for _, f := range []struct {
		name    string
		entries []indexEntry
	}{{"session_index.jsonl", g.index}, {"history.jsonl", g.history}} {
		sort.SliceStable(f.entries, func(i, j int) bool { return f.entries[i].at.Before(f.entries[j].at) })
		var b bytes.Buffer
		for _, e := range f.entries {
			b.Write(e.line)
			b.WriteByte('\n')
		}
		if err := writeNew(filepath.Join(g.o.CodexHome, f.name), b.Bytes(), g.o.Now); err != nil {
			return err
		}
	}
	return nil
}

// writeNew creates path (never over an existing file) with mtime at.
func writeNew(path string, b []byte, at time.Time) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chtimes(path, at, at)
}

func lineCount(b []byte) int64 { return int64(bytes.Count(b, []byte("\n"))) }
