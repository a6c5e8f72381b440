package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

func TestLaunchDoctor(t *testing.T) {
	h := newHome(t)
	os.WriteFile(h.bin, []byte("#!/bin/sh\necho '2.1.332 (Claude Code)'\n"), 0o755)

	r := h.run("launch", "doctor", "--json")
	var rows []checkRow
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || r.code != 0 {
		t.Fatalf("%d %v %q %q", r.code, err, r.stdout, r.stderr)
	}
	got := map[string]checkRow{}
	for _, row := range rows {
		got[row.Check] = row
	}
	if got["claude"].Status != "ok" || !strings.Contains(got["claude"].Message, "2.1.332") {
		t.Fatalf("claude row: %+v", got["claude"])
	}
	if got["update_hooks"].Status != "ok" || !strings.Contains(got["update_hooks"].Message, "no [[resume.on_update]] hooks configured") {
		t.Fatalf("update_hooks row: %+v", got["update_hooks"])
	}

	// Hooks configured, no watcher: a warning with a hint, still exit 0.
	h.config("[[resume.on_update]]\nharness = \"claude\"\naction = \"restart\"\n")
	r = h.run("launch", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "warn  update_hooks") || !strings.Contains(r.stdout, "watcher is not installed") || !strings.Contains(r.stdout, "→ run forgectl resume hooks install") {
		t.Fatalf("unwatched hooks: %d\n%s", r.code, r.stdout)
	}

	// Both wrong spellings and a misspelled key are each reported, and fail.
	h.config("[[resume.on_update]]\nharness = \"claude\"\ncomand = [\"x\"]\n\n[[on_update]]\nharness = \"claude\"\n\n[on_update2]\n")
	r = h.run("launch", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, `unknown key "comand"`) || !strings.Contains(r.stdout, "[[on_update]] is not read") {
		t.Fatalf("bad hooks config: %d\n%s", r.code, r.stdout)
	}
	h.config("[on_update]\nharness = \"claude\"\n")
	r = h.run("launch", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "[on_update]") || !strings.Contains(r.stdout, "[[resume.on_update]]") {
		t.Fatalf("[on_update]: %d\n%s", r.code, r.stdout)
	}

	// No claude anywhere: the claude row fails.
	os.Remove(h.bin)
	h.config("")
	r = h.run("launch", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "fail  claude") {
		t.Fatalf("missing claude: %d\n%s", r.code, r.stdout)
	}

	// The native launcher exists but is not on PATH: a warning naming it.
	vdir := filepath.Join(h.home, ".local", "share", "claude", "versions")
	os.MkdirAll(vdir, 0o755)
	os.WriteFile(filepath.Join(vdir, "2.1.332"), []byte("#!/bin/sh\n"), 0o755)
	os.MkdirAll(filepath.Join(h.home, ".local", "bin"), 0o755)
	os.Symlink(filepath.Join(vdir, "2.1.332"), filepath.Join(h.home, ".local", "bin", "claude"))
	r = h.run("launch", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "warn  claude") || !strings.Contains(r.stdout, "2.1.332 is installed at "+filepath.Join(h.home, ".local", "bin", "claude")) {
		t.Fatalf("launcher off PATH: %d\n%s", r.code, r.stdout)
	}
}

func TestDoctorResumeTasks(t *testing.T) {
	h := newHome(t)
	os.WriteFile(h.bin, []byte("#!/bin/sh\necho '2.1.332 (Claude Code)'\n"), 0o755)
	api := h.repo("api-server")
	h.session(idLogin, api, "main", "hello", "", time.Minute)
	h.live(idLogin)

	r := h.run("doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "warn  resume tasks  no Stop hook runs the snapshotter: "+filepath.Join(h.claude, "settings.json")+" does not exist") ||
		!strings.Contains(r.stdout, "1 live session") || !strings.Contains(r.stdout, "→ run 'forgectl init --stop-hook'") {
		t.Fatalf("unwired: %d\n%s", r.code, r.stdout)
	}
	// The command the hint names wires what doctor then accepts.
	os.WriteFile(filepath.Join(h.home, "bin", "forgectl"), []byte("#!/bin/sh\n"), 0o755)
	if r := h.run("init", "--stop-hook"); r.code != 0 {
		t.Fatalf("init --stop-hook: %d %s", r.code, r.stderr)
	}
	r = h.run("doctor", "--json")
	var rows []checkRow
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	var hookOK, storeWarn bool
	for _, row := range rows {
		if row.Check == "resume tasks" && row.Status == "ok" && strings.Contains(row.Message, "Stop hook") {
			hookOK = true
		}
		if row.Check == "resume tasks" && row.Status == "warn" && strings.Contains(row.Message, "snapshot") {
			storeWarn = true
		}
	}
	if !hookOK || !storeWarn {
		t.Fatalf("wired hook ok=%v, empty store with a live session warns=%v:\n%s", hookOK, storeWarn, r.stdout)
	}
}

// hookRow is doctor's first "resume tasks" row: the Stop hook's.
func hookRow(t *testing.T, r result) checkRow {
	t.Helper()
	var rows []checkRow
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	for _, row := range rows {
		if row.Check == "resume tasks" {
			return row
		}
	}
	t.Fatalf("no resume tasks row:\n%s", r.stdout)
	return checkRow{}
}

const stopDoc = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "forgectl resume snapshot --quiet"}]}]}}`

// doctor and init read settings.json as Claude Code does (observed on
// 2.1.332): the last of duplicate keys, a leading BOM, UTF-16.
func TestDoctorAndInitReadSettingsAsClaudeCodeDoes(t *testing.T) {
	for _, c := range []struct {
		name, doc  string
		before     string // doctor's verdict before init: "ok" or a message part
		initCode   int
		initStderr string
		keepPrefix string
	}{
		{"a later empty hooks hides the hook", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "forgectl resume snapshot --quiet"}]}]}, "hooks": {}}`, "no Stop hook in", 0, "wired the Stop hook", ""},
		{"a later Stop hides the hook", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "forgectl resume snapshot --quiet"}]}], "Stop": []}}`, "no Stop hook in", 0, "wired the Stop hook", ""},
		{"the hook in the last of two hooks", `{"hooks": {}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "forgectl resume snapshot --quiet"}]}]}}`, "ok", 0, "already wired", ""},
		{"a UTF-8 BOM", "\ufeff" + stopDoc[:len(stopDoc)-1] + `, "model": "opus"}`, "ok", 0, "already wired", "\ufeff"},
		{"a UTF-8 BOM, no hook", "\ufeff{\"model\": \"opus\"}\n", "no Stop hook in", 0, "wired the Stop hook", "\ufeff"},
		{"UTF-16", string(utf16le("\ufeff" + stopDoc)), "ok", 0, "already wired", "\xff\xfe"},
		{"UTF-16, no hook", string(utf16le("\ufeff{}")), "save " + "", 2, "is UTF-16 text", "\xff\xfe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			os.WriteFile(filepath.Join(h.home, "bin", "forgectl"), []byte("#!/bin/sh\n"), 0o755)
			os.MkdirAll(h.claude, 0o700)
			p := filepath.Join(h.claude, "settings.json")
			os.WriteFile(p, []byte(c.doc), 0o600)

			row := hookRow(t, h.run("doctor", "--json"))
			switch {
			case c.before == "ok" && row.Status != "ok":
				t.Fatalf("doctor before: %+v", row)
			case c.before != "ok" && (row.Status != "warn" || !strings.Contains(row.Message+" "+row.Hint, c.before)):
				t.Fatalf("doctor before: %+v", row)
			}
			r := h.run("init", "--stop-hook")
			if r.code != c.initCode || !strings.Contains(r.stderr, c.initStderr) {
				t.Fatalf("init: %d %s", r.code, r.stderr)
			}
			got := readFile(t, p)
			if !strings.HasPrefix(got, c.keepPrefix) {
				t.Fatalf("init dropped %q: %q", c.keepPrefix, got)
			}
			if c.initCode != 0 {
				if got != c.doc {
					t.Fatal("a refused file changed")
				}
				return
			}
			if row := hookRow(t, h.run("doctor", "--json")); row.Status != "ok" {
				t.Fatalf("doctor after init: %+v\n%s", row, got)
			}
		})
	}
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// A settings path doctor cannot read gets a hint about that, not "run
// init --stop-hook" (which cannot read it either); init names the same.
func TestDoctorAndInitOnUnreadableSettings(t *testing.T) {
	for _, c := range []struct {
		name      string
		make      func(p string)
		msg, hint string
		initCode  int
	}{
		{"a directory", func(p string) { os.Mkdir(p, 0o700) }, "is a directory", "move the directory aside", 2},
		{"a dangling symlink", func(p string) { os.Symlink(p+".gone", p) }, "symlink to a file that does not exist", "create the file the link points to", 2},
		{"not JSON", func(p string) { os.WriteFile(p, []byte("model = opus\n"), 0o600) }, "settings.json:1:1: ", "fix the JSON by hand", 2},
		{"a BOM after a space", func(p string) { os.WriteFile(p, []byte(" \ufeff{}"), 0o600) }, "settings.json:1:2: a byte-order mark (U+FEFF)", "fix the JSON by hand", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			os.MkdirAll(h.claude, 0o700)
			c.make(filepath.Join(h.claude, "settings.json"))
			row := hookRow(t, h.run("doctor", "--json"))
			if row.Status != "fail" || !strings.Contains(row.Message, c.msg) || !strings.Contains(row.Hint, c.hint) || strings.Contains(row.Hint, "init --stop-hook") {
				t.Fatalf("doctor: %+v", row)
			}
			r := h.run("init", "--stop-hook")
			if r.code != c.initCode || !strings.Contains(r.stderr, c.msg) || !strings.Contains(r.stderr, "forgectl: hint: "+c.hint) {
				t.Fatalf("init: %d %s", r.code, r.stderr)
			}
		})
	}
	t.Run("permission denied", func(t *testing.T) {
		if childRun(t) {
			return
		}
		home := sharedHome(t)
		p := filepath.Join(home, ".claude", "settings.json")
		os.WriteFile(p, []byte(stopDoc), 0o600)
		os.Chown(p, 12346, 12346)
		out := asAnotherUser(t, home, "doctor", "--json")
		var rows []checkRow
		if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "["):])).Decode(&rows); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		row := rows[3]
		if row.Check != "resume tasks" || row.Status != "fail" || !strings.Contains(row.Message, "permission denied") ||
			!strings.Contains(row.Hint, "ls -l "+p) || strings.Contains(row.Hint, "init --stop-hook") {
			t.Fatalf("doctor: %+v", row)
		}
		out = asAnotherUser(t, home, "init", "--stop-hook")
		if !strings.Contains(out, "code=2\n") || !strings.Contains(out, "permission denied") || !strings.Contains(out, "forgectl: hint: check its owner and mode (ls -l "+p+")") {
			t.Fatalf("init:\n%s", out)
		}
	})
}
