package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"forgectl.dev/resume-hooks/internal/audit"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/msg"
)

// LoadAttempts is how many times a refused load is tried: launchd can
// refuse a bootstrap that follows a bootout too closely.
const LoadAttempts = 4

// Installer installs and removes the watcher.
type Installer struct {
	Env     hookstate.Env // GOOS, Home, UID, Getenv, Run, Files
	Now     func() time.Time
	Sleep   func(ctx context.Context, d time.Duration) error
	Stdout  io.Writer
	Stderr  io.Writer
	Trigger string // of the audit line: always manual today
	// RetryDelay separates load attempts; default 1s.
	RetryDelay time.Duration
}

// ErrNoServiceManager is an install where no systemd user instance runs.
var ErrNoServiceManager = errors.New("no systemd user instance runs here: the watcher was not installed")

func (in *Installer) warn(text string) {
	msg.Warnf(in.Stderr, "%s", text)
}

// Install writes and loads the watcher for b. dryRun prints the files and
// writes, loads and records nothing.
func (in *Installer) Install(ctx context.Context, b Bake, dryRun bool) error {
	if err := b.Validate(); err != nil {
		return err
	}
	for _, w := range b.Warnings(in.Env.UID) {
		in.warn(w)
	}
	if b.Herdr == "" {
		in.warn("herdr was not found: a restart hook will fail until it is on PATH or FORGECTL_HERDR_BIN names it (then install again)")
	}
	switch in.Env.GOOS {
	case "darwin":
		return in.installLaunchd(ctx, b, dryRun)
	case "linux":
		return in.installSystemd(ctx, b, dryRun)
	}
	return fmt.Errorf("no watcher for %s: run forgectl resume hooks run from your own scheduler", in.Env.GOOS)
}

func (in *Installer) installLaunchd(ctx context.Context, b Bake, dryRun bool) error {
	plist := hookstate.PlistPath(in.Env.Home)
	content := Plist(b)
	if dryRun {
		fmt.Fprint(in.Stdout, content)
		return nil
	}
	if err := in.prepare(b); err != nil {
		return err
	}
	target := hookstate.LaunchdTarget(in.Env.UID)
	// Unload first: a failed unload leaves the old file in place, so the
	// next install tries again instead of finding it "already installed".
	if res := in.Env.Run(ctx, "launchctl", "print", target); res.Err == nil && res.Code == 0 {
		if res := in.Env.Run(ctx, "launchctl", "bootout", target); res.Err != nil || res.Code != 0 {
			return in.record(hookstate.EventInstall, plist, fmt.Errorf("cannot unload the loaded watcher (launchctl bootout: %s); the old plist stays in place", describe(res)))
		}
	}
	if err := os.MkdirAll(filepath.Dir(plist), 0o755); err != nil {
		return in.record(hookstate.EventInstall, plist, err)
	}
	if err := fsutil.WriteAtomic(plist, []byte(content), 0o644); err != nil {
		return in.record(hookstate.EventInstall, plist, err)
	}
	var res hookstate.Result
	for attempt := 1; attempt <= LoadAttempts; attempt++ {
		res = in.Env.Run(ctx, "launchctl", "bootstrap", "gui/"+fmt.Sprint(in.Env.UID), plist)
		if res.Err == nil && res.Code == 0 {
			break
		}
		if attempt < LoadAttempts {
			if err := in.sleep(ctx); err != nil {
				return in.record(hookstate.EventInstall, plist, err)
			}
		}
	}
	if res.Err != nil || res.Code != 0 {
		return in.record(hookstate.EventInstall, plist, fmt.Errorf("wrote %s but launchd refused to load it %d times (launchctl bootstrap: %s)", plist, LoadAttempts, describe(res)))
	}
	fmt.Fprintf(in.Stdout, "installed and loaded %s\nwatching %s and %s; also at load and every %d minutes\n", plist, b.Claude, filepath.Dir(b.Claude), Interval/60)
	return in.record(hookstate.EventInstall, plist, nil)
}

func (in *Installer) installSystemd(ctx context.Context, b Bake, dryRun bool) error {
	files := hookstate.UnitFiles(in.Env.Getenv, in.Env.Home)
	units := Units(b)
	reachable := false
	if !dryRun {
		res := in.Env.Run(ctx, "systemctl", "--user", "show-environment")
		reachable = res.Err == nil && res.Code == 0
	}
	if dryRun || !reachable {
		for i, f := range files {
			fmt.Fprintf(in.Stdout, "# %s\n%s\n", f, units[i])
		}
		cron := b
		cron.Trigger = hookstate.TriggerCron
		fmt.Fprintf(in.Stdout, "# or, without systemd, this crontab line (crontab -e):\n%s\n", CronLine(cron))
		if dryRun {
			return nil
		}
		return ErrNoServiceManager
	}
	if err := in.prepare(b); err != nil {
		return err
	}
	watchers := []string{hookstate.Unit + ".path", hookstate.Unit + ".timer"}
	// As on macOS: stop what runs before replacing its files.
	if anyExist(files) {
		if res := in.Env.Run(ctx, "systemctl", append([]string{"--user", "stop"}, watchers...)...); res.Err != nil || res.Code != 0 {
			return in.record(hookstate.EventInstall, files[0], fmt.Errorf("cannot stop the running watcher (systemctl --user stop: %s); the old units stay in place", describe(res)))
		}
	}
	if err := os.MkdirAll(filepath.Dir(files[0]), 0o755); err != nil {
		return in.record(hookstate.EventInstall, files[0], err)
	}
	for i, f := range files {
		if err := fsutil.WriteAtomic(f, []byte(units[i]), 0o644); err != nil {
			return in.record(hookstate.EventInstall, f, err)
		}
	}
	var res hookstate.Result
	for attempt := 1; attempt <= LoadAttempts; attempt++ {
		res = in.Env.Run(ctx, "systemctl", "--user", "daemon-reload")
		if res.Err == nil && res.Code == 0 {
			res = in.Env.Run(ctx, "systemctl", append([]string{"--user", "enable", "--now"}, watchers...)...)
		}
		if res.Err == nil && res.Code == 0 {
			break
		}
		if attempt < LoadAttempts {
			if err := in.sleep(ctx); err != nil {
				return in.record(hookstate.EventInstall, files[0], err)
			}
		}
	}
	if res.Err != nil || res.Code != 0 {
		return in.record(hookstate.EventInstall, files[0], fmt.Errorf("wrote the units but systemd refused to enable them (%s)", describe(res)))
	}
	fmt.Fprintf(in.Stdout, "installed and enabled %s\nwatching %s and %s; also at login and every %d minutes\n",
		strings.Join(files, ", "), b.Claude, filepath.Dir(b.Claude), Interval/60)
	return in.record(hookstate.EventInstall, files[0], nil)
}

// prepare creates the working directory and the log, owner-only: launchd
// refuses to start a job whose WorkingDirectory is missing, and the log can
// hold a bare token a failed hook's tail let through, so it must not be
// left for the service manager to create through some looser umask.
func (in *Installer) prepare(b Bake) error {
	for _, dir := range []string{b.WorkDir, filepath.Dir(b.Log)} {
		if err := fsutil.MkdirPrivate(dir); err != nil {
			return err
		}
		if err := os.Chmod(dir, fsutil.DirPerm); err != nil {
			return err
		}
	}
	// Through the opener: a FIFO at the log's path fails the install,
	// naming it, instead of blocking it.
	f, err := fsutil.OpenAppend(b.Log, fsutil.FilePerm)
	if err != nil {
		return err
	}
	if err := f.Chmod(fsutil.FilePerm); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Uninstall unloads and removes the watcher; it is safe to repeat.
func (in *Installer) Uninstall(ctx context.Context) error {
	switch in.Env.GOOS {
	case "darwin":
		plist := hookstate.PlistPath(in.Env.Home)
		target := hookstate.LaunchdTarget(in.Env.UID)
		if res := in.Env.Run(ctx, "launchctl", "print", target); res.Err == nil && res.Code == 0 {
			if res := in.Env.Run(ctx, "launchctl", "bootout", target); res.Err != nil || res.Code != 0 {
				return in.record(hookstate.EventUninstall, plist, fmt.Errorf("cannot unload the watcher (launchctl bootout: %s); it stays installed", describe(res)))
			}
		}
		removed, err := removeAll([]string{plist})
		if err != nil {
			return in.record(hookstate.EventUninstall, plist, err)
		}
		in.report(removed, plist)
		return in.record(hookstate.EventUninstall, plist, nil)
	case "linux":
		files := hookstate.UnitFiles(in.Env.Getenv, in.Env.Home)
		res := in.Env.Run(ctx, "systemctl", "--user", "show-environment")
		reachable := res.Err == nil && res.Code == 0
		if reachable {
			res := in.Env.Run(ctx, "systemctl", "--user", "disable", "--now", hookstate.Unit+".path", hookstate.Unit+".timer")
			// Disabling units that are not there any more is no failure.
			if res.Err != nil || (res.Code != 0 && anyExist(files)) {
				return in.record(hookstate.EventUninstall, files[0], fmt.Errorf("cannot disable the watcher (systemctl --user disable: %s); it stays installed", describe(res)))
			}
		}
		removed, err := removeAll(files)
		if err != nil {
			return in.record(hookstate.EventUninstall, files[0], err)
		}
		if reachable {
			in.Env.Run(ctx, "systemctl", "--user", "daemon-reload")
		}
		in.report(removed, strings.Join(files, ", "))
		return in.record(hookstate.EventUninstall, files[0], nil)
	}
	return fmt.Errorf("no watcher for %s", in.Env.GOOS)
}

func (in *Installer) report(removed bool, what string) {
	if removed {
		fmt.Fprintf(in.Stdout, "removed %s\n", what)
	} else {
		fmt.Fprintf(in.Stdout, "not installed: nothing to remove\n")
	}
}

func removeAll(files []string) (bool, error) {
	removed := false
	for _, f := range files {
		err := os.Remove(f)
		switch {
		case err == nil:
			removed = true
		case !errors.Is(err, os.ErrNotExist):
			return removed, err
		}
	}
	return removed, nil
}

func anyExist(files []string) bool {
	for _, f := range files {
		if _, err := os.Lstat(f); err == nil {
			return true
		}
	}
	return false
}

// record appends the install or uninstall line and passes err through. A
// failed one keeps the reason, which the terminal that saw it may not.
func (in *Installer) record(event, file string, err error) error {
	r := hookstate.Record{Time: in.Now().UTC(), Event: event, Trigger: in.Trigger, Outcome: hookstate.OutcomeOK, Detail: file}
	if err != nil {
		r.Outcome, r.ExitStatus = hookstate.OutcomeFailed, 1
		r.Detail = file + ": " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	if aerr := audit.Append(in.Env.Files, r); aerr != nil {
		if err != nil {
			return err
		}
		return fmt.Errorf("cannot append to the audit trail: %w", aerr)
	}
	return err
}

func (in *Installer) sleep(ctx context.Context) error {
	d := in.RetryDelay
	if d <= 0 {
		d = time.Second
	}
	return in.Sleep(ctx, d)
}

func describe(res hookstate.Result) string {
	if res.Err != nil {
		return res.Err.Error()
	}
	msg := strings.TrimSpace(string(res.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(res.Stdout))
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		return fmt.Sprintf("exit %d", res.Code)
	}
	return fmt.Sprintf("exit %d: %s", res.Code, msg)
}
