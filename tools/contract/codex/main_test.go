//go:build contract

package codex

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"forgectl.dev/tools/contract"
	"forgectl.dev/tools/contract/tmuxrig"
	"forgectl.dev/tools/fakeapi"
)

// suite is what every scene shares: the installed CLIs, forgectl built
// once, and one loopback API stand-in.
type suite struct {
	work    string
	current string            // the Codex version most scenes run
	legacy  string            // the last legacy-format release
	codex   map[string]string // version -> bin/codex
	cache   string            // the install cache (codex/<version>/ under it)
	bin     string            // holds forgectl
	api     *fakeapi.Server
	record  string
	// forgectl lists Codex threads (ls --json --harness codex exits 0):
	// the checks through forgectl run only then.
	forgectl bool
}

// theSuite is written once by TestMain before any test runs and only read
// afterwards; tests cannot be handed arguments any other way.
var theSuite *suite

func TestMain(m *testing.M) {
	var s *suite
	os.Exit(tmuxrig.Run(m, "contract codex", func(ctx context.Context) (string, string, error) {
		var skip string
		var err error
		if s, skip, err = setup(ctx); skip != "" || err != nil {
			return "", skip, err
		}
		theSuite = s
		fmt.Printf("contract codex: codex %s at %s\ncontract codex: codex %s at %s\ncontract codex: API stand-in at %s, requests recorded in %s\n",
			s.current, s.codex[s.current], s.legacy, s.codex[s.legacy], s.api.URL(), s.record)
		if s.forgectl {
			fmt.Println("contract codex: forgectl lists Codex threads: the checks through forgectl RUN")
		} else {
			fmt.Println("contract codex: forgectl has no Codex support yet (ls --json --harness codex fails): the checks through forgectl are SKIPPED, only Codex's own files are asserted")
		}
		return s.work, "", nil
	}, func() {
		reportChecks()
		s.api.Close()
	}))
}

func setup(ctx context.Context) (*suite, string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, "", err
	}
	s := &suite{}
	s.current, s.legacy = contract.CodexVersions(os.Getenv)
	s.cache = contract.CacheDir(os.Getenv, home)
	in := contract.Installer{Cache: s.cache, Log: os.Stderr, Product: &contract.Codex}
	var skip string
	if s.codex, skip, err = in.InstallAll(ctx, s.current, s.legacy); skip != "" || err != nil {
		return nil, skip, err
	}
	if s.work, err = tmuxrig.WorkDir("forgectl-contract-codex-"); err != nil {
		return nil, "", err
	}
	s.bin = filepath.Join(s.work, "bin")
	if prebuilt := os.Getenv("FORGECTL_CONTRACT_FORGECTL"); prebuilt != "" {
		// A forgectl built elsewhere (another branch) to try the checks on.
		if err := os.MkdirAll(s.bin, 0o700); err != nil {
			return nil, "", err
		}
		if err := os.Symlink(prebuilt, filepath.Join(s.bin, "forgectl")); err != nil {
			return nil, "", err
		}
	} else {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(s.bin, "forgectl"), ".")
		cmd.Dir = filepath.Join("..", "..", "..", "forgectl")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, "", fmt.Errorf("go build forgectl: %v\n%s", err, out)
		}
	}
	s.forgectl = supportsCodex(ctx, filepath.Join(s.bin, "forgectl"), s.work)
	s.record = filepath.Join(s.work, "requests.jsonl")
	s.api, err = fakeapi.Start(fakeapi.Options{Record: s.record, Slow: 8 * time.Second, Lifetime: 20 * time.Minute})
	if err != nil {
		return nil, "", err
	}
	return s, "", nil
}

// supportsCodex asks the built forgectl, by behaviour, whether it lists
// Codex threads: `resume ls --json --harness codex` on an empty home exits
// 0 only then (a forgectl without it refuses the flag or the harness).
func supportsCodex(ctx context.Context, forgectl, work string) bool {
	dir, err := os.MkdirTemp(work, "probe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, ".codex", "sessions"), 0o700)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, forgectl, "resume", "ls", "--json", "--harness", "codex")
	cmd.Env = []string{"HOME=" + dir, "CODEX_HOME=" + filepath.Join(dir, ".codex"), "FORGECTL_CONFIG_DIR=" + filepath.Join(dir, ".config", "forgectl"), "PATH=/usr/bin:/bin"}
	cmd.Dir = dir
	return cmd.Run() == nil
}
