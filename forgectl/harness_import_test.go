package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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
