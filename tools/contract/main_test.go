//go:build contract

package contract

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/tools/contract/tmuxrig"
	"forgectl.dev/tools/fakeapi"
)

// suite is what every contract test shares: the installed CLIs, the
// workspace binaries built once, and one loopback API stand-in.
type suite struct {
	work    string
	current string // version
	older   string
	claude  map[string]string // version -> binary
	bin     string            // forgectl, resume-snapshot, resume-restart, fakeherdr
	api     *fakeapi.Server
	record  string
}

// theSuite is written once by TestMain before any test runs and only read
// afterwards; tests cannot be handed arguments any other way.
var theSuite *suite

func TestMain(m *testing.M) {
	var s *suite
	os.Exit(tmuxrig.Run(m, "contract", func(ctx context.Context) (string, string, error) {
		var skip string
		var err error
		if s, skip, err = setup(ctx); skip != "" || err != nil {
			return "", skip, err
		}
		theSuite = s
		fmt.Printf("contract: claude %s at %s\ncontract: claude %s at %s\ncontract: API stand-in at %s, requests recorded in %s\n",
			s.current, s.claude[s.current], s.older, s.claude[s.older], s.api.URL(), s.record)
		return s.work, "", nil
	}, func() { s.api.Close() }))
}

func setup(ctx context.Context) (*suite, string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, "", err
	}
	s := &suite{}
	s.current, s.older = Versions(os.Getenv)
	in := Installer{Cache: CacheDir(os.Getenv, home), Log: os.Stderr}
	var skip string
	if s.claude, skip, err = in.InstallAll(ctx, s.current, s.older); skip != "" || err != nil {
		return nil, skip, err
	}
	if s.work, err = tmuxrig.WorkDir("forgectl-contract-"); err != nil {
		return nil, "", err
	}
	s.bin = filepath.Join(s.work, "bin")
	for _, mod := range []string{"forgectl", "resume-snapshot", "resume-restart"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(s.bin, mod), ".")
		cmd.Dir = filepath.Join("..", "..", mod)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, "", fmt.Errorf("go build %s: %v\n%s", mod, err, out)
		}
	}
	// The herdr stand-in the restart runner drives: a real CLI contract
	// over a private tmux server (tools/fakeherdr).
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(s.bin, "fakeherdr"), "./fakeherdr")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("go build fakeherdr: %v\n%s", err, out)
	}
	s.record = filepath.Join(s.work, "requests.jsonl")
	s.api, err = fakeapi.Start(fakeapi.Options{Record: s.record, Slow: 6 * time.Second, Lifetime: 20 * time.Minute})
	if err != nil {
		return nil, "", err
	}
	return s, "", nil
}
