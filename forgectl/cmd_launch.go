package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"forgectl.dev/forgectl/internal/shellword"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
)

func launchCommand() *command {
	return &command{
		name: "launch", desc: "start claude here with this directory's profile",
		usage: []usageLine{{"forgectl launch [--dry-run]", "start claude here with this directory's launch profile"}},
		subs:  []*command{launchDoctorCommand()},
		help:  func() string { return launchHelp },
		flags: launchFlags,
	}
}

func launchFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	dryRun := fs.Bool("dry-run", false, "print the resolved cwd, argv and environment; exec nothing")
	return func(ctx context.Context, args []string) error {
		return a.launch(args, *dryRun)
	}
}

// launch starts claude in the current directory with its resolved profile;
// extra arguments are passed through to claude after the profile's flags.
func (a *app) launch(extra []string, dryRun bool) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	proxyEnv, err := cfg.ProxyEnv()
	if err != nil {
		a.refuseProxy(err)
		return exit(exitcode.Refused)
	}
	cwd, err := os.Getwd()
	if err != nil {
		a.errorf("cannot read the current directory: %v", err)
		return exit(exitcode.Failed)
	}
	prof, bin, err := a.profileFor(cfg, cwd)
	if err != nil {
		return err
	}
	argv := append([]string{bin}, prof.Args(a.stdoutTTY)...)
	argv = append(argv, extra...)
	env := prof.Environ(proxyEnv)
	if dryRun {
		fmt.Fprintf(a.stdout, "cwd: %s\n", cwd)
		fmt.Fprintf(a.stdout, "argv: %s\n", shellword.Join(argv))
		for _, kv := range env {
			fmt.Fprintf(a.stdout, "env: %s\n", shellword.Quote(kv))
		}
		if prof.Match != "" {
			fmt.Fprintf(a.stdout, "profile: [[launch.project]] match = %s\n", prof.Match)
		}
		return nil
	}
	if err := a.exec(bin, argv, withEnv(a.environ(), env)); err != nil {
		a.errorf("cannot exec %s: %v", bin, err)
		return exit(exitcode.Failed)
	}
	return nil
}

// profileFor resolves the launch profile of dir and the claude it runs,
// refusing (exit 2) a harness other than claude and failing (exit 1) when
// claude cannot be found; launch and resume share it so they refuse alike.
func (a *app) profileFor(cfg *config.Config, dir string) (config.Resolved, string, error) {
	prof := config.Resolve(cfg, dir, a.home)
	if prof.Harness != "" && prof.Harness != "claude" {
		a.why("harness_unsupported")
		a.errorf("harness %q is not supported yet", prof.Harness)
		a.hintf("set harness = \"claude\" (or remove it) in %s", cfg.Path)
		return prof, "", exit(exitcode.Refused)
	}
	bin, err := prof.ClaudeBinary(a.getenv, cfg.Path, a.lookPath)
	if err != nil {
		a.why("claude_not_found")
		a.errorf("%v", err)
		var be *config.BinaryError
		if errors.As(err, &be) && be.Hint != "" {
			a.hintf("%s", be.Hint)
		}
		return prof, "", exit(exitcode.Failed)
	}
	return prof, bin, nil
}

const launchHelp = `
forgectl launch — start claude here with this directory's launch profile

USAGE
  forgectl launch [--dry-run] [CLAUDE ARGS...]
  forgectl launch doctor [--json]

Resolves [launch.defaults] merged with the longest-matching [[launch.project]]
for the current directory into claude's flags (--model, --effort,
--permission-mode, --add-dir, and --allow-dangerously-skip-permissions only
when stdout is a terminal) and environment ([launch] env, [proxy]
launch_profile variables), then execs claude in place. CLAUDE ARGS follow the
profile's flags (use -- before them if they start with a dash).

FLAGS
  --dry-run   print cwd, argv and added environment; exec nothing

` + exitcode.Table + `
`
