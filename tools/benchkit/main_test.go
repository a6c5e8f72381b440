package benchkit

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// The drivers' shared flags keep their defaults, and a missing -bin or
// -work is said under the driver's name.
func TestHomeFlags(t *testing.T) {
	var h Home
	fs := flag.NewFlagSet("benchx", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	h.Flags(fs, "the generated home is kept and reused", 3)
	if err := fs.Parse([]string{"-bin", "/b"}); err != nil {
		t.Fatal(err)
	}
	if h.Bin != "/b" || h.Work != "" || h.Sessions != 10000 || h.Runs != 3 {
		t.Fatalf("parsed %+v", h)
	}
	if u := fs.Lookup("work").Usage; u != "scratch directory (the generated home is kept and reused)" {
		t.Errorf("-work usage %q", u)
	}
	var stderr strings.Builder
	if h.Check("benchx", &stderr) {
		t.Fatal("Check passed without -work")
	}
	if got := stderr.String(); got != "benchx: -bin and -work are required\n" {
		t.Errorf("stderr %q", got)
	}
	h.Work = "/w"
	stderr.Reset()
	if !h.Check("benchx", &stderr) || stderr.Len() != 0 {
		t.Errorf("Check with both: stderr %q", stderr.String())
	}
}
