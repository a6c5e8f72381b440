package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"debug/macho"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var binaries = []string{"forgectl", "resume-snapshot", "resume-restart", "resume-hooks"}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s\n%s", name, args, err, out.String(), errb.String())
	}
	return out.String()
}

// relver is what make stamps for module in the repository at dir.
func relver(t *testing.T, dir, module string) string {
	t.Helper()
	return strings.TrimSpace(run(t, filepath.Join(repoRoot(t), "tools"), "go", "run", "./relver", "-C", dir, module))
}

func TestDist(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	run(t, root, "make", "dist", "DIST="+dist, "BIN="+filepath.Join(tmp, "bin"))

	names, _ := filepath.Glob(filepath.Join(dist, "*.tar.gz"))
	if len(names) != 16 {
		t.Fatalf("%d archives, want 16: %v", len(names), names)
	}
	run(t, dist, "sha256sum", "--check", "--strict", "SHA256SUMS")
	sums, _ := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if n := strings.Count(string(sums), "\n"); n != 16 {
		t.Errorf("SHA256SUMS has %d lines", n)
	}
	for _, b := range binaries {
		v := relver(t, root, b)
		for _, osArch := range [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}} {
			name := b + "_" + v + "_" + osArch[0] + "_" + osArch[1]
			files := untar(t, filepath.Join(dist, name+".tar.gz"), filepath.Join(tmp, "x"))
			want := []string{name + "/README.md", name + "/" + b, name + "/" + b + ".1"}
			if b == "forgectl" {
				want = append(want, name+"/completions/_forgectl", name+"/completions/forgectl.bash", name+"/completions/forgectl.fish")
			}
			for _, w := range want {
				if _, ok := files[w]; !ok {
					t.Errorf("%s lacks %s (has %v)", name, w, keys(files))
				}
			}
			checkArch(t, filepath.Join(tmp, "x", name, b), osArch[0], osArch[1])
			if osArch == [2]string{"linux", "amd64"} {
				out := run(t, tmp, filepath.Join(tmp, "x", name, b), "--version")
				if out != b+" "+v+"\n" {
					t.Errorf("%s --version: %q, want %q", name, out, b+" "+v)
				}
			}
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// untar extracts an archive and lists its entries.
func untar(t *testing.T, path, into string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: %s is owned by %d:%d, not 0:0", path, h.Name, h.Uid, h.Gid)
		}
		dst := filepath.Join(into, h.Name)
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(dst, 0o755)
			continue
		}
		files[strings.TrimSuffix(h.Name, "/")] = true
		os.MkdirAll(filepath.Dir(dst), 0o755)
		b, _ := io.ReadAll(tr)
		os.WriteFile(dst, b, os.FileMode(h.Mode)&0o777)
	}
}

// checkArch reads the binary's header: the right format and CPU.
func checkArch(t *testing.T, path, goos, goarch string) {
	t.Helper()
	switch goos {
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer f.Close()
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want {
			t.Errorf("%s: %v, want %v", path, f.Machine, want)
		}
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer f.Close()
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want {
			t.Errorf("%s: %v, want %v", path, f.Cpu, want)
		}
	}
}

// TestInstall installs into a temporary PREFIX and runs each installed
// binary in the suite's one dialect.
func TestInstall(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "prefix")
	run(t, root, "make", "install", "PREFIX="+prefix, "BIN="+filepath.Join(tmp, "bin"))
	for _, f := range []string{
		"share/bash-completion/completions/forgectl",
		"share/zsh/site-functions/_forgectl",
		"share/fish/vendor_completions.d/forgectl.fish",
	} {
		if fi, err := os.Stat(filepath.Join(prefix, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for shell, f := range map[string]string{"bash": "share/bash-completion/completions/forgectl", "zsh": "share/zsh/site-functions/_forgectl", "fish": "share/fish/vendor_completions.d/forgectl.fish"} {
		if _, err := exec.LookPath(shell); err == nil {
			run(t, tmp, shell, "-n", filepath.Join(prefix, f))
		}
	}
	home := filepath.Join(tmp, "home")
	os.MkdirAll(home, 0o700)
	env := []string{"HOME=" + home, "PATH=" + filepath.Join(prefix, "bin") + ":/usr/bin:/bin", "FORGECTL_CONFIG_DIR=" + filepath.Join(home, "fc")}
	for _, b := range binaries {
		if fi, err := os.Stat(filepath.Join(prefix, "share/man/man1", b+".1")); err != nil || fi.Size() == 0 {
			t.Errorf("man page of %s: %v", b, err)
		}
		bin := filepath.Join(prefix, "bin", b)
		v := relver(t, root, b)
		for _, c := range []struct {
			args   []string
			code   int
			stdout string // a regexp
			errLn  int    // lines on stderr
		}{
			{[]string{"--version"}, 0, "^" + regexp.QuoteMeta(b+" "+v) + "\n$", 0},
			{[]string{"--help"}, 0, `(?s)^\S+ — .*EXIT STATUS`, 0},
			{[]string{"--bogus"}, map[bool]int{true: 0, false: 2}[b == "resume-snapshot"], `^$`, 2},
		} {
			cmd := exec.Command(bin, c.args...)
			cmd.Env, cmd.Dir = env, home
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code || !regexp.MustCompile(c.stdout).MatchString(out.String()) || strings.Count(errb.String(), "\n") != c.errLn {
				t.Errorf("%s %v: exit %d (want %d)\nstdout %q\nstderr %q", b, c.args, code, c.code, out.String(), errb.String())
			}
			if c.errLn == 2 && !regexp.MustCompile(`^forgectl: error: .*\nforgectl: hint: .*--help`).MatchString(errb.String()) {
				t.Errorf("%s %v: not an error and a hint: %q", b, c.args, errb.String())
			}
		}
	}
	// forgectl finds its installed siblings.
	cmd := exec.Command(filepath.Join(prefix, "bin", "forgectl"), "resume", "hooks", "--version")
	cmd.Env = env
	if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "resume-hooks ") {
		t.Errorf("forgectl resume hooks --version: %v %q", err, out)
	}
}

// TestVersionStamps builds a clone of the repository three ways: make
// with a module tag (and a pseudo-version for the untagged modules), make
// on a modified tree, and a plain go build.
func TestVersionStamps(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "repo")
	run(t, tmp, "git", "clone", "-q", root, clone)
	git := func(args ...string) string {
		return strings.TrimSpace(run(t, clone, "git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...))
	}
	// Only this test's tag counts, whatever the repository is tagged with.
	for _, tag := range strings.Fields(git("tag", "--list")) {
		git("tag", "-d", tag)
	}
	git("tag", "forgectl/v0.2.0")
	rev := git("rev-parse", "--short=12", "HEAD")
	bin := filepath.Join(tmp, "bin")
	version := func(b string) string {
		return strings.TrimSpace(run(t, tmp, filepath.Join(bin, b), "--version"))
	}
	run(t, clone, "make", "build", "BIN="+bin)
	if got := version("forgectl"); got != "forgectl v0.2.0" {
		t.Errorf("tagged: %q", got)
	}
	if got := version("resume-snapshot"); !regexp.MustCompile(`^resume-snapshot v0\.0\.0-\d{14}-` + rev + `$`).MatchString(got) {
		t.Errorf("untagged module: %q", got)
	}
	// forgectl resume snapshot is forgectl's code: forgectl's version.
	if got := strings.TrimSpace(run(t, tmp, filepath.Join(bin, "forgectl"), "resume", "snapshot", "--version")); got != "forgectl v0.2.0" {
		t.Errorf("forgectl resume snapshot --version: %q", got)
	}

	os.WriteFile(filepath.Join(clone, "README.md"), []byte("changed\n"), 0o644)
	run(t, clone, "make", "build", "BIN="+bin)
	if got := version("forgectl"); got != "forgectl v0.2.0-dirty" {
		t.Errorf("modified tree: %q", got)
	}

	// A plain go build (VCS stamping on, whatever GOFLAGS says) knows only
	// the revision.
	plain := filepath.Join(tmp, "plain")
	run(t, filepath.Join(clone, "resume-hooks"), "go", "build", "-buildvcs=true", "-o", plain, ".")
	if got := strings.TrimSpace(run(t, tmp, plain, "--version")); got != "resume-hooks (devel)-"+rev+"-dirty" {
		t.Errorf("plain go build: %q", got)
	}
}
