package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-12-01T12:34:56Z", "GIT_AUTHOR_DATE=2026-12-01T12:34:56Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestVersion(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "a"), []byte("1"), 0o644)
	git(t, dir, "add", "a")
	git(t, dir, "commit", "-qm", "one")
	rev := func() string { return git(t, dir, "rev-parse", "--short=12", "HEAD")[:12] }
	check := func(module, want string) {
		t.Helper()
		got, err := Version(context.Background(), dir, module)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile("^" + want + "$").MatchString(got) {
			t.Errorf("%s: %q, want %q", module, got, want)
		}
	}
	check("forgectl", `v0\.0\.0-20261201123456-`+rev())
	git(t, dir, "tag", "forgectl/v0.2.0")
	git(t, dir, "tag", "resume-snapshot/v0.9.0")
	check("forgectl", `v0\.2\.0`)
	check("resume-snapshot", `v0\.9\.0`)
	check("resume-hooks", `v0\.0\.0-20261201123456-`+rev())

	os.WriteFile(filepath.Join(dir, "a"), []byte("2"), 0o644)
	check("forgectl", `v0\.2\.0-dirty`)
	git(t, dir, "commit", "-qam", "two")
	check("forgectl", `v0\.2\.1-0\.20261201123456-`+rev())
	os.WriteFile(filepath.Join(dir, "new"), []byte("untracked"), 0o644)
	check("forgectl", `v0\.2\.1-0\.20261201123456-`+rev()+`-dirty`)
	os.Remove(filepath.Join(dir, "new"))

	git(t, dir, "tag", "forgectl/v0.10.0-rc.1")
	check("forgectl", `v0\.10\.0-rc\.1`)
	os.WriteFile(filepath.Join(dir, "a"), []byte("3"), 0o644)
	git(t, dir, "commit", "-qam", "three")
	check("forgectl", `v0\.10\.0-rc\.1\.0\.20261201123456-`+rev())
}
