package manual_test

import (
	"strings"
	"testing"

	"forgectl.dev/shared/manual"
	"forgectl.dev/shared/manual/manualtest"
)

// Text that roff would otherwise read as requests, escapes or fonts
// renders back as typed.
func TestAwkwardTextRendersAsTyped(t *testing.T) {
	p := manual.Page{Name: "x-tool", Summary: "a tool — with a dash", Sections: []manual.Section{{
		Command: "x-tool sub",
		Text: `x-tool sub — does things
.starts with a dot
'starts with a quote
a \backslash, \fBnot bold\fR, "quotes", ` + "`ticks`" + ` and ~ ^ é ❯ 日本
  --flag=value   with -dashes and --long-ones

EXIT STATUS
  0    ok
`}}}
	manualtest.Render(t, p.Roff(), p)
	if strings.Contains(p.Roff(), "\n.starts") {
		t.Error("a leading dot is a request")
	}
	if _, err := p.GoDoc(); err != nil {
		t.Fatal(err)
	}
}

func TestIsHeading(t *testing.T) {
	for line, want := range map[string]bool{"EXIT STATUS": true, "JSON FIELDS (--json)": false, "USAGE": true, "  FLAGS": false, "OK": false, "Usage:": false} {
		if manual.IsHeading(line) != want {
			t.Errorf("%q: want %v", line, want)
		}
	}
}
