package manualtest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"forgectl.dev/shared/manual"
)

// The Markdown documents (README.md, docs/*.md) repeat some parts of the
// --help texts (field tables, the exit statuses) and other fixed output (a
// config template). Each such part sits in a generated region, opened by a
// line
//
//	<!-- help: forgectl resume ls --help, JSON -->
//
// and closed by the line regionEnd, holding the part as a fenced text
// block. The key names the command and the part; the binary whose help it
// is checks it, so a document can quote several binaries.
const (
	regionStart = "<!-- help: "
	regionEnd   = "<!-- end help -->"
)

// Part is a piece of a --help text that a document repeats.
type Part struct {
	Key  string // "forgectl resume ls --help, JSON", as the region's marker names it
	Text string // the lines, as --help prints them
}

// Cut returns the lines of a help text from the first that starts with
// from up to, not including, the next that starts with to, or with to ""
// the next heading (manual.IsHeading) or the end; trailing blank lines are
// dropped. A from that is not there fails the test: the part was renamed.
func Cut(t testing.TB, help, from, to string) string {
	t.Helper()
	lines := strings.Split(help, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, from) {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no line of the help text starts with %q", from)
		return ""
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if to == "" && manual.IsHeading(lines[i]) || to != "" && strings.HasPrefix(lines[i], to) {
			end = i
			break
		}
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return strings.Join(lines[start:end], "\n")
}

// CheckDocs compares every region of the files whose key starts with
// binary to the part of that key (with FORGECTL_UPDATE_MANUAL=1 it
// rewrites them instead). A region of binary's that no part names, a part
// that no file holds, and a region of an unknown binary all fail.
func CheckDocs(t *testing.T, binary string, files []string, parts []Part) {
	t.Helper()
	want := map[string]string{}
	for _, p := range parts {
		want[p.Key] = "```text\n" + strings.TrimRight(p.Text, "\n") + "\n```\n"
	}
	seen := map[string]bool{}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		got, err := splice(string(b), binary, want, seen)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if got == string(b) {
			continue
		}
		if os.Getenv(manual.UpdateEnv) != "" {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s repeats what %s prints, and no longer as it prints it; run %s=1 go test -run TestDocs and commit the result", path, binary, manual.UpdateEnv)
	}
	for _, p := range parts {
		if !seen[p.Key] {
			t.Errorf("no document holds the region %q", regionStart+p.Key+" -->")
		}
	}
}

// splice returns doc with each of binary's regions holding its part.
func splice(doc, binary string, want map[string]string, seen map[string]bool) (string, error) {
	var out strings.Builder
	lines := strings.SplitAfter(doc, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		out.WriteString(l)
		key, ok := strings.CutPrefix(strings.TrimRight(l, "\n"), regionStart)
		if !ok {
			continue
		}
		key, ok = strings.CutSuffix(key, " -->")
		if !ok || !knownBinary(key) {
			return "", fmt.Errorf("line %d: %q names no binary's --help", i+1, strings.TrimSpace(l))
		}
		j := i + 1
		for j < len(lines) && strings.TrimRight(lines[j], "\n") != regionEnd {
			if strings.HasPrefix(lines[j], regionStart) {
				return "", fmt.Errorf("line %d: a region opens inside the region of line %d", j+1, i+1)
			}
			j++
		}
		if j == len(lines) {
			return "", fmt.Errorf("line %d: the region %q is not closed by %q", i+1, key, regionEnd)
		}
		if !strings.HasPrefix(key, binary+" ") {
			for _, b := range lines[i+1 : j] {
				out.WriteString(b)
			}
		} else {
			text, ok := want[key]
			if !ok {
				return "", fmt.Errorf("line %d: no part of %s's --help is named %q", i+1, binary, key)
			}
			seen[key] = true
			out.WriteString(text)
		}
		out.WriteString(lines[j])
		i = j
	}
	return out.String(), nil
}

// knownBinary reports a key that starts with one of the suite's binaries.
func knownBinary(key string) bool {
	for _, b := range []string{"forgectl", "resume-snapshot", "resume-restart", "resume-hooks"} {
		if strings.HasPrefix(key, b+" ") {
			return true
		}
	}
	return false
}
