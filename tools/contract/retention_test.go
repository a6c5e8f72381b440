//go:build contract

package contract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/tools/fakeapi"

	"forgectl.dev/tools/contract/tmuxrig"
)

// TestDoctorRetentionAgreesWithTheSweep checks doctor's retention row
// against what the real CLI's retention sweep then does, in three fresh
// homes with a transcript planted 40 days old: the row's reading of
// cleanupPeriodDays (project settings over user settings; a user file
// that does not parse pauses the sweep) must predict whether a claude -p
// held alive past the sweep's 5 s start deletes it.
func TestDoctorRetentionAgreesWithTheSweep(t *testing.T) {
	// A reply slower than the suite's, so the -p outlives the sweep with
	// room to spare on a busy machine.
	api, err := fakeapi.Start(fakeapi.Options{Slow: 12 * time.Second, Lifetime: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	const old = "01d00000-0000-4000-8000-000000000040"
	for _, tc := range []struct {
		name, user, project string
		status, says        string
		deleted             bool
	}{
		{"user 1", `{"cleanupPeriodDays": 1}`, "", "warn", "1 session(s) past the cutoff", true},
		{"project 3650 over user 1", `{"cleanupPeriodDays": 1}`, `{"cleanupPeriodDays": 3650}`, "ok", "no session is within 7 days", false},
		{"user file does not parse", `{"cleanupPeriodDays": 1,}`, "", "warn", "Claude Code skips its retention sweep", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			for i, kv := range h.Env {
				if strings.HasPrefix(kv, "ANTHROPIC_BASE_URL=") {
					h.Env[i] = "ANTHROPIC_BASE_URL=" + api.URL()
				}
			}
			repo := h.repo("sweep-repo", "main")
			h.trust(repo)
			path := filepath.Join(h.claude, "projects", "-old-project", old+".jsonl")
			tmuxrig.WriteFile(t, path, `{"type":"user","message":{"role":"user","content":"planted"},"uuid":"u1","timestamp":"2026-10-01T10:00:00Z","cwd":"/old/project","sessionId":"`+old+`","version":"2.1.333","entrypoint":"cli"}`+"\n")
			at := time.Now().Add(-40 * 24 * time.Hour)
			if err := os.Chtimes(path, at, at); err != nil {
				t.Fatal(err)
			}
			tmuxrig.WriteFile(t, filepath.Join(h.claude, "settings.json"), tc.user)
			if tc.project != "" {
				tmuxrig.WriteFile(t, filepath.Join(repo, ".claude", "settings.json"), tc.project)
			}

			out, errOut, _ := h.Run(repo, "", filepath.Join(h.s.bin, "forgectl"), "doctor", "--json")
			var rows []struct{ Check, Status, Message string }
			if err := json.Unmarshal([]byte(out), &rows); err != nil {
				t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
			}
			var got string
			for _, r := range rows {
				if r.Check == "retention" {
					got = r.Status + " " + r.Message
					if r.Status != tc.status || !strings.Contains(r.Message, tc.says) {
						t.Errorf("retention row %q, want %s with %q", got, tc.status, tc.says)
					}
				}
			}
			if got == "" {
				t.Fatalf("no retention row:\n%s", out)
			}

			if _, errOut, code := h.Run(repo, "", h.s.claude[h.s.current], "-p", "a slow reply please"); code != 0 {
				t.Fatalf("claude -p: exit %d: %s", code, errOut)
			}
			_, err := os.Stat(path)
			if deleted := os.IsNotExist(err); deleted != tc.deleted {
				t.Errorf("the sweep deleted the planted transcript: %v, want %v (doctor said %q)", deleted, tc.deleted, got)
			}
			_, lerr := os.Stat(filepath.Join(h.claude, ".last-cleanup"))
			if ran := lerr == nil; ran != !strings.Contains(tc.says, "skips") {
				t.Errorf(".last-cleanup written: %v, but doctor said %q", ran, got)
			}
		})
	}
}
