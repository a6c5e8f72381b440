package fresh

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func stat(t *testing.T, p string) File {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return File{Ino: fi.Sys().(*syscall.Stat_t).Ino, Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
}

// content is a transcript-like file of distinct lines, about 24 KiB, with a
// marker word at each depth the table edits.
func content() []byte {
	var b bytes.Buffer
	for i := range 300 {
		word := "filler"
		switch i {
		case 2:
			word = "headword" // within the first 4 KiB
		case 150:
			word = "midword" // more than 4 KiB from either end
		case 297:
			word = "tailword" // within the last 4 KiB
		}
		fmt.Fprintf(&b, `{"type":"user","n":%d,"text":"%s line %d"}`+"\n", i, word, i*7919)
	}
	return b.Bytes()
}

var depths = map[string]string{"head": "headword", "middle": "midword", "last 4 KiB": "tailword"}

// Every rewrite shape at every depth of the file, judged against a stamp
// taken when the whole file had been read: only a pure append is read on
// from the old end; only an untouched stat is trusted unchanged.
func TestDecide(t *testing.T) {
	type shape struct {
		name string
		// edit rewrites b (the old content, with the marker at depth) and
		// says how the new bytes reach the disk.
		edit   func(b []byte, marker string) []byte
		rename bool // a new file renamed over the old (a new inode)
		// keepMtime puts the old mtime back, as a rewrite within the mtime
		// granularity of the last write leaves it.
		keepMtime bool
	}
	replace := func(with string) func([]byte, string) []byte {
		return func(b []byte, marker string) []byte { return bytes.Replace(b, []byte(marker), []byte(with), 1) }
	}
	editThenAppend := func(b []byte, marker string) []byte {
		b = bytes.Replace(b, []byte(marker), bytes.Repeat([]byte("X"), len(marker)), 1)
		return append(b, `{"type":"user","text":"appended"}`+"\n"...)
	}
	shapes := []shape{
		{name: "longer", edit: replace("a-much-longer-replacement")},
		{name: "same size", edit: func(b []byte, m string) []byte { return replace(string(bytes.Repeat([]byte("Y"), len(m))))(b, m) }},
		{name: "shorter", edit: replace("w")},
		{name: "renamed over, same size", rename: true, edit: func(b []byte, m string) []byte { return replace(string(bytes.Repeat([]byte("Z"), len(m))))(b, m) }},
		{name: "renamed over, longer", rename: true, edit: replace("a-much-longer-replacement")},
		{name: "edited, then appended", edit: editThenAppend},
	}
	want := func(s shape, depth string) Verdict {
		if s.name == "edited, then appended" && depth == "middle" {
			// The rule's documented limit (see the package doc): a
			// same-length edit deep inside a file that then grew is
			// read on from the old end.
			return Appended
		}
		return Reread
	}
	for _, s := range shapes {
		for depth, marker := range depths {
			t.Run(s.name+"/"+depth, func(t *testing.T) {
				p, old := setup(t)
				b := s.edit(content(), marker)
				if s.rename {
					tmp := p + ".new"
					os.WriteFile(tmp, b, 0o600)
					if err := os.Rename(tmp, p); err != nil {
						t.Fatal(err)
					}
				} else {
					f, err := os.OpenFile(p, os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteAt(b, 0)
					f.Truncate(int64(len(b)))
					f.Close()
				}
				later := time.Unix(0, old.MtimeNs).Add(time.Second)
				os.Chtimes(p, later, later)
				if got, w := decide(t, p, &old), want(s, depth); got != w {
					t.Errorf("verdict %v, want %v", got, w)
				}
			})
		}
	}

	t.Run("untouched", func(t *testing.T) {
		p, old := setup(t)
		if got := decide(t, p, &old); got != Unchanged {
			t.Errorf("verdict %v", got)
		}
	})
	t.Run("same size, same mtime", func(t *testing.T) {
		// The index's contract: the stat is all that is looked at.
		p, old := setup(t)
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.WriteAt([]byte("MIDWORD"), int64(bytes.Index(content(), []byte("midword"))))
		f.Close()
		mt := time.Unix(0, old.MtimeNs)
		os.Chtimes(p, mt, mt)
		if got := decide(t, p, &old); got != Unchanged {
			t.Errorf("verdict %v", got)
		}
	})
	t.Run("only the mtime changed", func(t *testing.T) {
		p, old := setup(t)
		later := time.Unix(0, old.MtimeNs).Add(time.Second)
		os.Chtimes(p, later, later)
		if got := decide(t, p, &old); got != Reread {
			t.Errorf("verdict %v", got)
		}
	})
	t.Run("appended", func(t *testing.T) {
		p, old := setup(t)
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"user","text":"appended"}` + "\n")
		f.Close()
		if got := decide(t, p, &old); got != Appended {
			t.Errorf("verdict %v", got)
		}
	})
	t.Run("a partial last line, completed", func(t *testing.T) {
		// The stamp stops before a line cut off mid-write; completing it
		// is an append.
		p := filepath.Join(t.TempDir(), "t.jsonl")
		b := content()
		os.WriteFile(p, append(b, `{"type":"user","te`...), 0o600)
		old := take(t, p, int64(len(b)))
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`xt":"done"}` + "\n")
		f.Close()
		if got := decide(t, p, &old); got != Appended {
			t.Errorf("verdict %v", got)
		}
	})
	t.Run("a partial last line, rewritten at the same size", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "t.jsonl")
		b := content()
		os.WriteFile(p, append(b, `{"partial`...), 0o600)
		old := take(t, p, int64(len(b)))
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.WriteAt([]byte(`{"PARTIAL`), int64(len(b)))
		f.Close()
		later := time.Unix(0, old.MtimeNs).Add(time.Second)
		os.Chtimes(p, later, later)
		if got := decide(t, p, &old); got != Reread {
			t.Errorf("verdict %v", got)
		}
	})
	t.Run("nothing read before", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "t.jsonl")
		os.WriteFile(p, []byte(`{"partial`), 0o600)
		old := take(t, p, 0)
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("}\n")
		f.Close()
		if got := decide(t, p, &old); got != Reread {
			t.Errorf("verdict %v", got)
		}
	})
	t.Run("no record", func(t *testing.T) {
		p, _ := setup(t)
		if got := decide(t, p, nil); got != Reread {
			t.Errorf("verdict %v", got)
		}
	})
}

// setup writes the file and takes its stamp, read whole.
func setup(t *testing.T) (string, Stamp) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, content(), 0o600); err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(p, then, then)
	return p, take(t, p, int64(len(content())))
}

func take(t *testing.T, p string, offset int64) Stamp {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Take(stat(t, p), offset, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A lent buffer, of any size and holding anything, gives the same
	// stamp: it is only room for the read.
	for _, n := range []int{0, Span, 2 * Span, 4 * Span} {
		scratch := bytes.Repeat([]byte{0xAA}, n)
		if got, err := Take(stat(t, p), offset, f, scratch); err != nil || got != s {
			t.Fatalf("Take with %d bytes of scratch = %+v, %v; without = %+v", n, got, err, s)
		}
	}
	return s
}

func decide(t *testing.T, p string, old *Stamp) Verdict {
	t.Helper()
	now := stat(t, p)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Decide(old, now, f)
}
