package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"forgectl.dev/resume-restart/internal/restart"
)

func writeOutcomesJSON(w io.Writer, outs []restart.Outcome) error {
	if outs == nil {
		outs = []restart.Outcome{}
	}
	b, err := json.MarshalIndent(outs, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeOutcomes prints one line per session, and the command to resume it
// by hand under any session the run left for a person.
func writeOutcomes(w io.Writer, outs []restart.Outcome) {
	for _, o := range outs {
		fmt.Fprintf(w, "%-16s %s  %s\n", o.Outcome, o.SessionID, outcomeText(o))
		if o.Hint != "" {
			fmt.Fprintf(w, "%-16s hint: %s\n", "", o.Hint)
		}
		if o.Command != "" {
			fmt.Fprintf(w, "%-16s resume by hand: %s\n", "", o.Command)
		}
	}
}

func outcomeText(o restart.Outcome) string {
	var parts []string
	if o.PaneID != "" {
		parts = append(parts, paneText(o))
	}
	d := o.Detail
	if o.Reason != "" {
		d = o.Reason + ": " + d
	}
	parts = append(parts, d)
	return strings.Join(parts, ": ")
}

func paneText(o restart.Outcome) string {
	switch {
	case o.PaneSource == "session" && o.EnvPaneID != "" && o.EnvPaneID != o.PaneID:
		return fmt.Sprintf("pane %s (found by session; env said %s)", o.PaneID, o.EnvPaneID)
	case o.PaneSource == "env":
		return fmt.Sprintf("pane %s (from HERDR_PANE_ID)", o.PaneID)
	}
	return "pane " + o.PaneID
}

// writePlan prints the dry run: each session, what every check says now,
// and the action a real run would take.
func writePlan(w io.Writer, outs []restart.Outcome) {
	for i, o := range outs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := o.SessionID
		if o.Pid != 0 {
			head += fmt.Sprintf("  pid %d  %s -> %s", o.Pid, o.Version, o.InstalledVersion)
		}
		if o.PaneID != "" {
			head += "  " + paneText(o)
		}
		fmt.Fprintln(w, head)
		for _, c := range []struct{ name, v string }{
			{"identity", o.Checks.Identity}, {"status", o.Checks.Status},
			{"pane", o.Checks.Pane}, {"input", o.Checks.Input}, {"relaunch", o.Checks.Relaunch},
		} {
			if c.v == "" {
				c.v = "(not checked)"
			}
			fmt.Fprintf(w, "  %-9s %s\n", c.name, c.v)
		}
		action := o.Detail
		switch o.Outcome {
		case restart.Ready, restart.WouldWait:
		default:
			action = o.Outcome + ": " + o.Reason + ": " + o.Detail
		}
		fmt.Fprintf(w, "  %-9s %s\n", "action", action)
		if o.Hint != "" {
			fmt.Fprintf(w, "  %-9s %s\n", "hint", o.Hint)
		}
		if o.Command != "" {
			fmt.Fprintf(w, "  %-9s %s\n", "by hand", o.Command)
		}
	}
}
