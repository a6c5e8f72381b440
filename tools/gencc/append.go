package gencc

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// AppendOptions tell Append which generated home to grow and by how much.
type AppendOptions struct {
	Home string
	// Percent of all transcripts to append to, rounded up, picked among
	// the intact, visible ones; any positive value touches at least one.
	Percent float64
	// Seed picks the transcripts and their new content; the manifest's
	// seed is mixed in, so runs on one home differ unless repeated exactly.
	Seed uint64
	// Now is the time of the appended turns and the new mtimes (default
	// time.Now()).
	Now time.Time
}

// Append adds one or two realistic turns to Percent% of the transcripts of a
// home written by Generate, as a resumed session would, bumps their mtimes to
// Now, appends the prompts to history.jsonl, points .claude.json's
// lastSessionId at them and updates the manifest, which it returns.
func Append(ctx context.Context, o AppendOptions) (*Manifest, error) {
	if o.Home == "" {
		return nil, errors.New("home directory is required")
	}
	if o.Percent <= 0 || o.Percent > 100 {
		return nil, fmt.Errorf("append percent must be in (0, 100], got %g", o.Percent)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Millisecond)
	home, err := filepath.Abs(o.Home)
	if err != nil {
		return nil, err
	}
	m, err := ReadManifest(home)
	if err != nil {
		return nil, err
	}
	var eligible []int
	for i, s := range m.Sessions {
		if s.Broken == "" && !s.Hidden {
			eligible = append(eligible, i)
		}
	}
	if len(eligible) == 0 {
		return nil, errors.New("no intact visible transcript to append to")
	}
	r := rand.New(rand.NewPCG(m.Seed^o.Seed, 1<<60+uint64(len(m.Appends))))
	// Percent counts every transcript, as the benchmark does ("1% of the
	// files"); broken and hidden ones are never picked.
	n := max(1, int(math.Ceil(float64(len(m.Sessions))*o.Percent/100)))
	n = min(n, len(eligible))
	chosen := make([]int, n)
	for k, j := range r.Perm(len(eligible))[:n] {
		chosen[k] = eligible[j]
	}
	c := newCorpus(rand.New(rand.NewPCG(m.Seed, 1<<62)), corpusSize)

	// Appended turns start after everything already written, so
	// history.jsonl stays in time order.
	floor := parseRFC3339(m.Now)
	for _, a := range m.Appends {
		if t := parseRFC3339(a.At); t.After(floor) {
			floor = t
		}
	}
	rec := AppendInfo{At: rfc3339(o.Now), Percent: o.Percent, Seed: o.Seed, Sessions: []string{}}
	var hist []historyLine
	for k, i := range chosen {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info := &m.Sessions[i]
		// Older mtimes for later picks keep the order of the run stable.
		mtime := o.Now.Add(-time.Duration(k) * time.Millisecond)
		before := info.SizeBytes
		h, err := appendSession(info, r, c, mtime, floor)
		if err != nil {
			return nil, fmt.Errorf("append to %s: %w", info.TranscriptPath, err)
		}
		hist = append(hist, h...)
		rec.Sessions = append(rec.Sessions, info.SessionID)
		rec.Bytes += info.SizeBytes - before
		m.TotalBytes += info.SizeBytes - before
		if !info.Worktree {
			for j := range m.Sessions {
				if m.Sessions[j].Cwd == info.Cwd {
					m.Sessions[j].LastSessionForCwd = false
				}
			}
			info.LastSessionForCwd = true
		}
	}
	if err := appendHistory(m.HistoryPath, hist); err != nil {
		return nil, err
	}
	if err := updateClaudeJSON(m, chosen); err != nil {
		return nil, err
	}
	m.Appends = append(m.Appends, rec)
	if err := writeManifest(home, m); err != nil {
		return nil, err
	}
	return m, nil
}

func appendSession(info *SessionInfo, r *rand.Rand, c *corpus, mtime, floor time.Time) ([]historyLine, error) {
	f, err := os.OpenFile(info.TranscriptPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	turns := 1 + r.IntN(2)
	s := &sessionSpec{
		id: info.SessionID, cwd: info.Cwd, model: "claude-sonnet-4-6", effort: "medium", permMode: "auto",
		tag: info.Tag, renameMiddle: info.TitlePosition == "middle", nPrompts: turns,
	}
	w := &tw{s: s, r: r, c: c, bw: bufio.NewWriterSize(f, 1<<20), titleOff: -1, off: st.Size(), lines: info.LineCount, maxLine: info.MaxLineBytes,
		leaf: info.LeafUUID, prompts: info.PromptCount, customTitle: info.CustomTitle, agentName: info.AgentName, aiTitle: info.AITitle}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	w.env = envelope{UserType: "external", Entrypoint: info.Entrypoint, Cwd: info.Cwd, SessionID: info.SessionID, Version: versionNew, GitBranch: info.Branch}
	w.limit = mtime.Add(-time.Millisecond)
	w.clock = mtime.Add(-time.Duration(turns) * 3 * time.Minute)
	if !w.clock.After(floor) {
		w.clock = floor.Add(time.Millisecond)
	}
	if w.clock.After(w.limit) {
		w.clock = w.limit
	}

	w.emit(permissionModeRow{Type: "permission-mode", PermissionMode: s.permMode, SessionID: s.id})
	for k := range turns {
		if k > 0 {
			w.clock = w.clock.Add(time.Duration(30+r.IntN(120)) * time.Second)
			if w.clock.After(w.limit) {
				w.clock = w.limit
			}
		}
		w.snapshotRow()
		p := randomPrompt(r)
		w.userPrompt(p, newUUID(r))
		w.lastPrompt = p
		w.turn(k+1, int64(4<<10+r.IntN(40<<10)))
		w.lastPromptRow()
	}
	w.tailBatch()
	if err := w.bw.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := os.Chtimes(info.TranscriptPath, mtime, mtime); err != nil {
		return nil, err
	}
	info.LastPrompt, info.PromptCount, info.LeafUUID = w.lastPrompt, w.prompts, w.leaf
	info.SizeBytes, info.LineCount, info.MaxLineBytes = w.off, w.lines, w.maxLine
	info.LastTimestamp, info.Mtime, info.Version = rfc3339(w.clock), rfc3339(mtime), versionNew
	info.InHistory = info.InHistory || len(w.history) > 0
	if w.titleOff >= 0 {
		info.TitlePosition = "tail"
	}
	return w.history, nil
}

func appendHistory(path string, lines []historyLine) error {
	slices.SortStableFunc(lines, func(a, b historyLine) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// updateClaudeJSON points each appended session's cwd at it, as the exit of
// a resumed session does.
func updateClaudeJSON(m *Manifest, chosen []int) error {
	b, err := os.ReadFile(m.ClaudeJSON)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("parse %s: %w", m.ClaudeJSON, err)
	}
	projects, _ := doc["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
		doc["projects"] = projects
	}
	for _, i := range chosen {
		s := m.Sessions[i]
		if s.Worktree {
			continue
		}
		p, _ := projects[s.Cwd].(map[string]any)
		if p == nil {
			p = map[string]any{"allowedTools": []string{}, "hasTrustDialogAccepted": true}
			projects[s.Cwd] = p
		}
		p["lastSessionId"] = s.SessionID
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(m.ClaudeJSON, append(out, '\n'), 0o600)
}

func parseRFC3339(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
