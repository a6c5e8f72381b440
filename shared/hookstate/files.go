package hookstate

import (
	"path/filepath"

	"forgectl.dev/shared/paths"
)

// Files names every file of the update hooks store.
type Files struct{ Dir string }

// FilesFor is the store inside forgectl's config directory.
func FilesFor(f paths.Forgectl) Files { return Files{Dir: f.Hooks()} }

// State is state.json.
func (f Files) State() string { return filepath.Join(f.Dir, "state.json") }

// Runs is the audit trail.
func (f Files) Runs() string { return filepath.Join(f.Dir, "runs.jsonl") }

// RunsRotated is where the audit trail moves once it passes RotateSize.
func (f Files) RunsRotated() string { return filepath.Join(f.Dir, "runs.jsonl.1") }

// RunLock is held by a run for its whole length; later runs wait on it.
func (f Files) RunLock() string { return filepath.Join(f.Dir, "run.lock") }

// AuditLock serialises appends to the audit trail. It is separate from
// RunLock because install and uninstall append while a run may be waiting.
func (f Files) AuditLock() string { return filepath.Join(f.Dir, "audit.lock") }

// WatcherLog receives the watcher's output.
func (f Files) WatcherLog() string { return filepath.Join(f.Dir, "watcher.log") }

// WatcherLogRotated is where the watcher log moves once it passes RotateSize.
func (f Files) WatcherLogRotated() string { return filepath.Join(f.Dir, "watcher.log.1") }

// RotateSize is the size past which runs.jsonl and watcher.log move to .1.
const RotateSize = 1 << 20
