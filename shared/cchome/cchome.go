// Package cchome writes Claude Code homes for tests: real files in a
// temporary directory, shaped as Claude Code 2.1.332 writes them (see
// facts/claude-code.md), and real processes standing in for live claude
// sessions, registered with their real start times. Every module's tests
// build their homes with it, so there is one registry shape to keep true.
package cchome

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/proc"
)

// Home is a Claude Code tree (Claude.Root, usually <dir>/.claude).
type Home struct {
	t      testing.TB
	Claude paths.Claude
}

// New is the tree at root. Directories are made as files are written in
// them, so a tree nothing was written to is as a fresh home has it (and a
// generator such as gencc may still fill it).
func New(t testing.TB, root string) *Home {
	return &Home{t: t, Claude: paths.Claude{Root: root}}
}

// Register writes sessions/<pid>.json as Claude Code 2.1.332 does, with
// the process's real start time. fields are added over the defaults; a
// nil value removes a key (2.1.197 writes no tmux, for one). It returns
// the file's path.
func (h *Home) Register(pid int, id string, fields map[string]any) string {
	h.t.Helper()
	now := time.Now().UnixMilli()
	e := map[string]any{"pid": pid, "sessionId": id, "cwd": "/home/alice/src/demo-repo", "startedAt": now,
		"version": "2.1.332", "peerProtocol": 1, "kind": "interactive", "entrypoint": "cli",
		"name": "demo-repo-b2", "nameSource": "derived", "status": "idle", "updatedAt": now}
	if st, err := proc.StartTime(pid); err == nil {
		e["procStart"] = st
	}
	for k, v := range fields {
		if v == nil {
			delete(e, k)
			continue
		}
		e[k] = v
	}
	b, err := json.Marshal(e)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := os.MkdirAll(h.Claude.Registry(), 0o700); err != nil {
		h.t.Fatal(err)
	}
	p := filepath.Join(h.Claude.Registry(), fmt.Sprintf("%d.json", pid))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// Live starts a real process standing in for a claude session and
// registers it; env is added to the process's environment. The process is
// killed and reaped when the test ends.
func (h *Home) Live(id string, fields map[string]any, env ...string) *exec.Cmd {
	h.t.Helper()
	cmd := Process(h.t, env...)
	h.Register(cmd.Process.Pid, id, fields)
	return cmd
}

// Process starts a real, idle process (sleep) with env added, killed and
// reaped when the test ends.
func Process(t testing.TB, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// DeadPid is the pid of a process that has exited and been reaped.
func DeadPid(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// ProjectDir is the projects/ folder Claude Code keeps cwd's transcripts in.
func (h *Home) ProjectDir(cwd string) string {
	enc := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
	return filepath.Join(h.Claude.Projects(), enc)
}

// Transcript writes the transcript of session id in cwd's project folder,
// last modified at mtime, and returns its path.
func (h *Home) Transcript(cwd, id string, mtime time.Time, lines ...string) string {
	h.t.Helper()
	dir := h.ProjectDir(cwd)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.t.Fatal(err)
	}
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// Prompt is a typed prompt's row, with its newline.
func Prompt(cwd, id, branch, entrypoint, prompt string) string {
	msg, _ := json.Marshal(prompt)
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%s},"uuid":"u1","timestamp":"2026-11-29T10:00:00Z","entrypoint":%q,"cwd":%q,"sessionId":%q,"version":"2.1.332","gitBranch":%q}`+"\n",
		msg, entrypoint, cwd, id, branch)
}

// Title is a custom-title row (what /rename writes), with its newline.
func Title(id, title string) string {
	return fmt.Sprintf(`{"type":"custom-title","customTitle":%q,"sessionId":%q}`+"\n", title, id)
}

// Object is a JSON object whose keys keep the order they are given in,
// key, value, key, value…, as Claude Code writes its rows (the listing's
// and the search's byte prefilters depend on where keys stand).
type Object []any

func (o Object) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(o[i])
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
