package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// procStat holds the /proc/<pid>/stat fields the fake needs.
type procStat struct {
	pid   int
	comm  string
	state string
	pgrp  int
	tpgid int
}

// parseStat parses a /proc/<pid>/stat line. The command name sits in
// parentheses and may itself contain spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(line string) (procStat, error) {
	open := strings.IndexByte(line, '(')
	closing := strings.LastIndexByte(line, ')')
	if open < 0 || closing < open {
		return procStat{}, fmt.Errorf("malformed stat line")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return procStat{}, fmt.Errorf("malformed stat pid: %w", err)
	}
	rest := strings.Fields(line[closing+1:])
	// rest[0] is field 3 (state); pgrp is field 5 and tpgid field 8.
	if len(rest) < 6 {
		return procStat{}, fmt.Errorf("short stat line")
	}
	pgrp, err1 := strconv.Atoi(rest[2])
	tpgid, err2 := strconv.Atoi(rest[5])
	if err1 != nil || err2 != nil {
		return procStat{}, fmt.Errorf("malformed stat numbers")
	}
	return procStat{pid: pid, comm: line[open+1 : closing], state: rest[0], pgrp: pgrp, tpgid: tpgid}, nil
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(string(b))
}

// fgProcess is one entry of process_info.foreground_processes.
type fgProcess struct {
	Argv    []string `json:"argv,omitempty"`
	Argv0   string   `json:"argv0,omitempty"`
	Cmdline string   `json:"cmdline,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	Name    string   `json:"name"`
	Pid     int      `json:"pid"`
}

// foregroundGroup lists the live processes of process group pgid, the group
// leader first and the rest by pid. Zombies are left out: they no longer
// hold the terminal in any useful sense.
func foregroundGroup(pgid int) []fgProcess {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []fgProcess
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.pgrp != pgid || st.state == "Z" || st.state == "X" {
			continue
		}
		out = append(out, describeProcess(st))
	}
	sort.Slice(out, func(i, j int) bool {
		li, lj := out[i].Pid == pgid, out[j].Pid == pgid
		if li != lj {
			return li
		}
		return out[i].Pid < out[j].Pid
	})
	return out
}

func describeProcess(st procStat) fgProcess {
	p := fgProcess{Pid: st.pid, Name: st.comm}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", st.pid)); err == nil {
		if name := strings.TrimRight(string(b), "\n"); name != "" {
			p.Name = name
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", st.pid)); err == nil && len(b) > 0 {
		p.Argv = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		p.Argv0 = p.Argv[0]
		p.Cmdline = strings.Join(p.Argv, " ")
	}
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", st.pid)); err == nil {
		p.Cwd = cwd
	}
	return p
}

// isClaude applies herdr's agent rule: the process name or the base name of
// argv0 is claude or claude-code.
func isClaude(p fgProcess) bool {
	for _, n := range []string{p.Name, filepath.Base(p.Argv0)} {
		if n == "claude" || n == "claude-code" {
			return true
		}
	}
	return false
}

// procEnv reads one variable from /proc/<pid>/environ.
func procEnv(pid int, name string) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return "", false
	}
	prefix := []byte(name + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) {
			return string(kv[len(prefix):]), true
		}
	}
	return "", false
}

// claudeRegistry is the part of Claude Code's sessions/<pid>.json the fake
// reads to stand in for herdr's screen-based state detection and for the
// session id herdr's Claude hook integration would report.
type claudeRegistry struct {
	SessionID string `json:"sessionId"`
	Status    string `json:"status"`
}

func readClaudeRegistry(pid int) (claudeRegistry, bool) {
	dir, ok := procEnv(pid, "CLAUDE_CONFIG_DIR")
	if !ok || dir == "" {
		home, ok := procEnv(pid, "HOME")
		if !ok || home == "" {
			return claudeRegistry{}, false
		}
		dir = filepath.Join(home, ".claude")
	}
	b, err := os.ReadFile(filepath.Join(dir, "sessions", strconv.Itoa(pid)+".json"))
	if err != nil {
		return claudeRegistry{}, false
	}
	var r claudeRegistry
	if json.Unmarshal(b, &r) != nil {
		return claudeRegistry{}, false
	}
	return r, true
}

// agentStatusFor maps a Claude registry status to herdr's agent_status.
func agentStatusFor(registryStatus string) string {
	switch registryStatus {
	case "idle":
		return "idle"
	case "busy":
		return "working"
	case "waiting":
		return "blocked"
	}
	return "unknown"
}
