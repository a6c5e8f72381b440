package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/forgectl/internal/sessions"
	"github.com/klauspost/compress/zstd"
)

// home is a temporary CODEX_HOME written from codextest's lines.
type home struct {
	t    *testing.T
	root string
}

func newHome(t *testing.T) *home { return &home{t: t, root: filepath.Join(t.TempDir(), ".codex")} }

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// segment writes a rollout under sessions/<day>/ (or archived_sessions/)
// with its mtime; the lines are concatenated.
func (h *home) segment(archived bool, at time.Time, id, extra string, mtime time.Time, lines ...[]byte) string {
	dir := filepath.Join(h.root, "sessions", codextest.DayDir(at))
	if archived {
		dir = filepath.Join(h.root, "archived_sessions")
	}
	p := filepath.Join(dir, codextest.FileName(at, id, extra))
	h.write(p, bytes.Join(lines, nil), mtime)
	return p
}

func (h *home) write(p string, b []byte, mtime time.Time) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		h.t.Fatal(err)
	}
}

func (h *home) appendTo(name string, lines ...[]byte) {
	h.t.Helper()
	f, err := os.OpenFile(filepath.Join(h.root, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.Write(l); err != nil {
			h.t.Fatal(err)
		}
	}
}

const (
	idTUI     = "019ad000-0000-7000-8000-000000000001"
	idRewind  = "019ad000-0000-7000-8000-000000000002"
	idFork    = "019ad000-0000-7000-8000-000000000003"
	idLegacy  = "019ad000-0000-7000-8000-000000000004"
	idLFork   = "019ad000-0000-7000-8000-000000000005"
	idSub     = "019ad000-0000-7000-8000-000000000006"
	idExec    = "019ad000-0000-7000-8000-000000000007"
	idArch    = "019ad000-0000-7000-8000-000000000008"
	idZst     = "019ad000-0000-7000-8000-000000000009"
	idOnlyEnv = "019ad000-0000-7000-8000-00000000000a"
)

// restamp is lines with each line's timestamp set to at, as a legacy
// fork copies its parent's.
func restamp(lines []byte, at time.Time) []byte {
	var out []byte
	ts := []byte(`{"timestamp":"` + at.UTC().Format("2006-01-02T15:04:05.000Z") + `"`)
	for _, l := range bytes.SplitAfter(lines, []byte("\n")) {
		if len(l) > len(ts) {
			out = append(append(out, ts...), l[len(ts):]...)
		}
	}
	return out
}

func pmeta(id string, at time.Time) codextest.Meta {
	return codextest.Meta{ID: id, Cwd: "/work/" + id[len(id)-2:], Branch: "main", Paginated: true, At: at}
}

// build writes one of every shape facts/codex.md describes.
func (h *home) build() {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	// A TUI thread, auto-titled then renamed (an empty name after is not one).
	h.segment(false, at(0), idTUI, "", at(1),
		codextest.MetaLine(pmeta(idTUI, at(0))),
		codextest.User(at(0), 1, "fix the login bug"),
		codextest.Tool(at(0), 2, "grep -rn login src", "TOOL-OUTPUT-SECRET", "REASONING-SECRET"),
		codextest.Agent(at(0), 3, "the login bug is in auth.go"),
		codextest.User(at(1), 4, "now add a test"),
		codextest.Agent(at(1), 5, "added"))
	h.appendTo("session_index.jsonl",
		codextest.IndexLine(idTUI, "Login bugfix work", at(0)),
		codextest.IndexLine(idTUI, "login fix", at(1)),
		codextest.IndexLine(idTUI, "", at(2)))
	h.appendTo("history.jsonl",
		codextest.HistoryLine(idTUI, at(0), "fix the login bug"),
		codextest.HistoryLine(idTUI, at(1), "now add a test"))

	// A rewind: two segments of one thread; the later one, named
	// <thread>_<uuid>, is newer and the live one.
	rw := pmeta(idRewind, at(10))
	h.segment(false, at(10), idRewind, "", at(12),
		codextest.MetaLine(rw),
		codextest.User(at(10), 1, "rewind first prompt"),
		codextest.Agent(at(10), 2, "ok"),
		codextest.User(at(11), 3, "abandoned prompt"))
	rw2 := rw
	rw2.At, rw2.BaseThread, rw2.Branch = at(13), idRewind, "feature"
	h.segment(false, at(13), idRewind, "019ad000-ffff-7000-8000-0000000000ff", at(14),
		codextest.MetaLine(rw2),
		codextest.User(at(14), 4, "after the rewind"))

	// A paginated fork of the TUI thread: its own first prompt; it shares
	// its parent's name in the index.
	fm := pmeta(idFork, at(20))
	fm.ForkedFrom, fm.BaseThread = idTUI, idTUI
	h.segment(false, at(20), idFork, "", at(21),
		codextest.MetaLine(fm),
		codextest.User(at(21), 1, "fork's own prompt"))
	h.appendTo("session_index.jsonl", codextest.IndexLine(idFork, "login fix", at(20)))

	// A legacy thread (0.142.3), and a legacy fork: its own session_meta,
	// then a copy of the parent's lines (its session_meta as line 2), each
	// restamped as the fork wrote it, then its own turn half a second
	// later, as in a real run on a loaded machine.
	lm := codextest.Meta{ID: idLegacy, Cwd: "/work/legacy", Version: "0.142.3", Source: "cli", At: at(30)}
	parent := [][]byte{codextest.MetaLine(lm), codextest.User(at(30), -1, "legacy first prompt"), codextest.Agent(at(30), -1, "legacy reply")}
	h.segment(false, at(30), idLegacy, "", at(31), parent...)
	fork := t0.Add(40 * time.Minute)
	lf := codextest.Meta{ID: idLFork, Cwd: "/work/legacy", Version: "0.142.3", Source: "cli", ForkedFrom: idLegacy, At: fork}
	h.segment(false, fork, idLFork, "", at(41),
		codextest.MetaLine(lf),
		restamp(bytes.Join(parent, nil), fork.Add(2*time.Millisecond)),
		codextest.User(fork.Add(500*time.Millisecond), -1, "legacy fork's own prompt"),
		codextest.Agent(fork.Add(600*time.Millisecond), -1, "fork reply"))

	// A subagent of the TUI thread, an exec thread, an archived thread.
	sm := pmeta(idSub, at(50))
	sm.ParentThread = idTUI
	h.segment(false, at(50), idSub, "", at(51), codextest.MetaLine(sm), codextest.User(at(50), 1, "subagent task"))
	em := pmeta(idExec, at(60))
	em.Originator, em.Source = "codex_exec", "exec"
	h.segment(false, at(60), idExec, "", at(61), codextest.MetaLine(em), codextest.User(at(60), 1, "exec prompt"))
	h.segment(true, at(70), idArch, "", at(71), codextest.MetaLine(pmeta(idArch, at(70))), codextest.User(at(70), 1, "archived prompt"))

	// A compressed segment, and one both plain and compressed (the plain
	// one wins: its prompt differs).
	zb := zstdOf(h.t, bytes.Join([][]byte{codextest.MetaLine(pmeta(idZst, at(80))), codextest.User(at(80), 1, "compressed prompt")}, nil))
	h.write(filepath.Join(h.root, "sessions", codextest.DayDir(at(80)), codextest.FileName(at(80), idZst, "")+".zst"), zb, at(81))
	both := h.segment(false, at(90), idOnlyEnv, "", at(91),
		codextest.MetaLine(pmeta(idOnlyEnv, at(90))),
		codextest.ResponseUser(at(90), 1, "<environment_context>cwd</environment_context>"),
		codextest.ResponseUser(at(90), 2, "# AGENTS.md instructions"),
		codextest.ResponseUser(at(90), 3, "typed before paginated events"))
	h.write(both+".zst", zstdOf(h.t, bytes.Join([][]byte{codextest.MetaLine(pmeta(idOnlyEnv, at(90))), codextest.User(at(90), 1, "STALE COMPRESSED COPY")}, nil)), at(92))
}

func zstdOf(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// listWithProblems is one listing of h, its problems left to the caller.
func listWithProblems(t *testing.T, h *Harness, index string) ([]*harness.Session, sessions.Stats) {
	t.Helper()
	var out []*harness.Session
	st, err := sessions.List(context.Background(), sessions.Options{Harness: h, IndexPath: index}, func(s *harness.Session) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, st
}

func list(t *testing.T, h *Harness, index string) ([]*harness.Session, sessions.Stats) {
	t.Helper()
	out, st := listWithProblems(t, h, index)
	for _, p := range st.Problems {
		t.Errorf("problem: %v", p)
	}
	return out, st
}

func byID(ss []*harness.Session) map[string]*harness.Session {
	m := map[string]*harness.Session{}
	for _, s := range ss {
		if m[s.ID] != nil {
			panic("listed twice: " + s.ID)
		}
		m[s.ID] = s
	}
	return m
}

func TestListShapes(t *testing.T) {
	hm := newHome(t)
	hm.build()
	h := New(Paths{Root: hm.root})
	ss, _ := list(t, h, filepath.Join(t.TempDir(), "idx"))
	if len(ss) != 10 {
		t.Fatalf("want 10 threads, one row each, got %d", len(ss))
	}
	m := byID(ss)
	check := func(id, field, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s %s = %q, want %q", id[len(id)-2:], field, got, want)
		}
	}
	s := m[idTUI]
	check(idTUI, "harness", s.Harness, "codex")
	check(idTUI, "name", s.Name, "login fix")
	check(idTUI, "first", s.FirstPrompt, "fix the login bug")
	check(idTUI, "last", s.LastPrompt, "now add a test")
	check(idTUI, "branch", s.Branch, "main")
	check(idTUI, "version", s.Version, "0.171.0")
	check(idTUI, "last_prompt_at", s.LastPromptAt.Format(time.RFC3339), t0.Add(time.Minute).Format(time.RFC3339))
	if s.Messages != 4 || s.Hidden {
		t.Errorf("tui: messages %d hidden %v", s.Messages, s.Hidden)
	}

	s = m[idRewind]
	check(idRewind, "first", s.FirstPrompt, "rewind first prompt")
	check(idRewind, "last", s.LastPrompt, "after the rewind")
	check(idRewind, "branch (the live segment's)", s.Branch, "feature")
	check(idRewind, "transcript", filepath.Base(s.Transcript), codextest.FileName(t0.Add(13*time.Minute), idRewind, "019ad000-ffff-7000-8000-0000000000ff"))
	if s.Relation != "" {
		t.Errorf("a rewind is no fork: %q", s.Relation)
	}

	s = m[idFork]
	check(idFork, "first", s.FirstPrompt, "fork's own prompt")
	check(idFork, "relation", s.Relation, "fork")
	check(idFork, "parent", s.ParentID, idTUI)
	check(idFork, "name (inherited)", s.Name, "login fix")
	if !s.ParentExists {
		t.Error("fork's parent is listed")
	}

	s = m[idLFork]
	check(idLFork, "first", s.FirstPrompt, "legacy fork's own prompt")
	check(idLFork, "relation", s.Relation, "fork")
	check(idLFork, "parent", s.ParentID, idLegacy)
	check(idLFork, "cwd", s.Cwd, "/work/legacy")
	if s.Messages != 2 {
		t.Errorf("legacy fork counts only its own messages: %d", s.Messages)
	}
	check(idLegacy, "first", m[idLegacy].FirstPrompt, "legacy first prompt")
	check(idLegacy, "version", m[idLegacy].Version, "0.142.3")

	check(idSub, "hidden", m[idSub].HiddenReason, "subagent")
	check(idSub, "parent", m[idSub].ParentID, idTUI)
	check(idSub, "relation", m[idSub].Relation, Subagent)
	check(idExec, "hidden", m[idExec].HiddenReason, "print-mode")
	check(idArch, "hidden", m[idArch].HiddenReason, "archived")
	check(idZst, "first", m[idZst].FirstPrompt, "compressed prompt")
	check(idOnlyEnv, "first (plain wins, injected blocks skipped)", m[idOnlyEnv].FirstPrompt, "typed before paginated events")

	// Newest first, by the newest segment.
	for k := 1; k < len(ss); k++ {
		if ss[k].LastActivity.After(ss[k-1].LastActivity) {
			t.Errorf("row %d is newer than row %d", k, k-1)
		}
	}
}

// The second listing takes every segment from the index: no file is
// read, not even its first line to group it.
func TestWarmListingReadsNothing(t *testing.T) {
	hm := newHome(t)
	hm.build()
	h := New(Paths{Root: hm.root})
	idx := filepath.Join(t.TempDir(), "idx")
	cold, st := list(t, h, idx)
	if st.Scanned != 11 {
		t.Fatalf("cold listing read %d segments, want 11", st.Scanned)
	}
	// A segment that cannot be opened any more is still grouped and listed
	// from its record: nothing opened it.
	for _, s := range cold {
		if err := os.Chmod(s.Transcript, 0); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getuid() == 0 {
		t.Log("as root a mode 000 file still opens; the counts below prove it")
	}
	warm, st := list(t, h, idx)
	if st.Scanned != 0 || len(warm) != len(cold) {
		t.Fatalf("warm listing read %d segments and listed %d, want 0 and %d", st.Scanned, len(warm), len(cold))
	}
}

// An appended segment is read on from where the index stopped.
func TestAppendedSegment(t *testing.T) {
	hm := newHome(t)
	hm.build()
	h := New(Paths{Root: hm.root})
	idx := filepath.Join(t.TempDir(), "idx")
	list(t, h, idx)
	p := filepath.Join(hm.root, "sessions", codextest.DayDir(t0), codextest.FileName(t0, idTUI, ""))
	hm.appendTo(filepath.Join("sessions", codextest.DayDir(t0), codextest.FileName(t0, idTUI, "")), codextest.User(t0.Add(5*time.Minute), 6, "a third prompt"))
	if err := os.Chtimes(p, t0.Add(200*time.Minute), t0.Add(200*time.Minute)); err != nil {
		t.Fatal(err)
	}
	ss, st := list(t, h, idx)
	if st.Scanned != 1 {
		t.Errorf("read %d segments, want the appended one", st.Scanned)
	}
	if s := ss[0]; s.ID != idTUI || s.LastPrompt != "a third prompt" || s.FirstPrompt != "fix the login bug" || s.Messages != 5 {
		t.Errorf("appended thread: %+v", s)
	}
}

// A listing stopped after its first row (a picker left early) keeps the
// records of every segment it did not reach, grouped or not: the next
// listing still reads nothing. And a segment that grew since is read on,
// its thread's other segment kept.
func TestStoppedListingKeepsTheIndex(t *testing.T) {
	hm := newHome(t)
	hm.build()
	h := New(Paths{Root: hm.root})
	idx := filepath.Join(t.TempDir(), "idx")
	list(t, h, idx)
	rel := filepath.Join("sessions", codextest.DayDir(t0.Add(13*time.Minute)), codextest.FileName(t0.Add(13*time.Minute), idRewind, "019ad000-ffff-7000-8000-0000000000ff"))
	hm.appendTo(rel, codextest.User(t0.Add(15*time.Minute), 5, "after the rewind, again"))
	st, err := sessions.List(context.Background(), sessions.Options{Harness: h, IndexPath: idx}, func(*harness.Session) error { return sessions.ErrStop })
	if err != nil || st.Listed != 1 {
		t.Fatalf("stopped listing: %v, %d listed", err, st.Listed)
	}
	ss, st := list(t, h, idx)
	m := byID(ss)
	if st.Scanned > 1 || m[idRewind].LastPrompt != "after the rewind, again" || m[idRewind].FirstPrompt != "rewind first prompt" {
		t.Errorf("after a stopped listing: %d read; rewind %+v", st.Scanned, m[idRewind])
	}
}

// history.jsonl is kept in the index: a warm listing does not read it
// again (a same-size rewrite with its mtime put back goes unseen, as the
// freshness rule says), and an appended line is read on from the old end.
func TestHistoryKeptInTheIndex(t *testing.T) {
	hm := newHome(t)
	hm.build()
	h := New(Paths{Root: hm.root})
	idx := filepath.Join(t.TempDir(), "idx")
	at := func() string {
		ss, _ := list(t, h, idx)
		return byID(ss)[idTUI].LastPromptAt.Format(time.RFC3339)
	}
	want := t0.Add(time.Minute).Format(time.RFC3339)
	if got := at(); got != want {
		t.Fatalf("cold: %s, want %s", got, want)
	}
	p := filepath.Join(hm.root, "history.jsonl")
	st, _ := os.Stat(p)
	b, _ := os.ReadFile(p)
	forged := bytes.ReplaceAll(b, []byte(fmt.Sprint(t0.Add(time.Minute).Unix())), []byte(fmt.Sprint(t0.Add(time.Minute).Unix()+1)))
	hm.write(p, forged, st.ModTime())
	if got := at(); got != want {
		t.Errorf("warm listing read history.jsonl again: %s", got)
	}
	hm.appendTo("history.jsonl", codextest.HistoryLine(idTUI, t0.Add(time.Hour), "later"))
	if got, want := at(), t0.Add(time.Hour).Format(time.RFC3339); got != want {
		t.Errorf("appended: %s, want %s", got, want)
	}
	if got := at(); got != t0.Add(time.Hour).Format(time.RFC3339) {
		t.Errorf("warm after the append: %s", got)
	}
}

// So is session_index.jsonl: an appended /rename is read on, an appended
// empty name changes nothing, and a warm listing reads neither again.
func TestNamesKeptInTheIndex(t *testing.T) {
	hm := newHome(t)
	hm.build()
	h := New(Paths{Root: hm.root})
	idx := filepath.Join(t.TempDir(), "idx")
	name := func() string {
		ss, _ := list(t, h, idx)
		return byID(ss)[idTUI].Name
	}
	if got := name(); got != "login fix" {
		t.Fatalf("cold: %q", got)
	}
	hm.appendTo("session_index.jsonl", codextest.IndexLine(idTUI, "renamed later", t0.Add(time.Hour)), codextest.IndexLine(idTUI, " ", t0.Add(2*time.Hour)))
	if got := name(); got != "renamed later" {
		t.Errorf("appended: %q", got)
	}
	p := filepath.Join(hm.root, "session_index.jsonl")
	st, _ := os.Stat(p)
	b, _ := os.ReadFile(p)
	hm.write(p, bytes.ReplaceAll(b, []byte("renamed later"), []byte("RENAMED LATER")), st.ModTime())
	if got := name(); got != "renamed later" {
		t.Errorf("warm listing read session_index.jsonl again: %q", got)
	}
}

// The first prompt is the first-created segment's, whichever segment was
// written last: an old segment touched after the rewind is still the
// thread's start.
func TestFirstPromptByCreation(t *testing.T) {
	hm := newHome(t)
	hm.build()
	old := filepath.Join(hm.root, "sessions", codextest.DayDir(t0.Add(10*time.Minute)), codextest.FileName(t0.Add(10*time.Minute), idRewind, ""))
	later := t0.Add(500 * time.Minute)
	if err := os.Chtimes(old, later, later); err != nil {
		t.Fatal(err)
	}
	ss, _ := list(t, New(Paths{Root: hm.root}), "")
	s := byID(ss)[idRewind]
	if s.FirstPrompt != "rewind first prompt" || filepath.Base(s.Transcript) != filepath.Base(old) {
		t.Errorf("rewind with its old segment newest: first %q, transcript %s", s.FirstPrompt, s.Transcript)
	}
}

// A name comes from session_index.jsonl when the thread has a line there,
// else from a thread_name_updated event (older builds); a rewound
// thread's size is its segments' sum; and a segment joins the thread its
// session_meta names, whatever uuid its file name carries. Each holds in
// the cold listing and in the warm one, which groups from stored records.
func TestNamesSizeAndGrouping(t *testing.T) {
	const (
		idEvent = "019ad000-0000-7000-8000-0000000000e1"
		idBoth  = "019ad000-0000-7000-8000-0000000000e2"
		idRw    = "019ad000-0000-7000-8000-0000000000e3"
		idOther = "019ad000-0000-7000-8000-0000000000e4" // only in a file name
	)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	hm := newHome(t)
	hm.segment(false, at(0), idEvent, "", at(1),
		codextest.MetaLine(pmeta(idEvent, at(0))),
		codextest.User(at(0), 1, "named by an event"),
		codextest.ThreadNameEvent(at(0), 2, "old event name"),
		codextest.ThreadNameEvent(at(1), 3, "event name"))
	hm.segment(false, at(2), idBoth, "", at(3),
		codextest.MetaLine(pmeta(idBoth, at(2))),
		codextest.User(at(2), 1, "named twice"),
		codextest.ThreadNameEvent(at(3), 2, "event loses"))
	hm.appendTo("session_index.jsonl", codextest.IndexLine(idBoth, "index wins", at(3)))

	rw := pmeta(idRw, at(10))
	p1 := hm.segment(false, at(10), idRw, "", at(11),
		codextest.MetaLine(rw), codextest.User(at(10), 1, "rewound first"), codextest.User(at(11), 2, "dropped"))
	rw2 := rw
	rw2.At, rw2.BaseThread = at(12), idRw
	p2 := hm.segment(false, at(12), idRw, "019ad000-ffff-7000-8000-0000000000e5", at(13),
		codextest.MetaLine(rw2), codextest.User(at(12), 3, "after the rewind"))
	// A third segment of the same thread whose file name carries another
	// thread's uuid: grouping must follow the payload id.
	rw3 := rw
	rw3.At, rw3.BaseThread = at(14), idRw
	p3 := hm.segment(false, at(14), idOther, "", at(15),
		codextest.MetaLine(rw3), codextest.User(at(14), 4, "in a misnamed file"))
	var want int64
	for _, p := range []string{p1, p2, p3} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want += st.Size()
	}

	h := New(Paths{Root: hm.root})
	idx := filepath.Join(t.TempDir(), "idx")
	for _, pass := range []string{"cold", "warm"} {
		ss, _ := list(t, h, idx)
		m := byID(ss)
		if len(ss) != 3 || m[idOther] != nil {
			t.Fatalf("%s: want 3 threads and none by the file name's uuid, got %d", pass, len(ss))
		}
		if s := m[idEvent]; s.Name != "event name" || s.NameSource != "thread-name-event" {
			t.Errorf("%s: no index line: name %q from %q, want the last event's", pass, s.Name, s.NameSource)
		}
		if s := m[idBoth]; s.Name != "index wins" || s.NameSource != "session-index" {
			t.Errorf("%s: index and event: name %q from %q, want the index's", pass, s.Name, s.NameSource)
		}
		s := m[idRw]
		if len(s.Segments) != 3 || filepath.Base(s.Transcript) != filepath.Base(p3) {
			t.Errorf("%s: rewound thread has segments %v, transcript %s; want all 3, the misnamed one newest", pass, s.Segments, s.Transcript)
		}
		if s.Size != want {
			t.Errorf("%s: rewound thread's size %d, want its segments' sum %d", pass, s.Size, want)
		}
		if s.FirstPrompt != "rewound first" || s.LastPrompt != "in a misnamed file" {
			t.Errorf("%s: first %q last %q", pass, s.FirstPrompt, s.LastPrompt)
		}
	}
}
