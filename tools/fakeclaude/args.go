package main

import (
	"fmt"
	"regexp"
	"strings"
)

// options is what fakeclaude takes from Claude Code's command line; every
// other flag is accepted and ignored.
type options struct {
	version   bool
	help      bool
	print     bool
	resume    string
	fork      bool
	sessionID string
	name      string
	model     string
}

// valueFlags take one value; listFlags take one or more (up to the next
// flag). Knowing them keeps a flag's value from being read as a prompt.
var valueFlags = map[string]bool{
	"--model": true, "--session-id": true, "--name": true, "-n": true,
	"--permission-mode": true, "--effort": true, "--settings": true,
	"--append-system-prompt": true, "--system-prompt": true, "--fallback-model": true,
	"--agent": true, "--agents": true, "--output-format": true, "--input-format": true,
	"--max-turns": true, "--setting-sources": true, "--plugin-dir": true,
	"--max-budget-usd": true, "--json-schema": true, "--from-pr": true,
}

var listFlags = map[string]bool{
	"--add-dir": true, "--mcp-config": true, "--allowedTools": true, "--allowed-tools": true,
	"--disallowedTools": true, "--disallowed-tools": true, "--tools": true, "--betas": true,
}

func parseOptions(args []string) (options, error) {
	var o options
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, val, hasVal := strings.Cut(arg, "=")
		if !strings.HasPrefix(arg, "--") {
			name, hasVal = arg, false
		}
		next := func() (string, bool) {
			if hasVal {
				return val, true
			}
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case name == "-v" || name == "--version":
			o.version = true
		case name == "-h" || name == "--help":
			o.help = true
		case name == "-p" || name == "--print":
			o.print = true
		case name == "-r" || name == "--resume":
			// The value is optional: a bare --resume opens Claude's picker,
			// which the fake answers with a fresh session.
			o.resume, _ = next()
		case name == "--fork-session":
			o.fork = true
		case valueFlags[name]:
			v, ok := next()
			if !ok {
				return o, fmt.Errorf("option '%s' argument missing", name)
			}
			switch name {
			case "--model":
				o.model = v
			case "--session-id":
				if !uuidRE.MatchString(v) {
					return o, fmt.Errorf("invalid session ID: %s", v)
				}
				o.sessionID = v
			case "--name", "-n":
				o.name = v
			}
		case listFlags[name]:
			if _, ok := next(); !ok {
				return o, fmt.Errorf("option '%s' argument missing", name)
			}
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
		}
	}
	return o, nil
}

var (
	uuidRE    = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$`)
)

// defaultVersion is reported when neither FAKECLAUDE_VERSION nor the
// executable's own name gives one.
const defaultVersion = "2.1.0"

// resolveVersion mirrors how a native install names its binary: the file
// ~/.local/bin/claude points at is versions/<version>, so a fake installed
// there knows its version from its own (symlink-resolved) file name.
func resolveVersion(env, exePath string) string {
	if env != "" {
		return env
	}
	if base := baseName(exePath); versionRE.MatchString(base) {
		return base
	}
	return defaultVersion
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
