package main

import (
	"fmt"
	"strconv"
	"strings"
)

// call is one parsed herdr pane command.
type call struct {
	verb      string // list, get, process-info, read, send-keys, send-text, run, rename
	session   string // global --session
	pane      string
	workspace string
	current   bool
	source    string
	lines     int
	ansi      bool
	keys      []string
	text      string
	label     string
	clear     bool
	help      bool
}

// replyID is herdr's CLI request id for the verb, echoed in every envelope.
func (c call) replyID() string { return "cli:pane:" + strings.ReplaceAll(c.verb, "-", "_") }

var usages = map[string]string{
	"list":         "herdr pane list [--workspace <WORKSPACE_ID>]",
	"get":          "herdr pane get <PANE_ID>",
	"process-info": "herdr pane process-info [--pane <PANE_ID> | --current]",
	"read":         "herdr pane read <PANE_ID> [--source <SOURCE>] [--lines <LINES>] [--format <FORMAT>] [--ansi] [--raw]",
	"send-keys":    "herdr pane send-keys <PANE_ID> <KEYS>...",
	"send-text":    "herdr pane send-text <PANE_ID> <TEXT>...",
	"run":          "herdr pane run <PANE_ID> <COMMAND>...",
	"rename":       "herdr pane rename <PANE_ID> <LABEL|--clear>",
}

const topUsage = "herdr [--session <NAME>] pane <list|get|process-info|read|send-keys|send-text|run|rename> ..."

// usageError is a command-line mistake: plain text on stderr, exit 2.
type usageError struct {
	msg   string
	usage string
}

func (e *usageError) Error() string {
	return fmt.Sprintf("error: %s\n\nUsage: %s\n\nFor more information, try '--help'.\n", e.msg, e.usage)
}

// parseArgs parses herdr's global options and one pane command.
func parseArgs(args []string) (call, error) {
	var c call
	for len(args) > 0 && strings.HasPrefix(args[0], "--session") {
		name, val, hasVal := strings.Cut(args[0], "=")
		if name != "--session" {
			return c, &usageError{fmt.Sprintf("unexpected argument '%s' found", args[0]), topUsage}
		}
		if !hasVal {
			if len(args) < 2 {
				return c, &usageError{"a value is required for '--session <NAME>' but none was supplied", topUsage}
			}
			val, args = args[1], args[1:]
		}
		c.session = val
		args = args[1:]
	}
	if len(args) == 0 {
		return c, &usageError{"a subcommand is required", topUsage}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		c.help = true
		return c, nil
	}
	if args[0] != "pane" {
		return c, &usageError{fmt.Sprintf("unrecognized subcommand '%s'", args[0]), topUsage}
	}
	if len(args) < 2 {
		return c, &usageError{"a pane subcommand is required", topUsage}
	}
	c.verb = args[1]
	usage, ok := usages[c.verb]
	if !ok {
		if c.verb == "-h" || c.verb == "--help" {
			c.help, c.verb = true, ""
			return c, nil
		}
		return c, &usageError{fmt.Sprintf("unrecognized subcommand '%s'", c.verb), topUsage}
	}
	rest := args[2:]
	bad := func(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...), usage} }

	switch c.verb {
	case "send-text", "run":
		// Everything after the pane id is text to type, `--` included.
		if len(rest) > 0 && (rest[0] == "-h" || rest[0] == "--help") {
			c.help = true
			return c, nil
		}
		if len(rest) == 0 {
			return c, bad("the following required arguments were not provided:\n  <PANE_ID>")
		}
		if len(rest) == 1 {
			what := "<TEXT>..."
			if c.verb == "run" {
				what = "<COMMAND>..."
			}
			return c, bad("the following required arguments were not provided:\n  %s", what)
		}
		c.pane, c.text = rest[0], strings.Join(rest[1:], " ")
		return c, nil
	}

	spec := map[string]bool{} // option name -> takes a value
	switch c.verb {
	case "list":
		spec["workspace"] = true
	case "process-info":
		spec["pane"], spec["current"] = true, false
	case "read":
		spec["source"], spec["lines"], spec["format"], spec["ansi"], spec["raw"] = true, true, true, false, false
	case "rename":
		spec["clear"] = false
	}
	opts := map[string]string{}
	var pos []string
	for i := 0; i < len(rest); i++ {
		arg := rest[i]
		switch {
		case arg == "-h" || arg == "--help":
			c.help = true
			return c, nil
		case strings.HasPrefix(arg, "--") && len(arg) > 2:
			name, val, hasVal := strings.Cut(arg[2:], "=")
			takes, known := spec[name]
			if !known {
				return c, bad("unexpected argument '%s' found", arg)
			}
			if _, dup := opts[name]; dup {
				return c, bad("the argument '--%s' cannot be used multiple times", name)
			}
			if takes && !hasVal {
				if i+1 >= len(rest) {
					return c, bad("a value is required for '--%s' but none was supplied", name)
				}
				i++
				val = rest[i]
			} else if !takes && hasVal {
				return c, bad("unexpected value '%s' for '--%s' found; no more were expected", val, name)
			}
			opts[name] = val
		case strings.HasPrefix(arg, "-") && arg != "-":
			return c, bad("unexpected argument '%s' found", arg)
		default:
			pos = append(pos, arg)
		}
	}
	_, hasPane := opts["pane"]
	_, c.current = opts["current"]
	c.workspace = opts["workspace"]

	switch c.verb {
	case "list":
		if len(pos) > 0 {
			return c, bad("unexpected argument '%s' found", pos[0])
		}
		if _, set := opts["workspace"]; set && c.workspace == "" {
			return c, bad("a value is required for '--workspace <WORKSPACE_ID>' but none was supplied")
		}
	case "get":
		if len(pos) != 1 {
			if len(pos) == 0 {
				return c, bad("the following required arguments were not provided:\n  <PANE_ID>")
			}
			return c, bad("unexpected argument '%s' found", pos[1])
		}
		c.pane = pos[0]
	case "process-info":
		if len(pos) > 0 {
			return c, bad("unexpected argument '%s' found", pos[0])
		}
		if hasPane && c.current {
			return c, bad("the argument '--pane <PANE_ID>' cannot be used with '--current'")
		}
		c.pane = opts["pane"]
		if hasPane && c.pane == "" {
			return c, bad("a value is required for '--pane <PANE_ID>' but none was supplied")
		}
	case "read":
		if len(pos) != 1 {
			if len(pos) == 0 {
				return c, bad("the following required arguments were not provided:\n  <PANE_ID>")
			}
			return c, bad("unexpected argument '%s' found", pos[1])
		}
		c.pane = pos[0]
		c.source = "recent"
		if v, ok := opts["source"]; ok {
			switch v {
			case "visible", "recent", "recent-unwrapped", "detection":
				c.source = v
			default:
				return c, bad("invalid value '%s' for '--source <SOURCE>'\n  [possible values: visible, recent, recent-unwrapped, detection]", v)
			}
		}
		if v, ok := opts["lines"]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return c, bad("invalid value '%s' for '--lines <LINES>': expected a positive number", v)
			}
			c.lines = min(n, 1000)
		}
		if v, ok := opts["format"]; ok {
			switch v {
			case "text":
			case "ansi":
				c.ansi = true
			default:
				return c, bad("invalid value '%s' for '--format <FORMAT>'\n  [possible values: text, ansi]", v)
			}
		}
		_, ansi := opts["ansi"]
		_, raw := opts["raw"]
		c.ansi = c.ansi || ansi || raw
	case "send-keys":
		if len(pos) < 2 {
			if len(pos) == 0 {
				return c, bad("the following required arguments were not provided:\n  <PANE_ID>\n  <KEYS>...")
			}
			return c, bad("the following required arguments were not provided:\n  <KEYS>...")
		}
		c.pane, c.keys = pos[0], pos[1:]
	case "rename":
		_, c.clear = opts["clear"]
		switch {
		case len(pos) == 0:
			return c, bad("the following required arguments were not provided:\n  <PANE_ID>")
		case len(pos) == 1 && !c.clear:
			return c, bad("the following required arguments were not provided:\n  <LABEL|--clear>")
		case len(pos) == 2 && c.clear:
			return c, bad("the argument '<LABEL>' cannot be used with '--clear'")
		case len(pos) > 2:
			return c, bad("unexpected argument '%s' found", pos[2])
		}
		c.pane = pos[0]
		if !c.clear {
			c.label = pos[1]
		}
	}
	return c, nil
}
