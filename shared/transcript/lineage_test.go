package transcript

import (
	"os"
	"testing"

	"forgectl.dev/shared/lineage"
	"github.com/google/go-cmp/cmp"
)

// Rows shaped as the real CLI (2.1.333) writes them: the markers sit at the
// end of each row, in this key order.
const (
	pid  = "e35e10b2-c893-44f6-9c71-93e55c7006fd"
	fid  = "c3b20ec6-922d-4f8e-82fa-d9cd0423bb82"
	bid  = "cf4f2ba2-1c1e-4036-8907-d0e98161e82f"
	c1id = "3f4422bf-4a80-4df3-83f2-3d001bc5301e"
	c2id = "afd1fd9f-9173-4e99-a473-e1a937178e68"
)

func userRow(own, uuid, text, tail string) string {
	return `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid + `","timestamp":"2026-12-01T13:01:38.715Z","userType":"external","entrypoint":"cli","cwd":"/r","sessionId":"` + own + `","version":"2.1.333","gitBranch":"main"` + tail + "}\n"
}

func asstRow(own, uuid, processID, tail string) string {
	return `{"parentUuid":"u","isSidechain":false,"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"type":"assistant","uuid":"` + uuid + `","timestamp":"2026-12-01T13:01:39Z","session_id":"` + processID + `","userType":"external","entrypoint":"cli","cwd":"/r","sessionId":"` + own + `","version":"2.1.333","gitBranch":"main"` + tail + "}\n"
}

func forked(from, uuid string) string {
	return `,"forkedFrom":{"sessionId":"` + from + `","messageUuid":"` + uuid + `"}`
}

func TestLineageMarks(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  lineage.Marks
	}{
		{"an original session", []string{
			userRow(pid, "u1", "parent work one", ""),
			asstRow(pid, "a1", pid, ""),
		}, lineage.Marks{}},
		{"a branch: every copied row names the parent in forkedFrom", []string{
			userRow(bid, "u1", "parent work one", forked(pid, "u1")),
			asstRow(bid, "a1", pid, `,"requestSessionId":"`+pid+`"`+forked(pid, "a1")),
			userRow(bid, "u2", "work in the branch", ""),
			asstRow(bid, "a2", pid, ""), // the process started as the parent
		}, lineage.Marks{CopiedFrom: pid, CopiedBy: lineage.Branch, ProcessSession: pid}},
		{"a fork of a fork: the last copied row names the nearest", []string{
			userRow("ff", "u1", "parent work one", ""),
			asstRow("ff", "a1", pid, `,"requestSessionId":"`+pid+`"`),
			userRow("ff", "u2", "work in the fork", ""),
			asstRow("ff", "a2", fid, `,"requestSessionId":"`+fid+`"`),
			userRow("ff", "u3", "work in the fork of the fork", ""),
			asstRow("ff", "a3", "ff", ""),
		}, lineage.Marks{CopiedFrom: fid, CopiedBy: lineage.Fork, ProcessSession: fid}},
		{"a branch of a fork: forkedFrom beats the carried requestSessionId", []string{
			asstRow("bf", "a1", pid, `,"requestSessionId":"`+pid+`"`+forked(fid, "a1")),
			asstRow("bf", "a2", fid, `,"requestSessionId":"`+fid+`"`+forked(fid, "a2")),
			asstRow("bf", "a3", fid, ""),
		}, lineage.Marks{CopiedFrom: fid, CopiedBy: lineage.Branch, ProcessSession: fid}},
		{"a /clear continuation", []string{
			`{"type":"mode","mode":"normal","sessionId":"` + c2id + `"}` + "\n",
			`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"<local-command-caveat>The command below was run directly in Claude Code</local-command-caveat>"},"isMeta":true,"rowSource":"harness","uuid":"m1","timestamp":"2026-12-01T13:01:48.770Z","userType":"external","entrypoint":"cli","cwd":"/r","sessionId":"` + c2id + `","version":"2.1.333","gitBranch":"main"}` + "\n",
			`{"parentUuid":"m1","isSidechain":false,"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>"},"uuid":"m2","timestamp":"2026-12-01T13:01:48.739Z","rowSource":"local","userType":"external","entrypoint":"cli","cwd":"/r","sessionId":"` + c2id + `","version":"2.1.333","gitBranch":"main"}` + "\n",
			userRow(c2id, "u1", "second of the chain", ""),
			asstRow(c2id, "a1", c1id, ""),
		}, lineage.Marks{ClearedAt: "2026-12-01T13:01:48.739Z", ProcessSession: c1id}},
		{"a /clear typed as a first prompt somewhere later is no continuation", []string{
			userRow(pid, "u1", "first", ""),
			userRow(pid, "u2", "<command-name>/clear</command-name>", ""),
		}, lineage.Marks{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Scan(write(t, c.lines...))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got.Marks); d != "" {
				t.Errorf("marks (-want +got):\n%s", d)
			}
		})
	}
}

// The envelope's sessionId comes before forkedFrom's: the summary names the
// branch itself, not its parent.
func TestBranchKeepsItsOwnID(t *testing.T) {
	got, err := Scan(write(t, userRow(bid, "u1", "parent work one", forked(pid, "u1"))))
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != bid {
		t.Fatalf("SessionID %q, want the branch's own %q", got.SessionID, bid)
	}
}

// A fork whose copied rows are cut mid-file (a torn line among them)
// still names its parent from the rows that survive, and counts the break.
func TestForkWithCutCopies(t *testing.T) {
	a := asstRow("f", "a1", pid, `,"requestSessionId":"`+pid+`"`)
	got, err := Scan(write(t,
		userRow("f", "u1", "parent work one", ""),
		a[:len(a)/2]+"\n",
		asstRow("f", "a2", pid, `,"requestSessionId":"`+pid+`"`),
		userRow("f", "u2", "work in the fork", ""),
	))
	if err != nil {
		t.Fatal(err)
	}
	if got.CopiedFrom != pid || got.CopiedBy != lineage.Fork || got.BrokenLines != 1 {
		t.Fatalf("copied from %q by %q, %d broken; want %s, fork, 1", got.CopiedFrom, got.CopiedBy, got.BrokenLines, pid)
	}
}

// Update reads appended rows only; the marks of the rows read before stay.
func TestLineageMarksSurviveUpdate(t *testing.T) {
	p := write(t, userRow(bid, "u1", "parent work one", forked(pid, "u1")))
	s, err := Scan(p)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, p, asstRow(bid, "a2", pid, ""))
	if err := s.Update(p); err != nil {
		t.Fatal(err)
	}
	if s.CopiedFrom != pid || s.CopiedBy != lineage.Branch || s.Messages != 2 {
		t.Fatalf("after Update: %+v", s.Marks)
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
