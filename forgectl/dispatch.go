package main

import (
	"context"
	"os/signal"
	"path/filepath"
	"syscall"

	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snaprun"
	"forgectl.dev/shared/version"
)

// dispatch runs `resume snapshot` in-process and execs a sibling for
// `resume outdated|restart|hooks`. It reports ok=false when args are
// forgectl's own.
//
// The snapshot is the exception to exec'ing siblings: it runs on every
// Claude Code turn, and starting a second process costs more than the
// snapshot itself (tools/benchsnap measured forgectl-then-exec at 1.8x
// resume-snapshot alone, against a 1.5x budget). The code is the same
// package the resume-snapshot binary runs, shared/snaprun.
func (a *app) dispatch(ctx context.Context, args []string) (int, bool) {
	if len(args) < 2 || args[0] != "resume" {
		return 0, false
	}
	if args[1] == "snapshot" {
		// A closed stdout must be a write error, not a death by SIGPIPE:
		// the hook's exit status has to stay 0.
		signal.Ignore(syscall.SIGPIPE)
		return snaprun.Run(ctx, "forgectl", version.String, args[2:], a.stdin, a.stdout, a.stderr), true
	}
	sib := siblingOf(args[1])
	if sib == nil {
		return 0, false
	}
	path, err := a.findSibling(sib.binary)
	if err != nil {
		a.errorf("%s is not installed beside forgectl or on PATH", sib.binary)
		a.hintf("install it beside forgectl (%s) or on PATH: 'go install forgectl.dev/%s@latest'", filepath.Dir(a.self), sib.binary)
		return exitcode.Failed, true
	}
	argv := append([]string{path}, sib.lead...)
	argv = append(argv, args[2:]...)
	env := withEnv(a.environ(), []string{"FORGECTL_SELF=" + a.self})
	if err := a.exec(path, argv, env); err != nil {
		a.errorf("cannot run %s: %v", path, err)
		return exitcode.Failed, true
	}
	return exitcode.OK, true
}

// siblingOf is the sibling binary that runs `forgectl resume <name>`, nil
// for none (forgectl's own commands).
func siblingOf(name string) *sibling {
	for _, c := range resumeCommand().subs {
		if c.name == name && c.sibling != nil && c.sibling.binary != "" {
			return c.sibling
		}
	}
	return nil
}

// findSibling looks beside this executable first, so a release unpacked in
// one folder uses its own binaries, then on PATH.
func (a *app) findSibling(name string) (string, error) {
	return paths.Program{Name: name, Self: a.self, SkipGoRun: true}.Find(a.getenv, a.lookPath)
}

// withEnv overlays KEY=VALUE pairs on an environment, replacing any earlier
// value of the same key so the child sees exactly one.
func withEnv(base, add []string) []string {
	keys := make(map[string]bool, len(add))
	for _, kv := range add {
		keys[envKey(kv)] = true
	}
	out := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		if !keys[envKey(kv)] {
			out = append(out, kv)
		}
	}
	return append(out, add...)
}

func envKey(kv string) string {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i]
		}
	}
	return kv
}
