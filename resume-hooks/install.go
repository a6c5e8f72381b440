package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/peterbourgon/ff/v3/ffcli"

	"forgectl.dev/resume-hooks/internal/watcher"
	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/paths"
)

func (a *app) installer() *watcher.Installer {
	return &watcher.Installer{
		Env:     a.hookEnv(hookstate.FilesFor(a.forgectlPaths())),
		Now:     a.now,
		Sleep:   a.sleep,
		Stdout:  a.stdout,
		Stderr:  a.stderr,
		Trigger: hookstate.TriggerManual,
	}
}

func (a *app) installCommand() *ffcli.Command {
	fs := a.prog.FlagSet("install")
	dryRun := fs.Bool("dry-run", false, "print the watcher's files without writing or loading them")
	return &ffcli.Command{
		Name:       "install",
		ShortUsage: "forgectl resume hooks install [--dry-run]",
		ShortHelp:  "install the watcher that runs the hooks when claude updates",
		LongHelp:   installHelp,
		FlagSet:    fs,
		UsageFunc:  helpText,
		Exec: func(ctx context.Context, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			b, err := a.bake(cfg)
			if err != nil {
				return err
			}
			if len(cfg.Resume.OnUpdate) == 0 {
				msg.Warnf(a.stderr, "no [[resume.on_update]] hooks are configured: the watcher will only record versions")
				a.hintf("add hooks to %s ('forgectl init' writes a commented example)", a.forgectlPaths().Config())
			}
			err = a.installer().Install(ctx, b, *dryRun)
			switch {
			case err == nil:
				return nil
			case errors.Is(err, watcher.ErrNoServiceManager):
				a.errorf("%v", err)
				a.hintf("install the units printed above where systemd runs, or add the cron line with 'crontab -e'")
			default:
				a.errorf("%v", err)
				a.hintf("run 'forgectl resume hooks install' again")
			}
			return cli.Exit(exitcode.Failed)
		},
	}
}

func (a *app) uninstallCommand() *ffcli.Command {
	fs := a.prog.FlagSet("uninstall")
	return &ffcli.Command{
		Name:       "uninstall",
		ShortUsage: "forgectl resume hooks uninstall",
		ShortHelp:  "unload and remove the watcher",
		LongHelp:   uninstallHelp,
		UsageFunc:  helpText,
		FlagSet:    fs,
		Exec: func(ctx context.Context, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if err := a.installer().Uninstall(ctx); err != nil {
				a.errorf("%v", err)
				return cli.Exit(exitcode.Failed)
			}
			return nil
		},
	}
}

// bake gathers the absolute paths the watcher carries.
func (a *app) bake(cfg *config.Config) (watcher.Bake, error) {
	fp := a.forgectlPaths()
	files := hookstate.FilesFor(fp)
	b := watcher.Bake{
		HerdrSocket: a.getenv("HERDR_SOCKET_PATH"),
		// Always: resolved here from FORGECTL_CONFIG_DIR or XDG_CONFIG_HOME,
		// neither of which the job's environment carries.
		ConfigDir: fp.Root,
		WorkDir:   files.Dir,
		Log:       files.WatcherLog(),
		Trigger:   hookstate.TriggerSystemd,
	}
	if a.goos == "darwin" {
		b.Trigger = hookstate.TriggerLaunchd
	}
	if a.getenv("CLAUDE_CONFIG_DIR") != "" {
		// Resolved as Claude Code resolves it ("~" expanded, relative to
		// where install runs), since the job starts elsewhere.
		dir, err := filepath.Abs(paths.ClaudeFrom(a.getenv, a.home).Root)
		if err != nil {
			a.errorf("CLAUDE_CONFIG_DIR: %v", err)
			return b, cli.Exit(exitcode.Failed)
		}
		b.ClaudeConfigDir = dir
	}
	var err error
	b.Forgectl, err = watcher.FindForgectl(a.getenv, a.self, a.lookPath)
	if errors.Is(err, watcher.ErrGoRun) {
		a.errorf("%v", err)
		a.hintf("build forgectl with 'go install' (or 'make install') and run 'forgectl resume hooks install' from there")
		return b, cli.Exit(exitcode.Refused)
	}
	if err != nil {
		a.errorf("%v", err)
		a.hintf("put forgectl on PATH, then install again")
		return b, cli.Exit(exitcode.Failed)
	}
	b.Claude, err = a.watchedClaude(cfg)
	if err != nil {
		a.errorf("%v", err)
		var be *config.BinaryError
		if errors.As(err, &be) && be.Hint != "" {
			a.hintf("%s", be.Hint)
		}
		return b, cli.Exit(exitcode.Failed)
	}
	if h, err := config.HerdrBinary(a.getenv, a.lookPath); err == nil {
		b.Herdr, _ = filepath.Abs(h)
	}
	return b, nil
}

// watchedClaude is the claude whose version `resume outdated` reads:
// $FORGECTL_CLAUDE_BIN, else ~/.local/bin/claude when it links into a
// versions directory, else the claude launch runs ([launch] binary_path,
// then PATH). The path is made absolute but not resolved: the link is what
// an update replaces.
func (a *app) watchedClaude(cfg *config.Config) (string, error) {
	if a.getenv("FORGECTL_CLAUDE_BIN") == "" {
		native := filepath.Join(a.home, ".local", "bin", "claude")
		if _, ok := claudever.VersionFromLink(native); ok {
			return native, nil
		}
	}
	p, err := config.ClaudeBinary(a.getenv, cfg, a.lookPath)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("claude at %s: %w", p, err)
	}
	return abs, nil
}
