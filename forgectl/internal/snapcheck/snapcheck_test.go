package snapcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"forgectl.dev/forgectl/internal/settings"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"github.com/google/go-cmp/cmp"
)

type home struct {
	t      *testing.T
	claude paths.Claude
	store  snapstore.Store
}

func newHome(t *testing.T) home {
	root := t.TempDir()
	h := home{t: t, claude: paths.Claude{Root: filepath.Join(root, ".claude")}, store: snapstore.Store{Dir: filepath.Join(root, "forgectl", "resume-sessions")}}
	for _, d := range []string{h.claude.Registry(), h.claude.Tasks(), h.claude.Projects()} {
		os.MkdirAll(d, 0o700)
	}
	return h
}

func (h home) checker() Checker {
	return Checker{Claude: h.claude, Store: h.store, Now: time.Now}
}

// live starts a real process and registers it as a live session.
func (h home) live(id string, startedAt time.Time, env ...string) int {
	h.t.Helper()
	cmd := cchome.New(h.t, h.claude.Root).Live(id, map[string]any{"startedAt": startedAt.UnixMilli()}, env...)
	return cmd.Process.Pid
}

func (h home) settings(body string) {
	h.t.Helper()
	if err := os.WriteFile(h.claude.Settings(), []byte(body), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h home) transcript(id string, body string, age time.Duration) {
	p := filepath.Join(h.claude.Projects(), "-home-alice-src-demo-repo", id+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte(body), 0o600)
	m := time.Now().Add(-age)
	os.Chtimes(p, m, m)
}

func (h home) snapshot(id string, taskIDs ...string) {
	var ts []tasks.Task
	for _, tid := range taskIDs {
		ts = append(ts, tasks.Task{ID: tid, Body: json.RawMessage(fmt.Sprintf(`{"id":%q}`, tid))})
	}
	if _, err := h.store.Update(snapstore.Observation{SessionID: id, Tasks: ts, At: time.Now()}); err != nil {
		h.t.Fatal(err)
	}
}

func find(t *testing.T, rows []Row, prefix string) Row {
	t.Helper()
	for _, r := range rows {
		if r.Name != Name {
			t.Fatalf("row name %q", r.Name)
		}
	}
	switch prefix {
	case "hook":
		return rows[0]
	case "snapshots":
		return rows[1]
	case "taskdirs":
		return rows[2]
	case "prune":
		return rows[3]
	}
	t.Fatalf("no row %s", prefix)
	return Row{}
}

func TestHookRow(t *testing.T) {
	exe, _ := os.Executable()
	tests := []struct {
		name     string
		settings string // "" writes no file
		status   Status
		contains string
	}{
		{"no settings file", "", Warn, "does not exist"},
		{"no hooks", `{"model":"opus"}`, Warn, "no Stop hook in"},
		{"documented form", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot --quiet"}]}]}}`, OK, "runs `forgectl resume snapshot --quiet`"},
		{"the binary itself, with a matcher", `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"resume-snapshot --quiet"}]}]}}`, OK, "Stop hook in"},
		{"exec form", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl","args":["resume","snapshot","--quiet"]}]}]}}`, OK, "Stop hook in"},
		{"absolute path that exists", fmt.Sprintf(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"%s resume snapshot --quiet"}]}]}}`, exe), OK, "Stop hook in"},
		{"absolute path that does not", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/nowhere/forgectl resume snapshot --quiet"}]}]}}`, Warn, "/nowhere/forgectl, which is not an executable"},
		{"misspelled", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshots --quiet"}]}]}}`, Warn, "no Stop hook"},
		{"wrong event", `{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}],"Stop":[{"hooks":[{"type":"command","command":"say hi"}]}]}}`, Warn, "wired to SessionEnd"},
		{"hooks disabled", `{"disableAllHooks":true,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]}}`, Warn, "disableAllHooks"},
		{"broken json", `{"hooks":`, Fail, "settings.json:1:10: unexpected end of JSON input, so Claude Code runs none of its hooks"},
		// Claude Code keeps the last of duplicate keys (observed): so does the verdict.
		{"two hooks keys, the last without Stop", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]},"hooks":{"PreToolUse":[]}}`, Warn, "no Stop hook in"},
		{"two hooks keys, the last with Stop", `{"hooks":{},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]}}`, OK, "Stop hook in"},
		{"two Stop keys, the last broken", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}],"Stop":[{"hooks":[{"type":"command","command":"/gone/forgectl resume snapshot"}]}]}}`, Warn, "/gone/forgectl, which is not"},
		{"two Stop keys, the first broken", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/gone/forgectl resume snapshot"}]}],"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]}}`, OK, "runs `forgectl resume snapshot`"},
		{"two hooks arrays in a group", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}],"hooks":[]}]}}`, Warn, "no Stop hook in"},
		{"two commands in a hook", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot","command":"say hi"}]}]}}`, Warn, "no Stop hook in"},
		{"disableAllHooks twice, the last false", `{"disableAllHooks":true,"disableAllHooks":false,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]}}`, OK, "Stop hook in"},
		// Keys are case-sensitive for Claude Code (observed), not for encoding/json.
		{"Hooks in capitals", `{"Hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]}}`, Warn, "no Stop hook in"},
		{"hooks, then Hooks", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]},"Hooks":{}}`, OK, "Stop hook in"},
		// Claude Code reads a leading BOM and UTF-16 (observed).
		{"a UTF-8 BOM", "\ufeff" + `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]}}`, OK, "Stop hook in"},
		{"a BOM after a space", " \ufeff{}", Fail, "1:2: a byte-order mark (U+FEFF), which JSON allows only as the file's first character"},
		{"UTF-16LE", utf16le("\ufeff" + `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"forgectl resume snapshot"}]}]}}`), OK, "Stop hook in"},
		{"UTF-16LE without a hook", utf16le("\ufeff{}"), Warn, "no Stop hook in"},
		{"not an object", `["hooks"]`, Fail, "the document is not a JSON object"},
		// The command is split as sh splits it.
		{"a quote in the path", fmt.Sprintf(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":%q}]}]}}`, "'/nowhere/it'\\''s/forgectl' resume snapshot"), Warn, "runs /nowhere/it's/forgectl, which is not"},
		{"unterminated quote", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"'/opt/it's/forgectl' resume snapshot"}]}]}}`, Warn, "is not a command sh can run"},
		{"exec form, absolute path that does not exist", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/nowhere/it's","args":["resume","snapshot"]}]}]}}`, Warn, "runs /nowhere/it's, which is not"},
		{"a program the shell expands", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"$BIN/nowhere/forgectl resume snapshot"}]}]}}`, Warn, "whose program $BIN/nowhere/forgectl the shell expands at run time, so doctor cannot check that it exists"},
		{"odd shapes elsewhere", `{"hooks":{"PreToolUse":"nonsense","Stop":[{"hooks":[{"type":"prompt","prompt":"x"},{"type":"command","command":"forgectl resume snapshot"}]}]}}`, OK, "Stop hook in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			if tt.settings != "" {
				h.settings(tt.settings)
			}
			r := find(t, h.checker().Rows(), "hook")
			if r.Status != tt.status || !strings.Contains(r.Message, tt.contains) {
				t.Fatalf("got %s %q", r.Status, r.Message)
			}
			if r.Status == Warn && r.Hint == "" {
				t.Fatal("a warning without a hint")
			}
			if tt.status == Warn && strings.Contains(tt.contains, "Stop hook") && !strings.Contains(r.Message, h.claude.Settings()) {
				t.Fatalf("does not say which file it read: %q", r.Message)
			}
		})
	}
}

func TestRunsSnapshot(t *testing.T) {
	for cmd, want := range map[string]bool{
		"forgectl resume snapshot --quiet":                    true,
		"/opt/bin/forgectl resume snapshot":                   true,
		`"/Applications/My Tools/resume-snapshot" --quiet`:    true,
		"cd /tmp && resume-snapshot":                          true,
		"forgectl resume snapshots":                           false,
		"forgectl resume ls":                                  false,
		"echo resume; snapshot":                               false,
		"/usr/local/bin/resume-snapshot-old":                  false,
		"forgectl resume snapshot --quiet 2>>/tmp/snap.log":   true,
		"FORGECTL_RESUME_NO_PRUNE=1 forgectl resume snapshot": true,
		"'/tmp/it'\\''s/forgectl' resume snapshot":            true,
		"echo 'resume snapshot'":                              false,
		"'/tmp/resume snapshot/x' --quiet":                    false,
		"forgectl resume 'snapshot":                           false,
	} {
		if got := RunsSnapshot(settings.Hook{Event: "Stop", Command: cmd}); got != want {
			t.Errorf("RunsSnapshot(%q) = %v", cmd, got)
		}
	}
}

func TestSnapshotsRow(t *testing.T) {
	t.Run("no live sessions", func(t *testing.T) {
		h := newHome(t)
		if r := find(t, h.checker().Rows(), "snapshots"); r.Status != OK {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("live sessions, empty store", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", time.Now())
		h.live("s2", time.Now())
		r := find(t, h.checker().Rows(), "snapshots")
		if r.Status != Warn || !strings.Contains(r.Message, "2 live sessions but the snapshot store") || !strings.Contains(r.Hint, HookCommand) {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("a finished turn without a snapshot", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", time.Now())
		h.live("s2", time.Now())
		h.live("s3", time.Now())
		h.snapshot("s1")
		h.transcript("s2", "{}\n", 5*time.Minute)  // idle, turn long over: missed
		h.transcript("s3", "{}\n", 10*time.Second) // turn just ended: the hook may still be running
		r := find(t, h.checker().Rows(), "snapshots")
		if r.Status != Warn || !strings.Contains(r.Message, "1 of 3 live sessions finished a turn but have no snapshot (s2)") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("captured", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", time.Now())
		h.snapshot("s1")
		h.transcript("s1", "{}\n", time.Hour)
		if r := find(t, h.checker().Rows(), "snapshots"); r.Status != OK || !strings.Contains(r.Message, "1 live session, 1 snapshot") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("unreadable store", func(t *testing.T) {
		h := newHome(t)
		os.MkdirAll(filepath.Dir(h.store.Dir), 0o700)
		os.WriteFile(h.store.Dir, nil, 0o600) // a file where the folder should be
		h.live("s1", time.Now())
		rows := h.checker().Rows()
		if r := find(t, rows, "snapshots"); r.Status != Fail {
			t.Fatalf("%+v", r)
		}
		if Worst(rows) != Fail {
			t.Fatal("Worst")
		}
	})
}

const taskUse = `{"type":"user","toolUseResult":{"task":{"id":"1","subject":"Write unit tests"}}}` + "\n"

func TestTaskDirsRow(t *testing.T) {
	start := time.Now().Add(-time.Hour)
	t.Run("named after the session", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", start)
		h.transcript("s1", taskUse, time.Minute)
		os.MkdirAll(filepath.Join(h.claude.Tasks(), "s1"), 0o700)
		if r := find(t, h.checker().Rows(), "taskdirs"); r.Status != OK || !strings.Contains(r.Message, "1 live session with tasks") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("no session uses tasks", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", start)
		h.transcript("s1", `{"type":"user"}`+"\n", time.Minute)
		os.MkdirAll(filepath.Join(h.claude.Tasks(), "something-else"), 0o700)
		if r := find(t, h.checker().Rows(), "taskdirs"); r.Status != OK {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("folders named some other way", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", start)
		h.transcript("s1", taskUse, time.Minute)
		os.MkdirAll(filepath.Join(h.claude.Tasks(), "session-1a2b3c4d"), 0o700)
		old := filepath.Join(h.claude.Tasks(), "leftover-from-last-month")
		os.MkdirAll(old, 0o700)
		m := start.Add(-30 * 24 * time.Hour)
		os.Chtimes(old, m, m)
		r := find(t, h.checker().Rows(), "taskdirs")
		if r.Status != Warn || !strings.Contains(r.Message, "s1 has tasks but no") || !strings.Contains(r.Message, "session-1a2b3c4d changed since") || strings.Contains(r.Message, "leftover") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("tasks known only from the snapshot, no folder at all", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", start)
		h.snapshot("s1", "1", "2")
		r := find(t, h.checker().Rows(), "taskdirs")
		if r.Status != Warn || !strings.Contains(r.Message, "s1 has tasks but no folder") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("a list the user named", func(t *testing.T) {
		h := newHome(t)
		h.live("s1", start, "CLAUDE_CODE_TASK_LIST_ID=team-list")
		h.transcript("s1", taskUse, time.Minute)
		os.MkdirAll(filepath.Join(h.claude.Tasks(), "team-list"), 0o700)
		if r := find(t, h.checker().Rows(), "taskdirs"); r.Status != OK {
			t.Fatalf("%+v", r)
		}
	})
}

func TestPruneRow(t *testing.T) {
	h := newHome(t)
	if r := find(t, h.checker().Rows(), "prune"); r.Status != OK || !strings.Contains(r.Message, "no prune pass yet") {
		t.Fatalf("%+v", r)
	}
	h.snapshot("gone")
	now := time.Now()
	p := snapstore.Pruner{Store: h.store, Projects: filepath.Join(h.claude.Root, "missing"), Now: func() time.Time { return now }}
	p.Run()
	r := find(t, h.checker().Rows(), "prune")
	if r.Status != Warn || !strings.Contains(r.Message, "kept 1 snapshot") || r.Hint == "" {
		t.Fatalf("%+v", r)
	}
	c := h.checker()
	c.NoPrune = true
	if r := find(t, c.Rows(), "prune"); r.Status != OK || !strings.Contains(r.Message, "pruning is off") {
		t.Fatalf("%+v", r)
	}
}

func TestWorst(t *testing.T) {
	got := []Status{Worst(nil), Worst([]Row{{Status: OK}, {Status: Warn}}), Worst([]Row{{Status: Warn}, {Status: Fail}, {Status: OK}})}
	if d := cmp.Diff([]Status{OK, Warn, Fail}, got); d != "" {
		t.Fatal(d)
	}
}

// utf16le is s as PowerShell's "Unicode" encoding writes it.
func utf16le(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

// What stands at the settings path decides the hint: a file doctor cannot
// read is not fixed by 'init --stop-hook', which cannot read it either.
func TestHookRowUnreadableSettings(t *testing.T) {
	for name, c := range map[string]struct {
		make      func(p string)
		msg, hint string
	}{
		"a directory":        {func(p string) { os.Mkdir(p, 0o700) }, "is a directory", "move the directory aside"},
		"a dangling symlink": {func(p string) { os.Symlink(p+".gone", p) }, "is a symlink to a file that does not exist", "create the file the link points to"},
		"a FIFO":             {func(p string) { syscall.Mkfifo(p, 0o600) }, "not a regular file", "with a regular file holding the settings JSON"},
		"not JSON":           {func(p string) { os.WriteFile(p, []byte("model = opus\n"), 0o600) }, "settings.json:1:1: ", "fix the JSON by hand"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHome(t)
			c.make(h.claude.Settings())
			r := find(t, h.checker().Rows(), "hook")
			if r.Status != Fail || !strings.Contains(r.Message, c.msg) || !strings.Contains(r.Hint, c.hint) || strings.Contains(r.Hint, "init --stop-hook") {
				t.Fatalf("%+v", r)
			}
		})
	}
}

func TestProgram(t *testing.T) {
	const home = "/home/alice"
	for _, c := range []struct {
		h             settings.Hook
		written, prog string
		ok            bool
	}{
		{settings.Hook{Command: "'/a b/it'\\''s/forgectl' resume snapshot --quiet"}, "/a b/it's/forgectl", "/a b/it's/forgectl", true},
		{settings.Hook{Command: `"/a/say \"hi\"/forgectl" resume snapshot`}, `/a/say "hi"/forgectl`, `/a/say "hi"/forgectl`, true},
		{settings.Hook{Command: `/a/back\\slash/forgectl resume snapshot`}, `/a/back\slash/forgectl`, `/a/back\slash/forgectl`, true},
		{settings.Hook{Command: "X=1 Y=2 /opt/forgectl resume snapshot"}, "/opt/forgectl", "/opt/forgectl", true},
		{settings.Hook{Command: "cd /tmp && /opt/resume-snapshot"}, "/opt/resume-snapshot", "/opt/resume-snapshot", true},
		{settings.Hook{Command: `"$HOME/bin/forgectl" resume snapshot`}, "$HOME/bin/forgectl", home + "/bin/forgectl", true},
		{settings.Hook{Command: `${HOME}/bin/forgectl resume snapshot`}, "${HOME}/bin/forgectl", home + "/bin/forgectl", true},
		{settings.Hook{Command: "~/bin/forgectl resume snapshot"}, "~/bin/forgectl", home + "/bin/forgectl", true},
		{settings.Hook{Command: "$BIN/forgectl resume snapshot"}, "$BIN/forgectl", "", false},
		{settings.Hook{Command: "$(command -v forgectl) resume snapshot"}, "$(command -v forgectl)", "", false},
		{settings.Hook{Command: "`command -v forgectl` resume snapshot"}, "`command -v forgectl`", "", false},
		{settings.Hook{Command: "~bob/forgectl resume snapshot"}, "~bob/forgectl", "", false},
		// The exec form runs no shell: nothing expands.
		{settings.Hook{Command: "~/bin/forgectl", Exec: true, Args: []string{"resume", "snapshot"}}, "~/bin/forgectl", "~/bin/forgectl", true},
		{settings.Hook{Command: "X=1=2", Exec: true, Args: []string{"resume", "snapshot"}}, "X=1=2", "X=1=2", true},
		{settings.Hook{Command: "say hi"}, "", "", false},
	} {
		written, prog, ok := Program(c.h, home)
		if written != c.written || prog != c.prog || ok != c.ok {
			t.Errorf("Program(%+v) = %q, %q, %v; want %q, %q, %v", c.h, written, prog, ok, c.written, c.prog, c.ok)
		}
	}
}

// doctor expands a leading ~ and $HOME in the hook's program against the
// home, as sh does when Claude Code runs the hook, and checks the program;
// a program sh expands in any other way is a warning that says it cannot
// be checked, never ok.
func TestHookRowExpandsHome(t *testing.T) {
	for _, c := range []struct {
		command  string
		status   Status
		contains string // HOMEDIR stands for the home
	}{
		{`"$HOME/nope/forgectl" resume snapshot --quiet`, Warn, "runs HOMEDIR/nope/forgectl, which is not an executable file"},
		{`~/nope/forgectl resume snapshot --quiet`, Warn, "runs HOMEDIR/nope/forgectl, which is not an executable file"},
		{`${HOME}/nope/forgectl resume snapshot --quiet`, Warn, "runs HOMEDIR/nope/forgectl, which is not an executable file"},
		{`$HOME/nope/forgectl resume snapshot --quiet`, Warn, "runs HOMEDIR/nope/forgectl, which is not an executable file"},
		{`~/bin/forgectl resume snapshot --quiet`, OK, "whose program is HOMEDIR/bin/forgectl"},
		{`"$HOME/bin/forgectl" resume snapshot --quiet`, OK, "whose program is HOMEDIR/bin/forgectl"},
		{`"${HOME}"/bin/forgectl resume snapshot --quiet`, OK, "whose program is HOMEDIR/bin/forgectl"},
		{`$BIN/forgectl resume snapshot --quiet`, Warn, "whose program $BIN/forgectl the shell expands at run time, so doctor cannot check that it exists"},
		{`"$(command -v forgectl)" resume snapshot --quiet`, Warn, "whose program $(command -v forgectl) the shell expands at run time"},
		{"`command -v forgectl` resume snapshot --quiet", Warn, "whose program `command -v forgectl` the shell expands at run time"},
		{`~bob/forgectl resume snapshot --quiet`, Warn, "whose program ~bob/forgectl the shell expands at run time"},
		{`${HOME:-/opt}/forgectl resume snapshot --quiet`, Warn, "the shell expands at run time"},
	} {
		t.Run(c.command, func(t *testing.T) {
			h := newHome(t)
			home := filepath.Dir(h.claude.Root)
			os.MkdirAll(filepath.Join(home, "bin"), 0o700)
			os.WriteFile(filepath.Join(home, "bin", "forgectl"), []byte("#!/bin/sh\n"), 0o755)
			cmd, _ := json.Marshal(c.command)
			h.settings(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + string(cmd) + `}]}]}}`)
			ch := h.checker()
			ch.Home = home
			r := find(t, ch.Rows(), "hook")
			if want := strings.ReplaceAll(c.contains, "HOMEDIR", home); r.Status != c.status || !strings.Contains(r.Message, want) {
				t.Fatalf("got %s %q; want %s %q", r.Status, r.Message, c.status, want)
			}
			if r.Status == Warn && !strings.Contains(r.Hint, "absolute path") {
				t.Fatalf("hint %q", r.Hint)
			}
		})
	}
}
