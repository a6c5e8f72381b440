//go:build contract

package contract

import (
	"encoding/json"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestListReportsRealSessions makes sessions with the real CLI in two
// repositories and a worktree (one renamed, one with tasks), a print-mode
// session and a fork, then checks `resume ls --json` against the files.
func TestListReportsRealSessions(t *testing.T) {
	h := newHome(t)
	s := h.s
	api := h.repo("api-server", "feature/login")
	web := h.repo("web-app", "main")
	wt := h.worktree(api, "api-server-hotfix", "hotfix/crash")
	h.trust(api, web, wt)
	cur := s.claude[s.current]

	// Three interactive sessions, started together to save start-up time.
	pa := h.newPane(api, cur)
	pb := h.newPane(web, cur)
	pc := h.newPane(wt, cur)
	for _, p := range []*pane{pa, pb, pc} {
		p.waitIdle("start", tmuxrig.StartWait)
	}

	ra := pa.prompt("fix the login flow", "You said: fix the login flow")
	pa.slash("/rename Login bugfix work", "Session renamed to: Login bugfix work")
	rb := pb.prompt("tasks: Write unit tests; Fix login bug", "Created 2 tasks and started the first.")
	rc := pc.prompt("check the crash in the worktree", "You said: check the crash in the worktree")
	for _, p := range []*pane{pa, pb, pc} {
		p.exit()
	}
	idA, idB, idC := ra.SessionID, rb.SessionID, rc.SessionID

	// Print mode: hidden from pickers by default.
	out, errOut, code := h.Run(web, "", cur, "-p", "--output-format", "json", "summarise this repo in print mode")
	if code != 0 {
		t.Fatalf("claude -p: exit %d: %s", code, errOut)
	}
	var printed struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &printed); err != nil || printed.SessionID == "" {
		t.Fatalf("claude -p --output-format json: %v\n%s", err, out)
	}
	idD := printed.SessionID

	// A fork of the renamed session, continued with a prompt of its own.
	pe := h.startClaude(api, cur, "--resume", idA, "--fork-session")
	re := pe.prompt("continue in a fork", "You said: continue in a fork")
	pe.exit()
	idE := re.SessionID
	if idE == idA || idE == "" {
		t.Fatalf("fork registered session %q; the original is %s", idE, idA)
	}

	files := h.transcripts()
	truths := map[string]truth{}
	for id, path := range files {
		truths[id] = h.readTruth(path)
	}

	// What the test did, as the files record it. A failure here means
	// Claude Code changed what it writes (see the facts file).
	checkFacts := []struct {
		id, what  string
		got, want any
	}{
		{idA, "name", truths[idA].Name, "Login bugfix work"},
		{idA, "cwd", truths[idA].Cwd, api},
		{idA, "branch", truths[idA].Branch, "feature/login"},
		{idA, "entrypoint", truths[idA].Entrypoint, "cli"},
		{idB, "tasks", truths[idB].Tasks, counts{Pending: 1, InProgress: 1, Total: 2}},
		{idB, "branch", truths[idB].Branch, "main"},
		{idB, "last prompt", truths[idB].LastPrompt, "tasks: Write unit tests; Fix login bug"},
		{idC, "cwd", truths[idC].Cwd, wt},
		{idC, "repo", truths[idC].Repo, "api-server"},
		{idC, "branch", truths[idC].Branch, "hotfix/crash"},
		{idD, "entrypoint", truths[idD].Entrypoint, "sdk-cli"},
		{idD, "cwd", truths[idD].Cwd, web},
		{idE, "cwd", truths[idE].Cwd, api},
	}
	for _, c := range checkFacts {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("the transcript of %s records its %s differently from what the test did (-did +file):\n%s", c.id, c.what, diff)
		}
	}
	shared := 0
	for u := range truths[idA].UUIDs {
		if truths[idE].UUIDs[u] {
			shared++
		}
	}
	if shared == 0 {
		t.Errorf("the fork %s shares no message uuid with %s", idE, idA)
	}
	if got, want := sortedKeys(files), sortedKeys(map[string]bool{idA: true, idB: true, idC: true, idD: true, idE: true}); !cmp.Equal(got, want) {
		t.Errorf("transcripts on disk %v, sessions made %v", got, want)
	}

	// What forgectl reports, against the files.
	type view struct {
		Name, Cwd, Repo, Branch, LastPrompt, Entrypoint string
		Tasks                                           counts
		Hidden                                          bool
		HiddenReason                                    string
		Live                                            bool
	}
	fromTruth := func(tr truth) view {
		v := view{Name: tr.Name, Cwd: tr.Cwd, Repo: tr.Repo, Branch: tr.Branch, LastPrompt: tr.LastPrompt, Entrypoint: tr.Entrypoint, Tasks: tr.Tasks}
		if tr.Entrypoint == "sdk-cli" {
			v.Hidden, v.HiddenReason = true, "print-mode"
		}
		return v
	}
	fromLs := func(r lsRow) view {
		return view{Name: r.Name, Cwd: r.Cwd, Repo: r.Repo, Branch: r.Branch, LastPrompt: r.LastPrompt, Entrypoint: r.Entrypoint,
			Tasks: r.Tasks, Hidden: r.Hidden, HiddenReason: r.HiddenReason, Live: r.Live}
	}
	all := h.ls("--all")
	want := map[string]view{}
	for id, tr := range truths {
		want[id] = fromTruth(tr)
	}
	got := map[string]view{}
	for id, r := range all {
		got[id] = fromLs(r)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resume ls --json --all against the files (-files +ls):\n%s", diff)
	}

	def := h.ls()
	if got, want := sortedKeys(def), sortedKeys(map[string]bool{idA: true, idB: true, idC: true, idE: true}); !cmp.Equal(got, want) {
		t.Errorf("resume ls --json lists %v, want every session but the print-mode one %s: %v", got, idD, want)
	}
	if r := all[idB]; r.TasksSource != "live" {
		t.Errorf("tasks_source of %s = %q, want live", idB, r.TasksSource)
	}
	t.Logf("proven on claude %s: %d sessions (renamed %s, tasks %s, worktree %s, print-mode %s, fork %s)", s.current, len(files), idA, idB, idC, idD, idE)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
