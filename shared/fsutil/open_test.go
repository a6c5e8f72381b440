package fsutil

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
	"golang.org/x/sys/unix"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789"), 500) // past the first buffer
	os.WriteFile(filepath.Join(dir, "big"), big, 0o600)
	got, err := ReadRegular(filepath.Join(dir, "big"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	_, err = ReadRegular(filepath.Join(dir, "missing"))
	if !errors.Is(err, fs.ErrNotExist) || !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
	// /proc files say size 0 and still have content.
	if b, err := ReadRegular("/proc/self/stat"); err == nil && len(b) == 0 {
		t.Error("read nothing from /proc/self/stat")
	}
}

// specials makes one of each kind of file that is not a regular file, and
// a symlink to each; none may block or be read.
func specials(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock.json")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	sub := filepath.Join(dir, "dir.json")
	os.Mkdir(sub, 0o700)
	m := map[string]string{fifo: "FIFO", sock: "socket", sub: "directory", "/dev/null": "character device"}
	for p, kind := range m {
		link := filepath.Join(dir, "link-to-"+filepath.Base(p))
		if err := os.Symlink(p, link); err != nil {
			t.Fatal(err)
		}
		m[link] = kind
	}
	return m
}

// within fails the test when fn has not returned after a few seconds: a
// blocked open never returns.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(poll.Long):
		t.Fatalf("%s blocked", what)
	}
}

func TestOpenersRefuseWhatIsNotARegularFile(t *testing.T) {
	for p, kind := range specials(t) {
		within(t, "ReadRegular "+p, func() {
			_, err := ReadRegular(p)
			var nr *NotRegularError
			var pe *fs.PathError
			if !errors.Is(err, ErrNotRegular) || !errors.As(err, &nr) || nr.Kind != kind || !errors.As(err, &pe) || pe.Path != p {
				t.Errorf("ReadRegular(%s) = %v, want a %s refused", p, err, kind)
			}
			if err != nil && !strings.Contains(err.Error(), p+": is a "+kind+", not a regular file") {
				t.Errorf("message %q does not name the path and what it is", err)
			}
		})
		within(t, "OpenRegular "+p, func() {
			if f, err := OpenRegular(p); !errors.Is(err, ErrNotRegular) {
				t.Errorf("OpenRegular(%s) = %v, want ErrNotRegular", p, err)
				if f != nil {
					f.Close()
				}
			}
		})
		within(t, "MapFile "+p, func() {
			if _, err := MapFile(p); !errors.Is(err, ErrNotRegular) {
				t.Errorf("MapFile(%s) = %v, want ErrNotRegular", p, err)
			}
		})
		within(t, "OpenAppend "+p, func() {
			f, err := OpenAppend(p, FilePerm)
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Kind != kind || !strings.Contains(err.Error(), p+": is a "+kind+", not a regular file") {
				t.Errorf("OpenAppend(%s) = %v, want a %s refused, named", p, err, kind)
			}
			if f != nil {
				f.Close()
			}
		})
		within(t, "TryLock "+p, func() {
			l, err := TryLock(p)
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("TryLock(%s) = %v, want ErrNotRegular", p, err)
			}
			l.Unlock()
		})
		if kind == "directory" {
			continue
		}
		within(t, "ReadDir "+p, func() {
			if _, err := ReadDir(p); !errors.Is(err, syscall.ENOTDIR) {
				t.Errorf("ReadDir(%s) = %v, want ENOTDIR", p, err)
			}
		})
	}
}

func TestOpenRegularReadsBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a")
	os.WriteFile(p, []byte("hello"), 0o600)
	f, err := OpenRegular(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&syscall.O_NONBLOCK != 0 {
		t.Errorf("flags %#x, %v: O_NONBLOCK left set", fl, err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "hello" {
		t.Fatalf("read %q, %v", b, err)
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b", "a", "c"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	ents, err := ReadDir(dir)
	if err != nil || len(ents) != 3 || ents[0].Name() != "a" || ents[2].Name() != "c" {
		t.Fatalf("%v, %v", ents, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing folder: %v", err)
	}
}

// OpenAppend creates a missing file with the mode asked for, appends to an
// existing one, and leaves the descriptor blocking and appending.
func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.jsonl")
	f, err := OpenAppend(p, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("one\n")
	f.Close()
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o640&^umask(t) {
		t.Fatalf("created %v, %v", st, err)
	}
	f, err = OpenAppend(p, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&syscall.O_NONBLOCK != 0 || fl&syscall.O_APPEND == 0 {
		t.Fatalf("flags %#x, %v: want O_APPEND kept and O_NONBLOCK cleared", fl, err)
	}
	// Another writer's line lands between: O_APPEND writes after it.
	other, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	other.WriteString("two\n")
	other.Close()
	f.WriteString("three\n")
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\nthree\n" {
		t.Fatalf("content %q", b)
	}
	if _, err := OpenAppend(filepath.Join(dir, "missing", "x"), FilePerm); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing folder: %v", err)
	}
}

// umask reads the process's umask (setting it back at once).
func umask(t *testing.T) fs.FileMode {
	t.Helper()
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}

// OpenAppendExisting never creates the file, appends after another
// writer's line, and refuses a FIFO without blocking.
func TestOpenAppendExisting(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if _, err := OpenAppendExisting(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("OpenAppendExisting created the file")
	}
	os.WriteFile(p, []byte("one\n"), 0o600)
	f, err := OpenAppendExisting(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	other, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	other.WriteString("two\n")
	other.Close()
	f.WriteString("three\n")
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, 0); err != nil || last[0] != 'o' {
		t.Fatalf("read back %q, %v", last, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\nthree\n" {
		t.Fatalf("content %q", b)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "OpenAppendExisting "+fifo, func() {
		if _, err := OpenAppendExisting(fifo); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
	})
}
