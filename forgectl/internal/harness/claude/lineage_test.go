package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/sessions"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/snapstore"
	"github.com/google/go-cmp/cmp"
)

// A listing decides each session's parent from the transcripts and the
// history's /clear lines, keeps it in the index, and says when the parent's
// transcript is gone.
func TestListLineage(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.home, "src", "app")
	os.MkdirAll(repo, 0o755)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	asst := func(own, process, req string) string {
		r := `{"parentUuid":"u","isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[]},"uuid":"a","timestamp":"2026-12-01T10:00:01Z","session_id":"` + process + `","entrypoint":"cli","cwd":"` + repo + `","sessionId":"` + own + `","version":"2.1.333","gitBranch":"main"`
		if req != "" {
			r += `,"requestSessionId":"` + req + `"`
		}
		return r + "}\n"
	}
	branchRow := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"parent work"},"uuid":"u","timestamp":"2026-12-01T10:00:00Z","entrypoint":"cli","cwd":"` + repo + `","sessionId":"b","version":"2.1.333","gitBranch":"main","forkedFrom":{"sessionId":"p","messageUuid":"u"}}` + "\n"
	clearRows := func(own, at string) string {
		return `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"<local-command-caveat>caveat</local-command-caveat>"},"isMeta":true,"uuid":"m1","timestamp":"` + at + `","entrypoint":"cli","cwd":"` + repo + `","sessionId":"` + own + `","version":"2.1.333","gitBranch":"main"}` + "\n" +
			`{"parentUuid":"m1","isSidechain":false,"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n<command-args></command-args>"},"uuid":"m2","timestamp":"` + at + `","entrypoint":"cli","cwd":"` + repo + `","sessionId":"` + own + `","version":"2.1.333","gitBranch":"main"}` + "\n"
	}
	f.transcript(repo, "p", now.Add(-6*time.Hour), row(repo, "p", "main", "cli", "parent work"), asst("p", "p", ""))
	f.transcript(repo, "b", now.Add(-5*time.Hour), branchRow, asst("b", "p", ""))
	f.transcript(repo, "f", now.Add(-4*time.Hour), row(repo, "f", "main", "cli", "parent work"), asst("f", "p", "p"), asst("f", "f", ""))
	f.transcript(repo, "orphan", now.Add(-3*time.Hour), row(repo, "orphan", "main", "cli", "x"), asst("orphan", "deleted", "deleted"))
	f.transcript(repo, "c1", now.Add(-2*time.Hour), row(repo, "c1", "main", "cli", "first of the chain"), asst("c1", "c1", ""))
	f.transcript(repo, "c2", now.Add(-90*time.Minute), clearRows("c2", "2026-12-01T11:00:00.030Z"), asst("c2", "c1", ""))
	f.transcript(repo, "c3", now.Add(-time.Hour), clearRows("c3", "2026-12-01T11:30:00.002Z"), asst("c3", "c1", ""))
	os.WriteFile(f.claude.History(), []byte(
		`{"display":"/clear","pastedContents":{},"timestamp":`+ms("2026-12-01T11:00:00.001Z")+`,"project":"`+repo+`","sessionId":"c1"}`+"\n"+
			`{"display":"/clear","pastedContents":{},"timestamp":`+ms("2026-12-01T11:30:00.000Z")+`,"project":"`+repo+`","sessionId":"c2"}`+"\n"), 0o600)

	type link struct {
		Parent, Relation string
		Exists           bool
	}
	want := map[string]link{
		"p": {}, "c1": {},
		"b":      {"p", lineage.Branch, true},
		"f":      {"p", lineage.Fork, true},
		"orphan": {"deleted", lineage.Fork, false},
		"c2":     {"c1", lineage.Clear, true},
		"c3":     {"c2", lineage.Clear, true},
	}
	idx := filepath.Join(f.home, "idx")
	for _, pass := range []string{"cold", "warm"} {
		res, err := listAll(f.claude, snapstore.Store{}, sessions.Options{IndexPath: idx})
		if err != nil {
			t.Fatal(err)
		}
		if pass == "warm" && res.Scanned != 0 {
			t.Fatalf("warm listing scanned %d transcripts", res.Scanned)
		}
		got := map[string]link{}
		for _, s := range res.Sessions {
			got[s.ID] = link{s.ParentID, s.Relation, s.ParentExists}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s listing (-want +got):\n%s", pass, d)
		}
	}
}

func ms(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		panic(err)
	}
	return strconvI(t.UnixMilli())
}

func strconvI(n int64) string { return fmt.Sprint(n) }
