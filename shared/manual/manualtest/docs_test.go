package manualtest

import (
	"strings"
	"testing"
)

const help = `x-tool — does things

USAGE
  x-tool [--json]

FLAGS
  --json      print JSON
  --all       everything
              (really)
  --verbose   say more

JSON FIELDS
  id    string   the id
  n     number   how many


EXIT STATUS
  0    done
  Any other code is a failure.`

func TestCut(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"JSON FIELDS", "", "JSON FIELDS\n  id    string   the id\n  n     number   how many"},
		{"  --all", "  --verbose", "  --all       everything\n              (really)"},
		{"EXIT STATUS", "", "EXIT STATUS\n  0    done\n  Any other code is a failure."},
	} {
		if got := Cut(t, help, tc.from, tc.to); got != tc.want {
			t.Errorf("Cut(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestSplice(t *testing.T) {
	doc := "# Doc\n\n" +
		"<!-- help: x-tool --help, JSON -->\n```text\nstale\n```\n<!-- end help -->\n\n" +
		"<!-- help: forgectl --help, EXIT -->\nsomeone else's\n<!-- end help -->\n"
	want := map[string]string{"x-tool --help, JSON": "```text\nfresh\n```\n"}
	// x-tool is not one of the suite's binaries: its region is refused.
	if _, err := splice(doc, "x-tool", want, map[string]bool{}); err == nil || !strings.Contains(err.Error(), "names no binary") {
		t.Fatalf("err = %v, want a refusal of the unknown binary", err)
	}

	doc = strings.ReplaceAll(doc, "x-tool", "resume-hooks")
	want = map[string]string{"resume-hooks --help, JSON": "```text\nfresh\n```\n"}
	seen := map[string]bool{}
	got, err := splice(doc, "resume-hooks", want, seen)
	if err != nil {
		t.Fatal(err)
	}
	wantDoc := "# Doc\n\n" +
		"<!-- help: resume-hooks --help, JSON -->\n```text\nfresh\n```\n<!-- end help -->\n\n" +
		"<!-- help: forgectl --help, EXIT -->\nsomeone else's\n<!-- end help -->\n"
	if got != wantDoc || !seen["resume-hooks --help, JSON"] {
		t.Fatalf("spliced:\n%s\nwant:\n%s", got, wantDoc)
	}
	if again, _ := splice(got, "resume-hooks", want, seen); again != got {
		t.Error("a second splice changed the document")
	}

	for name, bad := range map[string]string{
		"an unnamed part":    "<!-- help: resume-hooks --help, OTHER -->\n<!-- end help -->\n",
		"an unclosed region": "<!-- help: resume-hooks --help, JSON -->\n```text\n",
		"a nested region":    "<!-- help: resume-hooks --help, JSON -->\n<!-- help: forgectl --help, X -->\n<!-- end help -->\n",
	} {
		if _, err := splice(bad, "resume-hooks", want, map[string]bool{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
