// Package match resolves a resume filter against the sessions of a
// listing as it streams.
//
// A filter is tried in tiers and the first tier with any hit decides, so a
// precise filter is never drowned by loose ones: the exact session id, then
// an id prefix, then an exact name, then a case-insensitive substring of the
// name, the repo or the cwd.
package match

import (
	"strings"

	"forgectl.dev/forgectl/internal/harness"
)

// Tier says which rule matched.
type Tier string

const (
	ExactID   Tier = "id"
	IDPrefix  Tier = "id-prefix"
	ExactName Tier = "name"
	Substring Tier = "substring"
	None      Tier = ""
)

// minPrefix keeps a short filter such as "a" from being read as an id prefix.
const minPrefix = 4

// Matcher collects the sessions a filter selects, fed newest first. Hidden
// sessions are matched only by exact id unless includeHidden is set. It
// keeps only the hits of the best tier seen so far.
type Matcher struct {
	filter, lower string
	includeHidden bool
	best          int // index into tiers of the kept hits; len(tiers) when none
	hits          []*harness.Session
}

var tiers = [...]Tier{ExactID, IDPrefix, ExactName, Substring}

// New returns a matcher for filter.
func New(filter string, includeHidden bool) *Matcher {
	f := strings.TrimSpace(filter)
	return &Matcher{filter: f, lower: strings.ToLower(f), includeHidden: includeHidden, best: len(tiers)}
}

// tier is the best tier s matches, or len(tiers).
func (m *Matcher) tier(s *harness.Session) int {
	if m.filter == "" {
		if s.Hidden && !m.includeHidden {
			return len(tiers)
		}
		return len(tiers) - 1 // every visible session, as one tier
	}
	if strings.EqualFold(s.ID, m.filter) {
		return 0
	}
	if s.Hidden && !m.includeHidden {
		return len(tiers)
	}
	switch {
	case len(m.filter) >= minPrefix && len(s.ID) >= len(m.lower) && strings.EqualFold(s.ID[:len(m.lower)], m.lower):
		return 1
	case s.Name != "" && strings.EqualFold(s.Name, m.filter):
		return 2
	case containsFold(s.Name, m.lower) || containsFold(s.Repo, m.lower) || containsFold(s.Cwd, m.lower):
		return 3
	}
	return len(tiers)
}

func containsFold(s, lower string) bool {
	return strings.Contains(strings.ToLower(s), lower)
}

// Add offers s; it reports whether s is among the hits now.
func (m *Matcher) Add(s *harness.Session) bool {
	t := m.tier(s)
	switch {
	case t > m.best || t == len(tiers):
		return false
	case t < m.best:
		m.best, m.hits = t, m.hits[:0]
	case t == 0:
		// One id in two project folders (a copied transcript): sessions
		// come newest first, and the newest is the one claude --resume
		// would continue.
		return false
	}
	m.hits = append(m.hits, s)
	return true
}

// Hits returns the selected sessions, newest first, and the tier that
// selected them.
func (m *Matcher) Hits() ([]*harness.Session, Tier) {
	if m.best == len(tiers) {
		return nil, None
	}
	if m.filter == "" {
		return m.hits, None
	}
	return m.hits, tiers[m.best]
}
