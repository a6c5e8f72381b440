// Package contract installs the real Claude Code and Codex CLIs at pinned
// versions for the contract tests, which prove forgectl's readers against
// what those CLIs actually write. The tests themselves are behind the "contract" build tag
// (go test -tags contract ./contract/) because they need tmux, the npm
// registry once, and a few minutes.
//
// The CLI is installed from the linux-x64 platform package, not the wrapper:
// on Node older than 22 the wrapper's install resolves to an old build, and
// the platform package holds the native binary itself. Each version lands in
// <cache>/<version>/claude, outside the repository (the binary is hundreds of
// megabytes). Codex's platform package (a static binary of about 315 MB)
// lands whole (its vendor folder) in <cache>/codex/<version>/, beside it.
package contract

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// The versions the suite is proven against: the current release and an
// older one, so that a live session can be outdated.
const (
	Current = "2.1.332"
	Older   = "2.1.197"
)

// PlatformPackage holds the native binary for linux-x64 (glibc).
const PlatformPackage = "@anthropic-ai/claude-code-linux-x64"

// The Codex versions the suite is proven against: the current release and
// 0.142.3, the last one to write the legacy rollout format (event_msg
// user_message, forks that copy their parent's history).
const (
	CodexCurrent = "0.171.0"
	CodexLegacy  = "0.142.3"
)

// Product says where one CLI's platform package is and how its binary
// answers --version. The zero Installer installs Claude Code.
type Product struct {
	// Name is the binary's name and, for all but Claude, the cache subfolder.
	Name string
	// Sub is the cache subfolder ("" for Claude Code, whose cache layout
	// predates Codex).
	Sub string
	// Spec is the npm spec of version's linux-x64 package.
	Spec func(version string) string
	// LatestOf is the package whose dist-tags.latest names the newest release.
	LatestOf string
	// Member is the binary's path inside the tarball, when the binary is
	// all that is installed (Claude Code).
	Member string
	// Tree, when set, is a folder of the tarball installed whole as the
	// version's folder: Codex refuses to start its background server
	// ("this CLI has no complete local package") without the files beside
	// its binary (codex-package.json, codex-resources/, codex-path/).
	Tree string
	// Bin is the binary's path inside the version's folder.
	Bin string
	// Says is what `<binary> --version` prints first for version: the whole
	// first line, or the part before a space.
	Says func(version string) string
	// Env is the environment --version runs with (besides HOME and PATH).
	Env []string
	// Pinned is the pair of versions the suite proves, after the
	// environment's overrides.
	Pinned func(getenv func(string) string) (string, string)
}

// Claude is Claude Code: a package of its own per platform.
var Claude = Product{
	Name:     "claude",
	Spec:     func(v string) string { return PlatformPackage + "@" + v },
	LatestOf: PlatformPackage,
	Member:   "package/claude",
	Bin:      "claude",
	Says:     func(v string) string { return v },
	Env:      []string{"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"},
	Pinned:   Versions,
}

// Codex is the OpenAI Codex CLI: its platform builds are versions of the
// launcher's own package with a suffix, @openai/codex@0.171.0-linux-x64,
// holding a static musl binary.
var Codex = Product{
	Name:     "codex",
	Sub:      "codex",
	Spec:     func(v string) string { return "@openai/codex@" + v + "-linux-x64" },
	LatestOf: "@openai/codex",
	Tree:     "package/vendor/x86_64-unknown-linux-musl/",
	Bin:      "bin/codex",
	Says:     func(v string) string { return "codex-cli " + v },
	Pinned:   CodexVersions,
}

// CodexVersions is the Codex pair to prove; $FORGECTL_CONTRACT_CODEX and
// $FORGECTL_CONTRACT_CODEX_LEGACY override it.
func CodexVersions(getenv func(string) string) (current, legacy string) {
	current, legacy = CodexCurrent, CodexLegacy
	if v := getenv("FORGECTL_CONTRACT_CODEX"); v != "" {
		current = v
	}
	if v := getenv("FORGECTL_CONTRACT_CODEX_LEGACY"); v != "" {
		legacy = v
	}
	return current, legacy
}

// SkipError means the CLI could not be fetched: the registry refused, the
// network failed, or there is no npm. The contract run reports SKIPPED and
// succeeds, so the rest of CI still runs.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return e.Reason }

// IsSkip reports whether err means "could not fetch", and why.
func IsSkip(err error) (string, bool) {
	var s *SkipError
	if errors.As(err, &s) {
		return s.Reason, true
	}
	return "", false
}

// CacheDir is where installs go: $FORGECTL_CONTRACT_CACHE, else
// $XDG_CACHE_HOME/forgectl-contract, else ~/.cache/forgectl-contract.
func CacheDir(getenv func(string) string, home string) string {
	if d := getenv("FORGECTL_CONTRACT_CACHE"); d != "" {
		return d
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "forgectl-contract")
	}
	return filepath.Join(home, ".cache", "forgectl-contract")
}

// Versions is the list to prove: $FORGECTL_CONTRACT_CURRENT and
// $FORGECTL_CONTRACT_OLDER override the pinned pair, so a new release can be
// tried without editing code.
func Versions(getenv func(string) string) (current, older string) {
	current, older = Current, Older
	if v := getenv("FORGECTL_CONTRACT_CURRENT"); v != "" {
		current = v
	}
	if v := getenv("FORGECTL_CONTRACT_OLDER"); v != "" {
		older = v
	}
	return current, older
}

// Installer fetches platform packages with npm into Cache.
type Installer struct {
	Cache string
	// NPM is the npm executable; "" means "npm" on PATH.
	NPM string
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// Timeout bounds one fetch (default 10m).
	Timeout time.Duration
	// Product is the CLI; nil means Claude Code.
	Product *Product
}

func (in Installer) product() *Product {
	if in.Product == nil {
		return &Claude
	}
	return in.Product
}

// Binary is where version's binary lives once installed.
func (in Installer) Binary(version string) string {
	p := in.product()
	return filepath.Join(in.Cache, p.Sub, version, p.Bin)
}

func (in Installer) logf(format string, args ...any) {
	if in.Log != nil {
		fmt.Fprintf(in.Log, format+"\n", args...)
	}
}

// InstallAll installs each version in turn and returns the binaries by
// version. When the registry cannot be reached it returns, with no error,
// the reason to skip, naming the product and the version.
func (in Installer) InstallAll(ctx context.Context, versions ...string) (bins map[string]string, skip string, err error) {
	bins = map[string]string{}
	for _, v := range versions {
		bin, err := in.Install(ctx, v)
		if reason, ok := IsSkip(err); ok {
			return nil, "cannot install " + in.product().Name + " " + v + ": " + reason, nil
		}
		if err != nil {
			return nil, "", err
		}
		bins[v] = bin
	}
	return bins, "", nil
}

// Install makes sure version is in the cache and returns its binary. It is
// idempotent and safe to run from several processes at once.
func (in Installer) Install(ctx context.Context, version string) (string, error) {
	if !validVersion(version) {
		return "", fmt.Errorf("not a version: %q", version)
	}
	p := in.product()
	bin := in.Binary(version)
	if ok, _ := p.hasVersion(ctx, bin, version); ok {
		return bin, nil
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", &SkipError{fmt.Sprintf("the pinned platform package is linux-x64; this is %s/%s", runtime.GOOS, runtime.GOARCH)}
	}
	npm := in.NPM
	if npm == "" {
		npm = "npm"
	}
	if _, err := exec.LookPath(npm); err != nil {
		return "", &SkipError{"npm is not installed: " + err.Error()}
	}
	if err := os.MkdirAll(in.Cache, 0o700); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(in.Cache, ".install.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	// Another process may have finished while we waited for the lock.
	if ok, _ := p.hasVersion(ctx, bin, version); ok {
		return bin, nil
	}

	tmp, err := os.MkdirTemp(in.Cache, ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	spec := p.Spec(version)
	in.logf("fetching %s from the npm registry", spec)
	tgz, err := in.pack(ctx, npm, spec, tmp)
	if err != nil {
		return "", err
	}
	// staged is what gets renamed into place, stagedBin the binary in it.
	staged := filepath.Join(tmp, p.Name)
	stagedBin, final := staged, bin
	if p.Tree != "" {
		stagedBin, final = filepath.Join(staged, p.Bin), filepath.Join(in.Cache, p.Sub, version)
		err = extractTree(tgz, p.Tree, staged)
	} else {
		err = extractFile(tgz, p.Member, staged)
	}
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", spec, err)
	}
	// The tarball is hundreds of megabytes: drop it before the rename.
	os.Remove(tgz)
	ok, got := p.hasVersion(ctx, stagedBin, version)
	if !ok {
		return "", fmt.Errorf("%s: the binary says %q, want %s", spec, got, version)
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return "", err
	}
	if p.Tree != "" {
		// A folder left by an older layout or a broken install, in our
		// own cache: a plain folder only, never a symlink.
		if fi, err := os.Lstat(final); err == nil && fi.IsDir() {
			if err := os.RemoveAll(final); err != nil {
				return "", err
			}
		}
	}
	if err := os.Rename(staged, final); err != nil {
		return "", err
	}
	in.logf("installed %s %s at %s", p.Name, version, bin)
	return bin, nil
}

// Latest asks the npm registry which version of the product's package its
// "latest" dist-tag names, so the suite also runs against the newest
// release the day it ships. A registry or network failure is a SkipError.
func (in Installer) Latest(ctx context.Context) (string, error) {
	npm := in.NPM
	if npm == "" {
		npm = "npm"
	}
	if _, err := exec.LookPath(npm); err != nil {
		return "", &SkipError{"npm is not installed: " + err.Error()}
	}
	pkg := in.product().LatestOf
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "view", "--loglevel=error", "--fetch-retries=1", pkg, "dist-tags.latest")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		reason := npmReason(stderr.String())
		if ctx.Err() != nil {
			reason = "timed out"
		}
		return "", &SkipError{fmt.Sprintf("npm view %s dist-tags.latest failed (%v): %s", pkg, err, reason)}
	}
	v := strings.TrimSpace(string(out))
	if !validVersion(v) {
		// The registry answered, with something that is not a version: a
		// change worth failing on, not a skip.
		return "", fmt.Errorf("npm view %s dist-tags.latest answered %q, not a version", pkg, v)
	}
	return v, nil
}

// pack runs npm pack into dir and returns the tarball. Any failure of npm
// itself is a fetch failure: the registry refused, or the network failed.
func (in Installer) pack(ctx context.Context, npm, spec, dir string) (string, error) {
	timeout := in.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "--loglevel=error", "--fetch-retries=1", "--fetch-retry-maxtimeout=10000", "--pack-destination", dir, spec)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		reason := npmReason(stderr.String())
		if reason == "" {
			reason = strings.TrimSpace(string(out))
		}
		if ctx.Err() != nil {
			reason = "timed out after " + timeout.String()
		}
		return "", &SkipError{fmt.Sprintf("npm pack %s failed (%v): %s", spec, err, reason)}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(matches) != 1 {
		return "", fmt.Errorf("npm pack %s left %d tarballs", spec, len(matches))
	}
	return matches[0], nil
}

// extractTree copies every regular file under prefix out of the tarball
// into dst, keeping their modes' execute bits.
func extractTree(tgz, prefix, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(h.Name, prefix)
		if !ok || h.Typeflag != tar.TypeReg || rel == "" {
			continue
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("tarball entry %q leaves its folder", h.Name)
		}
		path := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if h.Mode&0o111 != 0 {
			mode = 0o755
		}
		out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no %s in the tarball", prefix)
	}
	return nil
}

// extractFile copies member out of the tarball to dst (0755).
func extractFile(tgz, member, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("no %s in the tarball", member)
		}
		if err != nil {
			return err
		}
		if h.Name != member || h.Typeflag != tar.TypeReg {
			continue
		}
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
}

// hasVersion runs bin --version in a scratch HOME and checks the answer,
// "2.1.332 (Claude Code)" or "codex-cli 0.171.0".
func (p *Product) hasVersion(ctx context.Context, bin, version string) (bool, string) {
	if _, err := os.Stat(bin); err != nil {
		return false, ""
	}
	scratch, err := os.MkdirTemp("", p.Name+"-version-")
	if err != nil {
		return false, ""
	}
	defer os.RemoveAll(scratch)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	// CODEX_HOME too: --version must not touch a real ~/.codex.
	cmd.Env = append([]string{"HOME=" + scratch, "CODEX_HOME=" + filepath.Join(scratch, ".codex"), "PATH=/usr/bin:/bin"}, p.Env...)
	cmd.Dir = scratch
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	got := strings.TrimSpace(string(out))
	if err != nil {
		return false, got
	}
	first, _, _ := strings.Cut(got, "\n")
	want := p.Says(version)
	return first == want || strings.HasPrefix(first, want+" "), got
}

func validVersion(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// lock takes an exclusive flock on path, waiting for it.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// npmReason keeps the informative lines of npm's error output: its code
// and message, not the pointer to its debug log.
func npmReason(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "npm error"))
		if l == "" || strings.Contains(l, "complete log of this run") {
			continue
		}
		keep = append(keep, l)
		if len(keep) == 2 {
			break
		}
	}
	return strings.Join(keep, "; ")
}
