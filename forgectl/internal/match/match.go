// Package match resolves a resume filter against the session list.
//
// A filter is tried in tiers and the first tier with any hit decides, so a
// precise filter is never drowned by loose ones: the exact session id, then
// an id prefix, then an exact name, then a case-insensitive substring of the
// name, the repo or the cwd.
package match

import (
	"strings"

	"forgectl.dev/forgectl/internal/sessions"
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

// Find returns the indexes of the sessions the filter selects. Hidden
// sessions are matched only by exact id unless includeHidden is set.
func Find(list []sessions.Session, filter string, includeHidden bool) ([]int, Tier) {
	f := strings.TrimSpace(filter)
	if f == "" {
		return visible(list, includeHidden), None
	}
	lower := strings.ToLower(f)
	tiers := []struct {
		tier   Tier
		hidden bool
		ok     func(s *sessions.Session) bool
	}{
		{ExactID, true, func(s *sessions.Session) bool { return strings.EqualFold(s.ID, f) }},
		{IDPrefix, includeHidden, func(s *sessions.Session) bool {
			return len(f) >= minPrefix && strings.HasPrefix(strings.ToLower(s.ID), lower)
		}},
		{ExactName, includeHidden, func(s *sessions.Session) bool { return s.Name != "" && strings.EqualFold(s.Name, f) }},
		{Substring, includeHidden, func(s *sessions.Session) bool {
			return strings.Contains(strings.ToLower(s.Name), lower) ||
				strings.Contains(strings.ToLower(s.Repo), lower) ||
				strings.Contains(strings.ToLower(s.Cwd), lower)
		}},
	}
	for _, t := range tiers {
		var hits []int
		for i := range list {
			if list[i].Hidden && !t.hidden {
				continue
			}
			if t.ok(&list[i]) {
				hits = append(hits, i)
			}
		}
		if len(hits) > 0 {
			if t.tier == ExactID {
				// One id in two project folders (a copied transcript):
				// the list is newest first, and the newest is the one
				// claude --resume would continue.
				hits = hits[:1]
			}
			return hits, t.tier
		}
	}
	return nil, None
}

func visible(list []sessions.Session, includeHidden bool) []int {
	out := make([]int, 0, len(list))
	for i := range list {
		if includeHidden || !list[i].Hidden {
			out = append(out, i)
		}
	}
	return out
}
