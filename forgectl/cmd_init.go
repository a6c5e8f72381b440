package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/settings"
	"forgectl.dev/forgectl/internal/shellword"
	"forgectl.dev/forgectl/internal/snapcheck"
	"forgectl.dev/forgectl/internal/udiff"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/paths"
)

func initCommand() *command {
	return &command{
		name: "init", desc: "write config.toml, or wire the Stop hook",
		usage: []usageLine{
			{"forgectl init", "write a commented config.toml"},
			{"forgectl init --stop-hook", "wire the Stop hook into Claude Code's settings.json"},
		},
		help:  func() string { return initHelp },
		flags: initFlags,
	}
}

func initFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	print := fs.Bool("print", false, "print the commented config to stdout instead of writing it")
	stopHook := fs.Bool("stop-hook", false, "merge the Stop hook into Claude Code's user settings.json")
	removeHook := fs.Bool("remove-stop-hook", false, "remove the Stop hook 'init --stop-hook' added")
	dryRun := fs.Bool("dry-run", false, "with --stop-hook or --remove-stop-hook: print the edit as a unified diff; write nothing")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return a.badUsage("init", "unexpected argument %q", args[0])
		}
		switch {
		case *stopHook && *removeHook:
			return a.badUsage("init", "--stop-hook and --remove-stop-hook exclude each other")
		case *print && (*stopHook || *removeHook):
			return a.badUsage("init", "--print writes the config template; it does not go with the Stop-hook flags")
		case *stopHook:
			return a.wireStopHook(*dryRun, false)
		case *removeHook:
			return a.wireStopHook(*dryRun, true)
		case *dryRun:
			return a.badUsage("init", "--dry-run goes with --stop-hook or --remove-stop-hook")
		case *print:
			fmt.Fprint(a.stdout, config.Template())
			return nil
		}
		return a.writeConfig()
	}
}

// badUsage is one error line and a hint, exit 2.
func (a *app) badUsage(cmd, format string, args ...any) error {
	a.errorf(format, args...)
	a.hintf("%s", a.prog.UsageHint(cmd+" "))
	return exit(exitcode.Usage)
}

func (a *app) writeConfig() error {
	path := a.forgectlPaths().Config()
	if _, err := os.Lstat(path); err == nil {
		a.errorf("%s already exists; not overwriting it", path)
		a.hintf("'forgectl init --print' shows the commented template to merge by hand")
		return exit(exitcode.Refused)
	}
	if err := fsutil.MkdirPrivate(filepath.Dir(path)); err != nil {
		a.errorf("%v", err)
		return exit(exitcode.Failed)
	}
	// O_EXCL: a file created between the check and now is still not overwritten.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fsutil.FilePerm)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			a.errorf("%s already exists; not overwriting it", path)
			return exit(exitcode.Refused)
		}
		a.errorf("%v", err)
		return exit(exitcode.Failed)
	}
	_, werr := f.WriteString(config.Template())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		a.errorf("writing %s: %v", path, werr)
		return exit(exitcode.Failed)
	}
	a.notef("wrote %s", path)
	return nil
}

// hookSuffix follows forgectl's path in the hook command init writes.
const hookSuffix = " resume snapshot --quiet"

// hookCommand is the Stop hook's command line and the program it names:
// bare "forgectl" when the forgectl on PATH is this executable, else this
// one's absolute path, since a hook does not inherit the interactive
// shell's PATH.
func (a *app) hookCommand() (cmd, prog string, err error) {
	self := a.self
	if self == "" {
		return "", "", errors.New("cannot tell where this forgectl is installed")
	}
	if paths.IsGoRunBuild(self) {
		return "", "", fmt.Errorf("this forgectl is %w (%s)", paths.ErrGoRun, self)
	}
	if onPath, err := a.lookPath("forgectl"); err == nil && sameFile(onPath, self) {
		return "forgectl" + hookSuffix, "forgectl", nil
	}
	if !utf8.ValidString(self) {
		// JSON would store U+FFFD for the bad bytes: a path to nothing.
		return "", "", fmt.Errorf("this forgectl's path %q is not valid UTF-8, which a settings.json string cannot hold", self)
	}
	return shellword.Quote(self) + hookSuffix, self, nil
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// addedByInit recognises a command hookCommand wrote, for any forgectl
// path: one simple command, forgectl's path quoted as hookCommand quotes
// it, then the suffix. It reads the command as sh does (shellword).
func addedByInit(cmd string) bool {
	cmds, err := shellword.Parse(cmd)
	if err != nil || len(cmds) != 1 || len(cmds[0]) != 4 {
		return false
	}
	prog := cmds[0][0]
	return prog.Literal && filepath.Base(prog.Text) == "forgectl" && shellword.Quote(prog.Text)+hookSuffix == cmd
}

// runsProgram reports whether out, as Claude Code reads it, has a Stop hook
// running cmd whose program is prog: the check that what init wrote
// round-trips through JSON and sh to the file it means.
func runsProgram(out []byte, cmd, prog, home string) bool {
	hooks, err := settings.ReadHooks(out)
	if err != nil {
		return false
	}
	for _, h := range hooks.List {
		if _, p, ok := snapcheck.Program(h, home); h.Event == "Stop" && h.Command == cmd && ok && p == prog {
			return true
		}
	}
	return false
}

// wireStopHook adds (or removes) the Stop hook in the user-scope
// settings.json, editing only the bytes of the entry.
func (a *app) wireStopHook(dryRun, remove bool) error {
	path := a.claudePaths().Settings()
	doc, err := settings.Read(path)
	if err != nil {
		// Refused, as a file that is not JSON is: the edit cannot start.
		a.errorf("%s", settings.ReadMessage(err))
		if hint := settings.ReadHint(err, path); hint != "" {
			a.hintf("%s; nothing was changed", hint)
		}
		return exit(exitcode.Refused)
	}
	var out []byte
	var changed bool
	var summary string
	if remove {
		var removed []string
		out, removed, err = settings.RemoveStopHook(doc.Data, addedByInit)
		changed = len(removed) > 0
		if changed {
			summary = fmt.Sprintf("removed the Stop hook `%s` from %s", strings.Join(removed, "`, `"), path)
		}
	} else {
		var cmd, prog string
		if cmd, prog, err = a.hookCommand(); err != nil {
			a.errorf("%v", err)
			a.hintf("build forgectl ('make build', or 'go install forgectl.dev/forgectl@latest') and run init from there")
			return exit(exitcode.Refused)
		}
		var res settings.Result
		res, err = settings.AddStopHook(doc.Data, cmd, snapcheck.RunsSnapshot)
		out, changed = res.Out, res.Changed
		if err == nil && !changed {
			if prog, missing := snapcheck.MissingProgram(res.Existing, a.home); missing {
				// Adding a second hook would hide the broken one, not fix it.
				a.errorf("the Stop hook in %s runs %s, which is not an executable file", path, prog)
				a.hintf("remove that entry from %s (or point it at %s), then run 'forgectl init --stop-hook' again", path, shellword.Quote(a.self))
				return exit(exitcode.Failed)
			}
			a.notef("already wired: the Stop hook in %s runs `%s`", path, snapcheck.Display(res.Existing))
			return nil
		}
		if err == nil && !runsProgram(out, cmd, prog, a.home) {
			a.errorf("cannot write a Stop hook that runs %s: the command %s does not read back as that file", a.self, cmd)
			a.hintf("install forgectl in a folder whose path is plain text, or add the hook by hand; nothing was changed")
			return exit(exitcode.Refused)
		}
		summary = fmt.Sprintf("wired the Stop hook `%s` into %s", cmd, path)
	}
	var se *settings.SyntaxError
	var sh *settings.ShapeError
	var ee *settings.EncodingError
	switch {
	case errors.As(err, &se):
		a.errorf("%s:%d:%d: %s", path, se.Line, se.Column, se.Msg)
		a.hintf("fix the JSON by hand (Claude Code reads none of this file while it does not parse); nothing was changed")
		return exit(exitcode.Refused)
	case errors.As(err, &sh):
		a.errorf("%s: %v", path, sh)
		a.hintf(`"hooks" must be an object and "hooks"."Stop" an array; fix it by hand, nothing was changed`)
		return exit(exitcode.Refused)
	case errors.As(err, &ee):
		a.errorf("%s: %v", path, ee)
		a.hintf("save it as UTF-8 (Claude Code reads that too; 'iconv -f UTF-16 -t UTF-8'), then run this again, or merge the hook by hand; nothing was changed")
		return exit(exitcode.Refused)
	case err != nil:
		a.errorf("%s: %v", path, err)
		return exit(exitcode.Failed)
	}
	if !changed {
		a.notef("%s has no Stop hook that 'forgectl init --stop-hook' added; nothing to remove", path)
		return nil
	}
	if dryRun {
		oldName := path
		if !doc.Exists {
			oldName = "/dev/null"
		}
		if err := udiff.Write(a.stdout, oldName, path, doc.Data, out); err != nil {
			return err
		}
		return nil
	}
	backup, err := doc.Write(out)
	if err != nil {
		a.errorf("cannot write %s: %v", doc.Real, err)
		switch {
		case errors.Is(err, settings.ErrReadOnly):
			a.hintf("make it writable (chmod u+w %s) or add the hook by hand; nothing was changed", shellword.Quote(doc.Real))
		case errors.Is(err, settings.ErrChanged):
			a.hintf("run the command again: it edits the file as it is now")
		case errors.As(err, new(*settings.OwnerError)):
			flag := "--stop-hook"
			if remove {
				flag = "--remove-stop-hook"
			}
			a.hintf("run it as the file's owner (sudo -u %s forgectl init %s), or edit the file by hand; nothing was changed", shellword.Quote(doc.Owner()), flag)
		}
		return exit(exitcode.Failed)
	}
	if doc.Real != path {
		summary += " (through the symlink, into " + doc.Real + ")"
	}
	a.notef("%s", summary)
	if backup != "" {
		a.notef("the previous content is in %s", backup)
	}
	return nil
}

const initHelp = `
forgectl init — write a commented config.toml, or wire the Stop hook

USAGE
  forgectl init [--print]
  forgectl init --stop-hook [--dry-run]
  forgectl init --remove-stop-hook [--dry-run]

Without flags, writes forgectl's config.toml (in $FORGECTL_CONFIG_DIR, else
~/.config/forgectl or ~/Library/Application Support/forgectl) with a
commented example of every section: [launch.defaults], [[launch.project]],
[proxy], and [[resume.on_update]]. An existing file is never overwritten
(exit 2).

--stop-hook merges the Stop hook that runs 'forgectl resume snapshot
--quiet' into Claude Code's user settings ($CLAUDE_CONFIG_DIR/settings.json,
else ~/.claude/settings.json). Only the entry's own text is inserted,
indented like its neighbours: every other key keeps its value, its place
and its bytes, other Stop hooks included. The command names forgectl bare
when the forgectl on PATH is this one, else by this one's absolute path
(hooks do not inherit the interactive shell's PATH). A symlinked file is
followed and written through: atomically, beside the real file, keeping its
mode, with the previous content in <real file>.forgectl-backup. A missing
file is created (0600). When a Stop hook already runs the snapshotter,
nothing changes. A file that is not valid JSON is refused with
file:line:column and left untouched.

The path is quoted for /bin/sh, which runs hook commands, so any install
folder works (spaces, quotes, $, backslashes). The edit goes where Claude
Code reads: into the last of duplicate "hooks" or "Stop" keys. A leading
byte-order mark is kept; a UTF-16 file is read but not rewritten (exit 2).
The file keeps its owner: when it cannot (init run as someone who may not
give the new file to the old owner), nothing is written (exit 1).

--remove-stop-hook removes only the Stop entry --stop-hook writes (a group
holding just that one command), then a "Stop" or "hooks" it left empty.

FLAGS
  --print              print the config template to stdout instead
  --stop-hook          merge the Stop hook into the user settings.json
  --remove-stop-hook   remove the Stop hook --stop-hook added
  --dry-run            print the settings edit as a unified diff; write nothing

EXIT STATUS
  0    done, or nothing to do (already wired; nothing to remove)
  1    the file could not be written (read-only, owned by another user, or
       changed under the edit), or a Stop hook already runs the snapshotter
       from a program that is not there
  2    refused: config.toml exists; settings.json cannot be read (a
       directory, a FIFO, a dangling link, no permission), is not valid
       JSON, is UTF-16, or its "hooks" is not an object; a go run build; or
       bad usage
  Any other code is a failure.
`
