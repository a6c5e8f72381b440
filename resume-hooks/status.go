package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"forgectl.dev/resume-hooks/internal/hookrun"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/config"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/hookstate"
)

// statusRecords is how many audit lines status shows.
const statusRecords = 5

// statusJSON is `status --json`; its fields are documented in the help.
type statusJSON struct {
	Watcher         watcherJSON        `json:"watcher"`
	HooksConfigured int                `json:"hooks_configured"`
	ConfigError     string             `json:"config_error"`
	Harnesses       []harnessJSON      `json:"harnesses"`
	RunInProgress   *runJSON           `json:"run_in_progress"`
	Records         []hookstate.Record `json:"records"`
}

type watcherJSON struct {
	Kind        string   `json:"kind"`
	Files       []string `json:"files"`
	Installed   bool     `json:"installed"`
	Loaded      bool     `json:"loaded"`
	Running     bool     `json:"running"`
	Pid         int      `json:"pid"`
	Unreachable string   `json:"unreachable"`
}

type harnessJSON struct {
	Harness        string             `json:"harness"`
	Version        string             `json:"version"`
	RecordedAt     time.Time          `json:"recorded_at"`
	PendingRestart *hookstate.Pending `json:"pending_restart"`
}

type runJSON struct {
	Pid     int       `json:"pid"`
	Trigger string    `json:"trigger"`
	Since   time.Time `json:"since"`
}

const statusHelp = `Shows the watcher (installed, loaded, running), the versions recorded per
harness with any pending restart, a run in progress, and the last five hook
runs from the audit trail.

--json prints one object:
  watcher            {kind: launchd|systemd|"", files: [], installed, loaded,
                      running, pid, unreachable: why the service manager could not be asked}
  hooks_configured   the number of [[resume.on_update]] entries
  config_error       config.toml's problems, one per line; "" when it is valid
  harnesses          [{harness, version, recorded_at, pending_restart}]; pending_restart
                     is null or {version, old_version, attempts, given_up,
                     last_outcome, last_attempt_at}
  run_in_progress    null or {pid, trigger, since}
  records            the last five audit lines, oldest first: {time, event, trigger,
                     harness, old_version, new_version, hook: {position, kind, program},
                     attempt, outcome, exit_status, signal, duration_ms, stderr_tail,
                     detail, resume}
Lists are [] when empty; times are RFC 3339 UTC.`

func (a *app) statusCommand() *ffcli.Command {
	fs := a.prog.FlagSet("status")
	asJSON := fs.Bool("json", false, "print one JSON object (fields in --help)")
	return &ffcli.Command{
		Name:       "status",
		ShortUsage: "forgectl resume hooks status [--json]",
		ShortHelp:  "watcher installed/loaded, recorded versions, last hook runs",
		LongHelp:   statusHelp,
		UsageFunc:  helpText,
		FlagSet:    fs,
		Exec: func(ctx context.Context, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			st, err := a.status(ctx)
			if err != nil {
				return err
			}
			if *asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			printStatus(a.stdout, st)
			return nil
		},
	}
}

func (a *app) status(ctx context.Context) (statusJSON, error) {
	fp := a.forgectlPaths()
	files := hookstate.FilesFor(fp)
	out := statusJSON{Harnesses: []harnessJSON{}, Records: []hookstate.Record{}}
	// Status runs with a broken config too: it is how one looks around.
	cfg, err := config.Load(fp.Config())
	if err != nil {
		out.ConfigError = err.Error()
	}
	out.HooksConfigured = len(cfg.Resume.OnUpdate)
	w := hookstate.InspectWatcher(ctx, a.hookEnv(files))
	out.Watcher = watcherJSON{Kind: w.Kind, Files: w.Files, Installed: w.Installed, Loaded: w.Loaded,
		Running: w.Running, Pid: w.Pid, Unreachable: w.Unreachable}
	if out.Watcher.Files == nil {
		out.Watcher.Files = []string{}
	}
	state, err := hookstate.LoadState(files.State())
	if err != nil {
		a.errorf("cannot read the hooks state: %v", err)
		return out, cli.Exit(exitcode.Failed)
	}
	names := make([]string, 0, len(state.Harnesses))
	for n := range state.Harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		h := state.Harnesses[n]
		out.Harnesses = append(out.Harnesses, harnessJSON{Harness: n, Version: h.Version, RecordedAt: h.RecordedAt.UTC(), PendingRestart: h.Pending})
	}
	if h, held, _ := hookstate.ReadHolder(files.RunLock()); held {
		out.RunInProgress = &runJSON{Pid: h.Pid, Trigger: h.Trigger, Since: h.Since.UTC()}
	}
	recs, err := hookstate.ReadRecords(files, statusRecords)
	if err != nil {
		a.errorf("cannot read the audit trail: %v", err)
		return out, cli.Exit(exitcode.Failed)
	}
	out.Records = recs
	return out, nil
}

func (a *app) hookEnv(files hookstate.Files) hookstate.Env {
	return hookstate.Env{Files: files, GOOS: a.goos, Home: a.home, UID: a.uid, Getenv: a.getenv, Run: a.runner}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func printStatus(w io.Writer, st statusJSON) {
	wt := st.Watcher
	switch {
	case wt.Kind == "":
		fmt.Fprintln(w, "watcher:  none on this platform (run forgectl resume hooks run from your own scheduler)")
	default:
		loaded := yesNo(wt.Loaded)
		if wt.Unreachable != "" {
			loaded = "unknown (" + wt.Unreachable + ")"
		}
		fmt.Fprintf(w, "watcher:  %s, installed: %s, loaded: %s", wt.Kind, yesNo(wt.Installed), loaded)
		if wt.Running {
			fmt.Fprintf(w, ", running (pid %d)", wt.Pid)
		}
		fmt.Fprintf(w, "\n          %s\n", strings.Join(wt.Files, "\n          "))
	}
	fmt.Fprintf(w, "hooks:    %d configured\n", st.HooksConfigured)
	if st.ConfigError != "" {
		fmt.Fprintf(w, "config:   %s\n", strings.ReplaceAll(st.ConfigError, "\n", "\n          "))
	}
	if len(st.Harnesses) == 0 {
		fmt.Fprintln(w, "recorded: nothing yet (the first run records a baseline)")
	}
	for _, h := range st.Harnesses {
		fmt.Fprintf(w, "recorded: %s %s at %s\n", h.Harness, h.Version, h.RecordedAt.Format(time.RFC3339))
		if p := h.PendingRestart; p != nil {
			if p.GivenUp {
				fmt.Fprintf(w, "restart:  gave up for %s after %d attempts (last %s); tried again at the next version\n", p.Version, p.Attempts, p.LastOutcome)
			} else {
				fmt.Fprintf(w, "restart:  pending for %s, %d of %d attempts used (last %s); the watcher retries it\n", p.Version, p.Attempts, hookstate.MaxRestartAttempts, p.LastOutcome)
			}
		}
	}
	if r := st.RunInProgress; r != nil {
		fmt.Fprintf(w, "running:  pid %d (%s) since %s\n", r.Pid, r.Trigger, r.Since.Format(time.RFC3339))
	}
	if len(st.Records) == 0 {
		fmt.Fprintln(w, "last runs: none")
		return
	}
	fmt.Fprintln(w, "last runs:")
	for _, r := range st.Records {
		fmt.Fprintf(w, "  %s  %s\n", r.Time.UTC().Format(time.RFC3339), describeRecord(r))
		if r.StderrTail != "" {
			fmt.Fprintf(w, "      stderr: %s\n", strings.ReplaceAll(r.StderrTail, "\n", "\n              "))
		}
		for _, c := range r.Resume {
			fmt.Fprintf(w, "      resume by hand: %s\n", c)
		}
	}
}

func describeRecord(r hookstate.Record) string {
	if r.Event != hookstate.EventHook {
		s := fmt.Sprintf("%s %s", r.Event, r.Outcome)
		if r.Detail != "" {
			s += " (" + r.Detail + ")"
		}
		return s
	}
	s := fmt.Sprintf("%s %s -> %s  %s  %s", r.Harness, r.OldVersion, r.NewVersion, hookstate.DescribeHook(r.Hook), r.Outcome)
	if r.Hook != nil && r.Hook.Kind == hookrun.KindRestart && r.Attempt > 0 {
		s += fmt.Sprintf(" (attempt %d)", r.Attempt)
	}
	switch {
	case r.Signal != "":
		s += " " + r.Signal
	case r.Outcome != hookstate.OutcomeOK && r.ExitStatus >= 0:
		s += fmt.Sprintf(" exit %d", r.ExitStatus)
	}
	s += fmt.Sprintf("  %s  %s", (time.Duration(r.DurationMS) * time.Millisecond).String(), r.Trigger)
	if r.Detail != "" {
		s += "  " + r.Detail
	}
	return s
}
