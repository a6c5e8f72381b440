// Package hookstate holds the on-disk formats of forgectl's update hooks
// (resume hooks) and read-only views of them, so that `forgectl launch
// doctor` can build its update_hooks row without linking resume-hooks.
//
// Everything lives in resume-hooks/ under forgectl's config directory:
//
//	state.json      the version recorded per harness and any pending restart
//	runs.jsonl      the audit trail, one Record per line (runs.jsonl.1 after rotation)
//	run.lock        flocked by a run; its content names the holder (Holder)
//	audit.lock      serialises appends and rotation of runs.jsonl
//	watcher.log     the watcher's stdout and stderr (watcher.log.1 after rotation)
//
// The writer is resume-hooks; this package only defines the formats, reads
// them and asks launchctl or systemctl about the watcher (through an
// injectable Runner). forgectl/internal/hookdoctor turns the facts into the
// doctor row.
package hookstate
