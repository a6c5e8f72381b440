//go:build contract

package contract

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"forgectl.dev/tools/contract/tmuxrig"
)

// herdrPane is a real claude in a pane of tools/fakeherdr, which follows
// herdr's CLI contract over a private tmux server: the restart runner
// checks it and types into it exactly as it would into herdr's.
type herdrPane struct {
	h     *home
	env   []string
	id    string
	pid   int // the claude's
	state string
}

// herdrEnv is the home's environment with a herdr socket and the fake's
// state, and what the restart runner needs to find herdr and forgectl.
func (h *home) herdrEnv() []string {
	h.t.Helper()
	state := filepath.Join(h.dir, "herdr-state")
	tmuxrig.MustMkdir(h.t, state)
	// Beside the tmux socket: a unix socket path must stay short.
	sock := filepath.Join(filepath.Dir(h.Sock), "herdr.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		h.t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	h.t.Cleanup(func() { ln.Close() })
	env := append(append([]string(nil), h.Env...),
		"FAKEHERDR_STATE="+state, "HERDR_SOCKET_PATH="+sock,
		"FORGECTL_HERDR_BIN="+filepath.Join(h.s.bin, "fakeherdr"),
		"FORGECTL_SELF="+filepath.Join(h.s.bin, "forgectl"),
		"FORGECTL_CONFIG_DIR="+filepath.Join(h.dir, ".config", "forgectl"))
	h.t.Cleanup(func() {
		saved := h.Env
		h.Env = env
		h.Run(h.dir, "", filepath.Join(h.s.bin, "fakeherdr"), "admin", "kill-server")
		h.Env = saved
	})
	return env
}

func (h *home) herdr(env []string, args ...string) string {
	h.t.Helper()
	saved := h.Env
	h.Env = env
	out, errOut, code := h.Run(h.dir, "", filepath.Join(h.s.bin, "fakeherdr"), args...)
	h.Env = saved
	if code != 0 {
		h.t.Fatalf("fakeherdr %v: exit %d: %s%s", args, code, out, errOut)
	}
	return out
}

// startHerdrClaude opens a herdr pane in dir whose shell runs binary, and
// waits for that claude to register idle with its input box drawn.
func (h *home) startHerdrClaude(env []string, dir, binary string) *herdrPane {
	h.t.Helper()
	var created struct {
		PaneID string `json:"pane_id"`
	}
	out := h.herdr(env, "admin", "create-pane", "--cwd", dir, "--size", "160x50", "--run", binary)
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		h.t.Fatalf("create-pane said %q: %v", out, err)
	}
	p := &herdrPane{h: h, env: env, id: created.PaneID}
	p.pid = p.waitRegistered("start", 0, true)
	return p
}

// waitRegistered waits for a claude other than not, started in this pane
// (its HERDR_PANE_ID), to be registered (idle with its input box drawn,
// when box is set), and returns its pid.
func (p *herdrPane) waitRegistered(what string, not int, box bool) int {
	p.h.t.Helper()
	found := 0
	if !tmuxrig.Poll.Wait(tmuxrig.StartWait, func() bool {
		entries, _ := os.ReadDir(filepath.Join(p.h.claude, "sessions"))
		for _, e := range entries {
			pid, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json"))
			if err != nil || pid == not || !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
			if !strings.Contains("\x00"+string(env), "\x00HERDR_PANE_ID="+p.id+"\x00") {
				continue
			}
			b, _ := os.ReadFile(filepath.Join(p.h.claude, "sessions", e.Name()))
			var r registry
			if json.Unmarshal(b, &r) == nil && (r.Status == "idle" || !box) {
				if _, drawn := inputLine(p.screen()); drawn || !box {
					p.h.Pids = append(p.h.Pids, pid) // cleanup ends it
					found = pid
					return true
				}
			}
		}
		return false
	}) {
		p.h.t.Fatalf("pane %s: %s: no idle claude registered within %v; screen:\n%s", p.id, what, tmuxrig.StartWait, p.screen())
	}
	return found
}

func (p *herdrPane) screen() string {
	saved := p.h.Env
	p.h.Env = p.env
	out, _, _ := p.h.Run(p.h.dir, "", filepath.Join(p.h.s.bin, "fakeherdr"), "pane", "read", p.id, "--source", "visible")
	p.h.Env = saved
	return out
}

func (p *herdrPane) registry() (registry, bool) {
	b, err := os.ReadFile(filepath.Join(p.h.claude, "sessions", strconv.Itoa(p.pid)+".json"))
	var r registry
	if err != nil || json.Unmarshal(b, &r) != nil {
		return r, false
	}
	return r, true
}

// restartOutcome is the part of resume-restart's --json element checked here.
type restartOutcome struct {
	SessionID string `json:"session_id"`
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason"`
	Hint      string `json:"hint"`
	Command   string `json:"command"`
	Signalled bool   `json:"signalled"`
	NewPid    int    `json:"new_pid"`
	Checks    struct {
		Relaunch string `json:"relaunch"`
	} `json:"checks"`
}

// TestRestartNeverStopsAnUnpromptedSession: the real claude, opened in a
// herdr pane and sent nothing, writes no transcript, so `forgectl resume
// <id>` could not bring it back. Against a newer installed claude it is
// outdated, idle, its box empty and its identity checks pass, and the
// restart still leaves it running, reporting no_transcript. Once it has
// taken a prompt, the same restart stops it and resumes it on the newer
// claude in the same pane: the live refusal was the only one, and the stop
// cleared it.
func TestRestartNeverStopsAnUnpromptedSession(t *testing.T) {
	h := newHome(t)
	s := h.s
	repo := h.repo("fresh-repo", "main")
	h.trust(repo)
	env := h.herdrEnv()
	p := h.startHerdrClaude(env, repo, s.claude[s.older])
	reg, ok := p.registry()
	if !ok || reg.Version != s.older {
		t.Fatalf("registry %+v, want claude %s", reg, s.older)
	}
	id := reg.SessionID
	if m, _ := filepath.Glob(filepath.Join(h.claude, "projects", "*", id+".jsonl")); len(m) != 0 {
		t.Fatalf("claude %s wrote a transcript before any prompt (%v): the case this test guards no longer arises", s.older, m)
	}

	// The update lands the native installer's way.
	versions := filepath.Join(h.dir, ".local", "share", "claude", "versions")
	tmuxrig.MustMkdir(t, versions)
	if err := os.Symlink(s.claude[s.current], filepath.Join(versions, s.current)); err != nil {
		t.Fatal(err)
	}
	tmuxrig.MustMkdir(t, filepath.Join(h.dir, ".local", "bin"))
	if err := os.Symlink(filepath.Join(versions, s.current), filepath.Join(h.dir, ".local", "bin", "claude")); err != nil {
		t.Fatal(err)
	}

	restart := func(args ...string) (string, string, int) {
		saved := h.Env
		h.Env = env
		defer func() { h.Env = saved }()
		return h.Run(h.dir, "", filepath.Join(s.bin, "resume-restart"), args...)
	}
	out, errOut, code := restart("outdated", "--json")
	var rows []struct {
		SessionID    string `json:"session_id"`
		NoTranscript bool   `json:"no_transcript"`
	}
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != 1 || rows[0].SessionID != id || !rows[0].NoTranscript {
		t.Fatalf("outdated --json: exit %d, %v, rows %+v\n%s", code, err, rows, errOut)
	}

	out, errOut, code = restart("restart", "--outdated", "--json", "--timeout", "2m")
	var outs []restartOutcome
	if err := json.Unmarshal([]byte(out), &outs); err != nil || len(outs) != 1 {
		t.Fatalf("restart: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	o := outs[0]
	if code != 0 || o.SessionID != id || o.Outcome != "skipped" || o.Reason != "no_transcript" || o.Signalled ||
		o.Command != "" || !strings.Contains(o.Hint, "start claude in "+repo) {
		t.Errorf("restart of the unprompted session: exit %d, %+v\nstderr:\n%s", code, o, errOut)
	}
	if err := syscall.Kill(p.pid, 0); err != nil {
		t.Fatalf("the unprompted claude (pid %d) is gone: %v", p.pid, err)
	}
	if r, ok := p.registry(); !ok || r.SessionID != id {
		t.Errorf("the unprompted claude's registry file: %+v, %v", r, ok)
	}

	// One prompt gives it a transcript: now the relaunch resolves, and the
	// restart brings it back on the newer claude.
	h.herdr(env, "pane", "send-text", p.id, "hello before the restart")
	h.herdr(env, "pane", "send-keys", p.id, "enter")
	if !tmuxrig.Poll.Wait(tmuxrig.TurnWait, func() bool { return strings.Contains(p.screen(), "You said: hello before the restart") }) {
		t.Fatalf("no reply; screen:\n%s", p.screen())
	}
	p.waitRegistered("after the prompt", 0, true)
	// The CLI appends the turn's rows to its transcript a moment after the
	// reply shows; until forgectl can resolve the session, a restart would
	// skip it again, so wait for the verdict the restart will ask for.
	var v struct {
		OK     bool   `json:"ok"`
		Reason string `json:"reason"`
	}
	if !tmuxrig.Poll.Wait(tmuxrig.TurnWait, func() bool {
		saved := h.Env
		h.Env = env
		vout, _, _ := h.forgectl("resume", "--dry-run", "--json", "--assume-stopped", strconv.Itoa(p.pid), id)
		h.Env = saved
		return json.Unmarshal([]byte(vout), &v) == nil && v.OK
	}) {
		m, _ := filepath.Glob(filepath.Join(h.claude, "projects", "*", id+".jsonl"))
		t.Fatalf("forgectl never resolved the prompted session (last verdict %+v, transcript %v)", v, m)
	}
	out, errOut, code = restart("restart", "--outdated", "--json", "--timeout", "2m")
	outs = nil
	if err := json.Unmarshal([]byte(out), &outs); err != nil || len(outs) != 1 {
		t.Fatalf("second restart: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	if o := outs[0]; code != 0 || o.Outcome != "resumed" || !o.Signalled || o.NewPid == 0 {
		t.Fatalf("restart of the prompted session: exit %d, %+v\nstderr:\n%s", code, o, errOut)
	}
	// 2.1.332 may open a dialog on resume ("Try the new fullscreen
	// renderer?"), so only the registration is waited for.
	p.pid = p.waitRegistered("the relaunch", p.pid, false)
	if r, ok := p.registry(); !ok || r.SessionID != id || r.Version != s.current {
		t.Errorf("after the restart: %+v, want session %s on claude %s", r, id, s.current)
	}
}
