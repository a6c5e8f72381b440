// Package contract installs the real Claude Code CLI at pinned versions for
// the contract tests, which prove forgectl's readers against what that CLI
// actually writes. The tests themselves are behind the "contract" build tag
// (go test -tags contract ./contract/) because they need tmux, the npm
// registry once, and a few minutes.
//
// The CLI is installed from the linux-x64 platform package, not the wrapper:
// on Node older than 22 the wrapper's install resolves to an old build, and
// the platform package holds the native binary itself. Each version lands in
// <cache>/<version>/claude, outside the repository (the binary is hundreds of
// megabytes).
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
}

// Binary is where version's claude lives once installed.
func (in Installer) Binary(version string) string {
	return filepath.Join(in.Cache, version, "claude")
}

func (in Installer) logf(format string, args ...any) {
	if in.Log != nil {
		fmt.Fprintf(in.Log, format+"\n", args...)
	}
}

// Install makes sure version is in the cache and returns its binary. It is
// idempotent and safe to run from several processes at once.
func (in Installer) Install(ctx context.Context, version string) (string, error) {
	if !validVersion(version) {
		return "", fmt.Errorf("not a version: %q", version)
	}
	bin := in.Binary(version)
	if ok, _ := hasVersion(ctx, bin, version); ok {
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
	if ok, _ := hasVersion(ctx, bin, version); ok {
		return bin, nil
	}

	tmp, err := os.MkdirTemp(in.Cache, ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	spec := PlatformPackage + "@" + version
	in.logf("fetching %s from the npm registry", spec)
	tgz, err := in.pack(ctx, npm, spec, tmp)
	if err != nil {
		return "", err
	}
	staged := filepath.Join(tmp, "claude")
	if err := extractBinary(tgz, staged); err != nil {
		return "", fmt.Errorf("unpack %s: %w", spec, err)
	}
	ok, got := hasVersion(ctx, staged, version)
	if !ok {
		return "", fmt.Errorf("%s: the binary says %q, want %s", spec, got, version)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		return "", err
	}
	if err := os.Rename(staged, bin); err != nil {
		return "", err
	}
	in.logf("installed claude %s at %s", version, bin)
	return bin, nil
}

// Latest asks the npm registry which version of the platform package its
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
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "view", "--loglevel=error", "--fetch-retries=1", PlatformPackage, "dist-tags.latest")
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
		return "", &SkipError{fmt.Sprintf("npm view %s dist-tags.latest failed (%v): %s", PlatformPackage, err, reason)}
	}
	v := strings.TrimSpace(string(out))
	if !validVersion(v) {
		// The registry answered, with something that is not a version: a
		// change worth failing on, not a skip.
		return "", fmt.Errorf("npm view %s dist-tags.latest answered %q, not a version", PlatformPackage, v)
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

// extractBinary copies package/claude out of the tarball to dst (0755).
func extractBinary(tgz, dst string) error {
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
			return errors.New("no package/claude in the tarball")
		}
		if err != nil {
			return err
		}
		if h.Name != "package/claude" || h.Typeflag != tar.TypeReg {
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
// "2.1.332 (Claude Code)".
func hasVersion(ctx context.Context, bin, version string) (bool, string) {
	if _, err := os.Stat(bin); err != nil {
		return false, ""
	}
	scratch, err := os.MkdirTemp("", "claude-version-")
	if err != nil {
		return false, ""
	}
	defer os.RemoveAll(scratch)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"HOME=" + scratch, "PATH=/usr/bin:/bin", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	cmd.Dir = scratch
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	got := strings.TrimSpace(string(out))
	if err != nil {
		return false, got
	}
	return strings.HasPrefix(got, version+" "), got
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
