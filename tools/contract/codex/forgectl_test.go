//go:build contract

package codex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"forgectl.dev/tools/contract/tmuxrig"
)

// The checks through forgectl. Each is one function per scene, named
// checkForgectl…, and runs only when the built forgectl lists Codex
// threads (suite.forgectl); otherwise it logs that it was skipped. TestMain
// prints which ran.

var checks struct {
	sync.Mutex
	ran, skipped []string
}

// enabled reports whether the forgectl checks run, logging loudly either
// way.
func enabled(h *home, name string) bool {
	h.t.Helper()
	checks.Lock()
	defer checks.Unlock()
	if !h.s.forgectl {
		checks.skipped = append(checks.skipped, name)
		h.t.Logf("SKIPPED %s: this forgectl does not list Codex threads", name)
		return false
	}
	checks.ran = append(checks.ran, name)
	h.t.Logf("RUN %s", name)
	return true
}

// reportChecks prints the checks that ran and those skipped.
func reportChecks() {
	checks.Lock()
	defer checks.Unlock()
	fmt.Printf("contract codex: forgectl checks run: %d %v\n", len(checks.ran), checks.ran)
	if len(checks.skipped) > 0 {
		fmt.Printf("contract codex: forgectl checks SKIPPED (no Codex support in this forgectl): %d %v\n", len(checks.skipped), checks.skipped)
	}
}

// row is the part of a Codex row of `forgectl resume ls --json` under
// contract. The id and parent are read from either spelling.
type row struct {
	Harness       string `json:"harness"`
	ID            string `json:"id"`
	SessionID     string `json:"session_id"`
	Name          string `json:"name"`
	FirstPrompt   string `json:"first_prompt"`
	LastPrompt    string `json:"last_prompt"`
	Cwd           string `json:"cwd"`
	Branch        string `json:"branch"`
	Hidden        bool   `json:"hidden"`
	HiddenReason  string `json:"hidden_reason"`
	Relation      string `json:"relation"`
	Parent        string `json:"parent"`
	ParentSession string `json:"parent_session_id"`
	Live          bool   `json:"live"`
	Pid           *int   `json:"pid"`
	LiveHolder    string `json:"live_holder"`
	Children      []row  `json:"children"`
}

func (r row) id() string {
	if r.ID != "" {
		return r.ID
	}
	return r.SessionID
}

func (r row) parent() string {
	if r.Parent != "" {
		return r.Parent
	}
	return r.ParentSession
}

// ls runs `forgectl resume ls --json --harness codex` plus args and
// indexes the rows by id.
func (h *home) ls(args ...string) map[string]row {
	h.t.Helper()
	rows := h.lsRows(args...)
	m := map[string]row{}
	for _, r := range rows {
		if _, dup := m[r.id()]; dup {
			h.t.Errorf("ls %v lists %s twice", args, r.id())
		}
		if r.Harness != "codex" {
			h.t.Errorf("ls --harness codex: row %s has harness %q", r.id(), r.Harness)
		}
		m[r.id()] = r
	}
	return m
}

func (h *home) lsRows(args ...string) []row {
	h.t.Helper()
	out, errOut, code := h.forgectl(append([]string{"resume", "ls", "--json", "--harness", "codex"}, args...)...)
	if code != 0 {
		h.t.Fatalf("forgectl resume ls --json --harness codex %v: exit %d: %s", args, code, errOut)
	}
	var rows []row
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		h.t.Fatalf("ls --json is not a JSON array: %v\n%s", err, out)
	}
	return rows
}

// search runs `forgectl resume search --json --harness codex` and returns
// the ids found.
func (h *home) search(words ...string) []string {
	h.t.Helper()
	out, errOut, code := h.forgectl(append([]string{"resume", "search", "--json", "--harness", "codex"}, words...)...)
	if code != 0 && code != 1 {
		h.t.Fatalf("forgectl resume search %v: exit %d: %s", words, code, errOut)
	}
	var rows []row
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			h.t.Fatalf("search --json: %v\n%s", err, out)
		}
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.id())
	}
	return ids
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// checkForgectlTUIThread: the row as Codex's files say, search finds it,
// --tree holds it, and a real resume in place brings the TUI back on the
// same thread in its directory, with no directory question.
func checkForgectlTUIThread(h *home, id, cwd, prompt, name, file string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlTUIThread") {
		return
	}
	r, ok := h.ls()[id]
	switch {
	case !ok:
		t.Fatalf("ls does not list the TUI thread %s", id)
	case r.Name != name || r.FirstPrompt != prompt || r.LastPrompt != prompt || r.Cwd != cwd || r.Hidden:
		t.Errorf("ls row %+v: want name %q, prompts %q, cwd %s, not hidden", r, name, prompt, cwd)
	}
	if ids := h.search("login", "bug"); !contains(ids, id) {
		t.Errorf("search \"login bug\" found %v, not %s", ids, id)
	}
	if ids := h.search("renamed"); !contains(ids, id) {
		t.Errorf("search by the /rename name found %v, not %s", ids, id)
	}
	found := false
	for _, r := range h.lsRows("--tree") {
		found = found || r.id() == id
	}
	if !found {
		t.Errorf("ls --tree has no root %s", id)
	}
	checkResumeInPlace(h, id, cwd, prompt, file)
}

// checkResumeInPlace runs `forgectl resume <id>` from HOME in a pane: the
// pane's process becomes codex (exec'd in place) in the thread's cwd, the
// composer comes back with the thread's transcript and no directory
// question, and a new prompt lands in file (the thread's live segment),
// with no new file.
func checkResumeInPlace(h *home, id, cwd, prompt, file string) {
	h.t.Helper()
	resumeInPlace(h, resumeCase{id: id, cwd: cwd, prompt: prompt, file: file})
}

// resumeCase is one real resume through forgectl.
type resumeCase struct {
	id, cwd, prompt string
	// file is where the new prompt must land: the thread's live segment
	// (for an archived thread, the sessions/ path it is unarchived to).
	file string
	// question, when set, is a line Codex shows before the composer (its
	// "Unarchive and resume"): it is answered as a person would, by
	// choosing that line, and the resume fails if it never shows.
	question string
}

// resumeInPlace is checkResumeInPlace for any resumeCase.
func resumeInPlace(h *home, c resumeCase) {
	t := h.t
	t.Helper()
	before, beforeArch := h.files()
	p := h.newPane(h.dir, filepath.Join(h.s.bin, "forgectl"), "resume", c.id)
	if c.question != "" {
		s := p.WaitScreenLive("codex's question "+strconv.Quote(c.question), tmuxrig.StartWait, func(s string) bool {
			return strings.Contains(s, c.question) || strings.Contains(s, dirQuestion)
		})
		if strings.Contains(s, dirQuestion) {
			t.Fatalf("forgectl resume %s: codex asks for a directory:\n%s", c.id, s)
		}
		t.Logf("FACT: forgectl resume of this thread meets codex's question:\n%s", strings.TrimSpace(s))
		// A key sent while the TUI draws its question but before it reads
		// input is lost (seen once in CI on 0.171.0): answer again while
		// the question stays on the screen.
		for try := 0; try < 3; try++ {
			answer(t, p, s, c.question)
			if tmuxrig.Poll.Wait(5*time.Second, func() bool { return !strings.Contains(p.Screen(), c.question) }) {
				break
			}
			s = p.Screen()
		}
	}
	// The composer comes up before the replayed transcript is drawn (0.142.3
	// on a loaded machine showed it alone): wait for both, or for the
	// directory question, and judge the last screen seen.
	var s string
	tmuxrig.Poll.Wait(tmuxrig.StartWait, func() bool {
		s = p.Screen()
		_, c2 := composer(s)
		return c2 && strings.Contains(s, c.prompt) || strings.Contains(s, dirQuestion) || p.Dead()
	})
	if _, ok := composer(s); !ok || strings.Contains(s, dirQuestion) {
		t.Fatalf("forgectl resume %s did not bring the composer back (a directory question?):\n%s", c.id, s)
	}
	if !strings.Contains(s, c.prompt) {
		t.Errorf("the resumed TUI does not show the thread's prompt %q:\n%s", c.prompt, s)
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.Pid)); err != nil || filepath.Base(exe) != "codex" {
		t.Errorf("pid %d runs %q (%v): forgectl did not exec codex in place", p.Pid, exe, err)
	}
	if d, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", p.Pid)); err != nil || d != c.cwd {
		t.Errorf("codex runs in %q (%v), want the thread's %s", d, err, c.cwd)
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.Pid))
	if argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"); !strings.Contains(strings.Join(argv, " "), "resume "+c.id) {
		t.Errorf("codex argv %q, want resume %s", argv, c.id)
	}
	next := "resumed through forgectl " + c.id[:8]
	p.prompt(next)
	p.quit()
	after, afterArch := h.files()
	if len(after)+len(afterArch) != len(before)+len(beforeArch) {
		t.Errorf("resuming made new files: before %v %v, after %v %v", before, beforeArch, after, afterArch)
	}
	if got, paths := h.thread(next); got != c.id || !slices.ContainsFunc(paths, func(p string) bool {
		pg, lg := readRolloutQuiet(p).prompts()
		return p == c.file && slices.Contains(append(pg, lg...), next)
	}) {
		t.Errorf("the prompt after the resume went to thread %s %v, want %s in %s", got, paths, c.id, c.file)
	}
}

// answer chooses the line holding choice on a selection screen s: Enter
// when the selection marker (›) is on it already, else the digit Codex
// numbers it with. Letters are commands on such screens: nothing else is
// typed.
func answer(t *testing.T, p *pane, s, choice string) {
	t.Helper()
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		i := strings.Index(l, choice)
		if i < 0 {
			continue
		}
		head := strings.TrimSpace(l[:i])
		if strings.HasPrefix(head, "›") {
			p.Keys("Enter")
			return
		}
		if n := strings.TrimSuffix(strings.Fields(head + " x")[0], "."); len(n) == 1 && n[0] >= '1' && n[0] <= '9' {
			p.Literal(n)
			return
		}
	}
	t.Fatalf("cannot tell how to choose %q on:\n%s", choice, s)
}

// checkForgectlExecThread: an exec thread is hidden as print-mode, search
// finds it with --all only, `ls --all --tree` holds it as a root, and a real
// resume by its id (no --all needed) opens the TUI on it in its cwd.
func checkForgectlExecThread(h *home, id, cwd, prompt, file string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlExecThread") {
		return
	}
	if _, ok := h.ls()[id]; ok {
		t.Errorf("the default ls lists the exec thread %s", id)
	}
	r, ok := h.ls("--all")[id]
	if !ok || !r.Hidden || r.HiddenReason != "print-mode" || r.FirstPrompt != prompt || r.Cwd != cwd {
		t.Errorf("ls --all: exec thread row %+v (listed %v), want hidden print-mode with prompt %q in %s", r, ok, prompt, cwd)
	}
	if ids := h.search("exec", "delta"); contains(ids, id) {
		t.Errorf("search without --all finds the hidden exec thread: %v", ids)
	}
	if ids := h.search("--all", "exec", "delta"); !contains(ids, id) {
		t.Errorf("search --all does not find the exec thread: %v", ids)
	}
	// Hidden rows stay out of the default tree as out of the list.
	if slices.ContainsFunc(h.lsRows("--tree"), func(r row) bool { return r.id() == id }) {
		t.Errorf("the default ls --tree holds the hidden exec thread %s", id)
	}
	if !slices.ContainsFunc(h.lsRows("--all", "--tree"), func(r row) bool { return r.id() == id && r.HiddenReason == "print-mode" }) {
		t.Errorf("ls --all --tree has no root %s marked print-mode", id)
	}
	// An exact id finds a hidden thread without --all.
	checkResumeInPlace(h, id, cwd, prompt, file)
}

// checkForgectlFork: the fork is relation fork of its parent, with its own
// first prompt and its parent's name, and nests under it in --tree.
func checkForgectlFork(h *home, parent, fork, parentPrompt, forkPrompt, cwd, forkFile string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlFork") {
		return
	}
	rows := h.ls()
	p, f := rows[parent], rows[fork]
	if f.Relation != "fork" || f.parent() != parent || f.FirstPrompt != forkPrompt {
		t.Errorf("fork row %+v: want relation fork of %s, first prompt %q (never the parent's %q)", f, parent, forkPrompt, parentPrompt)
	}
	if p.Name == "" || f.Name != p.Name {
		t.Errorf("fork name %q, parent name %q: want the parent's", f.Name, p.Name)
	}
	nested := false
	for _, r := range h.lsRows("--tree") {
		if r.id() == parent {
			for _, c := range r.Children {
				nested = nested || c.id() == fork
			}
		}
	}
	if !nested {
		t.Errorf("ls --tree does not nest the fork %s under %s", fork, parent)
	}
	if ids := h.search("epsilon"); !contains(ids, fork) || contains(ids, parent) {
		t.Errorf("search for the fork's own word found %v, want the fork %s and not its parent", ids, fork)
	}
	checkResumeInPlace(h, fork, cwd, forkPrompt, forkFile)
}

// checkForgectlRewind: two files, one row, the newest segment's prompt last.
func checkForgectlRewind(h *home, id, first, last, cwd, segment string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlRewind") {
		return
	}
	rows := h.lsRows()
	n := 0
	for _, r := range rows {
		if r.id() == id {
			n++
			if r.FirstPrompt != first || r.LastPrompt != last {
				t.Errorf("rewound thread row %+v: want first %q, last %q", r, first, last)
			}
		}
	}
	if n != 1 {
		t.Errorf("ls lists the rewound thread %s %d times, want once", id, n)
	}
	n = 0
	for _, r := range h.lsRows("--tree") {
		if r.id() == id {
			n++
		}
	}
	if n != 1 {
		t.Errorf("ls --tree holds the rewound thread %d times, want once", n)
	}
	if ids := h.search("gamma"); len(ids) != 1 || ids[0] != id {
		t.Errorf("search for the replacement's word found %v, want %s once", ids, id)
	}
	checkResumeInPlace(h, id, cwd, last, segment)
	h.stopDaemon()
	checkArchiveRewound(h, id)
}

// checkArchiveRewound: forgectl's archive of a thread of two segments runs
// codex archive, and what codex does with the older segment is recorded
// (FACT); forgectl lists the thread once, archived, and its unarchive puts
// every file back where it was.
func checkArchiveRewound(h *home, id string) {
	t := h.t
	t.Helper()
	for _, pid := range h.lockHolders(id) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		t.Logf("the rewound thread is still held by pid %d (%q; daemon %d): waiting for it to let go", pid, strings.ReplaceAll(string(b), "\x00", " "), h.daemonPid())
	}
	h.waitUnlocked(id, 2*time.Minute, "before the archive")
	live, _ := h.files()
	if out, errOut, code := h.forgectl("resume", "archive", id); code != 0 || strings.TrimSpace(out) != id {
		t.Errorf("archive of the rewound thread: exit %d %s%s", code, out, errOut)
		return
	}
	after, archived := h.files()
	t.Logf("FACT: codex archive of a thread of %d segments left sessions/ %d file(s) and moved %d to archived_sessions/", len(live), len(after), len(archived))
	n := 0
	for _, r := range h.lsRows("--all") {
		if r.id() == id {
			n++
			if r.HiddenReason != "archived" {
				t.Errorf("the archived rewound thread is listed as %+v", r)
			}
		}
	}
	if n != 1 {
		t.Errorf("ls --all lists the archived rewound thread %d times, want once", n)
	}
	if out, errOut, code := h.forgectl("resume", "unarchive", id); code != 0 || strings.TrimSpace(out) != id {
		t.Errorf("unarchive of the rewound thread: exit %d %s%s", code, out, errOut)
	}
	if back, arch := h.files(); !slices.Equal(back, live) || len(arch) != 0 {
		t.Errorf("after unarchive: sessions/ %v, archived_sessions/ %v; want %v", back, arch, live)
	}
	h.stopDaemon()
}

// checkForgectlArchived: hidden as archived; ls --archived and
// ls --tree --archived list it alone; and a real `forgectl resume <id>`
// runs codex on it where it is, which asks "Unarchive and resume": chosen,
// the TUI comes back on the thread in its cwd and the next prompt lands in
// the rollout moved back to file (its first place in sessions/).
func checkForgectlArchived(h *home, id, cwd, prompt, file string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlArchived") {
		return
	}
	if _, ok := h.ls()[id]; ok {
		t.Errorf("the default ls lists the archived thread %s", id)
	}
	if r, ok := h.ls("--all")[id]; !ok || r.HiddenReason != "archived" || r.FirstPrompt != prompt {
		t.Errorf("ls --all: archived row %+v (listed %v), want hidden_reason archived", r, ok)
	}
	if rows := h.ls("--archived"); len(rows) != 1 || rows[id].HiddenReason != "archived" {
		t.Errorf("ls --archived lists %v, want only %s", rows, id)
	}
	// Hidden, as in ls: search finds it with --archived or --all only.
	if ids := h.search("archive", "later"); contains(ids, id) {
		t.Errorf("search without --all or --archived finds the archived thread: %v", ids)
	}
	for _, flag := range []string{"--archived", "--all"} {
		if ids := h.search(flag, "archive", "later"); !contains(ids, id) {
			t.Errorf("search %s does not find the archived thread: %v", flag, ids)
		}

	}
	if tree := h.lsRows("--tree", "--archived"); len(tree) != 1 || tree[0].id() != id || tree[0].HiddenReason != "archived" {
		t.Errorf("ls --tree --archived holds %+v, want the one root %s", tree, id)
	}
	resumeInPlace(h, resumeCase{id: id, cwd: cwd, prompt: prompt, file: file, question: "Unarchive and resume"})
	if r, ok := h.ls()[id]; !ok || r.Hidden {
		t.Errorf("after resuming it through codex's unarchive, ls shows %+v (listed %v)", r, ok)
	}
	if live, arch := h.files(); len(arch) != 0 || !slices.Equal(live, []string{file}) {
		t.Errorf("after the resume: sessions/ %v, archived_sessions/ %v; want only %s", live, arch, file)
	}
}

// checkForgectlLegacy: a legacy thread's prompt, and a legacy fork whose
// copied history (line 2's session_meta and the parent's turns) is not its
// own, nested under its parent in --tree; both resume in place.
func checkForgectlLegacy(h *home, parent, fork, parentPrompt, forkPrompt, cwd, parentFile, forkFile string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlLegacy") {
		return
	}
	rows := h.ls()
	if len(rows) != 2 {
		t.Errorf("ls lists %d legacy threads, want 2: %+v", len(rows), rows)
	}
	p, f := rows[parent], rows[fork]
	if p.FirstPrompt != parentPrompt || p.Relation != "" {
		t.Errorf("legacy parent row %+v", p)
	}
	if f.Relation != "fork" || f.parent() != parent || f.FirstPrompt != forkPrompt || f.LastPrompt != forkPrompt {
		t.Errorf("legacy fork row %+v: want a fork of %s whose prompts are its own %q", f, parent, forkPrompt)
	}
	if ids := h.search("zeta"); !contains(ids, parent) {
		t.Errorf("search zeta: %v, want the legacy parent %s", ids, parent)
	}
	nested := false
	for _, r := range h.lsRows("--tree") {
		if r.id() == fork {
			t.Errorf("ls --tree holds the legacy fork %s as a root (its line-2 session_meta names %s)", fork, parent)
		}
		if r.id() == parent {
			for _, c := range r.Children {
				nested = nested || c.id() == fork && c.Relation == "fork"
			}
		}
	}
	if !nested {
		t.Errorf("ls --tree does not nest the legacy fork %s under %s", fork, parent)
	}
	// On 0.142.3 (the home's codex): the legacy thread and its fork resume
	// in place, each in its own file.
	checkResumeInPlace(h, parent, cwd, parentPrompt, parentFile)
	checkResumeInPlace(h, fork, cwd, forkPrompt, forkFile)
}

// checkForgectlLive: the thread is live with the lock holder's pid, and
// live_holder says which kind of process that is: daemon, tui or exec.
func checkForgectlLive(h *home, id string, pid int, holder string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlLive ("+holder+")") {
		return
	}
	r, ok := h.ls("--all")[id]
	if !ok || !r.Live || r.Pid == nil || *r.Pid != pid || r.LiveHolder != holder {
		t.Errorf("ls row %+v (listed %v), want live with pid %d, live_holder %q", r, ok, pid, holder)
	}
}

// checkForgectlRefusesSecondWriter: resuming a thread a no-daemon TUI or
// a running codex exec (holder) holds would be a second writer: refused
// with exit 2 naming the pid. An exact id finds the exec thread, hidden by
// default, without --all.
func checkForgectlRefusesSecondWriter(h *home, id string, pid int, holder string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlRefusesSecondWriter ("+holder+")") {
		return
	}
	out, errOut, code := h.forgectl("resume", id)
	if code != 2 || out != "" || !strings.Contains(errOut, "pid "+strconv.Itoa(pid)) {
		t.Errorf("resume of a thread a %s holds: exit %d, stdout %q, stderr %q; want exit 2 naming pid %d", holder, code, out, errOut, pid)
	}
}

// checkForgectlResumeAttaches: while the daemon holds the thread and a
// client is attached in another pane, `forgectl resume <id>` is the safe
// case (the daemon stays the only writer): it is not refused, and a real
// resume attaches a second view on the same thread, whose prompt lands in
// the thread's file.
func checkForgectlResumeAttaches(h *home, id, cwd, prompt, file string, daemon int) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlResumeAttaches") {
		return
	}
	checkResumeInPlace(h, id, cwd, prompt, file)
	if got := h.lockHolders(id); len(got) != 1 || got[0] != daemon {
		t.Errorf("after forgectl's resume beside a client, the lock holders are %v, want only the daemon %d", got, daemon)
	}
}

// checkForgectlAutoTitle: before any /rename, ls names the thread with the
// title Codex generated (session_index.jsonl), while the TUI still runs.
func checkForgectlAutoTitle(h *home, id, title string) {
	t := h.t
	t.Helper()
	if !enabled(h, "checkForgectlAutoTitle") {
		return
	}
	if r, ok := h.ls()[id]; !ok || r.Name != title {
		t.Errorf("ls before the /rename: row %+v (listed %v), want the auto-title %q", r, ok, title)
	}
	// A search now indexes the thread under this title; the TUI's /rename
	// that follows goes only to session_index.jsonl, and the search by the
	// new name in checkForgectlTUIThread must still find it (the index
	// reads a segment again when its thread's name changed).
	if ids := h.search(strings.Fields(title)...); !contains(ids, id) {
		t.Errorf("search by the auto-title %q: %v, want %s", title, ids, id)
	}
}
