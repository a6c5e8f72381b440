package gencc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"
)

// corpusSize is the size of the seeded text that big payloads are cut from.
const corpusSize = 4 << 20

// Generate writes a synthetic Claude Code home as described by o and returns
// its manifest, which it also writes to Home/gencc-manifest.json. A home
// generated before is wiped and rewritten; a Claude Code directory that gencc
// did not write is refused, so a real ~/.claude is never touched.
func Generate(ctx context.Context, o Options) (*Manifest, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	pr := rand.New(rand.NewPCG(o.Seed, 0))
	var p *plan
	if o.Mode == ModeDemo {
		p = demoPlan(&o, pr)
	} else {
		p = randomPlan(&o, pr)
	}
	c := newCorpus(rand.New(rand.NewPCG(o.Seed, 1<<62)), corpusSize)

	if err := prepareHome(&o); err != nil {
		return nil, err
	}
	for _, d := range []string{"projects", "tasks", "sessions"} {
		if err := os.MkdirAll(filepath.Join(o.ConfigDir, d), 0o700); err != nil {
			return nil, err
		}
	}
	if err := writeRepos(p, o.Now); err != nil {
		return nil, err
	}
	seenProj := map[string]bool{}
	for _, s := range p.sessions {
		d := filepath.Join(o.ConfigDir, "projects", EncodeProjectDir(s.cwd))
		if !seenProj[d] {
			seenProj[d] = true
			if err := os.MkdirAll(d, 0o700); err != nil {
				return nil, err
			}
		}
	}

	results, err := writeAll(ctx, &o, p, c)
	if err != nil {
		return nil, err
	}

	m := &Manifest{
		Schema: ManifestSchema, Mode: o.Mode, Seed: o.Seed, Now: rfc3339(o.Now),
		Home: o.Home, ConfigDir: o.ConfigDir, ClaudeJSON: o.claudeJSONPath(),
		HistoryPath: filepath.Join(o.ConfigDir, "history.jsonl"),
		Repos:       []RepoInfo{}, Sessions: make([]SessionInfo, len(results)),
		Registry: []RegistryRef{}, Appends: []AppendInfo{},
	}
	var hist []historyLine
	for i, r := range results {
		m.Sessions[i] = r.info
		m.TotalBytes += r.info.SizeBytes
		hist = append(hist, r.history...)
	}
	for _, rp := range p.repos {
		ri := RepoInfo{Name: rp.name, Path: rp.path, HeadBranch: rp.head, DefaultBranch: rp.defaultBranch, SessionCount: rp.sessions, Worktrees: []WorktreeInfo{}}
		for _, wt := range rp.worktrees {
			ri.Worktrees = append(ri.Worktrees, WorktreeInfo{Name: wt.name, Path: wt.path, Branch: wt.branch, Exists: wt.exists})
		}
		m.Repos = append(m.Repos, ri)
	}
	if o.Mode != ModeScale {
		more, mh, err := addLineage(&o, m)
		if err != nil {
			return nil, err
		}
		for _, info := range more {
			m.Sessions = append(m.Sessions, info)
			m.TotalBytes += info.SizeBytes
		}
		hist = append(hist, mh...)
	}
	if err := writeHistory(m.HistoryPath, hist); err != nil {
		return nil, err
	}
	if err := writeClaudeJSON(&o, p, m); err != nil {
		return nil, err
	}
	if err := writeSettings(o.ConfigDir); err != nil {
		return nil, err
	}
	if p.stale != nil {
		ref, err := writeStaleRegistry(&o, p.stale)
		if err != nil {
			return nil, err
		}
		m.Registry = append(m.Registry, ref)
	}
	if err := writeManifest(o.Home, m); err != nil {
		return nil, err
	}
	return m, nil
}

func writeAll(ctx context.Context, o *Options, p *plan, c *corpus) ([]sessionResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]sessionResult, len(p.sessions))
	jobs := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		done     int
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	for range min(o.Workers, len(p.sessions)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, err := writeSession(o, p.sessions[i], c)
				if err != nil {
					fail(fmt.Errorf("session %s: %w", p.sessions[i].id, err))
					continue
				}
				results[i] = res
				if o.Progress != nil {
					mu.Lock()
					done++
					if done%1000 == 0 {
						fmt.Fprintf(o.Progress, "gencc: %d/%d sessions written\n", done, len(p.sessions))
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range p.sessions {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// writeRepos lays out each working copy with just enough of .git for
// `git rev-parse --show-toplevel` and HEAD-based branch detection.
func writeRepos(p *plan, now time.Time) error {
	for _, rp := range p.repos {
		gitDir := filepath.Join(rp.path, ".git")
		for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
			if err := os.MkdirAll(filepath.Join(gitDir, filepath.FromSlash(d)), 0o755); err != nil {
				return err
			}
		}
		files := map[string]string{
			"HEAD":        "ref: refs/heads/" + rp.head + "\n",
			"config":      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
			"description": "Unnamed repository; edit this file 'description' to name the repository.\n",
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(gitDir, name), []byte(body), 0o644); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(rp.path, "README.md"), []byte("# "+rp.name+"\n"), 0o644); err != nil {
			return err
		}
		commit, err := writeCommit(gitDir, rp.name, now.Add(-90*24*time.Hour))
		if err != nil {
			return err
		}
		refs := append([]string{rp.head}, rp.branches...)
		for _, wt := range rp.worktrees {
			refs = append(refs, wt.branch)
		}
		for _, b := range refs {
			if err := writeRef(gitDir, b, commit); err != nil {
				return err
			}
		}
		for _, sd := range rp.subdirs {
			if err := os.MkdirAll(filepath.Join(rp.path, filepath.FromSlash(sd)), 0o755); err != nil {
				return err
			}
		}
		for _, wt := range rp.worktrees {
			admin := filepath.Join(gitDir, "worktrees", wt.name)
			if err := os.MkdirAll(admin, 0o755); err != nil {
				return err
			}
			files := map[string]string{
				"HEAD":      "ref: refs/heads/" + wt.branch + "\n",
				"commondir": "../..\n",
				"gitdir":    filepath.Join(wt.path, ".git") + "\n",
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(admin, name), []byte(body), 0o644); err != nil {
					return err
				}
			}
			if !wt.exists {
				// Deleted with rm -rf: git's admin dir stays behind, prunable.
				if err := os.RemoveAll(wt.path); err != nil {
					return err
				}
				continue
			}
			if err := os.MkdirAll(wt.path, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(wt.path, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
				return err
			}
		}
	}
	for _, s := range p.sessions {
		if s.cwdExists {
			if err := os.MkdirAll(s.cwd, 0o755); err != nil {
				return err
			}
		}
	}
	for _, d := range p.scratch {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

func writeHistory(path string, lines []historyLine) error {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Timestamp < lines[j].Timestamp })
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			f.Close()
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if len(lines) > 0 {
		t := time.UnixMilli(lines[len(lines)-1].Timestamp)
		return os.Chtimes(path, t, t)
	}
	return nil
}

// writeClaudeJSON writes the global config with its projects map. Worktree,
// print-mode and sidechain sessions are absent from lastSessionId, as
// observed.
func writeClaudeJSON(o *Options, p *plan, m *Manifest) error {
	type last struct {
		idx int
		end time.Time
	}
	latest := map[string]last{}
	for i, s := range p.sessions {
		if s.kind != "" || s.wt != nil {
			continue
		}
		if l, ok := latest[s.cwd]; !ok || s.end.After(l.end) {
			latest[s.cwd] = last{i, s.end}
		}
	}
	cwds := make([]string, 0, len(latest))
	for cwd := range latest {
		cwds = append(cwds, cwd)
	}
	slices.Sort(cwds)
	r := rand.New(rand.NewPCG(o.Seed, 1<<61))
	projects := obj{}
	for _, cwd := range cwds {
		l := latest[cwd]
		m.Sessions[l.idx].LastSessionForCwd = true
		projects = append(projects, kv{cwd, obj{
			{"allowedTools", []string{}}, {"mcpContextUris", []string{}}, {"mcpServers", obj{}},
			{"enabledMcpjsonServers", []string{}}, {"disabledMcpjsonServers", []string{}},
			{"hasTrustDialogAccepted", true}, {"projectOnboardingSeenCount", 1 + r.IntN(4)},
			{"hasClaudeMdExternalIncludesApproved", false}, {"hasClaudeMdExternalIncludesWarningShown", false},
			{"lastSessionId", p.sessions[l.idx].id},
			{"lastCost", float64(r.IntN(500)) / 100}, {"lastAPIDuration", 2000 + r.IntN(300000)},
			{"lastDuration", 60000 + r.IntN(3600000)}, {"lastGracefulShutdown", r.IntN(10) != 0},
			{"lastStartTime", p.sessions[l.idx].start.UnixMilli()},
		}})
	}
	first := o.Now.Add(-90 * 24 * time.Hour)
	doc := obj{
		{"numStartups", 10 + len(p.sessions)*2},
		{"installMethod", "npm-global"},
		{"autoUpdates", false},
		{"firstStartTime", rfc3339(first)},
		{"userID", fmt.Sprintf("%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())},
		{"hasCompletedOnboarding", true},
		{"lastOnboardingVersion", versionNew},
		{"projects", projects},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(o.claudeJSONPath()), 0o700); err != nil {
		return err
	}
	return writeFileAtomic(o.claudeJSONPath(), append(b, '\n'), 0o600)
}

// writeSettings keeps a real claude run against the home from sweeping the
// older transcripts (the default retention is 30 days).
func writeSettings(configDir string) error {
	path := filepath.Join(configDir, "settings.json")
	if _, err := os.Stat(path); err == nil {
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, []byte("{\n  \"cleanupPeriodDays\": 3650\n}\n"), 0o600)
}

// prepareHome clears what an earlier run wrote and refuses to mix generated
// sessions into a Claude Code directory of unknown origin.
func prepareHome(o *Options) error {
	if old, err := ReadManifest(o.Home); err == nil {
		for _, p := range []string{old.ConfigDir, old.ClaudeJSON, filepath.Join(o.Home, "src"), filepath.Join(o.Home, "scratch")} {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, p := range []string{filepath.Join(o.ConfigDir, "projects"), o.claudeJSONPath()} {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("%s exists and was not written by gencc (no %s); refusing to mix generated sessions into it", p, ManifestPath(o.Home))
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.MkdirAll(o.Home, 0o700)
}
