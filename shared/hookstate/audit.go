package hookstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"time"

	"forgectl.dev/shared/fsutil"
)

// Events of the audit trail.
const (
	EventHook      = "hook"
	EventInstall   = "install"
	EventUninstall = "uninstall"
)

// Outcomes of a hook run, and of an install or uninstall.
const (
	OutcomeOK         = "ok"
	OutcomeFailed     = "failed"
	OutcomeTimeout    = "timeout"
	OutcomeIncomplete = "incomplete" // a restart that left sessions failed, waiting or without a herdr pane
)

// Triggers: the watcher sets FORGECTL_HOOKS_TRIGGER in the job's
// environment; anything else is a manual run.
const (
	TriggerManual  = "manual"
	TriggerLaunchd = "launchd"
	TriggerSystemd = "systemd"
	TriggerCron    = "cron"
)

// Record is one line of runs.jsonl.
type Record struct {
	Time    time.Time `json:"time"`
	Event   string    `json:"event"`
	Trigger string    `json:"trigger"`

	Harness    string   `json:"harness,omitempty"`
	OldVersion string   `json:"old_version,omitempty"`
	NewVersion string   `json:"new_version,omitempty"`
	Hook       *HookRef `json:"hook,omitempty"`
	// Attempt is a restart's attempt number for this version (1 to
	// MaxRestartAttempts); 0 for a command hook.
	Attempt int `json:"attempt,omitempty"`

	Outcome string `json:"outcome"`
	// ExitStatus is the hook's exit code; -1 when it was killed by a signal
	// (named in Signal) or could not start.
	ExitStatus int    `json:"exit_status"`
	Signal     string `json:"signal,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// StderrTail is kept only for a failed command: its last characters,
	// redacted (see resume-hooks).
	StderrTail string `json:"stderr_tail,omitempty"`
	// Detail is a short machine-written note: why a hook could not start,
	// the watcher file written by an install, and for a failed install or
	// uninstall that file and why it failed.
	Detail string `json:"detail,omitempty"`
	// Resume lists the sessions a restart left stopped or unresumed, each
	// as the command that resumes it.
	Resume []string `json:"resume,omitempty"`
}

// HookRef says which hook ran: its position in config order (1-based),
// its kind, and for a command only the program's base name, never its
// arguments (they can carry a token or a webhook URL).
type HookRef struct {
	Position int    `json:"position"`
	Kind     string `json:"kind"`
	Program  string `json:"program,omitempty"`
}

// ReadRecords returns the newest n records, oldest first, from the rotated
// file and the current one. A line that does not decode (a write cut off by
// a crash) is skipped rather than failing the read.
func ReadRecords(f Files, n int) ([]Record, error) {
	var all []Record
	for _, p := range []string{f.RunsRotated(), f.Runs()} {
		b, err := fsutil.ReadRegular(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return []Record{}, err
		}
		for line := range bytes.SplitSeq(b, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var r Record
			if json.Unmarshal(line, &r) == nil {
				all = append(all, r)
			}
		}
	}
	if n >= 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	if all == nil {
		all = []Record{}
	}
	return all, nil
}

// NewestFor is the newest hook record whose new version is version, for
// harness; ok is false when there is none.
func NewestFor(records []Record, harness, version string) (Record, bool) {
	for i := len(records) - 1; i >= 0; i-- {
		r := records[i]
		if r.Event == EventHook && r.Harness == harness && r.NewVersion == version {
			return r, true
		}
	}
	return Record{}, false
}
