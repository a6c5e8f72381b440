package udiff

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(n int, change map[int]string, drop map[int]bool) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if drop[i] {
			continue
		}
		if c, ok := change[i]; ok {
			b.WriteString(c)
			continue
		}
		b.WriteString("line " + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "\n")
	}
	return b.String()
}

// TestAgainstDiffAndPatch checks the output against GNU diff -u where the
// change is unambiguous, and that patch(1) turns the old text into the new
// one in every case.
func TestAgainstDiffAndPatch(t *testing.T) {
	for _, tool := range []string{"diff", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (apt-get install diffutils patch): %v", tool, err)
		}
	}
	cases := []struct {
		name      string
		old, new  string
		sameAsGNU bool
	}{
		{"insert in the middle", numbered(20, nil, nil), numbered(20, map[int]string{10: "line xxb\n  inserted\n  and more\n"}, nil), false},
		{"append at the end", "a\nb\nc\n", "a\nb\nc\nd\n", true},
		{"remove one line", numbered(12, nil, nil), numbered(12, nil, map[int]bool{6: true}), true},
		{"two far apart changes", numbered(30, nil, nil), numbered(30, map[int]string{3: "three\n", 27: "twenty-seven\n"}, nil), true},
		{"two close changes share a hunk", numbered(30, nil, nil), numbered(30, map[int]string{10: "ten\n", 15: "fifteen\n"}, nil), true},
		{"no newline at the end", "{\n  \"a\": 1\n}", "{\n  \"a\": 1,\n  \"b\": 2\n}", true},
		{"from empty", "", "{}\n", true},
		{"to empty", "x\ny\n", "", true},
		{"unicode", "名前\n\"émoji\": \"🎉\"\n", "名前\n\"émoji\": \"🎉\",\n\"ß\": 1\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			oldF, newF := filepath.Join(dir, "old"), filepath.Join(dir, "new")
			os.WriteFile(oldF, []byte(c.old), 0o644)
			os.WriteFile(newF, []byte(c.new), 0o644)
			var got bytes.Buffer
			if err := Write(&got, oldF, newF, []byte(c.old), []byte(c.new)); err != nil {
				t.Fatal(err)
			}
			if c.sameAsGNU {
				out, _ := exec.Command("diff", "-u", oldF, newF).Output()
				// GNU diff puts the file times on the --- and +++ lines.
				want := stripTimes(string(out))
				if got.String() != want {
					t.Errorf("ours:\n%s\ndiff -u:\n%s", got.String(), want)
				}
			}
			cmd := exec.Command("patch", "-s", oldF)
			cmd.Stdin = &got
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch refused our diff: %v\n%s\n%s", err, out, got.String())
			}
			patched, _ := os.ReadFile(oldF)
			if string(patched) != c.new {
				t.Errorf("patched text differs:\n%q\nwant\n%q", patched, c.new)
			}
		})
	}
}

func stripTimes(s string) string {
	ls := strings.SplitAfter(s, "\n")
	for i := 0; i < 2 && i < len(ls); i++ {
		if tab := strings.IndexByte(ls[i], '\t'); tab >= 0 {
			ls[i] = ls[i][:tab] + "\n"
		}
	}
	return strings.Join(ls, "")
}

func TestEqualPrintsNothing(t *testing.T) {
	var b bytes.Buffer
	Write(&b, "a", "b", []byte("same\n"), []byte("same\n"))
	if b.Len() != 0 {
		t.Fatalf("%q", b.String())
	}
}
