// Package manualtest is the manual test every binary runs: its doc.go and
// man page must be what its --help texts generate, and the man page must
// render with groff, warning-free, to those same lines.
package manualtest

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"forgectl.dev/shared/manual"
)

// Check compares (or, with FORGECTL_UPDATE_MANUAL=1, rewrites) docPath and
// manPath, then renders the man page.
func Check(t *testing.T, p manual.Page, docPath, manPath string) {
	t.Helper()
	doc, err := p.GoDoc()
	if err != nil {
		t.Fatalf("generated doc.go does not format: %v", err)
	}
	roff := p.Roff()
	if os.Getenv(manual.UpdateEnv) != "" {
		if err := os.WriteFile(docPath, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(manPath, []byte(roff), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string][]byte{docPath: doc, manPath: []byte(roff)} {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what --help generates (err %v); run %s=1 go test -run TestManual and commit the result", path, err, manual.UpdateEnv)
		}
	}
	Render(t, roff, p)
}

// Render runs groff -man -ww on the page: any warning fails, and every
// help line must come out, in order, under its command's heading.
func Render(t *testing.T, roff string, p manual.Page) {
	t.Helper()
	if _, err := exec.LookPath("groff"); err != nil {
		t.Fatalf("groff is needed to check the man pages (apt-get install groff): %v", err)
	}
	// No bold, underline or colour: the text alone is compared.
	cmd := exec.Command("groff", "-man", "-ww", "-Tutf8", "-rLL=200n", "-P-cbou")
	cmd.Stdin = strings.NewReader(roff)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.Len() > 0 {
		t.Fatalf("groff: %v\n%s", err, errb.String())
	}
	rendered := normalize(stripOverstrike(out.String()))
	at := 0
	for _, s := range p.Sections {
		want := normalize(s.Text)
		i := indexLines(rendered[at:], want)
		if i < 0 {
			t.Errorf("the rendered man page lacks the --help of %q as printed:\n%s", s.Command, strings.Join(want, "\n"))
			continue
		}
		at += i + len(want)
	}
}

// normalize keeps the non-blank lines without their indentation: roff
// indents a section's body, and blank lines collapse at headings.
func normalize(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// stripOverstrike removes the backspace bold and underline of grotty.
func stripOverstrike(s string) string {
	r := []rune(s)
	var out []rune
	for i := 0; i < len(r); i++ {
		if i+1 < len(r) && r[i+1] == '\b' {
			i++
			continue
		}
		out = append(out, r[i])
	}
	return strings.ReplaceAll(string(out), "\x1b[0m", "")
}

func indexLines(hay, needle []string) int {
	for i := 0; i+len(needle) <= len(hay); i++ {
		ok := true
		for j := range needle {
			if hay[i+j] != needle[j] {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}
