package codex

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/shared/jsonl"
)

// realMeta is a session_meta line laid out as Codex writes it: the
// envelope's type before its payload, the ids first, the instructions
// after (codextest.MetaLine sorts its keys, which puts them first).
func realMeta(id, tail string) []byte { return realMetaOf(id, tail, 1500) }

// realMetaOf is realMeta with the instructions' sentence n times.
func realMetaOf(id, tail string, n int) []byte {
	return []byte(`{"timestamp":"2026-12-01T10:00:00.000Z","type":"session_meta","payload":{"session_id":"` + id +
		`","id":"` + id + `","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/work/aa","originator":"codex-tui","cli_version":"0.171.0",` +
		`"base_instructions":{"text":"` + strings.Repeat("You are Codex. ", n) + `"}` + tail + `}}` + "\n")
}

// The id is read from a first line's first bytes, member by member: only
// the payload's own id, only for a session_meta, and nothing from bytes
// that end first.
func TestPrefixID(t *testing.T) {
	for _, c := range []struct {
		name, line, id string
	}{
		{"as Codex writes it", string(realMeta(idTUI, ""))[:headPrefix], idTUI},
		{"legacy: the id first", `{"timestamp":"t","type":"session_meta","payload":{"id":"` + idTUI + `","timestamp":"t"`, idTUI},
		{"a key in any case, as encoding/json matches it", `{"Type":"session_meta","payload":{"ID":"` + idTUI + `"}}`, idTUI},
		{"a nested id is not the payload's", `{"type":"session_meta","payload":{"git":{"id":"x"},"source":{"subagent":{"id":"y"}},"id":"` + idTUI + `"}}`, idTUI},
		{"cut before the id", `{"type":"session_meta","payload":{"session_id":"` + idTUI + `","i`, ""},
		{"cut inside the id", `{"type":"session_meta","payload":{"id":"` + idTUI[:10], ""},
		{"the payload before the type", `{"payload":{"id":"` + idTUI + `"},"type":"session_meta"}`, ""},
		{"not a session_meta", `{"type":"event_msg","payload":{"id":"` + idTUI + `"}}`, ""},
		{"an id that is not a string", `{"type":"session_meta","payload":{"id":7}}`, ""},
		{"an empty id", `{"type":"session_meta","payload":{"id":""}}`, ""},
		{"not an object", `["type","session_meta"]`, ""},
		{"nothing", ``, ""},
	} {
		id, ok := prefixID([]byte(c.line))
		if id != c.id && ok || ok != (c.id != "") {
			t.Errorf("%s: prefixID = %q, %v; want %q", c.name, id, ok, c.id)
		}
	}
}

// FuzzPrefixID: wherever a first line is cut, an id read from its start
// is the one the whole line's decoding names, unless the line names more
// than one (the row's read catches that one: TestRowLeavesOutASegmentGroupedWrong).
func FuzzPrefixID(f *testing.F) {
	f.Add(realMetaOf(idTUI, "", 4), 150)
	f.Add(realMetaOf(idTUI, `,"id":"other"`, 4), 300)
	f.Add([]byte(`{"type":"session_meta","payload":{"ID":"a","Id":"b"}}`), 40)
	f.Fuzz(func(t *testing.T, line []byte, cut int) {
		if cut < 0 || cut > len(line) {
			return
		}
		id, ok := prefixID(line[:cut])
		if !ok {
			return
		}
		full := bytes.TrimSuffix(line, []byte("\n"))
		typ, _, _ := envelope(full)
		m, mok := decodeMeta(full)
		if !mok || typ != "session_meta" || m.ID == id {
			return // a line the whole read refuses is left out there
		}
		if bytes.Count(bytes.ToLower(full), []byte(`"id"`)) < 2 {
			t.Fatalf("prefixID(%q) = %q, but the whole line names %q", line[:cut], id, m.ID)
		}
	})
}

// readHead reads the first bytes of a segment for its id, and the whole
// first line when they do not hold it. A line still being written has its
// id read all the same: the row's read, which takes only whole lines,
// leaves the segment out (TestRowLeavesOutAFirstLineThatDoesNotDecode).
func TestReadHead(t *testing.T) {
	hm := newHome(t)
	fast := hm.segment(false, t0, idTUI, "", t0, realMeta(idTUI, ""))
	sorted := hm.segment(false, t0, idFork, "", t0, codextest.MetaLine(pmeta(idFork, t0))) // the id past the instructions
	cut := hm.segment(false, t0, idExec, "", t0, realMeta(idExec, "")[:5000])              // its first line still being written
	notMeta := hm.segment(false, t0, idSub, "", t0, codextest.User(t0, -1, "hello"))
	h := New(Paths{Root: hm.root})
	for _, c := range []struct {
		path, id string
	}{{fast, idTUI}, {sorted, idFork}, {cut, idExec}, {notMeta, ""}} {
		id, err := h.readHead(c.path)
		if id != c.id || (err == nil) != (c.id != "") {
			t.Errorf("readHead(%s) = %q, %v; want %q", c.path, id, err, c.id)
		}
	}
}

// groupThenRow groups the home's one segment, lets between change the
// file, then makes its row.
func groupThenRow(t *testing.T, first []byte, between func(path string)) harness.Row {
	t.Helper()
	hm := newHome(t)
	hm.segment(false, t0, idTUI, "", t0, first, codextest.User(t0, -1, "hello"))
	h := New(Paths{Root: hm.root})
	files, _, err := h.Walk(context.Background())
	if err != nil || len(files) != 1 {
		t.Fatalf("walk: %d files, %v", len(files), err)
	}
	l := h.Open(harness.OpenOptions{Now: t0}).(*lister)
	l.joined = &joined{history: &folded{}, names: &folded{}} // no names, no history
	if g := l.Group(files, func(int) harness.Stored { return harness.Stored{} }); len(g) != 1 {
		t.Fatalf("groups %v", g)
	}
	path := files[0].Path()
	between(path)
	rows := l.RowGroup(jsonl.NewScanner(nil, 0), []*harness.File{&files[0]}, []string{path}, []harness.Stored{{}})
	return rows[0]
}

// The row reads the first line whole, and its reading wins: the cwd is
// the line's as it is when the row reads it.
func TestRowDecodesTheFirstLineWhole(t *testing.T) {
	r := groupThenRow(t, realMeta(idTUI, ""), func(path string) {
		b, _ := os.ReadFile(path)
		newHome(t).write(path, bytes.Replace(b, []byte(`"cwd":"/work/aa"`), []byte(`"cwd":"/work/bb"`), 1), t0.Add(time.Second))
	})
	if r.Problem != nil || r.Session == nil || r.Session.Cwd != "/work/bb" {
		t.Fatalf("row %+v, want the thread with the rewritten cwd /work/bb", r)
	}
}

// A segment Group put under one thread, whose whole first line names
// another (a second "id" past the first bytes, or a rewrite in between),
// is left out of the thread with a problem that says so, not shown as it;
// its record is kept, so the next listing groups it by what it says.
func TestRowLeavesOutASegmentGroupedWrong(t *testing.T) {
	r := groupThenRow(t, realMeta(idTUI, `,"id":"`+idFork+`"`), func(string) {})
	if r.Session != nil {
		t.Fatalf("a row was made for %s from a line that names %s", r.Session.ID, idFork)
	}
	if r.Problem == nil || !strings.Contains(r.Problem.Error(), idFork) || r.Record == nil {
		t.Fatalf("problem %v, record %v: want the thread it names, and its record kept", r.Problem, r.Record)
	}
	seg, ok := r.Record.(*segment)
	if !ok || seg.ID != idFork {
		t.Fatalf("record %#v, want the segment of %s", r.Record, idFork)
	}
}

// A first line whose start names a thread but which does not decode
// whole (cut, then written past) leaves its segment out with a problem.
func TestRowLeavesOutAFirstLineThatDoesNotDecode(t *testing.T) {
	r := groupThenRow(t, realMeta(idTUI, "")[:5000], func(string) {})
	if r.Session != nil || r.Problem == nil || !strings.Contains(r.Problem.Error(), "no session_meta") {
		t.Fatalf("row %+v, problem %v: want the segment left out", r.Session, r.Problem)
	}
}
