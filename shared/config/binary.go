package config

import (
	"errors"
	"fmt"
	"os/exec"
)

// BinaryError says a program could not be found, and where the lookup looked.
type BinaryError struct {
	Program string // "claude" or "herdr"
	// From is where the path came from: an environment variable's name,
	// "[launch.defaults] binary_path", or "PATH".
	From  string
	Value string // the path or name that was tried
	Err   error  // the lookup's own error
	Hint  string
}

func (e *BinaryError) Error() string {
	cause := e.Err
	var ee *exec.Error
	if errors.As(cause, &ee) && ee.Err != nil {
		cause = ee.Err
	}
	if e.From == "PATH" {
		return fmt.Sprintf("%s not found on PATH", e.Program)
	}
	return fmt.Sprintf("%s from %s (%q) cannot be run: %v", e.Program, e.From, e.Value, cause)
}

func (e *BinaryError) Unwrap() error { return e.Err }

// ClaudeBinary finds the claude to run: $FORGECTL_CLAUDE_BIN, then
// [launch.defaults] binary_path ("~" expanded against $HOME), then claude on
// PATH. Every candidate goes through lookPath (exec.LookPath in production),
// which also checks that a path is executable. A candidate that is set but
// unusable is an error, never a reason to try the next. cfg may be nil.
func ClaudeBinary(getenv func(string) string, cfg *Config, lookPath func(string) (string, error)) (string, error) {
	var configured, file string
	if cfg != nil {
		configured, file = cfg.Launch.Defaults.BinaryPath, cfg.Path
	}
	return claudeBinary(getenv, configured, file, lookPath)
}

// ClaudeBinary is the package-level ClaudeBinary with this profile's
// binary_path, for a launch in a directory whose project sets its own.
// file names the config in the hint.
func (r Resolved) ClaudeBinary(getenv func(string) string, file string, lookPath func(string) (string, error)) (string, error) {
	return claudeBinary(getenv, r.BinaryPath, file, lookPath)
}

func claudeBinary(getenv func(string) string, configured, file string, lookPath func(string) (string, error)) (string, error) {
	if v := getenv("FORGECTL_CLAUDE_BIN"); v != "" {
		return look("claude", "FORGECTL_CLAUDE_BIN", v, lookPath,
			"point FORGECTL_CLAUDE_BIN at the claude executable, or unset it")
	}
	if configured != "" {
		in := "the config file"
		if file != "" {
			in = file
		}
		return look("claude", "[launch] binary_path", expandHome(configured, getenv("HOME")), lookPath,
			fmt.Sprintf("fix binary_path in %s, or remove it to use claude on PATH", in))
	}
	return look("claude", "PATH", "claude", lookPath,
		"install Claude Code, or set FORGECTL_CLAUDE_BIN or [launch.defaults] binary_path to its path")
}

// CodexBinary finds the codex a resume of a Codex thread runs:
// $FORGECTL_CODEX_BIN, then [resume] codex_binary_path ("~" expanded),
// then codex on PATH; as for claude, a candidate set but unusable is an
// error. cfg may be nil.
func CodexBinary(getenv func(string) string, cfg *Config, lookPath func(string) (string, error)) (string, error) {
	if v := getenv("FORGECTL_CODEX_BIN"); v != "" {
		return look("codex", "FORGECTL_CODEX_BIN", v, lookPath,
			"point FORGECTL_CODEX_BIN at the codex executable, or unset it")
	}
	if cfg != nil && cfg.Resume.CodexBinaryPath != "" {
		return look("codex", "[resume] codex_binary_path", expandHome(cfg.Resume.CodexBinaryPath, getenv("HOME")), lookPath,
			fmt.Sprintf("fix codex_binary_path in %s, or remove it to use codex on PATH", cfg.Path))
	}
	return look("codex", "PATH", "codex", lookPath,
		"install the Codex CLI, or set FORGECTL_CODEX_BIN or [resume] codex_binary_path to its path")
}

// HerdrBinary finds herdr: $FORGECTL_HERDR_BIN, then herdr on PATH.
func HerdrBinary(getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	if v := getenv("FORGECTL_HERDR_BIN"); v != "" {
		return look("herdr", "FORGECTL_HERDR_BIN", v, lookPath,
			"point FORGECTL_HERDR_BIN at the herdr executable, or unset it")
	}
	return look("herdr", "PATH", "herdr", lookPath,
		"install herdr, or set FORGECTL_HERDR_BIN to its path")
}

func look(program, from, value string, lookPath func(string) (string, error), hint string) (string, error) {
	p, err := lookPath(value)
	if err != nil {
		return "", &BinaryError{Program: program, From: from, Value: value, Err: err, Hint: hint}
	}
	return p, nil
}
