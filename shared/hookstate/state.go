package hookstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"forgectl.dev/shared/fsutil"
)

// MaxRestartAttempts bounds the runs of a restart hook for one version: the
// first run and the retries together.
const MaxRestartAttempts = 3

// State is state.json.
type State struct {
	// Harnesses is keyed by harness name ("claude").
	Harnesses map[string]HarnessState `json:"harnesses"`
}

// HarnessState is what was recorded for one harness.
type HarnessState struct {
	// Version is the installed version every hook has run for; the next
	// change is measured against it. The first run records it as a
	// baseline without firing anything.
	Version    string    `json:"version"`
	RecordedAt time.Time `json:"recorded_at"`
	// Pending is set while a restart hook for Version ended incomplete.
	Pending *Pending `json:"pending_restart,omitempty"`
}

// Pending is a restart hook that did not complete for a version.
type Pending struct {
	Version    string `json:"version"`
	OldVersion string `json:"old_version"`
	// Attempts counts the runs so far, the first one included.
	Attempts int `json:"attempts"`
	// GivenUp is set once Attempts reached MaxRestartAttempts without an
	// ok; nothing more is tried until the version changes.
	GivenUp       bool      `json:"given_up"`
	LastOutcome   string    `json:"last_outcome"`
	LastAttemptAt time.Time `json:"last_attempt_at"`
}

// Harness returns the recorded state of one harness and whether there is any.
func (s State) Harness(name string) (HarnessState, bool) {
	h, ok := s.Harnesses[name]
	return h, ok && h.Version != ""
}

// LoadState reads state.json. A missing file is the empty state: nothing
// has been recorded yet, so the next run records a baseline.
func LoadState(path string) (State, error) {
	b, err := fsutil.ReadRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Harnesses: map[string]HarnessState{}}, nil
	}
	if err != nil {
		return State{}, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("%s: %w", path, err)
	}
	if s.Harnesses == nil {
		s.Harnesses = map[string]HarnessState{}
	}
	return s, nil
}
