package fsutil

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// plainOpens are the calls that open a path with a plain open(2): a FIFO
// or a device there blocks them, for good, whether they read or write (a
// FIFO opened for writing waits for a reader).
var plainOpens = map[string]bool{
	"os.Open": true, "os.ReadFile": true, "os.ReadDir": true, "os.OpenFile": true,
	"os.WriteFile": true, "os.Create": true,
	"ioutil.ReadFile": true, "ioutil.ReadDir": true, "ioutil.WriteFile": true, "os.DirFS": true,
	"unix.Open": true, "unix.Openat": true, "syscall.Open": true,
}

// allowedOpens are the plain opens that stay, by file and function, each
// with its reason. Anything else goes through OpenRegular, ReadRegular,
// OpenAppend, OpenDir, ReadDir, MapFile or the lock functions, or creates
// a new file with O_EXCL.
var allowedOpens = map[string]string{
	"shared/fsutil/open.go open":                   "the opener itself: O_NONBLOCK, then fstat",
	"shared/fsutil/open.go OpenDir":                "the opener itself: O_DIRECTORY fails on a FIFO before opening it",
	"shared/capture/fingerprint.go fingerprint":    "O_DIRECTORY, as OpenDir, with its own dirent reads for the hot path",
	"shared/manual/manualtest/manualtest.go Check": "a test helper reading the repository's own doc.go and man page",
	"shared/manual/manualtest/docs.go CheckDocs":   "a test helper reading the repository's own README.md and docs/, and rewriting them with -update",
	"shared/cchome/cchome.go Register":             "a test helper writing a registry file into a test's own temporary home",
	"shared/cchome/cchome.go Transcript":           "a test helper writing a transcript into a test's own temporary home",
}

// TestEveryOpenGoesThroughTheOpener fails when a plain open of a path
// appears in the binaries' (non-test) sources. The one plain open that
// passes is an os.OpenFile with O_EXCL (as os.CreateTemp makes its files):
// it fails with EEXIST on anything already at the path, so a FIFO there
// cannot block it. O_CREATE alone does not help: it opens a FIFO already
// there, and a log, an audit trail or a lock file is usually there.
func TestEveryOpenGoesThroughTheOpener(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	for _, mod := range []string{"forgectl", "shared", "resume-snapshot", "resume-restart", "resume-hooks"} {
		err := filepath.WalkDir(filepath.Join(root, mod), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				ast.Inspect(fn, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					pkg, ok := sel.X.(*ast.Ident)
					if !ok || !plainOpens[pkg.Name+"."+sel.Sel.Name] {
						return true
					}
					if pkg.Name+"."+sel.Sel.Name == "os.OpenFile" && len(call.Args) > 1 && mentions(call.Args[1], "O_EXCL") {
						return true
					}
					key := rel + " " + fn.Name.Name
					if _, ok := allowedOpens[key]; ok {
						seen[key] = true
						return true
					}
					t.Errorf("%s: %s.%s in %s: a FIFO there would block it; use fsutil.OpenRegular, ReadRegular, OpenAppend, OpenDir or ReadDir, or os.OpenFile with O_EXCL for a new file (or allow it in allowedOpens, with the reason)",
						fset.Position(call.Pos()), pkg.Name, sel.Sel.Name, fn.Name.Name)
					return true
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for key := range allowedOpens {
		if !seen[key] {
			t.Errorf("allowedOpens names %q, which opens nothing any more: remove it", key)
		}
	}
}

// mentions reports whether the expression names the identifier.
func mentions(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}
