package gencc_test

import (
	"bytes"
	"os"
	"testing"

	"forgectl.dev/tools/gencc"
)

// The lineage cast: a fork of a fork, a branch of a fork, a /clear chain of
// three, a fork of a deleted session and a fork whose copy is cut, each
// with its parent in the manifest and the markers in the file.
func TestLineageCast(t *testing.T) {
	t.Parallel()
	for _, o := range []gencc.Options{{Mode: gencc.ModeDemo, Seed: 7}, {Sessions: 20, Repos: 3, Seed: 5}} {
		m := generate(t, o)
		verifyHome(t, m.Home)
		byID := map[string]*gencc.SessionInfo{}
		for i := range m.Sessions {
			byID[m.Sessions[i].SessionID] = &m.Sessions[i]
		}
		var cast []*gencc.SessionInfo
		for i := range m.Sessions {
			if m.Sessions[i].Relation != "" {
				cast = append(cast, &m.Sessions[i])
			}
		}
		// The cast, and the plan's own forks (which copy their parent's
		// first turn).
		if len(cast) < gencc.LineageSessions {
			t.Fatalf("%s: %d sessions with a parent, want at least %d", o.Mode, len(cast), gencc.LineageSessions)
		}
		for _, s := range m.Sessions[len(m.Sessions)-gencc.LineageSessions:] {
			if s.Relation == "" {
				t.Errorf("%s: the cast's %s has no parent", o.Mode, s.SessionID)
			}
		}
		seen := map[string]bool{}
		for _, s := range cast {
			parent := byID[s.ParentSessionID]
			if s.ParentExists != (parent != nil) {
				t.Errorf("%s: parent_exists %v, parent in the manifest %v", s.SessionID, s.ParentExists, parent != nil)
			}
			data, err := os.ReadFile(s.TranscriptPath)
			if err != nil {
				t.Fatal(err)
			}
			marker := map[string]string{"fork": `"requestSessionId":"`, "branch": `"forkedFrom":{"sessionId":"`, "clear": `"session_id":"`}[s.Relation]
			if marker == "" || !contains(data, marker) {
				t.Errorf("%s (%s): no %s in the file", s.SessionID, s.Relation, marker)
			}
			switch {
			case !s.ParentExists:
				seen["deleted parent"] = s.Relation == "fork"
			case s.Relation == "fork" && parent.Relation == "fork":
				seen["fork of a fork"] = true
			case s.Relation == "branch" && parent.Relation == "fork":
				seen["branch of a fork"] = true
			case s.Relation == "clear" && parent.Relation == "clear":
				grand := byID[parent.ParentSessionID]
				seen["clear chain of three"] = grand != nil && grand.Relation == ""
			case s.Relation == "fork" && s.Broken == "garbage":
				seen["cut fork"] = len(s.BadLines) == 1
			}
		}
		for _, k := range []string{"deleted parent", "fork of a fork", "branch of a fork", "clear chain of three", "cut fork"} {
			if !seen[k] {
				t.Errorf("%s home: no %s", o.Mode, k)
			}
		}
	}
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
