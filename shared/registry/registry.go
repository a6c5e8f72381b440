// Package registry reads Claude Code's live-process registry:
// <claude dir>/sessions/<pid>.json, one file per running claude.
//
// A file alone proves nothing: SIGKILL leaves stale files behind, and pids
// are reused. An entry is live only when its pid is alive and the process's
// real kernel start time equals the recorded procStart — the same test
// Claude Code applies itself. Stale files are ignored and never deleted here.
package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/proc"
)

// Entry is one registry file. Unknown fields are ignored; every field may be
// missing (status is absent for the first milliseconds of a session).
type Entry struct {
	Pid             int             `json:"pid"`
	SessionID       string          `json:"sessionId"`
	Cwd             string          `json:"cwd"`
	StartedAt       int64           `json:"startedAt"`
	ProcStart       string          `json:"procStart"`
	Version         string          `json:"version"`
	Kind            string          `json:"kind"`
	Entrypoint      string          `json:"entrypoint"`
	Name            string          `json:"name"`
	NameSource      string          `json:"nameSource"`
	NameSince       int64           `json:"nameSince"`
	RawFormerNames  json.RawMessage `json:"formerNames"`
	Status          string          `json:"status"`
	WaitingFor      string          `json:"waitingFor"`
	UpdatedAt       int64           `json:"updatedAt"`
	StatusUpdatedAt int64           `json:"statusUpdatedAt"`
	Tmux            string          `json:"tmux"`
	ParkedJobID     string          `json:"parkedJobId"`
	PidDomain       string          `json:"pidDomain"`

	// File is the path the entry was read from.
	File string `json:"-"`
}

// UserNamed reports whether Name is a name a person gave the session
// (/rename, --name, the picker's rename) rather than one claude derived.
func (e Entry) UserNamed() bool {
	return e.Name != "" && e.NameSource != "" && e.NameSource != "derived"
}

// FormerNames decodes formerNames, which is unversioned: a list of strings
// or of objects carrying a "name".
func (e Entry) FormerNames() []string {
	if len(e.RawFormerNames) == 0 {
		return nil
	}
	var out []string
	var raw []json.RawMessage
	if json.Unmarshal(e.RawFormerNames, &raw) != nil {
		return nil
	}
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			if s != "" {
				out = append(out, s)
			}
			continue
		}
		var o struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(r, &o) == nil && o.Name != "" {
			out = append(out, o.Name)
		}
	}
	return out
}

// ReadFile parses one registry file.
func ReadFile(path string) (Entry, error) {
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return Entry{}, fmt.Errorf("%s: %w", path, err)
	}
	e.File = path
	if e.Pid == 0 {
		// The file name is the pid; trust it when the body lacks one.
		if n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(path), ".json")); err == nil {
			e.Pid = n
		}
	}
	return e, nil
}

// Read parses every <pid>.json in dir, sorted by pid. A missing directory is
// an empty registry. Files that do not parse are returned as problems and
// never stop the read.
func Read(dir string) ([]Entry, []error) {
	ents, err := fsutil.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{err}
	}
	var out []Entry
	var problems []error
	for _, de := range ents {
		name := de.Name()
		stem, ok := strings.CutSuffix(name, ".json")
		if !ok {
			continue
		}
		if _, err := strconv.Atoi(stem); err != nil {
			continue // not <pid>.json (a heartbeat, a temp file)
		}
		e, err := ReadFile(filepath.Join(dir, name))
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) { // removed between readdir and read: the session exited
				problems = append(problems, err)
			}
			continue
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out, problems
}

// State says what a registry entry's process is now.
type State int

const (
	// Stale: the pid is gone, reused by another process, or in another pid namespace.
	Stale State = iota
	// Alive: the pid is alive and its kernel start time matches procStart.
	Alive
	// Unverified: the pid is alive but the entry has no procStart (or the
	// start time cannot be read), so a reused pid cannot be ruled out.
	Unverified
)

func (s State) String() string {
	switch s {
	case Alive:
		return "live"
	case Unverified:
		return "unverified"
	}
	return "stale"
}

// Check tells whether e's process is the one that wrote it.
func Check(e Entry) State {
	local := ""
	if e.PidDomain != "" {
		local = LocalPidDomain()
	}
	return CheckIn(e, local)
}

// CheckIn is Check with this process's pid domain (LocalPidDomain) read
// once by the caller: a pass over the whole registry need not read
// /etc/machine-id for every entry.
func CheckIn(e Entry, localPidDomain string) State {
	if !proc.Alive(e.Pid) {
		return Stale
	}
	if e.PidDomain != "" && localPidDomain != "" && localPidDomain != e.PidDomain {
		return Stale
	}
	if e.ProcStart == "" {
		return Unverified
	}
	st, err := proc.StartTime(e.Pid)
	if err != nil {
		if errors.Is(err, proc.ErrNoProcess) {
			return Stale
		}
		return Unverified
	}
	if st != e.ProcStart {
		return Stale
	}
	return Alive
}

// Live returns the entries whose process is verifiably the writer.
func Live(dir string) ([]Entry, []error) {
	all, problems := Read(dir)
	out := all[:0]
	local := LocalPidDomain()
	for _, e := range all {
		if CheckIn(e, local) == Alive {
			out = append(out, e)
		}
	}
	return out, problems
}
