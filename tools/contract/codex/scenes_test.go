//go:build contract

package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"forgectl.dev/tools/fakeapi"

	"forgectl.dev/tools/contract/tmuxrig"
)

// Each scene drives the real Codex, asserts what its files show (the facts
// forgectl's Codex harness relies on, ../../../../shared/facts/codex.md in
// the lead's tree), then hands the home to the checks through forgectl,
// which run only when forgectl lists Codex threads.

// checkPaginated asserts the first line and the prompts of a new-format
// rollout written by the TUI in cwd.
func checkPaginated(t *testing.T, r rollout, id, cwd, version string, prompts ...string) meta {
	t.Helper()
	m := r.first(t)
	base := filepath.Base(r.path)
	sub := rolloutName.FindStringSubmatch(base)
	switch {
	case sub == nil:
		t.Errorf("%s: not named rollout-<time>-<uuid>.jsonl", base)
	case sub[2] != id:
		t.Errorf("%s: the file name's uuid %s is not the thread %s", base, sub[2], id)
	}
	if m.ID != id || m.SessionID != id {
		t.Errorf("%s: session_meta id %q session_id %q, want both %s (a root thread)", base, m.ID, m.SessionID, id)
	}
	if m.Cwd != cwd || m.Git.Branch != "main" || m.Git.CommitHash == "" {
		t.Errorf("%s: cwd %q git %+v, want %s on main", base, m.Cwd, m.Git, cwd)
	}
	if m.CliVersion != version || m.HistoryMode != "paginated" {
		t.Errorf("%s: cli_version %q history_mode %q, want %s paginated", base, m.CliVersion, m.HistoryMode, version)
	}
	// The first line embeds the whole system prompt: a head read must be
	// sized for it.
	if n := r.records[0].size; n < 8<<10 || len(m.BaseInstructions) < 4<<10 {
		t.Errorf("%s: the first line is %d bytes (base_instructions %d); expected the ~22 KB system prompt", base, n, len(m.BaseInstructions))
	}
	for i, rec := range r.records {
		if rec.Ordinal == nil || *rec.Ordinal != i {
			t.Errorf("%s: line %d has ordinal %v, want %d", base, i+1, rec.Ordinal, i)
			break
		}
	}
	pg, lg := r.prompts()
	if len(lg) != 0 {
		t.Errorf("%s: a paginated rollout holds event_msg/user_message %q", base, lg)
	}
	if !slices.Equal(pg, prompts) {
		t.Errorf("%s: item_completed/UserMessage prompts %q, want %q", base, pg, prompts)
	}
	return m
}

// TestCodexTUIThreadTitledThenRenamed: a TUI thread gets its title from a
// second model call, /rename overrides it, and both go only to
// session_index.jsonl; history.jsonl records the typed prompt.
func TestCodexTUIThreadTitledThenRenamed(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("app")
	p := h.startTUI(repo)
	const prompt = "fix the login bug"
	p.prompt(prompt)
	id, paths := h.thread(prompt)
	if len(paths) != 1 {
		t.Fatalf("thread %s has files %v, want one", id, paths)
	}
	// The title call is a second request with a JSON schema.
	h.waitName(id, fakeapi.TitleFor(prompt))
	checkForgectlAutoTitle(h, id, fakeapi.TitleFor(prompt))
	p.slash("/rename", "Rename thread")
	p.rename("login work renamed")
	h.waitName(id, "login work renamed")
	p.quit()

	r := readRollout(t, paths[0])
	m := checkPaginated(t, r, id, repo, h.version, prompt)
	if m.Originator != "codex-tui" || m.ThreadSource != "user" {
		t.Errorf("originator %q thread_source %q, want codex-tui user", m.Originator, m.ThreadSource)
	}
	if m.Source != "vscode" && m.Source != "cli" {
		t.Errorf("a TUI thread's source is %v (0.160 and 0.171 write \"vscode\")", m.Source)
	}
	// Names live only in the index.
	if n := r.eventTypes()["thread_name_updated"]; n != 0 {
		t.Errorf("the rollout holds %d thread_name_updated events; names were only in session_index.jsonl", n)
	}
	if strings.Contains(string(mustRead(t, paths[0])), "login work renamed") {
		t.Error("the new name is written into the rollout; it was only in session_index.jsonl")
	}
	es, _ := h.index()
	if n := len(es); n < 2 || es[n-1].ID != id || es[n-1].UpdatedAt == "" {
		t.Errorf("session_index.jsonl %+v: want the title then the rename appended for %s", es, id)
	}
	if hist := h.history(); !slices.ContainsFunc(hist, func(e historyEntry) bool { return e.SessionID == id && e.Text == prompt && e.Ts > 0 }) {
		t.Errorf("history.jsonl %+v does not hold the typed prompt", hist)
	}
	// Run from another directory, codex resume asks which directory to
	// use (forgectl must exec it in the thread's cwd to avoid that).
	q := h.newPane(h.dir, h.binary, "resume", id)
	question := q.WaitScreenLive("the directory question of a resume from elsewhere", tmuxrig.StartWait, func(s string) bool {
		return strings.Contains(s, dirQuestion) && strings.Contains(s, "Use session directory")
	})
	t.Logf("FACT: codex resume run from another directory asks:\n%s", strings.TrimSpace(question))
	q.Kill()
	h.stopDaemon()

	checkForgectlTUIThread(h, id, repo, prompt, "login work renamed", paths[0])
}

// dirQuestion heads the screen where codex resume, run from another
// directory than the thread's, asks which to use (0.171.0).
const dirQuestion = "Working directory · resume"

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCodexExecThread: codex exec writes a rollout marked exec, no name
// and no history line.
func TestCodexExecThread(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("tool")
	const prompt = "exec prompt delta"
	out, errOut, code := h.codexCmd(repo, "exec", prompt)
	if code != 0 || !strings.Contains(out+errOut, "You said: "+prompt) {
		t.Fatalf("codex exec: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	id, paths := h.thread(prompt)
	if len(paths) != 1 {
		t.Fatalf("exec thread %s has files %v", id, paths)
	}
	r := readRollout(t, paths[0])
	m := checkPaginated(t, r, id, repo, h.version, prompt)
	if m.Originator != "codex_exec" || m.Source != "exec" {
		t.Errorf("exec thread: originator %q source %v, want codex_exec exec", m.Originator, m.Source)
	}
	if n := h.name(id); n != "" {
		t.Errorf("an exec thread got the name %q", n)
	}
	for _, e := range h.history() {
		if e.SessionID == id {
			t.Errorf("codex exec wrote history.jsonl %+v", e)
		}
	}
	if got := h.lockHolders(id); len(got) != 0 {
		t.Errorf("a finished exec still holds its lock: %v", got)
	}
	h.stopDaemon()
	checkForgectlExecThread(h, id, repo, prompt, paths[0])
}

// TestCodexFork: a paginated fork copies no history, points into its
// parent's file, and takes its parent's name.
func TestCodexFork(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("web")
	const parentPrompt, forkPrompt = "parent prompt about caching", "fork prompt epsilon"
	p := h.startTUI(repo)
	p.prompt(parentPrompt)
	parent, _ := h.thread(parentPrompt)
	h.waitName(parent, fakeapi.TitleFor(parentPrompt))
	p.quit()

	f := h.startTUI(repo, "fork", parent)
	f.prompt(forkPrompt)
	fork, paths := h.thread(forkPrompt)
	if fork == parent || len(paths) != 1 {
		t.Fatalf("fork %s (parent %s) has files %v", fork, parent, paths)
	}
	f.quit()
	r := readRollout(t, paths[0])
	m := r.first(t)
	if m.ForkedFromID != parent {
		t.Errorf("fork: forked_from_id %q, want %s", m.ForkedFromID, parent)
	}
	if m.HistoryBase == nil || m.HistoryBase.ThreadID != parent || m.HistoryBase.EndByteOffset <= 0 {
		t.Errorf("fork: history_base %+v, want a point in %s", m.HistoryBase, parent)
	}
	if ms := r.metas(t); len(ms) != 1 {
		t.Errorf("a paginated fork holds %d session_meta lines, want 1", len(ms))
	}
	pg, lg := r.prompts()
	if !slices.Equal(pg, []string{forkPrompt}) || len(lg) != 0 {
		t.Errorf("fork prompts %q (legacy %q): want only its own %q", pg, lg, forkPrompt)
	}
	// Two threads, one name.
	if got, want := h.name(fork), h.name(parent); got == "" || got != want {
		t.Errorf("fork's name %q, parent's %q: want the parent's", got, want)
	}
	h.stopDaemon()
	checkForgectlFork(h, parent, fork, parentPrompt, forkPrompt, repo, paths[0])
}

// TestCodexRewind: rewinding in the TUI starts a second segment of the
// same thread; the old file and the abandoned prompt stay.
func TestCodexRewind(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("svc")
	const first, abandoned, replacement = "rewind first alpha", "rewind second beta", "rewind replacement gamma"
	p := h.startTUI(repo)
	p.prompt(first)
	p.prompt(abandoned)
	id, _ := h.thread(abandoned)
	// Esc Esc browses the transcript on the last prompt; Enter rewinds to
	// it and puts it back in the composer.
	p.Keys("Escape")
	p.WaitScreenLive("the hint after one Esc", 10*time.Second, func(s string) bool { return strings.Contains(s, "esc again to edit previous message") })
	p.Keys("Escape")
	p.WaitScreenLive("the transcript browser", 20*time.Second, func(s string) bool {
		return strings.Contains(s, "Browsing transcript") && strings.Contains(s, "↵ rewind")
	})
	p.Keys("Enter")
	p.WaitScreenLive("the rewind", 20*time.Second, func(s string) bool {
		line, ok := composer(s)
		return ok && strings.Contains(line, abandoned)
	})
	p.Keys("C-u")
	p.WaitScreenLive("the composer cleared", 10*time.Second, func(s string) bool {
		line, ok := composer(s)
		return ok && !strings.Contains(line, abandoned)
	})
	p.prompt(replacement)
	p.quit()
	_, paths := h.thread(replacement)
	if len(paths) != 2 {
		t.Fatalf("the rewound thread %s has files %v, want two", id, paths)
	}
	old, seg := readRollout(t, paths[0]), readRollout(t, paths[1])
	if rolloutName.FindStringSubmatch(filepath.Base(paths[0]))[3] != "" {
		paths[0], paths[1] = paths[1], paths[0]
		old, seg = seg, old
	}
	sub := rolloutName.FindStringSubmatch(filepath.Base(seg.path))
	if sub == nil || sub[2] != id || sub[3] == "" || sub[3] == id {
		t.Errorf("the new segment is named %s, want rollout-<time>-%s_<uuid>.jsonl", filepath.Base(seg.path), id)
	}
	om, sm := old.first(t), seg.first(t)
	if om.ID != id || sm.ID != id {
		t.Errorf("session_meta ids %q and %q, want both %s: group by it, never by file name", om.ID, sm.ID, id)
	}
	if sm.HistoryBase == nil || sm.HistoryBase.ThreadID != id || sm.HistoryBase.EndByteOffset <= 0 || sm.HistoryBase.EndByteOffset > old.size {
		t.Errorf("the new segment's history_base %+v, want a point inside the old file (%d bytes)", sm.HistoryBase, old.size)
	}
	if sm.Timestamp <= om.Timestamp {
		t.Errorf("the new segment's timestamp %s is not after the old one's %s", sm.Timestamp, om.Timestamp)
	}
	op, _ := old.prompts()
	sp, _ := seg.prompts()
	if !slices.Equal(op, []string{first, abandoned}) || !slices.Equal(sp, []string{replacement}) {
		t.Errorf("prompts: old file %q, new segment %q; want the old file kept whole and the segment holding only the replacement", op, sp)
	}
	if !slices.ContainsFunc(h.history(), func(e historyEntry) bool { return e.Text == abandoned }) {
		t.Error("history.jsonl lost the abandoned prompt")
	}
	h.stopDaemon()
	checkForgectlRewind(h, id, first, replacement, repo, seg.path)
}

// TestCodexArchived: codex archive moves the thread's file to the flat
// archived_sessions/.
func TestCodexArchived(t *testing.T) {
	h := newHome(t, theSuite.current)
	repo := h.repo("old")
	const prompt = "archive me later"
	p := h.startTUI(repo)
	p.prompt(prompt)
	id, paths := h.thread(prompt)
	p.quit()
	h.stopDaemon()
	out, errOut, code := h.codexCmd(repo, "archive", id)
	if code != 0 {
		t.Fatalf("codex archive %s: exit %d\n%s%s", id, code, out, errOut)
	}
	live, archived := h.files()
	if len(live) != 0 || len(archived) != 1 || filepath.Base(archived[0]) != filepath.Base(paths[0]) {
		t.Fatalf("after archive: sessions/ %v, archived_sessions/ %v; want the one file moved", live, archived)
	}
	if filepath.Dir(archived[0]) != filepath.Join(h.codex, "archived_sessions") {
		t.Errorf("archived at %s, want flat in archived_sessions/", archived[0])
	}
	checkPaginated(t, readRollout(t, archived[0]), id, repo, h.version, prompt)
	h.stopDaemon()
	checkForgectlArchived(h, id, repo, prompt, paths[0])
}

// TestCodexLegacyThreadAndFork: 0.142.3 writes user_message events, no
// history_mode, no session_index.jsonl, and forks that copy their parent's
// history behind its session_meta on line 2.
func TestCodexLegacyThreadAndFork(t *testing.T) {
	h := newHome(t, theSuite.legacy)
	repo := h.repo("legacy")
	const parentPrompt, forkPrompt = "legacy prompt zeta", "legacy fork prompt eta"
	p := h.startTUI(repo)
	p.prompt(parentPrompt)
	parent, paths := h.thread(parentPrompt)
	p.quit()
	r := readRollout(t, paths[0])
	m := r.first(t)
	if m.ID != parent || m.HistoryMode != "" || m.CliVersion != h.version || m.Cwd != repo {
		t.Errorf("legacy thread: %+v", m)
	}
	if m.Source != "cli" {
		t.Errorf("a legacy TUI thread's source is %v, want cli", m.Source)
	}
	pg, lg := r.prompts()
	if len(pg) != 0 || !slices.Equal(lg, []string{parentPrompt}) {
		t.Errorf("legacy prompts: UserMessage %q, user_message %q; want only user_message", pg, lg)
	}
	if _, ok := h.index(); ok {
		t.Log("0.142.3 wrote a session_index.jsonl (it wrote none before)")
	}

	f := h.startTUI(repo, "fork", parent)
	f.prompt(forkPrompt)
	fork, fpaths := h.thread(forkPrompt)
	f.quit()
	if fork == parent || len(fpaths) != 1 {
		t.Fatalf("legacy fork %s (parent %s): files %v", fork, parent, fpaths)
	}
	fr := readRollout(t, fpaths[0])
	ms := fr.metas(t)
	switch {
	case len(fr.records) < 2 || fr.records[0].Type != "session_meta" || fr.records[1].Type != "session_meta":
		t.Errorf("legacy fork: lines 1 and 2 are not both session_meta")
	case ms[0].ID != fork || ms[0].ForkedFromID != parent:
		t.Errorf("legacy fork: first session_meta id %q forked_from_id %q, want %s from %s", ms[0].ID, ms[0].ForkedFromID, fork, parent)
	case ms[1].ID != parent:
		t.Errorf("legacy fork: line 2's session_meta id %q, want the parent %s", ms[1].ID, parent)
	}
	_, flg := fr.prompts()
	if !slices.Equal(flg, []string{parentPrompt, forkPrompt}) {
		t.Errorf("legacy fork's user_message events %q: want the parent's copied, then its own", flg)
	}
	h.stopDaemon()
	checkForgectlLegacy(h, parent, fork, parentPrompt, forkPrompt, repo, paths[0], fpaths[0])
}
