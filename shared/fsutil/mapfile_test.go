package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A mapped file truncated by another process is an error on the next read
// of a page past its new end, not a crash; what was copied before stays.
func TestMappingTruncatedUnderIt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m")
	want := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB, many pages
	if err := os.WriteFile(p, []byte(want), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := MapFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var head, tail string
	if err := m.Read(func(d string) { head, tail = strings.Clone(d[:16]), strings.Clone(d[len(d)-16:]) }); err != nil {
		t.Fatal(err)
	}
	if head != want[:16] || tail != want[len(want)-16:] || m.Len() != len(want) {
		t.Fatalf("read %q %q, len %d", head, tail, m.Len())
	}
	// Another process truncates it to one page.
	if out, err := exec.Command("truncate", "-s", "4096", p).CombinedOutput(); err != nil {
		t.Fatalf("truncate: %v %s", err, out)
	}
	var sum int
	err = m.Read(func(d string) {
		for i := 0; i < len(d); i += 4096 {
			sum += int(d[i]) // faults at the second page
		}
	})
	if !errors.Is(err, ErrShrunk) {
		t.Fatalf("read past the new end: %v", err)
	}
	// The first page is still there; the mapping keeps working for it.
	if err := m.Read(func(d string) { head = strings.Clone(d[:16]) }); err != nil || head != want[:16] {
		t.Fatalf("first page after the truncation: %q %v", head, err)
	}
}

func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache")
	if _, err := MapFile(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v, want ErrNotExist", err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got := "not read"
	if m, err := MapFile(p); err != nil || m.Len() != 0 || m.Read(func(d string) { got = d }) != nil || got != "" {
		t.Fatalf("empty file: %q, %v", got, err)
	}
	want := strings.Repeat("forgectl cache bytes\n", 1000)
	if err := WriteAtomic(p, []byte(want), FilePerm); err != nil {
		t.Fatal(err)
	}
	m, err := MapFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	read := func() string {
		var s string
		if err := m.Read(func(d string) { s = strings.Clone(d) }); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := read(); got != want {
		t.Fatalf("mapped %d bytes; want %d bytes", len(got), len(want))
	}
	// A writer replaces the file by rename: the mapping keeps the old bytes.
	if err := WriteAtomic(p, []byte("new"), FilePerm); err != nil {
		t.Fatal(err)
	}
	if read() != want {
		t.Error("the mapping changed when the file was replaced")
	}
	// Released pages read back the same.
	m.Release()
	if read() != want {
		t.Error("the mapping changed when its pages were released")
	}
	if _, err := MapFile(dir); err == nil {
		t.Error("mapping a directory succeeded")
	}
}

// A panic that is not a fault on the mapping goes on as it was.
func TestMappingReadPassesOtherPanics(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m")
	os.WriteFile(p, []byte("some bytes"), 0o600)
	m, err := MapFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v", r)
		}
	}()
	m.Read(func(string) { panic("boom") })
	t.Fatal("the panic was swallowed")
}
