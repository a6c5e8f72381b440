package vault

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCollectRefusesAFIFOAndKeepsTheOrder(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	os.WriteFile(tr, []byte("{}\n"), 0o600)
	side := filepath.Join(dir, "s")
	os.MkdirAll(filepath.Join(side, "sub"), 0o700)
	os.WriteFile(filepath.Join(side, "sub", "a"), []byte("a"), 0o640)
	files, err := Collect([]Root{{Path: tr, Required: true, Fresh: true}, {Path: side}, {Path: filepath.Join(dir, "missing")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Type+" "+filepath.Base(f.Path))
	}
	want := []string{"file s.jsonl", "dir s", "dir sub", "file a"}
	if len(got) != len(want) {
		t.Fatalf("collected %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("collected %v, want %v (each folder before what it holds, the transcript first)", got, want)
		}
	}
	if !files[0].Fresh || files[3].Mode != 0o640 {
		t.Errorf("facts: %+v", files)
	}
	if err := syscall.Mkfifo(filepath.Join(side, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect([]Root{{Path: tr, Required: true}, {Path: side}}); err == nil {
		t.Errorf("a FIFO in a session's folder was collected")
	}
	if _, err := Collect([]Root{{Path: filepath.Join(dir, "gone.jsonl"), Required: true}}); err == nil {
		t.Errorf("a missing transcript was not refused")
	}
}

func TestIndexKeepsPackedRowsAndSurvivesDamage(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "tree", "s1.jsonl")
	os.MkdirAll(filepath.Dir(tr), 0o700)
	os.WriteFile(tr, []byte(`{"type":"user"}`+"\n"), 0o600)
	st := &Store{Dir: filepath.Join(dir, "store"), Kind: "archive", Now: time.Now,
		Pack: func(row json.RawMessage) ([]byte, error) { return append([]byte("packed:"), row...), nil }}
	files, err := Collect([]Root{{Path: tr, Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(&Manifest{SessionID: "s1", Harness: "claude", Files: files, Row: json.RawMessage(`{"x":1}`)}, nil); err != nil {
		t.Fatal(err)
	}
	ents, problems := st.Entries()
	if len(problems) != 0 || len(ents) != 1 || ents[0].Row == nil {
		t.Fatalf("before the index: %+v %v", ents, problems)
	}
	if err := st.WriteIndex(); err != nil {
		t.Fatal(err)
	}
	ents, problems = st.Entries()
	if len(problems) != 0 || len(ents) != 1 || !strings.HasPrefix(ents[0].Packed, "packed:{") || !strings.Contains(ents[0].Packed, `"x": 1`) || ents[0].Transcript != tr || ents[0].State != Stored {
		t.Fatalf("from the index: %+v %v", ents, problems)
	}
	// Truncated: reported, and the entry is read from its manifest.
	b, _ := os.ReadFile(st.indexPath())
	os.WriteFile(st.indexPath(), b[:len(b)-3], 0o600)
	ents, problems = st.Entries()
	if len(problems) != 1 || !errors.Is(problems[0], ErrDamaged) || len(ents) != 1 || ents[0].Row == nil {
		t.Fatalf("truncated index: %+v %v", ents, problems)
	}
	// Put refuses a second entry for the same session.
	if err := st.Put(&Manifest{SessionID: "s1", Files: files}, nil); !errors.Is(err, ErrExists) {
		t.Errorf("a second Put: %v", err)
	}
}
