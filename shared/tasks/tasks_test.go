package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func body(id, status string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"id": id, "subject": "task " + id, "description": "d", "status": status, "blocks": []string{}, "blockedBy": []string{}, "futureField": 7})
	return b
}

func TestReadList(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "2.json"), body("2", "pending"), 0o644)
	os.WriteFile(filepath.Join(dir, "10.json"), body("10", "completed"), 0o644)
	os.WriteFile(filepath.Join(dir, "3.json"), []byte(`{"id":"3","subj`), 0o644)
	os.WriteFile(filepath.Join(dir, ".highwatermark"), []byte("11"), 0o644)
	os.WriteFile(filepath.Join(dir, ".lock"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "4.json.lock"), 0o755)
	l, err := ReadList(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range l.Tasks {
		ids = append(ids, tk.ID)
	}
	if d := cmp.Diff([]string{"2", "10"}, ids); d != "" {
		t.Fatal(d)
	}
	if l.HighWaterMark != 11 || len(l.Problems) != 1 {
		t.Fatalf("hwm %d problems %v", l.HighWaterMark, l.Problems)
	}
	if _, err := ReadList(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Fatalf("missing list: %v", err)
	}
}

func TestRestore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tasks", "sess")
	snap := []Task{{ID: "1", Body: body("1", "in_progress")}, {ID: "2", Body: body("2", "pending")}, {ID: "5", Body: body("5", "completed")}, {ID: "../x", Body: body("x", "pending")}}

	// The live session already owns 2.json and a higher watermark than 2.
	os.MkdirAll(dir, 0o755)
	live := []byte(`{"id":"2","subject":"live wins"}`)
	os.WriteFile(filepath.Join(dir, "2.json"), live, 0o644)
	os.WriteFile(filepath.Join(dir, ".highwatermark"), []byte("3"), 0o644)

	r, err := Restore(context.Background(), dir, snap, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := Restored{Written: []string{"1", "5"}, Present: []string{"2"}, Skipped: []string{"../x"}, Before: 3, After: 5}
	if d := cmp.Diff(want, r); d != "" {
		t.Fatalf("first restore (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "2.json")); string(b) != string(live) {
		t.Fatal("restore overwrote a live task")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "1.json"))
	if !strings.Contains(string(b), "\n  \"futureField\": 7") {
		t.Fatalf("unknown fields must survive, 2-space indent: %s", b)
	}

	r2, err := Restore(context.Background(), dir, snap, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Written) != 0 || r2.Before != 5 || r2.After != 5 {
		t.Fatalf("second restore is not a no-op: %+v", r2)
	}

	// A watermark above every restored id is never lowered.
	os.WriteFile(filepath.Join(dir, ".highwatermark"), []byte("40"), 0o644)
	os.Remove(filepath.Join(dir, "5.json"))
	r3, _ := Restore(context.Background(), dir, snap, 0)
	if r3.After != 40 {
		t.Fatalf("watermark lowered: %+v", r3)
	}
	hw, _ := os.ReadFile(filepath.Join(dir, ".highwatermark"))
	if string(hw) != "40" {
		t.Fatalf("watermark file %q", hw)
	}
	if _, err := os.Stat(filepath.Join(dir, ".lock.lock")); !os.IsNotExist(err) {
		t.Fatal("lock left behind")
	}

	// The snapshot's own mark (ids used by tasks since deleted) is honoured.
	r4, _ := Restore(context.Background(), dir, snap, 57)
	if r4.Before != 40 || r4.After != 57 {
		t.Fatalf("snapshot mark not raised to: %+v", r4)
	}
}

func TestRestoreHonoursClaudeLock(t *testing.T) {
	dir := t.TempDir()
	lockDir := filepath.Join(dir, ".lock.lock")
	if err := os.Mkdir(lockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Restore(context.Background(), dir, []Task{{ID: "1", Body: body("1", "pending")}}, 0)
		done <- err
	}()
	// Time for the restore to try the lock: on a busy machine it may not
	// have yet, which lets a broken lock check pass, never fails a good one.
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "1.json")); err == nil {
		t.Fatal("restore wrote while claude held the list lock")
	}
	os.Remove(lockDir)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "1.json")); err != nil {
		t.Fatal("restore did not complete after the lock was released")
	}
}

func TestRestoreBreaksStaleLock(t *testing.T) {
	dir := t.TempDir()
	lockDir := filepath.Join(dir, ".lock.lock")
	os.Mkdir(lockDir, 0o755)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lockDir, old, old)
	if _, err := Restore(context.Background(), dir, []Task{{ID: "1", Body: body("1", "pending")}}, 0); err != nil {
		t.Fatal(err)
	}
}
