package msg

import (
	"bytes"
	"testing"
)

func TestFormat(t *testing.T) {
	var b bytes.Buffer
	Errorf(&b, "no session matches %q", "x")
	Hintf(&b, "run %s", "ls")
	Notef(&b, "%d shown", 3)
	want := "forgectl: error: no session matches \"x\"\nforgectl: hint: run ls\nforgectl: note: 3 shown\n"
	if b.String() != want {
		t.Fatalf("%q", b.String())
	}
}
