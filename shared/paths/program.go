package paths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrGoRun refuses a binary built by `go run`: it lives in a temporary
// directory deleted when it exits, so nothing may be told to run it later.
var ErrGoRun = errors.New("a go run build, deleted when it exits")

// Program locates one binary of the suite the way every binary does: the
// path an environment variable names (forgectl sets FORGECTL_SELF when it
// dispatches), else the binary beside this executable (a release unpacked
// in one folder uses its own), else the binary on PATH.
type Program struct {
	Name   string // "forgectl", "resume-restart"
	EnvVar string // consulted first when set; "" for none
	Self   string // this executable's path; "" when unknown
	// SkipGoRun passes over a `go run` build and tries the next place;
	// without it, finding one is ErrGoRun.
	SkipGoRun bool
}

// Find returns the binary's absolute path. lookPath is exec.LookPath in
// production; it also checks that a named path is executable.
func (p Program) Find(getenv Getenv, lookPath func(string) (string, error)) (string, error) {
	var candidates []string
	if p.EnvVar != "" {
		if v := getenv(p.EnvVar); v != "" {
			switch found, err := lookPath(v); {
			case IsGoRunBuild(v) && p.SkipGoRun:
				// fall through to the other places
			case IsGoRunBuild(v):
				return "", fmt.Errorf("this %s is %w (%s, from %s)", p.Name, ErrGoRun, v, p.EnvVar)
			case err != nil:
				return "", fmt.Errorf("%s (%q) cannot be run: %v", p.EnvVar, v, err)
			default:
				candidates = append(candidates, found)
			}
		}
	}
	if len(candidates) == 0 && p.Self != "" && !(p.SkipGoRun && IsGoRunBuild(p.Self)) {
		beside := filepath.Join(filepath.Dir(p.Self), p.Name)
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			candidates = append(candidates, beside)
		}
	}
	if len(candidates) == 0 {
		found, err := lookPath(p.Name)
		if err != nil {
			return "", fmt.Errorf("%s not found: neither beside this program nor on PATH", p.Name)
		}
		candidates = append(candidates, found)
	}
	abs, err := filepath.Abs(candidates[0])
	if err != nil {
		return "", err
	}
	if IsGoRunBuild(abs) && !p.SkipGoRun {
		return "", fmt.Errorf("this %s is %w (%s)", p.Name, ErrGoRun, abs)
	}
	return abs, nil
}

// IsGoRunBuild reports a path inside a go-build temporary directory.
func IsGoRunBuild(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}
