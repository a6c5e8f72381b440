package main

import (
	"math"
	"os"
	"slices"
	"sync"

	"forgectl.dev/forgectl/internal/search"
)

// earlyHooks are what a first search hears from each harness's index as
// it is built (search.Options.Early and Passed), with the harness it is
// of, and the hits of each harness when its search is done.
type earlyHooks struct {
	hit    func(owner, path string, hits []search.Hit)
	passed func(owner string, mtimeNs int64)
	done   func(owner string, res search.Result)
}

// earlyMerge hands on the early hits of several harnesses' first builds
// newest first across them, as the listing's merge orders their sessions
// (sessions.ListAll: by last activity, a tie going to the harness listed
// first), so that a first search streams with Claude Code and Codex both
// listed and leaves the rows a warm search prints. The builds run side by
// side, each newest first: a hit is handed on once every other harness
// has read past its mtime (Passed) or is done. A harness whose index
// existed streams nothing; its hits, known when its search is done, are
// merged in then, by their transcripts' mtimes.
type earlyMerge struct {
	mu    sync.Mutex
	order []string // the harnesses, in the listing's order
	state map[string]*mergeState
	out   func(owner, path string, hits []search.Hit)
}

type mergeState struct {
	queue  []mergeHit // newest first
	seen   map[string]bool
	passed int64 // the mtime the build has read down to; MaxInt64: nothing yet
	last   int64 // the mtime Passed last told of: the next hit's
	done   bool
}

type mergeHit struct {
	path  string
	mtime int64
	hits  []search.Hit
}

func newEarlyMerge(order []string, out func(owner, path string, hits []search.Hit)) *earlyMerge {
	m := &earlyMerge{order: order, state: map[string]*mergeState{}, out: out}
	for _, h := range order {
		m.state[h] = &mergeState{seen: map[string]bool{}, passed: math.MaxInt64}
	}
	return m
}

func (m *earlyMerge) hooks() *earlyHooks {
	return &earlyHooks{hit: m.hit, passed: m.passed, done: m.done}
}

func (m *earlyMerge) passed(owner string, mtimeNs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.state[owner]
	s.passed, s.last = mtimeNs, mtimeNs
	m.release()
}

// hit is a hit of the transcript Passed last told of.
func (m *earlyMerge) hit(owner, path string, hits []search.Hit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.state[owner]
	s.seen[path] = true
	s.queue = append(s.queue, mergeHit{path, s.last, hits})
	m.release()
}

// done takes in the hits the harness's search found that its build did
// not stream (all of them, for an index that existed).
func (m *earlyMerge) done(owner string, res search.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.state[owner]
	var late []mergeHit
	for p, hs := range res.Hits {
		if s.seen[p] {
			continue
		}
		var mt int64
		if st, err := os.Stat(p); err == nil {
			mt = st.ModTime().UnixNano()
		}
		late = append(late, mergeHit{p, mt, hs})
	}
	s.queue = append(s.queue, late...)
	slices.SortStableFunc(s.queue, func(a, b mergeHit) int {
		switch {
		case a.mtime > b.mtime:
			return -1
		case a.mtime < b.mtime:
			return 1
		}
		return 0
	})
	s.done, s.passed = true, math.MinInt64
	m.release()
}

// release hands on, newest first, every queued hit no harness can still
// come before.
func (m *earlyMerge) release() {
	for {
		at := -1 // the harness holding the newest queued hit
		for k, h := range m.order {
			if q := m.state[h].queue; len(q) > 0 && (at < 0 || q[0].mtime > m.state[m.order[at]].queue[0].mtime) {
				at = k
			}
		}
		if at < 0 {
			return
		}
		s := m.state[m.order[at]]
		head := s.queue[0]
		for k, h := range m.order {
			o := m.state[h]
			if k == at || o.done {
				continue
			}
			// o may still find a hit as new as head: wait, unless a tie
			// would go to head's harness anyway.
			if o.passed > head.mtime || (o.passed == head.mtime && k < at) {
				return
			}
		}
		s.queue = s.queue[1:]
		m.out(m.order[at], head.path, head.hits)
	}
}
