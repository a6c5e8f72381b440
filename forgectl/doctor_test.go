package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
