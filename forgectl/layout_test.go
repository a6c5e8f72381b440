package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's Layout is how a newcomer finds their way in: every Go
// package of the workspace is named there, under its module.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := layoutSections(t, string(b))
	for _, module := range []string{"forgectl", "resume-snapshot", "resume-restart", "resume-hooks", "shared", "tools"} {
		text, ok := sections[module]
		if !ok {
			t.Errorf("the README's Layout has no %s/ section", module)
			continue
		}
		for _, rel := range goPackages(t, filepath.Join("..", module)) {
			if !namesPackage(text, rel) {
				t.Errorf("the README's Layout does not name %s/%s under %s/", module, rel, module)
			}
		}
	}
}

// layoutSections splits the Layout section's code block by the module
// each top-level line (one starting with "name/") opens.
func layoutSections(t *testing.T, readme string) map[string]string {
	_, after, ok := strings.Cut(readme, "\n## Layout\n")
	if !ok {
		t.Fatal("the README has no Layout section")
	}
	_, block, ok := strings.Cut(after, "\n```\n")
	if !ok {
		t.Fatal("the README's Layout has no code block")
	}
	block, _, _ = strings.Cut(block, "\n```")
	out := map[string]string{}
	cur := ""
	top := regexp.MustCompile(`^([a-z][a-z-]*)/`)
	for _, line := range strings.Split(block, "\n") {
		if m := top.FindStringSubmatch(line); m != nil {
			cur = m[1]
		}
		out[cur] += line + "\n"
	}
	return out
}

// goPackages are the folders under root holding Go files, relative to it;
// root's own package is left out (its module line names it).
func goPackages(t *testing.T, root string) []string {
	seen := map[string]bool{}
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		if dir != "." && !seen[dir] {
			seen[dir] = true
			out = append(out, filepath.ToSlash(dir))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// namesPackage says text names the package at rel by its path or by a
// tail of it ("internal/harness/codex", "harness/codex" or "codex"), as
// a word; "cmd" alone names nothing.
func namesPackage(text, rel string) bool {
	parts := strings.Split(rel, "/")
	for i := range parts {
		tail := strings.Join(parts[i:], "/")
		if tail == "cmd" || tail == "internal" {
			continue
		}
		if regexp.MustCompile(`(^|[\s,/])` + regexp.QuoteMeta(tail) + `($|[\s,])`).MatchString(text) {
			return true
		}
	}
	return false
}
