package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// app carries what one fakeclaude process depends on.
type app struct {
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	getenv  func(string) string
	environ []string
	now     func() time.Time
	pid     int
	argv0   string
	exe     string
	cwd     string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	exe, _ := os.Executable()
	cwd, _ := os.Getwd()
	a := &app{
		stdin: stdin, stdout: stdout, stderr: stderr,
		getenv: os.Getenv, environ: os.Environ(), now: time.Now,
		pid: os.Getpid(), argv0: os.Args[0], exe: exe, cwd: cwd,
	}
	return a.main(ctx, args)
}

func (a *app) main(ctx context.Context, args []string) int {
	o, err := parseOptions(args)
	if err != nil {
		fmt.Fprintf(a.stderr, "error: %v\n", err)
		return 1
	}
	version := resolveVersion(a.getenv("FAKECLAUDE_VERSION"), a.exe)
	switch {
	case o.version:
		fmt.Fprintf(a.stdout, "%s (Claude Code)\n", version)
		return 0
	case o.help:
		fmt.Fprintln(a.stdout, "Usage: claude [options] [prompt]\n\nfakeclaude: a stand-in for Claude Code's interactive mode; see its package doc.")
		return 0
	case o.print:
		fmt.Fprintln(a.stderr, "fakeclaude: print mode (-p) is not implemented")
		return 1
	}

	sid := o.sessionID
	if o.resume != "" && !o.fork {
		sid = o.resume
	}
	if sid == "" {
		sid = newUUID()
	}
	name, nameSource := o.name, "user"
	if name == "" {
		name, nameSource = derivedName(a.cwd), "derived"
	}
	now := a.now().UnixMilli()
	s := &session{
		a:       a,
		model:   o.model,
		version: version,
		reg: registry{
			PID: a.pid, SessionID: sid, Cwd: a.cwd, StartedAt: now, ProcStart: procStart(a.pid),
			Version: version, PeerProtocol: 1, Kind: "interactive", Entrypoint: "cli",
			Name: name, NameSource: nameSource, Status: "idle", UpdatedAt: now, StatusUpdatedAt: now,
		},
	}
	if a.getenv("FAKECLAUDE_NO_REGISTRY") != "1" {
		s.regPath = filepath.Join(a.configDir(), "sessions", strconv.Itoa(a.pid)+".json")
		if err := writeRegistry(s.regPath, s.reg); err != nil {
			fmt.Fprintf(a.stderr, "fakeclaude: registry: %v\n", err)
			return 1
		}
	}
	a.record(map[string]any{
		"event": "start", "argv": append([]string{a.argv0}, args...), "args": args,
		"cwd": a.cwd, "env": a.recordedEnv(), "pid": a.pid, "session_id": sid, "version": version,
	})
	return s.loop(ctx)
}

// configDir is Claude Code's: $CLAUDE_CONFIG_DIR, else ~/.claude.
func (a *app) configDir() string {
	if d := a.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(a.getenv("HOME"), ".claude")
}

// record appends an event to $FAKECLAUDE_RECORD, when set.
func (a *app) record(ev map[string]any) {
	path := a.getenv("FAKECLAUDE_RECORD")
	if path == "" {
		return
	}
	ev["time"] = a.now().UTC().Format(time.RFC3339Nano)
	if err := appendJSONL(path, ev); err != nil {
		fmt.Fprintf(a.stderr, "fakeclaude: record: %v\n", err)
	}
}

// recordedEnv picks the variables a launcher is expected to pass or
// withhold: proxies, Claude's and herdr's own, plus any listed in
// FAKECLAUDE_RECORD_ENV. Names that look like secrets are left out unless
// listed explicitly.
func (a *app) recordedEnv() map[string]string {
	extra := map[string]bool{}
	for _, n := range strings.Split(a.getenv("FAKECLAUDE_RECORD_ENV"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			extra[n] = true
		}
	}
	out := map[string]string{}
	for _, kv := range a.environ {
		k, v, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(k)
		pick := extra[k]
		if !pick {
			switch {
			case up == "HTTP_PROXY", up == "HTTPS_PROXY", up == "NO_PROXY", up == "ALL_PROXY":
				pick = true
			case strings.HasPrefix(up, "CLAUDE_"), strings.HasPrefix(up, "ANTHROPIC_"), strings.HasPrefix(up, "HERDR_"):
				pick = !strings.Contains(up, "KEY") && !strings.Contains(up, "TOKEN") && !strings.Contains(up, "SECRET")
			}
		}
		if pick {
			out[k] = v
		}
	}
	return out
}

func signalExit(sig syscall.Signal) int { return 128 + int(sig) }

func signalName(sig syscall.Signal) string {
	if sig == syscall.SIGHUP {
		return "SIGHUP"
	}
	return "SIGTERM"
}
