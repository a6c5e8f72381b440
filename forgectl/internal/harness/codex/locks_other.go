//go:build !linux

package codex

// writeLocks: outside Linux there is no /proc/locks, and the only other
// way to see a flock is to try taking it, which a reader must never do
// (Codex would see a second writer for the moment it held it). No thread
// is shown live there: a resume is left to Codex, which itself refuses a
// thread another TUI holds and attaches to one its daemon holds.
func writeLocks(string) (map[lockKey]int, error) { return nil, nil }
