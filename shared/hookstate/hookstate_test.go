package hookstate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/poll"
	"forgectl.dev/shared/proc"
)

func TestLoadState(t *testing.T) {
	dir := t.TempDir()
	f := Files{Dir: dir}
	st, err := LoadState(f.State())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Harness("claude"); ok || st.Harnesses == nil {
		t.Fatalf("missing file: got %+v", st)
	}
	if err := os.WriteFile(f.State(), []byte(`{"harnesses":{"claude":{"version":"2.1.3","recorded_at":"2026-01-02T03:04:05Z",
		"pending_restart":{"version":"2.1.3","old_version":"2.1.2","attempts":2,"given_up":false,"last_outcome":"incomplete","last_attempt_at":"2026-01-02T03:05:00Z"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err = LoadState(f.State())
	if err != nil {
		t.Fatal(err)
	}
	h, ok := st.Harness("claude")
	want := HarnessState{
		Version: "2.1.3", RecordedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Pending: &Pending{Version: "2.1.3", OldVersion: "2.1.2", Attempts: 2, LastOutcome: "incomplete", LastAttemptAt: time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)},
	}
	if !ok {
		t.Fatal("not recorded")
	}
	if d := cmp.Diff(want, h); d != "" {
		t.Fatalf("state (-want +got):\n%s", d)
	}
	if err := os.WriteFile(f.State(), []byte(`{"harnesses":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(f.State()); err == nil {
		t.Fatal("a truncated state.json loaded without error")
	}
}

func TestReadRecords(t *testing.T) {
	f := Files{Dir: t.TempDir()}
	line := func(v string, outcome string) string {
		return `{"time":"2026-01-01T00:00:00Z","event":"hook","trigger":"manual","harness":"claude","new_version":"` + v + `","hook":{"position":1,"kind":"restart"},"outcome":"` + outcome + `","exit_status":0,"duration_ms":1}` + "\n"
	}
	if err := os.WriteFile(f.RunsRotated(), []byte(line("1.0.1", "ok")+line("1.0.2", "failed")), 0o600); err != nil {
		t.Fatal(err)
	}
	// A line cut off by a crash is skipped, not fatal.
	if err := os.WriteFile(f.Runs(), []byte(line("1.0.3", "ok")+`{"time":"2026-01-01T00:00:00Z","ev`+"\n"+line("1.0.3", "timeout")), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := ReadRecords(f, -1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range all {
		got = append(got, r.NewVersion+" "+r.Outcome)
	}
	if d := cmp.Diff([]string{"1.0.1 ok", "1.0.2 failed", "1.0.3 ok", "1.0.3 timeout"}, got); d != "" {
		t.Fatalf("records (-want +got):\n%s", d)
	}
	last, _ := ReadRecords(f, 2)
	if len(last) != 2 || last[1].Outcome != "timeout" || last[0].Outcome != "ok" {
		t.Fatalf("last two: %+v", last)
	}
	r, ok := NewestFor(all, "claude", "1.0.3")
	if !ok || r.Outcome != "timeout" {
		t.Fatalf("NewestFor = %+v, %v", r, ok)
	}
	if _, ok := NewestFor(all, "claude", "9.9.9"); ok {
		t.Fatal("NewestFor found a version never run")
	}
	empty, err := ReadRecords(Files{Dir: t.TempDir()}, 5)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("no trail: %v, %#v", err, empty)
	}
}

func TestReadHolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.lock")
	self := os.Getpid()
	start, err := proc.StartTime(self)
	if err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		content string
		held    bool
	}{
		{"missing", "", false},
		{"empty after a clean release", "\x00empty", false},
		{"this process", string(Holder{Pid: self, ProcStart: start, Since: since, Trigger: "launchd"}.Encode()), true},
		{"a reused pid", string(Holder{Pid: self, ProcStart: start + "1", Since: since}.Encode()), false},
		{"a dead process", string(Holder{Pid: 1 << 22, ProcStart: "1", Since: since}.Encode()), false},
		{"garbage", "not json", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(path)
			switch tc.content {
			case "":
			case "\x00empty":
				os.WriteFile(path, nil, 0o600)
			default:
				os.WriteFile(path, []byte(tc.content), 0o600)
			}
			h, held, err := ReadHolder(path)
			if err != nil {
				t.Fatal(err)
			}
			if held != tc.held {
				t.Fatalf("held = %v, want %v (%+v)", held, tc.held, h)
			}
			if held && (h.Pid != self || !h.Since.Equal(since) || h.Trigger != "launchd") {
				t.Fatalf("holder = %+v", h)
			}
		})
	}
}

// fakeRunner answers commands from a table keyed by the joined argv.
type fakeRunner map[string]Result

func (f fakeRunner) run(_ context.Context, name string, args ...string) Result {
	key := strings.Join(append([]string{name}, args...), " ")
	if r, ok := f[key]; ok {
		return r
	}
	return Result{Code: 1, Stderr: []byte("fake: no answer for " + key)}
}

const launchctlRunning = `gui/501/local.forgectl.resume-hooks = {
	active count = 1
	path = /Users/me/Library/LaunchAgents/local.forgectl.resume-hooks.plist
	type = LaunchAgent
	state = running

	program = /usr/local/bin/forgectl
	arguments = {
		/usr/local/bin/forgectl
		resume
	}
	pid = 4242
	endpoints = {
		state = active
		pid = 1
	}
}
`

func TestInspectWatcher(t *testing.T) {
	home := t.TempDir()
	getenv := func(string) string { return "" }
	plist := PlistPath(home)
	os.MkdirAll(filepath.Dir(plist), 0o755)
	os.WriteFile(plist, []byte("<plist/>"), 0o644)
	units := UnitFiles(getenv, home)
	os.MkdirAll(filepath.Dir(units[0]), 0o755)
	for _, u := range units {
		os.WriteFile(u, []byte("[Unit]\n"), 0o644)
	}
	target := "launchctl print " + LaunchdTarget(501)
	tests := []struct {
		name string
		goos string
		run  fakeRunner
		want Watcher
	}{
		{"launchd running", "darwin", fakeRunner{target: {Stdout: []byte(launchctlRunning)}},
			Watcher{Kind: KindLaunchd, Files: []string{plist}, Installed: true, Loaded: true, Running: true, Pid: 4242}},
		{"launchd idle", "darwin", fakeRunner{target: {Stdout: []byte(strings.ReplaceAll(launchctlRunning, "state = running", "state = not running"))}},
			Watcher{Kind: KindLaunchd, Files: []string{plist}, Installed: true, Loaded: true}},
		{"launchd not loaded", "darwin", fakeRunner{target: {Code: 113, Stderr: []byte("Could not find service")}},
			Watcher{Kind: KindLaunchd, Files: []string{plist}, Installed: true}},
		{"systemd active and running", "linux", fakeRunner{
			"systemctl --user is-active forgectl-resume-hooks.path forgectl-resume-hooks.timer":             {Stdout: []byte("active\nactive\n")},
			"systemctl --user show --property=ActiveState --property=MainPID forgectl-resume-hooks.service": {Stdout: []byte("MainPID=77\nActiveState=activating\n")},
		}, Watcher{Kind: KindSystemd, Files: units, Installed: true, Loaded: true, Running: true, Pid: 77}},
		{"systemd inactive", "linux", fakeRunner{
			"systemctl --user is-active forgectl-resume-hooks.path forgectl-resume-hooks.timer":             {Code: 3, Stdout: []byte("inactive\ninactive\n")},
			"systemctl --user show --property=ActiveState --property=MainPID forgectl-resume-hooks.service": {Stdout: []byte("MainPID=0\nActiveState=inactive\n")},
		}, Watcher{Kind: KindSystemd, Files: units, Installed: true}},
		{"no systemd", "linux", fakeRunner{
			"systemctl --user is-active forgectl-resume-hooks.path forgectl-resume-hooks.timer": {Code: 1, Stderr: []byte("Failed to connect to bus: No medium found")},
		}, Watcher{Kind: KindSystemd, Files: units, Installed: true, Unreachable: "no systemd user instance answers"}},
		{"elsewhere", "freebsd", fakeRunner{}, Watcher{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := InspectWatcher(context.Background(), Env{GOOS: tc.goos, Home: home, UID: 501, Getenv: getenv, Run: tc.run.run})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("watcher (-want +got):\n%s", d)
			}
		})
	}
}

func TestExecRunner(t *testing.T) {
	run := ExecRunner(poll.Long)
	res := run(context.Background(), "sh", "-c", "echo out; echo err >&2; exit 3")
	if res.Code != 3 || string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.Err != nil {
		t.Fatalf("got %+v", res)
	}
	res = ExecRunner(200*time.Millisecond)(context.Background(), "sleep", "30")
	if res.Code != -1 || res.Err == nil {
		t.Fatalf("a hung command: %+v", res)
	}
	res = run(context.Background(), filepath.Join(t.TempDir(), "missing"))
	if res.Code != -1 || res.Err == nil {
		t.Fatalf("a missing command: %+v", res)
	}
}
