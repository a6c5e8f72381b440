package codex

import (
	"context"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/shared/jsonl"
)

// groupThenRow groups the home's one segment, lets between change what
// Group kept or the file, then makes its row.
func groupThenRow(t *testing.T, between func(l *lister, path string)) *harness.Session {
	t.Helper()
	hm := newHome(t)
	m := pmeta(idTUI, t0)
	m.Cwd = "/work/aa"
	hm.segment(false, t0, idTUI, "", t0, codextest.MetaLine(m), codextest.User(t0, -1, "hello"))
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
	between(l, path)
	rows := l.RowGroup(jsonl.NewScanner(nil, 0), []*harness.File{&files[0]}, []string{path}, []harness.Stored{{}})
	if rows[0].Problem != nil || rows[0].Session == nil {
		t.Fatalf("row: %+v", rows[0])
	}
	return rows[0].Session
}

// TestRowTakesGroupsFirstLine checks that the row's read of a segment
// takes the session_meta Group decoded instead of decoding the 22 KB line
// again.
func TestRowTakesGroupsFirstLine(t *testing.T) {
	s := groupThenRow(t, func(l *lister, path string) {
		hd := l.heads[path]
		if hd == nil {
			t.Fatal("Group kept no first line")
		}
		hd.seg.Cwd = "/marked" // what the row shows only if it took the kept decoding
	})
	if s.Cwd != "/marked" {
		t.Errorf("cwd %q: the row decoded the first line again", s.Cwd)
	}
}

// TestRowDecodesARewrittenFirstLine checks that a first line rewritten
// between Group and the row's read, to one of the same length, is decoded
// again rather than taken from Group: the write moved the file's mtime.
func TestRowDecodesARewrittenFirstLine(t *testing.T) {
	s := groupThenRow(t, func(l *lister, path string) {
		m := pmeta(idTUI, t0)
		m.Cwd = "/work/bb"
		newHome(t).write(path, append(codextest.MetaLine(m), codextest.User(t0, -1, "hello")...), t0.Add(time.Second))
	})
	if s.Cwd != "/work/bb" {
		t.Errorf("cwd %q, want the rewritten /work/bb", s.Cwd)
	}
}

// TestRowSkipsAnUnchangedFirstLine checks that the row's read does not
// read the first line again when the file's inode, size and mtime are the
// ones Group read it at: the index's own rule for an unchanged file
// (package fresh). A rewrite that keeps all three is not seen, here as
// there.
func TestRowSkipsAnUnchangedFirstLine(t *testing.T) {
	s := groupThenRow(t, func(l *lister, path string) {
		m := pmeta(idTUI, t0)
		m.Cwd = "/work/bb"
		newHome(t).write(path, append(codextest.MetaLine(m), codextest.User(t0, -1, "hello")...), t0)
	})
	if s.Cwd != "/work/aa" {
		t.Errorf("cwd %q: the row read the first line again, though the stat is the one Group read it at", s.Cwd)
	}
}
