package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/codex"
	"forgectl.dev/forgectl/internal/vault"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
)

// Codex threads in archive, unarchive and rm.
//
// archive and unarchive run codex's own `codex archive|unarchive ID`: a
// rollout moved by hand into archived_sessions/ is a thread the real
// Codex (0.171.0) can neither resume nor unarchive, because its state
// database keeps the old rollout_path and no archived mark (docs/codex.md,
// TestCodexHandArchiveBreaksResume). Codex's archive is its own layout,
// so nothing of it goes into forgectl's archive.
//
// rm moves the thread's rollouts into forgectl's trash like a Claude
// session's files, and trash restore writes them back to the same paths:
// the database row is left as it was, and it names those paths, so the
// real Codex resumes (or unarchives) the thread again once they are back
// (TestCodexRmAndTrashRestore). While they are in the trash, codex resume
// of the thread fails with "no rollout found".

// codexRoots are a thread's rollouts: every segment, the newest first (the
// manifest's first file is what listing shows as the transcript). Their
// mtimes are kept on restore: Codex sweeps nothing, and the listing's
// last activity is the newest segment's mtime.
func codexRoots(s *harness.Session) []vault.Root {
	paths := s.Segments
	if len(paths) == 0 {
		paths = []string{s.Transcript}
	}
	roots := make([]vault.Root, 0, len(paths))
	for _, p := range paths {
		roots = append(roots, vault.Root{Path: p, Required: true})
	}
	return roots
}

// codexBinary resolves codex as resume does (FORGECTL_CODEX_BIN, then
// [resume] codex_binary_path, then PATH). Not found is a refusal: nothing
// can be archived without it, and nothing was touched.
func (a *app) codexBinary() (string, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return "", err
	}
	bin, err := config.CodexBinary(a.getenv, cfg, a.lookPath)
	if err != nil {
		a.errorf("%v", err)
		var be *config.BinaryError
		if errors.As(err, &be) && be.Hint != "" {
			a.hintf("%s (Codex threads are archived by codex itself); nothing was moved", be.Hint)
		}
		return "", exit(exitcode.Refused)
	}
	return bin, nil
}

// codexDir is where codex runs for a thread: its own directory, as resume
// runs it (project config there applies), else HOME.
func (a *app) codexDir(s *harness.Session) string {
	if s.Cwd != "" {
		if fi, err := os.Stat(s.Cwd); err == nil && fi.IsDir() {
			return s.Cwd
		}
	}
	return a.home
}

// codexRun runs `codex VERB ID` for each thread, one at a time, and says
// which were done: the id on stdout, a codex failure with its own error
// line, the thread named and a hint. A thread that went live since the
// selection is left alone.
func (a *app) codexRun(ctx context.Context, bin, verb string, ss []*harness.Session) error {
	failed, refused, n := 0, 0, 0
	h := a.harnessNamed(codex.Name)
	for _, s := range ss {
		if ctx.Err() != nil {
			return exit(exitcode.Interrupted)
		}
		if verb == "archive" {
			c := *s
			if gone := h.Refresh(&c); gone {
				a.errorf("codex thread %s: its rollout %s went away since the listing", s.ID, s.Transcript)
				a.hintf("'forgectl resume ls --all %s' shows where it is now", s.ID)
				failed++
				continue
			}
			if c.Live {
				a.errorf("codex thread %s started running (pid %d) while others were archived; it was left in place", s.ID, c.Pid)
				a.hintf("quit that codex, then run this again once codex lets go of the thread")
				failed++
				refused++
				continue
			}
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, verb, s.ID)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = a.codexDir(s), a.environ(), &stdout, &stderr
		if err := cmd.Run(); err != nil {
			failed++
			why := codexError(stderr.String())
			if why == "" {
				why = err.Error()
			}
			a.errorf("codex thread %s: '%s %s %s' failed: %s", s.ID, "codex", verb, s.ID, why)
			if verb == "archive" {
				a.hintf("nothing else was done to it; run 'codex archive %s' to see codex's whole message, or 'forgectl resume ls --all %s' to see where it is", s.ID, s.ID)
			} else {
				a.hintf("nothing else was done to it; run 'codex unarchive %s' to see codex's whole message, or 'forgectl resume ls --archived %s' to see where it is", s.ID, s.ID)
			}
			continue
		}
		n++
		fmt.Fprintln(a.stdout, s.ID)
	}
	done := "archived"
	if verb == "unarchive" {
		done = "unarchived"
	}
	a.notef("codex %s %d of %d threads", done, n, len(ss))
	switch {
	case failed > 0 && failed == refused:
		return exit(exitcode.Refused)
	case failed > 0:
		return exit(exitcode.Failed)
	}
	return nil
}

// codexError is the line of codex's stderr that says what went wrong: its
// "Error: …" line (a backtrace follows it), else the first line that is
// not a warning.
func codexError(stderr string) string {
	var first string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Error:") {
			return l
		}
		if first == "" && l != "" && !strings.HasPrefix(l, "WARNING") && !strings.HasPrefix(l, "warning") {
			first = l
		}
	}
	return first
}

// worse is the exit of two parts of one run: an interrupt, then a
// failure, then a refusal, then success.
func worse(a, b error) error {
	rank := func(err error) int {
		if err == nil {
			return 0
		}
		code, ok := cli.Code(err)
		switch {
		case !ok || code == exitcode.Interrupted || code == exitcode.Terminated:
			return 3
		case code == exitcode.Failed:
			return 2
		}
		return 1
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}
