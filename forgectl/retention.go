package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/forgectl/internal/settings"
	"forgectl.dev/shared/fsutil"
	"golang.org/x/sys/unix"
)

// Claude Code's retention sweep, as the 2.1.333 bundle has it
// (../shared/facts/claude-code.md §f; the functions named here are the
// bundle's minified names, found next to the strings quoted):
//
//   - The merged settings (Idi) are user, project (.claude/settings.json
//     in the directory claude starts in), local (.claude/settings.local.json
//     there), the --settings flag, then managed settings, in that order
//     (Es), each merged over the ones before (Jx): for a number the last
//     source that sets it wins, so managed > local > project > user.
//     Managed settings on Linux are /etc/claude-code/managed-settings.json
//     then managed-settings.d/*.json in name order (_o, JTt), on macOS
//     under /Library/Application Support/ClaudeCode.
//   - The cutoff (RA) is now − cleanupPeriodDays (default Z7 = 30) days;
//     transcripts, tasks/<id>/ and file-history/<id>/ older than it by
//     their own mtime are deleted.
//   - The sweep is skipped (egn) while a settings file cannot be read or
//     parsed, or while settings have validation errors and
//     cleanupPeriodDays is set in one of them ("Skipping cleanup: …"), and
//     while an empty user settings.json was written in the last 30 days.
//     A managed value bypasses those checks.
//   - A sweep that ran writes ~/.claude/.last-cleanup; while that file's
//     mtime is under 24 h old the next one waits (CId).

// defaultRetentionDays is Claude Code's default cleanupPeriodDays.
const defaultRetentionDays = 30

// retentionSoon is how far ahead the row looks: sessions that pass the
// cutoff within it are counted with those already past it.
const retentionSoon = 7 * 24 * time.Hour

// settingsSource is one settings file Claude Code reads.
type settingsSource struct {
	label, path string
	managed     bool
}

// managedSettingsDir is where Claude Code reads managed settings;
// FORGECTL_CLAUDE_MANAGED_DIR points it elsewhere, for tests (Claude Code
// itself has no such override).
func (a *app) managedSettingsDir() string {
	if d := a.getenv("FORGECTL_CLAUDE_MANAGED_DIR"); d != "" {
		return d
	}
	if a.goos == "darwin" {
		return "/Library/Application Support/ClaudeCode"
	}
	return "/etc/claude-code"
}

// settingsSources are the files, lowest precedence first.
func (a *app) settingsSources(cwd string) []settingsSource {
	out := []settingsSource{{label: "user", path: a.claudePaths().Settings()}}
	if cwd != "" {
		out = append(out,
			settingsSource{label: "project", path: filepath.Join(cwd, ".claude", "settings.json")},
			settingsSource{label: "local", path: filepath.Join(cwd, ".claude", "settings.local.json")})
	}
	dir := a.managedSettingsDir()
	out = append(out, settingsSource{label: "managed", path: filepath.Join(dir, "managed-settings.json"), managed: true})
	drop := filepath.Join(dir, "managed-settings.d")
	if ents, err := fsutil.ReadDir(drop); err == nil {
		var names []string
		for _, e := range ents {
			if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") && !e.IsDir() {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, settingsSource{label: "managed", path: filepath.Join(drop, n), managed: true})
		}
	}
	return out
}

// retentionPolicy is the effective cleanupPeriodDays and why.
type retentionPolicy struct {
	days float64
	from string // the file that set it, "" for the default
	// paused is why Claude Code skips its sweep now, "" when it runs.
	paused, pausedFile string
}

func (a *app) retentionPolicy(cwd string, now time.Time) retentionPolicy {
	p := retentionPolicy{days: defaultRetentionDays}
	var managed *retentionPolicy
	seen := map[string]bool{}
	for _, src := range a.settingsSources(cwd) {
		real := src.path
		if r, err := filepath.EvalSymlinks(src.path); err == nil {
			real = r
		}
		if seen[real] {
			continue // the project is the home folder: one file, read once
		}
		seen[real] = true
		data, err := fsutil.ReadRegular(src.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			if p.paused == "" {
				p.paused, p.pausedFile = fmt.Sprintf("it cannot read %s (%v)", src.path, unwrapPath(err)), src.path
			}
			continue
		}
		r, err := settings.ReadRetention(data)
		if err != nil {
			if p.paused == "" {
				p.paused, p.pausedFile = fmt.Sprintf("%s does not parse (%v)", src.path, err), src.path
			}
			continue
		}
		switch {
		case src.managed && r.Valid:
			managed = &retentionPolicy{days: r.Days, from: src.path}
		case !src.managed && r.Present && !r.Valid:
			if p.paused == "" {
				p.paused, p.pausedFile = fmt.Sprintf("cleanupPeriodDays in %s is %s, not a whole number of days of at least 1", src.path, r.Raw), src.path
			}
		case !src.managed && r.Valid:
			p.days, p.from = r.Days, src.path
		}
	}
	if managed != nil {
		return *managed // a managed value runs the sweep whatever else is wrong
	}
	if p.paused == "" && p.from == "" {
		user := a.claudePaths().Settings()
		if st, err := os.Stat(user); err == nil && st.Mode().IsRegular() && st.Size() == 0 &&
			st.ModTime().After(now.Add(-defaultRetentionDays*24*time.Hour)) && !st.ModTime().After(now) {
			p.paused, p.pausedFile = fmt.Sprintf("%s is empty and was written in the last %d days (it may be half-written)", user, defaultRetentionDays), user
		}
	}
	return p
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// dueCounts counts what the sweep deletes: past the cutoff now, and
// passing it within retentionSoon.
type dueCounts struct{ past, soon int }

func (d *dueCounts) add(mtime, cutoff time.Time) {
	switch {
	case mtime.Before(cutoff):
		d.past++
	case mtime.Before(cutoff.Add(retentionSoon)):
		d.soon++
	}
}

// dirsDue counts the folders under root by their own mtime, as the sweep
// judges tasks/<id>/ and file-history/<id>/.
func dirsDue(root string, cutoff time.Time) dueCounts {
	var d dueCounts
	f, err := fsutil.OpenDir(root)
	if err != nil {
		return d
	}
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	for _, e := range ents {
		var st unix.Stat_t
		if !e.IsDir() || unix.Fstatat(int(f.Fd()), e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		d.add(time.Unix(st.Mtim.Sec, st.Mtim.Nsec), cutoff)
	}
	return d
}

// retentionRow is doctor's retention check: what Claude Code's next
// retention sweep deletes, counted from the walk's stats alone (no
// transcript is opened), and what keeps it.
func (a *app) retentionRow(ctx context.Context) checkRow {
	now := a.now()
	cwd, _ := os.Getwd()
	pol := a.retentionPolicy(cwd, now)
	row := checkRow{Check: "retention", Status: "ok"}
	var setting string
	switch {
	case pol.from == "":
		setting = fmt.Sprintf("cleanupPeriodDays %g (the default)", pol.days)
	default:
		setting = fmt.Sprintf("cleanupPeriodDays %g (%s)", pol.days, pol.from)
	}
	var sessions, taskLists, fileHistory dueCounts
	// Past about 270,000 years the cutoff is before any mtime (and Claude
	// Code's own date is invalid, which deletes nothing).
	if pol.days < 1e8 {
		cutoff := now.Add(-time.Duration(pol.days * float64(24*time.Hour)))
		files, _, err := a.primary().Walk(ctx)
		if err != nil {
			return checkRow{Check: "retention", Status: "warn", Message: fmt.Sprintf("%s; cannot list the sessions: %v", setting, err)}
		}
		for i := range files {
			sessions.add(time.Unix(0, files[i].MtimeNs), cutoff)
		}
		taskLists = dirsDue(a.claudePaths().Tasks(), cutoff)
		fileHistory = dirsDue(filepath.Join(a.claudePaths().Root, "file-history"), cutoff)
	}
	last := "no sweep recorded (no .last-cleanup)"
	if st, err := os.Stat(filepath.Join(a.claudePaths().Root, ".last-cleanup")); err == nil {
		at := st.ModTime()
		last = fmt.Sprintf("last sweep %s (%s)", at.UTC().Format("2006-01-02 15:04 UTC"), render.Age(now, at))
		if now.Sub(at) < 24*time.Hour {
			last += fmt.Sprintf(", the next not before %s", at.Add(24*time.Hour).UTC().Format("2006-01-02 15:04 UTC"))
		}
	}
	due := fmt.Sprintf("%d session(s) past the cutoff, %d more within 7 days", sessions.past, sessions.soon)
	var also []string
	if n := taskLists.past + taskLists.soon; n > 0 {
		also = append(also, fmt.Sprintf("%d task list(s)", n))
	}
	if n := fileHistory.past + fileHistory.soon; n > 0 {
		also = append(also, fmt.Sprintf("%d file-history folder(s)", n))
	}
	if len(also) > 0 {
		due += "; by their own mtime, also " + strings.Join(also, " and ")
	}
	keep := fmt.Sprintf("keep them: forgectl resume archive --older-than %dd (moves them out of Claude Code's reach)", max(int(pol.days)-7, 1))
	where := "~/.claude/settings.json"
	if a.getenv("CLAUDE_CONFIG_DIR") != "" {
		where = a.claudePaths().Settings()
	}
	if pol.paused != "" {
		row.Status = "warn"
		row.Message = fmt.Sprintf("Claude Code skips its retention sweep while %s; once fixed, %s deletes %s; %s", pol.paused, setting, due, last)
		row.Hint = fmt.Sprintf("fix %s; before that, %s", pol.pausedFile, keep)
		return row
	}
	if sessions.past+sessions.soon == 0 {
		if len(also) == 0 {
			row.Message = fmt.Sprintf("%s: no session is within 7 days of Claude Code's sweep; %s", setting, last)
			return row
		}
		// A task list or a file history goes by its own folder's mtime:
		// an old task list of a session used yesterday is deleted all
		// the same, and archiving moves only sessions past an age.
		row.Status = "warn"
		row.Message = fmt.Sprintf("%s: no session is within 7 days of Claude Code's sweep, but it deletes by their own mtime %s; %s", setting, strings.Join(also, " and "), last)
		row.Hint = fmt.Sprintf("set a larger cleanupPeriodDays (3650 keeps ten years) in %s; a task list's folder ages from its own last change, not its session's", where)
		return row
	}
	row.Status = "warn"
	row.Message = fmt.Sprintf("%s: Claude Code's next sweep deletes transcripts by mtime with their folders: %s; %s", setting, due, last)
	row.Hint = fmt.Sprintf("%s, or set a larger cleanupPeriodDays (3650 keeps ten years) in %s", keep, where)
	return row
}
