package release

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGoInstallVersion installs resume-snapshot the way a user would,
// `go install forgectl.dev/resume-snapshot@v0.9.0`, from a module proxy in
// a temporary directory holding that module and shared as RELEASING.md
// says to tag them (the binary's go.mod requiring the tagged shared, with
// no replace line). The version it prints comes from the build info.
func TestGoInstallVersion(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	const v = "v0.9.0"
	publish(t, proxy, "forgectl.dev/shared", v, filepath.Join(root, "shared"), nil)
	publish(t, proxy, "forgectl.dev/resume-snapshot", v, filepath.Join(root, "resume-snapshot"), func(mod string) string {
		mod = regexp.MustCompile(`(?m)^replace .*\n`).ReplaceAllString(mod, "")
		return regexp.MustCompile(`forgectl\.dev/shared v\S+`).ReplaceAllString(mod, "forgectl.dev/shared "+v)
	})
	gobin := filepath.Join(tmp, "bin")
	cmd := exec.Command("go", "install", "forgectl.dev/resume-snapshot@"+v)
	cmd.Dir = tmp
	// The other dependencies come from the module cache the workspace
	// already filled; nothing is fetched from the network.
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOPROXY=file://"+proxy, "GOSUMDB=off", "GOWORK=off",
		"GOFLAGS=-mod=mod", "GONOSUMDB=forgectl.dev", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "resume-snapshot"), "--version").Output()
	if err != nil || string(out) != "resume-snapshot "+v+"\n" {
		t.Fatalf("--version: %v %q", err, out)
	}
}

// publish writes module@version into a file-based GOPROXY: list, .info,
// .mod and the module zip of the files under dir (editMod rewrites go.mod).
func publish(t *testing.T, proxy, module, version, dir string, editMod func(string) string) {
	t.Helper()
	at := filepath.Join(proxy, module, "@v")
	os.MkdirAll(at, 0o755)
	modBytes, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod := string(modBytes)
	if editMod != nil {
		mod = editMod(mod)
	}
	os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644)
	os.WriteFile(filepath.Join(at, version+".info"), []byte(`{"Version":"`+version+`","Time":"2026-12-01T12:00:00Z"}`), 0o644)
	os.WriteFile(filepath.Join(at, version+".mod"), []byte(mod), 0o644)
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	prefix := module + "@" + version + "/"
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		// A module zip holds regular source files only; go.sum is dropped
		// because the rewritten go.mod no longer matches it.
		if !d.Type().IsRegular() || rel == "go.sum" || strings.HasPrefix(filepath.Base(rel), ".") {
			return nil
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "go.mod" {
			body = []byte(mod)
		}
		w, err := zw.Create(prefix + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(body)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
