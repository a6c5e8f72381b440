package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/poll"
)

func record(detail string) hookstate.Record {
	return hookstate.Record{
		Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Event: hookstate.EventHook, Trigger: hookstate.TriggerManual,
		Harness: "claude", OldVersion: "2.1.1", NewVersion: "2.1.2",
		Hook: &hookstate.HookRef{Position: 1, Kind: "command", Program: "say"}, Outcome: hookstate.OutcomeOK, Detail: detail,
	}
}

func TestAppendIsPrivate(t *testing.T) {
	// Created through a umask that would leave the files readable.
	f := hookstate.Files{Dir: filepath.Join(t.TempDir(), "cfg", "resume-hooks")}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Append(f, record("one")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{f.Dir: 0o700, f.Runs(): 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	b, _ := os.ReadFile(f.Runs())
	want := `{"time":"2026-01-02T03:04:05Z","event":"hook","trigger":"manual","harness":"claude","old_version":"2.1.1","new_version":"2.1.2","hook":{"position":1,"kind":"command","program":"say"},"outcome":"ok","exit_status":0,"duration_ms":0,"detail":"one"}` + "\n"
	if string(b) != want {
		t.Fatalf("line:\n%s\nwant:\n%s", b, want)
	}
}

func TestRotationAtOneMiB(t *testing.T) {
	f := hookstate.Files{Dir: t.TempDir()}
	detail := strings.Repeat("x", 1000)
	var lines int
	for {
		if err := Append(f, record(detail)); err != nil {
			t.Fatal(err)
		}
		lines++
		if _, err := os.Stat(f.RunsRotated()); err == nil {
			break
		}
		if lines > 2000 {
			t.Fatal("runs.jsonl never rotated")
		}
	}
	rotated, _ := os.ReadFile(f.RunsRotated())
	current, _ := os.ReadFile(f.Runs())
	lineLen := len(current)
	if bytes.Count(current, []byte{'\n'}) != 1 {
		t.Fatalf("the new runs.jsonl holds %d lines, want the one that did not fit", bytes.Count(current, []byte{'\n'}))
	}
	if len(rotated) > hookstate.RotateSize || len(rotated)+lineLen <= hookstate.RotateSize {
		t.Fatalf("rotated at %d bytes with a %d-byte line; want the last size under 1 MiB that the next line would pass", len(rotated), lineLen)
	}
	st, _ := os.Stat(f.RunsRotated())
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("rotated file mode %v", st.Mode().Perm())
	}
	// Nothing lost across the two files.
	all, err := hookstate.ReadRecords(f, -1)
	if err != nil || len(all) != lines {
		t.Fatalf("read back %d records (err %v), wrote %d", len(all), err, lines)
	}
}

func TestRotateWatcherLog(t *testing.T) {
	dir := t.TempDir()
	log, old := filepath.Join(dir, "watcher.log"), filepath.Join(dir, "watcher.log.1")
	if moved, err := Rotate(log, old, 0); moved || err != nil {
		t.Fatalf("missing log: moved %v, err %v", moved, err)
	}
	os.WriteFile(log, bytes.Repeat([]byte("a"), hookstate.RotateSize), 0o600)
	if moved, _ := Rotate(log, old, 0); moved {
		t.Fatal("a log of exactly 1 MiB has not passed it yet")
	}
	os.WriteFile(old, []byte("older"), 0o600)
	os.WriteFile(log, bytes.Repeat([]byte("a"), hookstate.RotateSize+1), 0o600)
	if moved, err := Rotate(log, old, 0); !moved || err != nil {
		t.Fatalf("moved %v, err %v", moved, err)
	}
	if st, err := os.Stat(old); err != nil || st.Size() != hookstate.RotateSize+1 {
		t.Fatalf("watcher.log.1 was not replaced: %v", err)
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatal("watcher.log is still there")
	}
}

// A FIFO at the trail or at its lock fails the append, naming the file,
// at once: a plain open for writing would wait for a reader for good.
func TestAppendRefusesAFIFO(t *testing.T) {
	for _, name := range []string{"runs.jsonl", "audit.lock"} {
		t.Run(name, func(t *testing.T) {
			f := hookstate.Files{Dir: t.TempDir()}
			p := filepath.Join(f.Dir, name)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- Append(f, record("one")) }()
			select {
			case err := <-done:
				if want := p + ": is a FIFO, not a regular file"; err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want it to say %q", err, want)
				}
			case <-time.After(poll.Long):
				t.Fatal("Append blocked on the FIFO")
			}
		})
	}
}
