package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Files kept in the state directory (FAKEHERDR_STATE).
const (
	stateFile  = "state.json"  // pane mapping, scripted faults, counters
	lockFile   = "lock"        // flocked around every read-modify-write of state.json
	callsFile  = "calls.jsonl" // one JSON array per herdr invocation (admin verbs excluded)
	typedFile  = "typed.jsonl" // what run / send-text / send-keys typed, per pane
	hangsFile  = "hangs.jsonl" // pid and child pid of every scripted hang
	tmuxPrefix = "fakeherdr"
)

// state is the fake server's memory: which herdr pane is which tmux pane and
// what a test scripted. The processes and screens themselves live in tmux.
type state struct {
	TmuxSession  string         `json:"tmux_session"`
	NextPane     map[string]int `json:"next_pane"`
	NextTerminal int            `json:"next_terminal"`
	Focused      string         `json:"focused,omitempty"`
	Panes        []*paneState   `json:"panes"`
	Faults       []*fault       `json:"faults"`
}

// paneState is one herdr pane. TmuxPane plus ShellPID pin the tmux pane: tmux
// reuses %N ids after its server restarts, so both must still match.
type paneState struct {
	ID          string `json:"pane_id"`
	WorkspaceID string `json:"workspace_id"`
	TabID       string `json:"tab_id"`
	TerminalID  string `json:"terminal_id"`
	TmuxPane    string `json:"tmux_pane"`
	ShellPID    int    `json:"shell_pid"`
	Revision    int    `json:"revision"`
	Label       string `json:"label,omitempty"`
	// SessionMode is "auto" (report the foreground claude's registry session,
	// as herdr's installed Claude integration would), "none" (integration not
	// installed) or "fixed" (always report SessionValue).
	SessionMode    string `json:"session_mode"`
	SessionValue   string `json:"session_value,omitempty"`
	StatusOverride string `json:"status_override,omitempty"`
	Scroll         int    `json:"scroll"`
	BracketedPaste bool   `json:"bracketed_paste"`
}

func newState() *state {
	return &state{TmuxSession: tmuxPrefix, NextPane: map[string]int{}, NextTerminal: 1, Panes: []*paneState{}, Faults: []*fault{}}
}

func (s *state) pane(id string) *paneState {
	for _, p := range s.Panes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

func (s *state) removePane(id string) {
	out := s.Panes[:0]
	for _, p := range s.Panes {
		if p.ID != id {
			out = append(out, p)
		}
	}
	s.Panes = out
	if s.Focused == id {
		s.Focused = ""
	}
}

// store is the state directory.
type store struct{ dir string }

func (st store) path(name string) string { return filepath.Join(st.dir, name) }

// update runs fn with the state loaded under an exclusive flock and writes it
// back (temp file + rename) when fn reports a change.
func (st store) update(fn func(s *state) (changed bool, err error)) error {
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return err
	}
	lf, err := os.OpenFile(st.path(lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lf.Close()
	for {
		err = syscall.Flock(int(lf.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock state: %w", err)
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)

	s, err := st.load()
	if err != nil {
		return err
	}
	changed, err := fn(s)
	if err != nil || !changed {
		return err
	}
	return st.save(s)
}

// read returns a snapshot of the state without taking the lock; the rename
// in save makes every snapshot whole.
func (st store) read() (*state, error) { return st.load() }

func (st store) load() (*state, error) {
	b, err := os.ReadFile(st.path(stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return newState(), nil
	}
	if err != nil {
		return nil, err
	}
	s := newState()
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("state file %s: %w", st.path(stateFile), err)
	}
	if s.NextPane == nil {
		s.NextPane = map[string]int{}
	}
	return s, nil
}

func (st store) save(s *state) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(st.dir, ".state-*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Chmod(f.Name(), 0o600); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), st.path(stateFile)); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// appendJSONL appends one compact JSON line. A single O_APPEND write keeps
// lines whole even when two fakes write at once.
func (st store) appendJSONL(name string, v any) error {
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return err
	}
	b, err := marshalCompact(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(st.path(name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	return errors.Join(werr, f.Close())
}
