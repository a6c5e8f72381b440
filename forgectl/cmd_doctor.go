package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/registry"
)

// checkRow is one line of a doctor report.
type checkRow struct {
	Check   string `json:"check"`
	Status  string `json:"status"` // ok, warn, fail
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

func (a *app) printRows(rows []checkRow, asJSON bool) error {
	if asJSON {
		if rows == nil {
			rows = []checkRow{}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Status, r.Check, r.Message)
		if r.Hint != "" && r.Status != "ok" {
			fmt.Fprintf(tw, "\t\t→ %s\n", r.Hint)
		}
	}
	return tw.Flush()
}

// rowsExit is 1 when any check failed; warnings alone exit 0.
func rowsExit(rows []checkRow) error {
	for _, r := range rows {
		if r.Status == "fail" {
			return exit(exitcode.Failed)
		}
	}
	return nil
}

// configRows reports config.toml: every problem becomes its own row.
func (a *app) configRows() (*config.Config, []checkRow) {
	path := a.forgectlPaths().Config()
	cfg, err := config.Load(path)
	if err == nil {
		msg := path
		if !cfg.Exists {
			msg = path + " (absent: built-in defaults apply)"
		}
		rows := []checkRow{{Check: "config", Status: "ok", Message: msg}}
		if _, perr := cfg.ProxyEnv(); perr != nil {
			var pe *config.ProxyError
			hint := ""
			if errors.As(perr, &pe) {
				hint = pe.Hint
			}
			rows = append(rows, checkRow{Check: "config", Status: "fail", Message: perr.Error(), Hint: hint})
		}
		return cfg, rows
	}
	var list config.ErrorList
	if !errors.As(err, &list) {
		return nil, []checkRow{{Check: "config", Status: "fail", Message: err.Error()}}
	}
	var rows []checkRow
	for _, e := range list {
		rows = append(rows, checkRow{Check: "config", Status: "fail", Message: e.Error(), Hint: e.Hint})
	}
	return cfg, rows
}

// claudeRow reports which claude would run and its version.
func (a *app) claudeRow(ctx context.Context, cfg *config.Config) checkRow {
	bin, err := config.ClaudeBinary(a.getenv, cfg, a.lookPath)
	if err != nil {
		// The native installer's launcher may exist while PATH lacks it: the
		// update hooks and outdated read it, but launch and resume cannot.
		if inst, ferr := (claudever.Finder{Getenv: a.getenv, Home: a.home}).Find(ctx); ferr == nil {
			return checkRow{Check: "claude", Status: "warn",
				Message: fmt.Sprintf("%s is installed at %s, but %v", inst.Version, inst.Binary, err),
				Hint:    "add " + filepath.Dir(inst.Binary) + " to PATH, or set FORGECTL_CLAUDE_BIN / [launch.defaults] binary_path"}
		}
		return checkRow{Check: "claude", Status: "fail", Message: err.Error(), Hint: "install Claude Code, or set FORGECTL_CLAUDE_BIN / [launch.defaults] binary_path"}
	}
	inst, err := claudever.Finder{Getenv: a.getenv, Home: a.home, Binary: bin}.Find(ctx)
	if err != nil {
		return checkRow{Check: "claude", Status: "warn", Message: fmt.Sprintf("%s: version unknown: %v", bin, err)}
	}
	return checkRow{Check: "claude", Status: "ok", Message: fmt.Sprintf("%s (%s, from %s)", inst.Version, inst.Binary, inst.Source)}
}

func (a *app) registryRow() (checkRow, []registry.Entry) {
	dir := a.claudePaths().Registry()
	all, problems := registry.Read(dir)
	var live []registry.Entry
	for _, e := range all {
		if registry.Check(e) == registry.Alive {
			live = append(live, e)
		}
	}
	row := checkRow{Check: "sessions", Status: "ok", Message: fmt.Sprintf("%d live of %d registry file(s) in %s", len(live), len(all), dir)}
	if len(problems) > 0 {
		row.Status = "warn"
		row.Message += fmt.Sprintf("; %d unreadable: %v", len(problems), problems[0])
	}
	return row, live
}

func doctorCommand() *command {
	return &command{
		name: "doctor", desc: "check that session rescue is wired",
		usage: []usageLine{{"forgectl doctor", "check that session rescue is wired correctly"}},
		help:  func() string { return doctorHelp },
		flags: doctorFlags,
	}
}

func doctorFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	asJSON := fs.Bool("json", false, "print the rows as a JSON array")
	return func(ctx context.Context, args []string) error {
		cfg, rows := a.configRows()
		rows = append(rows, a.claudeRow(ctx, cfg))
		reg, _ := a.registryRow()
		rows = append(rows, reg)
		rows = append(rows, a.resumeTasksRows()...)
		rows = append(rows, a.retentionRow(ctx))
		if err := a.printRows(rows, *asJSON); err != nil {
			return err
		}
		return rowsExit(rows)
	}
}

const doctorHelp = `
forgectl doctor — check that session rescue is wired correctly

USAGE
  forgectl doctor [--json]

Prints one row per check: ok, warn or fail, with a hint for anything not ok.
  config        config.toml parses and its launch_profile is usable
  claude        which claude runs, and its version
  sessions      the live registry is readable; how many sessions are live
  resume tasks  the Stop hook is wired, the snapshot store is being filled, and
                Claude Code still names task directories after session ids
  retention     what Claude Code's retention sweep deletes next: the effective
                cleanupPeriodDays (see RETENTION), how many sessions are past
                the cutoff and how many pass it within 7 days, the task lists
                and file histories it deletes by their own folder's age (a
                recent session's old task list too), when the last sweep
                ran, and what keeps them

Because 'resume snapshot' always exits 0, a missing or misspelled Stop hook
looks exactly like one that works until a session exits and its tasks are
gone: this check is the detector. It reads settings.json as Claude Code
does: the last of duplicate keys counts, a leading byte-order mark and UTF-16
text are accepted, and each hook command is split as /bin/sh splits it.

RETENTION
Claude Code deletes every transcript whose mtime is older than
cleanupPeriodDays (default 30), with its <id>/ folder, and every tasks/<id>/
and file-history/<id>/ older than that by its own mtime. Its own
archived.json mark does not spare a session; history.jsonl keeps its lines.
The sweep runs about 10 minutes after a TUI session's first prompt, or 5 s
into a claude -p, at most once a day (~/.claude/.last-cleanup).

The value is Claude Code's merge (2.1.333): managed settings
(/etc/claude-code/managed-settings.json, then managed-settings.d/*.json; on
macOS under /Library/Application Support/ClaudeCode) over
.claude/settings.local.json over .claude/settings.json (both in the directory
claude starts in: doctor reads the current one) over ~/.claude/settings.json.
A value must be a whole number of at least 1. While a settings file does not
parse, or cleanupPeriodDays is 0, negative, a fraction or a string, Claude
Code skips the sweep; the row warns, since fixing the file starts it again.
It warns whenever a session is past the cutoff or passes it within 7 days,
and is quiet otherwise (a large value, or the old sessions archived). The
count comes from the listing's stat walk: no transcript is opened.

EXIT STATUS
  0 when no check failed (warnings allowed), 1 when one did.
`
