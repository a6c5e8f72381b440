package contract

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These run in the ordinary test suite: a fake npm stands in for the
// registry, so no network is needed.

// fakeNPM writes an npm that packs a platform tarball whose claude is a
// script printing version, or fails like npm does when the registry is
// unreachable. It counts its runs in a file beside it.
func fakeNPM(t *testing.T, version string, fail bool) (npm, runs string) {
	t.Helper()
	dir := t.TempDir()
	claude := "#!/bin/sh\necho '" + version + " (Claude Code)'\n"
	tgz := filepath.Join(dir, "pkg.tgz")
	f, err := os.Create(tgz)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, e := range []struct{ name, body string }{
		{"package/package.json", `{"name":"` + PlatformPackage + `","version":"` + version + `"}`},
		{"package/claude", claude},
	} {
		tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(e.body))
	}
	tw.Close()
	zw.Close()
	f.Close()
	runs = filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho run >> " + runs + "\n"
	if fail {
		script += "echo 'npm error code ECONNREFUSED' >&2\necho 'npm error syscall connect' >&2\necho 'npm error A complete log of this run can be found in: /x.log' >&2\nexit 1\n"
	} else {
		// npm view ... dist-tags.latest answers the version; npm pack
		// --loglevel=error ... --pack-destination DIR SPEC packs it.
		script += `case "$*" in *dist-tags.latest*) echo '` + version + `'; exit 0;; esac
while [ $# -gt 0 ]; do [ "$1" = --pack-destination ] && dest=$2; shift; done
cp ` + tgz + ` "$dest/anthropic-ai-claude-code-linux-x64.tgz"
`
	}
	npm = filepath.Join(dir, "npm")
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm, runs
}

func countRuns(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "run")
}

func TestInstallIsIdempotent(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the installer fetches the linux-x64 package only")
	}
	npm, runs := fakeNPM(t, "2.1.332", false)
	in := Installer{Cache: filepath.Join(t.TempDir(), "cache"), NPM: npm}
	for i := 0; i < 2; i++ {
		bin, err := in.Install(context.Background(), "2.1.332")
		if err != nil {
			t.Fatal(err)
		}
		if bin != filepath.Join(in.Cache, "2.1.332", "claude") {
			t.Errorf("binary at %s", bin)
		}
	}
	if n := countRuns(runs); n != 1 {
		t.Errorf("npm ran %d times for two installs, want 1", n)
	}
	leftovers, _ := filepath.Glob(filepath.Join(in.Cache, ".install-*"))
	if len(leftovers) != 0 {
		t.Errorf("staging left behind: %v", leftovers)
	}
}

func TestInstallRefusesAWrongBinary(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the installer fetches the linux-x64 package only")
	}
	npm, _ := fakeNPM(t, "2.1.100", false) // the registry hands back another version
	in := Installer{Cache: t.TempDir(), NPM: npm}
	_, err := in.Install(context.Background(), "2.1.332")
	if _, skip := IsSkip(err); err == nil || skip {
		t.Fatalf("err = %v, want a real failure", err)
	}
	if _, err := os.Stat(in.Binary("2.1.332")); err == nil {
		t.Error("a wrong binary was installed")
	}
}

func TestUnreachableRegistryIsASkip(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the installer fetches the linux-x64 package only")
	}
	npm, _ := fakeNPM(t, "2.1.332", true)
	in := Installer{Cache: t.TempDir(), NPM: npm}
	_, err := in.Install(context.Background(), "2.1.332")
	reason, skip := IsSkip(err)
	if !skip || !strings.Contains(reason, "code ECONNREFUSED; syscall connect") || strings.Contains(reason, "complete log") {
		t.Fatalf("err = %v (skip %v)", err, skip)
	}
	in.NPM = filepath.Join(t.TempDir(), "no-npm-here")
	if _, skip := IsSkip(func() error { _, err := in.Install(context.Background(), "2.1.332"); return err }()); !skip {
		t.Error("a missing npm should be a skip")
	}
}

func TestCacheDirAndVersions(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	cases := []struct {
		getenv func(string) string
		want   []string
	}{
		{env(), []string{"/home/a/.cache/forgectl-contract", Current, Older}},
		{env("XDG_CACHE_HOME", "/xdg"), []string{"/xdg/forgectl-contract", Current, Older}},
		{env("XDG_CACHE_HOME", "relative"), []string{"/home/a/.cache/forgectl-contract", Current, Older}},
		{env("FORGECTL_CONTRACT_CACHE", "/c", "XDG_CACHE_HOME", "/xdg", "FORGECTL_CONTRACT_CURRENT", "2.2.0", "FORGECTL_CONTRACT_OLDER", "2.1.300"),
			[]string{"/c", "2.2.0", "2.1.300"}},
	}
	for _, c := range cases {
		cur, old := Versions(c.getenv)
		if diff := cmp.Diff(c.want, []string{CacheDir(c.getenv, "/home/a"), cur, old}); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	for v, ok := range map[string]bool{"2.1.332": true, "10.0.0": true, "2.1": false, "2.1.x": false, "../2.1.3": false, "": false} {
		if validVersion(v) != ok {
			t.Errorf("validVersion(%q) = %v", v, !ok)
		}
	}
}

func TestLatestAsksTheRegistry(t *testing.T) {
	npm, runs := fakeNPM(t, "2.1.400", false)
	in := Installer{Cache: t.TempDir(), NPM: npm}
	v, err := in.Latest(context.Background())
	if err != nil || v != "2.1.400" {
		t.Fatalf("Latest = %q, %v; want 2.1.400", v, err)
	}
	if n := countRuns(runs); n != 1 {
		t.Errorf("npm ran %d times, want 1", n)
	}
	npm, _ = fakeNPM(t, "", true)
	if _, err := (Installer{NPM: npm}).Latest(context.Background()); err == nil {
		t.Fatal("an unreachable registry gave a version")
	} else if _, skip := IsSkip(err); !skip {
		t.Errorf("an unreachable registry: %v, want a skip", err)
	}
	npm, _ = fakeNPM(t, "not-a-version", false)
	if _, err := (Installer{NPM: npm}).Latest(context.Background()); err == nil {
		t.Error("a non-version answer was accepted")
	} else if _, skip := IsSkip(err); skip {
		t.Errorf("a non-version answer is a skip: %v; want a failure", err)
	}
}

// fakeCodexNPM packs a Codex platform tarball whose binary, at the vendor
// path, prints says; it also answers dist-tags.latest with latest.
func fakeCodexNPM(t *testing.T, says, latest string) (npm, specs string) {
	t.Helper()
	dir := t.TempDir()
	tgz := filepath.Join(dir, "pkg.tgz")
	f, err := os.Create(tgz)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, e := range []struct{ name, body string }{
		{"package/package.json", `{"name":"@openai/codex"}`},
		{"package/bin/codex.js", "launcher"},
		{Codex.Tree + Codex.Bin, "#!/bin/sh\necho '" + says + "'\n"},
		{Codex.Tree + "codex-package.json", `{"entrypoint":"bin/codex"}`},
		{Codex.Tree + "codex-path/rg", "#!/bin/sh\n"},
	} {
		tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(e.body))
	}
	tw.Close()
	zw.Close()
	f.Close()
	specs = filepath.Join(dir, "specs")
	script := `#!/bin/sh
echo "$*" >> ` + specs + `
case "$*" in *dist-tags.latest*) echo '` + latest + `'; exit 0;; esac
while [ $# -gt 0 ]; do [ "$1" = --pack-destination ] && dest=$2; shift; done
cp ` + tgz + ` "$dest/openai-codex-linux-x64.tgz"
`
	npm = filepath.Join(dir, "npm")
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm, specs
}

func TestInstallCodexTakesTheVendorBinary(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the installer fetches the linux-x64 package only")
	}
	npm, specs := fakeCodexNPM(t, "codex-cli 0.171.0", "0.172.0")
	in := Installer{Cache: t.TempDir(), NPM: npm, Product: &Codex}
	bin, err := in.Install(context.Background(), "0.171.0")
	if err != nil {
		t.Fatal(err)
	}
	if bin != filepath.Join(in.Cache, "codex", "0.171.0", "bin", "codex") {
		t.Errorf("binary at %s", bin)
	}
	// The whole vendor folder comes along: the daemon needs it.
	for _, f := range []string{"codex-package.json", "codex-path/rg"} {
		if _, err := os.Stat(filepath.Join(in.Cache, "codex", "0.171.0", f)); err != nil {
			t.Errorf("%s not installed: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(in.Cache, "codex", "0.171.0", "package.json")); err == nil {
		t.Error("a file outside the vendor folder was installed")
	}
	b, _ := os.ReadFile(specs)
	if !strings.Contains(string(b), " @openai/codex@0.171.0-linux-x64") {
		t.Errorf("npm was asked %q, want the -linux-x64 build of @openai/codex", b)
	}
	// A Claude install beside it keeps its own layout.
	if got := (Installer{Cache: in.Cache}).Binary("2.1.332"); got != filepath.Join(in.Cache, "2.1.332", "claude") {
		t.Errorf("claude binary at %s", got)
	}
	if v, err := in.Latest(context.Background()); err != nil || v != "0.172.0" {
		t.Errorf("Latest = %q, %v", v, err)
	}
	b, _ = os.ReadFile(specs)
	if !strings.Contains(string(b), "view --loglevel=error --fetch-retries=1 @openai/codex dist-tags.latest") {
		t.Errorf("latest asked with %q", b)
	}
}

func TestInstallCodexRefusesAnotherVersion(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the installer fetches the linux-x64 package only")
	}
	// 0.171.01 must not pass for 0.171.0, nor a Claude-style answer.
	for _, says := range []string{"codex-cli 0.171.01", "0.171.0 (Claude Code)", "codex-cli 0.142.3"} {
		npm, _ := fakeCodexNPM(t, says, "")
		in := Installer{Cache: t.TempDir(), NPM: npm, Product: &Codex}
		if _, err := in.Install(context.Background(), "0.171.0"); err == nil {
			t.Errorf("a binary saying %q was installed as 0.171.0", says)
		}
	}
}
