package msg

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFormat(t *testing.T) {
	var b bytes.Buffer
	Errorf(&b, "no session matches %q", "x")
	Hintf(&b, "run %s", "'forgectl resume ls'")
	Warnf(&b, "%s: 2 lines skipped", "t.jsonl")
	Notef(&b, "%d skipped", 1)
	Infof(&b, "%d shown", 3)
	want := "forgectl: error: no session matches \"x\"\nforgectl: hint: run 'forgectl resume ls'\n" +
		"forgectl: warning: t.jsonl: 2 lines skipped\nforgectl: note: 1 skipped\nforgectl: 3 shown\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if got := Line(Error, "x %d", 1); got != "forgectl: error: x 1" {
		t.Errorf("Line: %q", got)
	}
}

type recorder struct {
	bytes.Buffer
	said []string
}

func (r *recorder) Record(k Kind, text string) { r.said = append(r.said, string(k)+"|"+text) }

// A Recorder is told each line as it is written, up to its first newline.
func TestRecorder(t *testing.T) {
	var r recorder
	Errorf(&r, "cannot enter %s", "/a\nb")
	Hintf(&r, "recreate it")
	Infof(&r, "3 shown")
	if d := cmp.Diff([]string{"error|cannot enter /a", "hint|recreate it", "|3 shown"}, r.said); d != "" {
		t.Errorf("recorded (-want +got):\n%s", d)
	}
	if r.String() != "forgectl: error: cannot enter /a\nb\nforgectl: hint: recreate it\nforgectl: 3 shown\n" {
		t.Errorf("written %q", r.String())
	}
}
