package gencodex

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Append grows an existing generated home the way resumed threads do: one
// more turn at the end of percent% of the threads' live plain segments
// (never a .zst one, which Codex does not append to, nor an archived
// thread's), with ordinals
// continuing in paginated files. The manifest is updated to match. The
// same seed appends the same turns.
func Append(home string, percent float64, seed uint64) (int, error) {
	path := filepath.Join(home, ManifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	r := rand.New(rand.NewPCG(seed, 0xA99E4D))
	var cands []int
	for i, t := range m.Threads {
		// An archived thread is not resumed in place (Codex asks to
		// unarchive it first).
		if strings.HasSuffix(t.Live, ".jsonl") && t.Kind != KindArchived {
			cands = append(cands, i)
		}
	}
	n := int(float64(len(m.Threads))*percent/100 + 0.5)
	if n < 1 && percent > 0 {
		n = 1
	}
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	if n > len(cands) {
		n = len(cands)
	}
	g := &gen{o: Options{CodexHome: m.CodexHome, Location: time.UTC}, m: &m}
	for _, i := range cands[:n] {
		t := &m.Threads[i]
		old, err := os.ReadFile(t.Live)
		if err != nil {
			return 0, err
		}
		// The turn is written now, as a real append is: a time after the
		// generated home's anchor pushed every later append further into
		// the future, until a listing showed the bench home's threads
		// "just now" at a time to come.
		at := time.Now().UTC().Truncate(time.Millisecond)
		if !at.After(t.Updated) {
			at = t.Updated.Add(time.Millisecond)
		}
		w := &writer{t: t, r: r, g: g, at: at, paginated: t.Format == "paginated", ordinal: int(lineCount(old))}
		w.turn(false)
		f, err := os.OpenFile(t.Live, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return 0, err
		}
		if _, err := f.Write(w.buf.Bytes()); err != nil {
			f.Close()
			return 0, err
		}
		if err := f.Close(); err != nil {
			return 0, err
		}
		t.Prompts = append(t.Prompts, w.typed...)
		t.LastPrompt = t.Prompts[len(t.Prompts)-1]
		if t.FirstPrompt == "" {
			t.FirstPrompt = t.Prompts[0]
		}
		t.Updated = w.lastAt
		if err := os.Chtimes(t.Live, w.lastAt, w.lastAt); err != nil {
			return 0, err
		}
	}
	out, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return 0, err
	}
	// The manifest is this package's own file: replace it whole.
	tmp, err := os.CreateTemp(home, ".manifest-")
	if err != nil {
		return 0, err
	}
	if _, err := tmp.Write(append(out, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return 0, err
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	return n, nil
}
