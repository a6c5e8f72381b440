package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHarnessImports keeps the harness packages behind the roster: a new
// harness is its package and one line in harnesses.go, which holds only
// if no other file of forgectl names a harness package (the harness
// packages themselves aside).
func TestHarnessImports(t *testing.T) {
	banned := []string{"forgectl.dev/forgectl/internal/harness/claude", "forgectl.dev/forgectl/internal/harness/codex"}
	allowed := map[string]bool{
		"harnesses.go": true, // the roster
	}
	files, _ := filepath.Glob("*.go")
	err := filepath.WalkDir("internal", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == filepath.Join("internal", "harness", "claude") || p == filepath.Join("internal", "harness", "codex")) {
			return filepath.SkipDir // a harness may import its own package's helpers
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") || allowed[p] {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			for _, b := range banned {
				if path == b || strings.HasPrefix(path, b+"/") {
					t.Errorf("%s imports %s: only the roster (harnesses.go) names a harness package; ask the harness through internal/harness instead", p, path)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files: is the test running in forgectl/?", checked)
	}
}

// TestHarnessesKeepToThemselves: one harness's package never reaches into
// another's, nor Codex's into Claude Code's transcript reader; what they
// share lives in internal/harness and shared/jsonl.
func TestHarnessesKeepToThemselves(t *testing.T) {
	for dir, banned := range map[string][]string{
		"internal/harness/codex":  {"forgectl.dev/forgectl/internal/harness/claude", "forgectl.dev/shared/transcript"},
		"internal/harness/claude": {"forgectl.dev/forgectl/internal/harness/codex"},
	} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				if slices.Contains(banned, path) {
					t.Errorf("%s imports %s", p, path)
				}
			}
		}
	}
}
