package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/shellword"
	"forgectl.dev/forgectl/internal/vault"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
)

// Sessions of a harness that archives them itself (harness.Archiver:
// Codex) in archive, unarchive and rm.
//
// archive and unarchive run the harness's own program (`codex archive|
// unarchive ID`): a rollout moved by hand into archived_sessions/ is a
// thread the real Codex (0.171.0) can neither resume nor unarchive,
// because its state database keeps the old rollout_path and no archived
// mark (docs/codex.md, TestCodexHandArchiveBreaksResume). Its archive is
// its own layout, so nothing of it goes into forgectl's archive.
//
// rm moves the session's files into forgectl's trash like a Claude Code
// session's, and trash restore writes them back to the same paths: Codex's
// database row is left as it was, and it names those paths, so the real
// Codex resumes (or unarchives) the thread again once they are back
// (TestCodexRmAndTrashRestore). While they are in the trash, codex resume
// of the thread fails with "no rollout found".

// archiverOf is s's harness as an Archiver, when it is one.
func (a *app) archiverOf(s *harness.Session) (harness.Archiver, bool) {
	if s.Harness == "" {
		return nil, false
	}
	return harness.As[harness.Archiver](a.harnessOf(s))
}

// archivers are the harnesses listed that archive their own sessions.
func (a *app) archivers() []string {
	var out []string
	for _, h := range a.harnesses() {
		if _, ok := harness.As[harness.Archiver](h); ok {
			out = append(out, h.Name())
		}
	}
	return out
}

// selfArchived says s is archived by its own harness (Codex's
// archived_sessions/), not in forgectl's archive.
func (a *app) selfArchived(s *harness.Session) bool {
	_, ok := a.archiverOf(s)
	return ok && s.HiddenReason == archivedReason
}

// ownRoots are the files of a session of such a harness that rm moves:
// every segment, the newest first (the manifest's first file is what a
// listing shows as the transcript). Their mtimes are kept on restore:
// Codex sweeps nothing, and the listing's last activity is the newest
// segment's mtime.
func ownRoots(s *harness.Session) []vault.Root {
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

// archiverBinaries resolves the program of each harness of ss that
// archives its own sessions, as resume finds it (for Codex:
// FORGECTL_CODEX_BIN, then [resume] codex_binary_path, then PATH). Not
// found is a refusal: nothing was touched.
func (a *app) archiverBinaries(ss []*harness.Session) (map[string]string, error) {
	bins := map[string]string{}
	for _, s := range ss {
		ar, ok := a.archiverOf(s)
		if !ok || bins[s.Harness] != "" {
			continue
		}
		cfg, err := a.loadConfig()
		if err != nil {
			return nil, err
		}
		bin, err := ar.Binary(a.getenv, cfg, a.lookPath)
		if err != nil {
			a.errorf("%v", err)
			var be *config.BinaryError
			if errors.As(err, &be) && be.Hint != "" {
				a.hintf("%s (%s sessions are archived by %s itself); nothing was moved", be.Hint, s.Harness, s.Harness)
			}
			return nil, exit(exitcode.Refused)
		}
		bins[s.Harness] = bin
	}
	return bins, nil
}

// ownDir is where the harness's program runs for s: its own directory, as
// resume runs it (project config there applies), else HOME.
func (a *app) ownDir(s *harness.Session) string {
	if s.Cwd != "" {
		if fi, err := os.Stat(s.Cwd); err == nil && fi.IsDir() {
			return s.Cwd
		}
	}
	return a.home
}

// ownArgv is the command that archives (undo: unarchives) s.
func (a *app) ownArgv(bin string, s *harness.Session, undo bool) []string {
	ar, _ := a.archiverOf(s)
	return append([]string{bin}, ar.ArchiveArgs(s, undo)...)
}

// archiveOwn runs each session's own archive (undo: unarchive), one at a
// time, and says which were done: the id on stdout; a failure with the
// program's own error line, the session named and a hint. A session that
// went live since the selection is left alone.
func (a *app) archiveOwn(ctx context.Context, bins map[string]string, ss []*harness.Session, undo bool) error {
	failed, refused, n := 0, 0, 0
	done := "archived"
	if undo {
		done = "unarchived"
	}
	for _, s := range ss {
		if ctx.Err() != nil {
			return exit(exitcode.Interrupted)
		}
		if !undo {
			c := *s
			if gone := a.harnessOf(s).Refresh(&c); gone {
				a.errorf("%s thread %s: its file %s went away since the listing", s.Harness, s.ID, s.Transcript)
				a.hintf("'forgectl resume ls --all %s' shows where it is now", s.ID)
				failed++
				continue
			}
			if c.Live {
				a.errorf("%s thread %s started running (pid %d) meanwhile; it was left in place", s.Harness, s.ID, c.Pid)
				a.hintf("quit that %s, then run this again once it lets go of the thread", s.Harness)
				failed++
				refused++
				continue
			}
		}
		argv := a.ownArgv(bins[s.Harness], s, undo)
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = a.ownDir(s), a.environ(), &stdout, &stderr
		// A child codex leaves behind (its background server) may hold
		// the output open: once codex itself is gone, stop waiting.
		cmd.WaitDelay = 5 * time.Second
		if err := cmd.Run(); err != nil {
			failed++
			why := programError(stderr.String())
			if why == "" {
				why = err.Error()
			}
			byHand := shellword.Join(append([]string{s.Harness}, argv[1:]...))
			a.errorf("%s thread %s: '%s' failed: %s", s.Harness, s.ID, byHand, why)
			where := "ls --all"
			if undo {
				where = "ls --archived"
			}
			a.hintf("nothing else was done to it; run '%s' to see %s's whole message, or 'forgectl resume %s %s' to see where it is", byHand, s.Harness, where, s.ID)
			continue
		}
		n++
		fmt.Fprintln(a.stdout, s.ID)
	}
	a.notef("%s %s %d of %d threads", strings.Join(harnessesOf(ss), ", "), done, n, len(ss))
	switch {
	case failed > 0 && failed == refused:
		return exit(exitcode.Refused)
	case failed > 0:
		return exit(exitcode.Failed)
	}
	return nil
}

func harnessesOf(ss []*harness.Session) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s.Harness) {
			out = append(out, s.Harness)
		}
	}
	return out
}

// programError is the line of codex's stderr that says what went wrong: its
// "Error: …" line (a backtrace follows it), else the first line that is
// not a warning.
func programError(stderr string) string {
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
