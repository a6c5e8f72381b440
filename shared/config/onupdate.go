package config

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Timeouts of [[resume.on_update]] hooks.
const (
	DefaultCommandTimeout = 300 * time.Second
	DefaultRestartTimeout = 1800 * time.Second
	MaxHookTimeout        = maxTimeoutSeconds * time.Second

	maxTimeoutSeconds = 86400
)

// OnUpdate is one [[resume.on_update]] entry. Entries returned by Load are
// valid; Validate checks one built any other way.
type OnUpdate struct {
	Harness string
	// Action is "restart" for the built-in restart, empty for a command.
	Action string
	// Command is the argv of a command hook, run without a shell.
	Command []string
	// TimeoutSeconds is as written; 0 means the default (see Timeout).
	TimeoutSeconds int64
}

// Kind is "command" when the entry has a command, otherwise "restart".
func (o OnUpdate) Kind() string {
	if o.Command != nil {
		return "command"
	}
	return "restart"
}

// Timeout is timeout_seconds, or the default for the kind when it is 0. For
// a command it bounds the whole run; for a restart, only the waiting for
// sessions to go idle.
func (o OnUpdate) Timeout() time.Duration {
	switch {
	case o.TimeoutSeconds != 0:
		return time.Duration(o.TimeoutSeconds) * time.Second
	case o.Kind() == "command":
		return DefaultCommandTimeout
	}
	return DefaultRestartTimeout
}

// Validate returns every rule the entry breaks, each an *Error with only
// Key, Reason and Hint set: the caller knows where the entry came from. Nil
// means valid. Load applies the same rules, plus the checks of key names and
// types that only the file can show.
func (o OnUpdate) Validate() []error {
	var errs []error
	for _, p := range o.problems(o.Action != "", o.Command != nil, nil) {
		errs = append(errs, &Error{Key: p.key, Reason: p.reason, Hint: p.hint})
	}
	return errs
}

type problem struct{ key, reason, hint string }

// problems applies the entry rules. actionSet and commandSet say whether the
// keys were written at all (action = "" is written, and wrong); keys in
// mistyped already had a type error and are not checked again.
func (o OnUpdate) problems(actionSet, commandSet bool, mistyped map[string]bool) []problem {
	var ps []problem
	switch {
	case mistyped["harness"]:
	case o.Harness == "":
		ps = append(ps, problem{"harness", `harness is missing`, `add harness = "claude"`})
	case o.Harness == "codex" || o.Harness == "pi":
		ps = append(ps, problem{"harness", fmt.Sprintf("harness %q is not supported yet", o.Harness), `only harness = "claude" runs hooks today`})
	case o.Harness != "claude":
		ps = append(ps, problem{"harness", fmt.Sprintf("unknown harness %q", o.Harness), `only harness = "claude" runs hooks today`})
	}
	switch {
	case actionSet && commandSet:
		ps = append(ps, problem{"", `set exactly one of action = "restart" or command, not both`, "split it into two entries"})
	case !actionSet && !commandSet:
		ps = append(ps, problem{"", `set one of action = "restart" or command`, `for example command = ["/usr/bin/say", "claude updated"]`})
	}
	if actionSet && !mistyped["action"] && o.Action != "restart" {
		ps = append(ps, problem{"action", fmt.Sprintf("unknown action %q", o.Action), `the only action is "restart"; use command to run a program`})
	}
	if commandSet && !mistyped["command"] {
		switch {
		case len(o.Command) == 0:
			ps = append(ps, problem{"command", "command is empty", `give an argv such as ["/usr/bin/say", "claude updated"]`})
		case o.Command[0] == "":
			ps = append(ps, problem{"command", "command's program (its first element) is empty", ""})
		}
	}
	if !mistyped["timeout_seconds"] {
		switch {
		case o.TimeoutSeconds < 0:
			ps = append(ps, problem{"timeout_seconds", fmt.Sprintf("timeout_seconds %d is negative", o.TimeoutSeconds), "use 0 or leave it out for the default"})
		case o.TimeoutSeconds > maxTimeoutSeconds:
			ps = append(ps, problem{"timeout_seconds", fmt.Sprintf("timeout_seconds %d is over the maximum of %d (one day)", o.TimeoutSeconds, maxTimeoutSeconds), ""})
		}
	}
	return ps
}

// onUpdate converts the raw [[resume.on_update]] value, reporting every
// problem with its entry number. Invalid entries are kept, so that positions
// in the slice stay those of the file.
func (d *decoder) onUpdate(raw any) []OnUpdate {
	const table = "resume.on_update"
	var entries []map[string]any
	switch v := raw.(type) {
	case []map[string]any:
		entries = v
	case []any:
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				d.keyError("resume", 0, "on_update", fmt.Sprintf("on_update: expected an array of tables, found an array holding %s", valueType(e)))
				return nil
			}
			entries = append(entries, m)
		}
	case map[string]any:
		d.add(&Error{
			Line:   d.loc.find(table, -1, ""),
			Table:  table,
			Reason: "[resume.on_update] must be an array of tables: write each hook as [[resume.on_update]]",
			Hint:   "rename the table to [[resume.on_update]]",
		})
		return nil
	default:
		d.keyError("resume", 0, "on_update", fmt.Sprintf("on_update: expected an array of tables, found %s", valueType(v)))
		return nil
	}

	out := make([]OnUpdate, 0, len(entries))
	for i, entry := range entries {
		n := i + 1
		bad := func(key, reason, hint string) {
			line := d.loc.find(table, i, key)
			if line == 0 {
				// A missing key, or a whole-entry problem: point at the header.
				line = d.loc.find(table, i, "")
			}
			d.add(&Error{Line: line, Table: table, Entry: n, Key: key, Reason: reason, Hint: hint})
		}
		var o OnUpdate
		var actionSet, commandSet bool
		mistyped := map[string]bool{}
		keys := make([]string, 0, len(entry))
		for k := range entry {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := entry[k]
			wrongType := func(want string) {
				mistyped[k] = true
				bad(k, fmt.Sprintf("%s: expected %s, found %s", k, want, valueType(v)), "")
			}
			switch k {
			case "harness":
				if s, ok := v.(string); ok {
					o.Harness = s
				} else {
					wrongType("a string")
				}
			case "action":
				actionSet = true
				if s, ok := v.(string); ok {
					o.Action = s
				} else {
					wrongType("a string")
				}
			case "command":
				commandSet = true
				argv, ok := stringArray(v)
				if !ok {
					mistyped[k] = true
					bad(k, fmt.Sprintf("command: expected an array of strings, found %s", valueType(v)),
						`command is an argv run without a shell, such as ["/usr/bin/say", "claude updated"]`)
					continue
				}
				o.Command = argv
			case "timeout_seconds":
				if s, ok := v.(int64); ok {
					o.TimeoutSeconds = s
				} else {
					wrongType("a whole number of seconds")
				}
			default:
				bad(k, fmt.Sprintf("unknown key %q", k), "the keys are harness, action, command and timeout_seconds")
			}
		}
		for _, p := range o.problems(actionSet, commandSet, mistyped) {
			bad(p.key, p.reason, p.hint)
		}
		out = append(out, o)
	}
	return out
}

// stringArray accepts an array whose elements are all strings; an empty
// array is a (non-nil) empty argv, which the entry rules then refuse.
func stringArray(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// valueType names the type of a decoded TOML value in the user's terms.
func valueType(v any) string {
	return typeName(strings.ReplaceAll(fmt.Sprintf("%T", v), "interface {}", "any"))
}
