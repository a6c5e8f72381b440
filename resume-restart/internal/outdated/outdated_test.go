package outdated

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/registry"
)

func writeEntry(t *testing.T, dir string, pid int, fields map[string]any) {
	t.Helper()
	fields["pid"] = pid
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", pid)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	state := map[int]registry.State{}
	add := func(pid int, st registry.State, version, status string) {
		state[pid] = st
		writeEntry(t, dir, pid, map[string]any{
			"sessionId": fmt.Sprintf("s-%d", pid), "version": version, "status": status,
			"procStart": "100", "cwd": "/src/repo", "name": fmt.Sprintf("repo-%d", pid),
		})
	}
	add(101, registry.Alive, "2.1.99", "idle")     // older: listed, idle
	add(102, registry.Alive, "2.1.100", "idle")    // the installed one: not listed
	add(103, registry.Alive, "2.1.332", "busy")    // newer: not listed
	add(104, registry.Alive, "2.0.76", "waiting")  // older, waiting reads as busy
	add(105, registry.Alive, "", "idle")           // no version: listed, unparseable
	add(106, registry.Alive, "two point one", "")  // unparseable, no status
	add(107, registry.Stale, "2.1.1", "idle")      // dead pid or reused: skipped
	add(108, registry.Unverified, "2.1.1", "idle") // no procStart: listed, marked
	add(109, registry.Alive, "2.1.99-beta.1", "shell")
	os.WriteFile(filepath.Join(dir, "110.json"), []byte("{torn"), 0o644)

	l := Lister{
		RegistryDir: dir,
		Check:       func(e registry.Entry) registry.State { return state[e.Pid] },
		PaneEnv: func(pid int) string {
			if pid == 101 {
				return "w1:p3"
			}
			return ""
		},
	}
	installed, _ := claudever.Parse("2.1.100")
	got, problems := l.List(installed)
	if len(problems) != 1 {
		t.Errorf("problems = %v, want the torn file", problems)
	}
	var rows []Row
	for _, s := range got {
		rows = append(rows, RowOf(s))
	}
	row := func(pid int, version, status string, busy, unparseable bool, pane string) Row {
		return Row{SessionID: fmt.Sprintf("s-%d", pid), Pid: pid, Version: version, InstalledVersion: "2.1.100",
			VersionUnparseable: unparseable, Status: status, Busy: busy, Cwd: "/src/repo",
			Name: fmt.Sprintf("repo-%d", pid), HerdrPaneID: pane}
	}
	want := []Row{
		row(101, "2.1.99", "idle", false, false, "w1:p3"),
		row(104, "2.0.76", "waiting", true, false, ""),
		row(105, "", "idle", false, true, ""),
		row(106, "two point one", "", true, true, ""),
		func() Row { r := row(108, "2.1.1", "idle", false, false, ""); r.Unverified = true; return r }(),
		row(109, "2.1.99-beta.1", "shell", true, false, ""),
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
}

func TestListMissingRegistry(t *testing.T) {
	installed, _ := claudever.Parse("2.1.100")
	got, problems := Lister{RegistryDir: filepath.Join(t.TempDir(), "nope")}.List(installed)
	if len(got) != 0 || len(problems) != 0 {
		t.Errorf("got %v, %v; want empty", got, problems)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, got); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "[]\n" {
		t.Errorf("JSON = %q, want []", buf.String())
	}
	buf.Reset()
	WriteTable(&buf, got)
	if buf.Len() != 0 {
		t.Errorf("table = %q, want nothing", buf.String())
	}
}

func TestWriteJSONFieldsAreTheTable(t *testing.T) {
	var buf bytes.Buffer
	WriteJSON(&buf, []Session{{Entry: registry.Entry{SessionID: "s", Pid: 1, Version: "2.1.1"}, Installed: "2.1.2", Busy: true}})
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{
		"session_id": "s", "pid": 1.0, "version": "2.1.1", "installed_version": "2.1.2",
		"version_unparseable": false, "unverified": false, "status": "", "busy": true, "cwd": "", "name": "", "herdr_pane_id": "",
		"no_transcript": false,
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("JSON (-want +got):\n%s", d)
	}
	for k := range got[0] {
		if !bytes.Contains([]byte(FieldTable), []byte("  "+k+" ")) {
			t.Errorf("field %s is missing from FieldTable", k)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	WriteTable(&buf, []Session{
		{Entry: registry.Entry{SessionID: "aaaa", Pid: 12, Version: "2.1.99", Status: "idle", Cwd: "/src/a", Name: "a-1"}, PaneEnv: "w1:p2"},
		{Entry: registry.Entry{SessionID: "bbbb", Pid: 345, Version: "x", Status: "waiting", Name: "evil\x1b[2Jname"}, VersionUnparseable: true, Busy: true},
		{Entry: registry.Entry{SessionID: "cccc", Pid: 6, Version: "2.0.1"}, Busy: true},
		{Entry: registry.Entry{SessionID: "dddd", Pid: 78, Version: "1.0.3", Status: "idle"}, Unverified: true},
	})
	want := "" +
		"SESSION  PID              VERSION          STATUS          HERDR_PANE_ID  NAME             CWD\n" +
		"aaaa     12               2.1.99           idle            w1:p2          a-1              /src/a\n" +
		"bbbb     345              unparseable:\"x\"  waiting (busy)  -              evil\\x1b[2Jname  -\n" +
		"cccc     6                2.0.1            (none) (busy)   -              -                -\n" +
		"dddd     78 (unverified)  1.0.3            idle            -              -                -\n"
	if d := cmp.Diff(want, buf.String()); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
}

// TestNoTranscript: a session is flagged when no project folder holds its
// transcript, whatever folder its registry cwd would name.
func TestNoTranscript(t *testing.T) {
	reg, projects := t.TempDir(), filepath.Join(t.TempDir(), "projects")
	for pid, id := range map[int]string{201: "prompted", 202: "bare", 203: "moved"} {
		writeEntry(t, reg, pid, map[string]any{"sessionId": id, "version": "2.1.99", "status": "idle", "procStart": "1", "cwd": "/src/repo"})
	}
	for _, p := range []string{"-src-repo/prompted.jsonl", "-src-elsewhere/moved.jsonl"} {
		os.MkdirAll(filepath.Dir(filepath.Join(projects, p)), 0o700)
		os.WriteFile(filepath.Join(projects, p), []byte("{}\n"), 0o600)
	}
	// A folder named like a transcript is not one.
	os.MkdirAll(filepath.Join(projects, "-src-repo", "bare.jsonl"), 0o700)
	l := Lister{RegistryDir: reg, ProjectsDir: projects,
		Check: func(registry.Entry) registry.State { return registry.Alive }, PaneEnv: func(int) string { return "" }}
	installed, _ := claudever.Parse("2.1.100")
	ss, _ := l.List(installed)
	got := map[string]bool{}
	for _, s := range ss {
		got[s.Entry.SessionID] = s.NoTranscript
	}
	if d := cmp.Diff(map[string]bool{"prompted": false, "bare": true, "moved": false}, got); d != "" {
		t.Errorf("no_transcript (-want +got):\n%s", d)
	}
	var b bytes.Buffer
	WriteTable(&b, ss)
	if !bytes.Contains(b.Bytes(), []byte("idle (no transcript)")) {
		t.Errorf("table:\n%s", b.String())
	}
	if HasTranscript(filepath.Join(t.TempDir(), "none"), "x") || HasTranscript(projects, "../x") {
		t.Error("a missing projects directory or a path-like id has a transcript")
	}
}
