package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResumeVerdict checks that --dry-run --json names each refusal the real
// resume would meet, with its exit code, and that --assume-stopped clears
// only the live refusal of that pid.
func TestResumeVerdict(t *testing.T) {
	type want struct {
		OK       bool
		Reason   string
		ExitCode int
		Error    string // a substring
	}
	for _, tc := range []struct {
		name  string
		setup func(h *testHome, api string) []string // extra args
		want  want
	}{
		{"ok", nil, want{true, "", 0, ""}},
		{"no transcript for the id", func(h *testHome, api string) []string {
			return []string{"0c5e1d2a-0000-4000-8000-000000000000"}
		}, want{false, "no_match", 1, `no session matches "0c5e1d2a-0000-4000-8000-000000000000"`}},
		{"live", func(h *testHome, api string) []string { h.live(idLogin); return nil },
			want{false, "live", 2, "is running"}},
		{"live, assumed stopped", func(h *testHome, api string) []string {
			return []string{"--assume-stopped", strconv.Itoa(h.live(idLogin))}
		}, want{true, "", 0, ""}},
		{"live, another pid assumed stopped", func(h *testHome, api string) []string {
			h.live(idLogin)
			return []string{"--assume-stopped", strconv.Itoa(h.live(idPages))}
		}, want{false, "live", 2, "is running"}},
		{"deleted cwd", func(h *testHome, api string) []string { os.RemoveAll(api); return nil },
			want{false, "cwd_gone", 1, "no longer exists"}},
		{"bad launch profile", func(h *testHome, api string) []string {
			h.config("[proxy]\nlaunch_profile = \"corp\"\n")
			return nil
		}, want{false, "bad_launch_profile", 2, "corp"}},
		{"config does not parse", func(h *testHome, api string) []string { h.config("[launch\n"); return nil },
			want{false, "config_invalid", 2, "config.toml"}},
		{"claude not found", func(h *testHome, api string) []string { os.Remove(h.bin); return nil },
			want{false, "claude_not_found", 1, "claude not found on PATH"}},
		{"ambiguous", func(h *testHome, api string) []string { return []string{"api-server"} },
			want{false, "ambiguous", 1, "2 sessions match"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, api, _ := demo(t)
			args := []string{"resume", "--dry-run", "--json"}
			var extra []string
			if tc.setup != nil {
				extra = tc.setup(h, api)
			}
			filter := idLogin
			for i := 0; i < len(extra); i++ {
				if extra[i] == "--assume-stopped" {
					args = append(args, extra[i], extra[i+1])
					i++
				} else {
					filter = extra[i]
				}
			}
			r := h.run(append(args, filter)...)
			var v verdict
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatalf("stdout is not one verdict (%v): %q\nstderr: %s", err, r.stdout, r.stderr)
			}
			if strings.Count(strings.TrimSpace(r.stdout), "\n") != 0 {
				t.Errorf("stdout holds more than the verdict: %q", r.stdout)
			}
			got := want{v.OK, v.Reason, v.ExitCode, tc.want.Error}
			if tc.want.Error != "" && !strings.Contains(v.Error, tc.want.Error) {
				got.Error = v.Error
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("verdict (-want +got):\n%s\n%+v\nstderr: %s", d, v, r.stderr)
			}
			if r.code != v.ExitCode {
				t.Errorf("exit %d, verdict says %d", r.code, v.ExitCode)
			}
			if r.exec != nil {
				t.Errorf("a dry run exec'd %v", r.exec.argv)
			}
			if v.Argv == nil {
				t.Error("argv is null, want []")
			}
			if v.OK {
				if v.SessionID != idLogin || v.Cwd != api || v.Binary != h.bin ||
					filepath.Base(v.Transcript) != idLogin+".jsonl" || v.Argv[len(v.Argv)-1] != idLogin {
					t.Errorf("resolved plan: %+v", v)
				}
			}
			if v.Error != "" && !strings.Contains(r.stderr, "forgectl: error: "+v.Error) {
				t.Errorf("the verdict's error is not what stderr said:\n%s", r.stderr)
			}
		})
	}
}

func TestVerdictFlagsNeedDryRun(t *testing.T) {
	h, _, _ := demo(t)
	for _, args := range [][]string{
		{"resume", "--json", idLogin},
		{"resume", "--assume-stopped", "12", idLogin},
	} {
		r := h.run(args...)
		if r.code != 2 || r.exec != nil || !strings.Contains(r.stderr, "need --dry-run") {
			t.Errorf("%v: exit %d, exec %v, stderr %q", args, r.code, r.exec, r.stderr)
		}
	}
	// Without --json, --assume-stopped is a plain dry run that does not
	// refuse the named pid's session.
	pid := h.live(idLogin)
	if r := h.run("resume", "--dry-run", "--assume-stopped", strconv.Itoa(pid), idLogin); r.code != 0 || !strings.Contains(r.stdout, "argv: ") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
