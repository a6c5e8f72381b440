package hookdoctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/proc"
	"github.com/google/go-cmp/cmp"
)

func TestEvaluate(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	loaded := hookstate.Watcher{Kind: hookstate.KindLaunchd, Installed: true, Loaded: true}
	recorded := func(p *hookstate.Pending) hookstate.State {
		return hookstate.State{Harnesses: map[string]hookstate.HarnessState{"claude": {Version: "2.1.3", RecordedAt: now.Add(-time.Hour), Pending: p}}}
	}
	rec := func(v, outcome string) hookstate.Record {
		return hookstate.Record{Event: hookstate.EventHook, Harness: "claude", NewVersion: v, Outcome: outcome, Hook: &hookstate.HookRef{Position: 2, Kind: "command", Program: "say"}, Time: now.Add(-time.Hour)}
	}
	base := func() Facts {
		return Facts{Configured: 2, LongestTimeout: 30 * time.Minute, Harness: "claude", State: recorded(nil), Records: []hookstate.Record{rec("2.1.3", hookstate.OutcomeOK)}, Watcher: loaded, Now: now}
	}
	tests := []struct {
		name   string
		change func(*Facts)
		status string
		warns  []string
	}{
		{"healthy", func(*Facts) {}, "ok", nil},
		{"nothing configured", func(f *Facts) { f.Configured = 0; f.Watcher = hookstate.Watcher{Kind: hookstate.KindLaunchd} }, "info", nil},
		{"configured, watcher not installed", func(f *Facts) { f.Watcher = hookstate.Watcher{Kind: hookstate.KindLaunchd} }, "warn",
			[]string{"hooks are configured but the launchd watcher is not installed"}},
		{"configured, no systemd to ask and nothing installed", func(f *Facts) {
			f.Watcher = hookstate.Watcher{Kind: hookstate.KindSystemd, Unreachable: "no systemd user instance answers"}
		}, "warn", []string{"hooks are configured but the systemd watcher is not installed"}},
		{"configured, no systemd to ask but units installed", func(f *Facts) {
			f.Watcher = hookstate.Watcher{Kind: hookstate.KindSystemd, Installed: true, Unreachable: "no systemd user instance answers"}
		}, "ok", nil},
		{"configured, watcher not loaded", func(f *Facts) { f.Watcher.Loaded = false }, "warn",
			[]string{"hooks are configured but the launchd watcher is installed and not loaded"}},
		{"newest record for the recorded version failed", func(f *Facts) {
			f.Records = []hookstate.Record{rec("2.1.3", hookstate.OutcomeOK), rec("2.1.3", hookstate.OutcomeFailed)}
		}, "warn", []string{"the newest hook run for claude 2.1.3 ended failed (hook 2: command say, 2026-03-01T11:00:00Z)"}},
		{"an older version's failure does not count", func(f *Facts) {
			f.Records = []hookstate.Record{rec("2.1.2", hookstate.OutcomeFailed), rec("2.1.3", hookstate.OutcomeOK)}
		}, "ok", nil},
		{"restart pending", func(f *Facts) {
			f.State = recorded(&hookstate.Pending{Version: "2.1.3", Attempts: 1, LastOutcome: hookstate.OutcomeIncomplete})
		}, "warn", []string{"a restart for claude 2.1.3 is pending: 1 of 3 attempts used (last incomplete)"}},
		{"restart gave up", func(f *Facts) {
			f.State = recorded(&hookstate.Pending{Version: "2.1.3", Attempts: 3, GivenUp: true, LastOutcome: hookstate.OutcomeIncomplete})
		}, "warn", []string{"the restart for claude 2.1.3 gave up after 3 attempts (last incomplete)"}},
		{"lock held past the longest timeout plus 10 minutes", func(f *Facts) {
			f.Watcher.Running, f.Watcher.Pid = true, 99
			f.Held, f.Holder = true, hookstate.Holder{Pid: 99, Trigger: hookstate.TriggerLaunchd, Since: now.Add(-41 * time.Minute)}
		}, "warn", []string{"the watcher's run (pid 99, launchd) has held the hooks lock since 2026-03-01T11:19:00Z, longer than the longest hook timeout plus 10m0s"}},
		{"lock held within the bound", func(f *Facts) {
			f.Watcher.Running, f.Watcher.Pid = true, 99
			f.Held, f.Holder = true, hookstate.Holder{Pid: 99, Trigger: hookstate.TriggerLaunchd, Since: now.Add(-39 * time.Minute)}
		}, "ok", nil},
		{"unreadable state", func(f *Facts) { f.State, f.StateErr = hookstate.State{}, errors.New("state.json: bad") }, "warn",
			[]string{"cannot read the hooks state: state.json: bad"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := base()
			tc.change(&f)
			row := Evaluate(f)
			if row.Name != "update_hooks" || row.Status != tc.status {
				t.Fatalf("row = %+v, want status %s", row, tc.status)
			}
			want := tc.warns
			if want == nil {
				want = []string{}
			}
			if d := cmp.Diff(want, row.Warnings); d != "" {
				t.Fatalf("warnings (-want +got):\n%s", d)
			}
			if len(row.Warnings) > 0 && len(row.Hints) == 0 {
				t.Fatal("warnings without a hint")
			}
		})
	}
}

func TestGatherReadsEverything(t *testing.T) {
	dir := t.TempDir()
	f := hookstate.Files{Dir: filepath.Join(dir, "resume-hooks")}
	os.MkdirAll(f.Dir, 0o700)
	os.WriteFile(f.State(), []byte(`{"harnesses":{"claude":{"version":"1.2.3","recorded_at":"2026-01-01T00:00:00Z"}}}`), 0o600)
	os.WriteFile(f.Runs(), []byte(`{"event":"hook","harness":"claude","new_version":"1.2.3","outcome":"failed"}`+"\n"), 0o600)
	start, _ := proc.StartTime(os.Getpid())
	os.WriteFile(f.RunLock(), hookstate.Holder{Pid: os.Getpid(), ProcStart: start, Since: time.Unix(0, 0)}.Encode(), 0o600)
	facts := Gather(context.Background(), hookstate.Env{Files: f, GOOS: "plan9", Getenv: os.Getenv}, time.Now())
	if v, _ := facts.State.Harness("claude"); v.Version != "1.2.3" {
		t.Fatalf("state: %+v", facts.State)
	}
	if len(facts.Records) != 1 || !facts.Held || facts.Holder.Pid != os.Getpid() {
		t.Fatalf("facts: %+v", facts)
	}
	facts.Configured = 1
	row := Evaluate(facts)
	if row.Status != "warn" || len(row.Warnings) != 2 {
		t.Fatalf("row: %+v", row)
	}
}
