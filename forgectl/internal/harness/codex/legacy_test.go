package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/shared/jsonl"
)

// The files of a real run of Codex 0.142.3 (tools/contract/codex,
// TestCodexLegacyThreadAndFork), their 22 KB base_instructions and the
// developer message trimmed: a thread, resumed once, and a fork of it
// whose own turn came 475 ms after its copy of the parent.
const (
	realParent = "01a2346b-a4f0-7f51-aac7-4305fa4e1090"
	realFork   = "01a2346b-aa3d-71c0-a0b7-58f06a159c46"
)

// realHome copies the real rollouts into a CODEX_HOME, the parent's only
// when withParent.
func realHome(t *testing.T, withParent bool) *home {
	h := newHome(t)
	files, err := filepath.Glob("testdata/legacy-fork/*.jsonl")
	if err != nil || len(files) != 2 {
		t.Fatalf("testdata: %v %v", files, err)
	}
	for _, f := range files {
		if !withParent && strings.Contains(f, realParent) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.write(filepath.Join(h.root, "sessions", "2026", "12", "02", filepath.Base(f)), b, t0)
	}
	return h
}

func TestRealLegacyFork(t *testing.T) {
	for _, withParent := range []bool{true, false} {
		t.Run(map[bool]string{true: "parent there", false: "parent gone"}[withParent], func(t *testing.T) {
			h := realHome(t, withParent)
			hs := New(Paths{Root: h.root})
			ss, _ := list(t, hs, filepath.Join(t.TempDir(), "index"))
			m := byID(ss)
			f := m[realFork]
			if f == nil {
				t.Fatalf("no fork listed: %v", ss)
			}
			if f.FirstPrompt != "legacy fork prompt eta" || f.LastPrompt != "legacy fork prompt eta" {
				t.Errorf("fork's prompts %q, %q; want its own", f.FirstPrompt, f.LastPrompt)
			}
			if f.ParentID != realParent || f.Relation != "fork" {
				t.Errorf("fork's parent %q relation %q", f.ParentID, f.Relation)
			}
			if f.Messages != 2 {
				t.Errorf("fork counts %d messages, want its own 2", f.Messages)
			}
			if withParent {
				p := m[realParent]
				if p == nil || p.FirstPrompt != "legacy prompt zeta" || p.LastPrompt != "resumed through forgectl 01a2346b" {
					t.Errorf("parent %+v", p)
				}
			}
			// Search reads the fork's own text only.
			fh, err := os.Open(f.Transcript)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			st, _ := fh.Stat()
			r, err := hs.Text(jsonl.NewScanner(nil, 0), fh, 0, st.Size(), 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, msg := range r.Msgs {
				if msg.Role == harness.Prompt || msg.Role == harness.Reply {
					texts = append(texts, msg.Text)
				}
			}
			if len(texts) != 2 || texts[0] != "legacy fork prompt eta" {
				t.Errorf("fork's searchable text %q, want its own prompt and reply", texts)
			}
		})
	}
}

// A legacy fork read as it grows: the copy written, then the fork's own
// turn appended; the match resumes where it stopped, and a warm listing
// reads neither file.
func TestLegacyForkAppended(t *testing.T) {
	h := realHome(t, true)
	forkPath := filepath.Join(h.root, "sessions", "2026", "12", "02", "rollout-2026-12-02T01-43-20-"+realFork+".jsonl")
	whole, err := os.ReadFile(forkPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(whole, []byte("\n"))
	h.write(forkPath, bytes.Join(lines[:8], nil), t0) // its meta and part of the copy
	hs := New(Paths{Root: h.root})
	index := filepath.Join(t.TempDir(), "index")
	ss, _ := list(t, hs, index)
	if f := byID(ss)[realFork]; f == nil || f.FirstPrompt != "" {
		t.Fatalf("a fork still copying shows no prompt of its own: %+v", f)
	}
	h.write(forkPath, whole, t0.Add(time.Minute))
	ss, _ = list(t, hs, index)
	if f := byID(ss)[realFork]; f == nil || f.FirstPrompt != "legacy fork prompt eta" {
		t.Fatalf("after the append: %+v", f)
	}
	_, st := list(t, hs, index)
	if st.Scanned != 0 {
		t.Errorf("a warm listing read %d files", st.Scanned)
	}
}

// gencodexHome runs tools/gencodex into a temporary HOME and returns its
// manifest.
func gencodexHome(t *testing.T, threads int, seed string) (codexHome string, m gencodexManifest) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "gencodex")
	build := exec.Command("go", "build", "-o", bin, "./gencodex/cmd/gencodex")
	build.Dir = "../../../../tools"
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build gencodex: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	if out, err := exec.Command(bin, "-home", home, "-threads", strconv.Itoa(threads), "-seed", seed, "-now", "2026-12-01T12:00:00Z").CombinedOutput(); err != nil {
		t.Fatalf("gencodex: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(home, "gencodex-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.CodexHome, m
}

// gencodexManifest is the part of tools/gencodex's manifest read here.
type gencodexManifest struct {
	CodexHome string `json:"codex_home"`
	Threads   []struct {
		ID          string   `json:"id"`
		Kind        string   `json:"kind"`
		FirstPrompt string   `json:"first_prompt"`
		LastPrompt  string   `json:"last_prompt"`
		Parent      string   `json:"parent"`
		Files       []string `json:"files"`
	} `json:"threads"`
}

// Legacy forks as tools/gencodex writes them, with their parents' files
// there and then gone: each fork's prompts are its own.
func TestGencodexLegacyForks(t *testing.T) {
	root, m := gencodexHome(t, 40, "7")
	hs := New(Paths{Root: root})
	forks := 0
	for _, gone := range []bool{false, true} {
		if gone {
			for _, th := range m.Threads {
				if th.Kind == "legacy-fork" {
					for _, p := range m.Threads {
						if p.ID == th.Parent {
							for _, f := range p.Files {
								os.Remove(f)
							}
						}
					}
				}
			}
		}
		rows := byID(func() []*harness.Session { ss, _ := list(t, hs, filepath.Join(t.TempDir(), "index")); return ss }())
		for _, th := range m.Threads {
			if th.Kind != "legacy-fork" {
				continue
			}
			forks++
			s := rows[th.ID]
			if s == nil {
				t.Errorf("legacy fork %s not listed", th.ID)
				continue
			}
			if s.FirstPrompt != clip(th.FirstPrompt) || s.LastPrompt != clip(th.LastPrompt) || s.ParentID != th.Parent {
				t.Errorf("legacy fork %s (parent gone %v): first %q last %q parent %s; want %q %q %s",
					th.ID, gone, s.FirstPrompt, s.LastPrompt, s.ParentID, th.FirstPrompt, th.LastPrompt, th.Parent)
			}
		}
	}
	if forks == 0 {
		t.Fatal("gencodex wrote no legacy fork")
	}
}

// A legacy fork whose first line does not decode (cut, then written past)
// has no thread: the parent's session_meta on its line 2 is a copy, not
// its own. It is left out with a problem, in this listing and the next
// (which reads the index), and the parent's row never takes it in.
func TestLegacyForkWithABrokenFirstLineStaysApart(t *testing.T) {
	hm := newHome(t)
	lm := codextest.Meta{ID: idLegacy, Cwd: "/work/legacy", Version: "0.142.3", Source: "cli", At: t0}
	parent := [][]byte{codextest.MetaLine(lm), codextest.User(t0, -1, "legacy first prompt"), codextest.Agent(t0, -1, "legacy reply")}
	hm.segment(false, t0, idLegacy, "", t0.Add(time.Minute), parent...)
	fork := t0.Add(10 * time.Minute)
	broken := append(realMeta(idLFork, "")[:3000], '\n') // its id in its first bytes, the line cut
	hm.segment(false, fork, idLFork, "", fork.Add(time.Minute),
		broken, restamp(bytes.Join(parent, nil), fork.Add(time.Millisecond)),
		codextest.User(fork.Add(time.Second), -1, "the fork's own prompt"))
	h := New(Paths{Root: hm.root})
	index := filepath.Join(t.TempDir(), "codex.idx")
	for run := range 2 {
		rows, st := listWithProblems(t, h, index)
		if len(rows) != 1 || rows[0].ID != idLegacy {
			t.Fatalf("listing %d: rows %v, want the parent's alone", run+1, rows)
		}
		if p := rows[0]; len(p.Segments) != 0 || p.LastPrompt != "legacy first prompt" {
			t.Fatalf("listing %d: the parent's row took the fork in: segments %v, last prompt %q", run+1, p.Segments, p.LastPrompt)
		}
		if len(st.Problems) != 1 || !strings.Contains(st.Problems[0].Error(), "no session_meta") {
			t.Fatalf("listing %d: problems %v, want the fork's", run+1, st.Problems)
		}
	}
}
