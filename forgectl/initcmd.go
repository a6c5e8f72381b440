package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/fsutil"
	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) initCommand() *ffcli.Command {
	fs := newFlagSet("init", &a.flagOut)
	print := fs.Bool("print", false, "print the commented config to stdout instead of writing it")
	return &ffcli.Command{
		Name:      "init",
		FlagSet:   fs,
		UsageFunc: helpFunc(initHelp),
		Exec: func(ctx context.Context, args []string) error {
			if *print {
				fmt.Fprint(a.stdout, config.Template())
				return nil
			}
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
		},
	}
}
