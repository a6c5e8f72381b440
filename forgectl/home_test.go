package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/shared/proc"
)

// testHome is a temporary HOME with a Claude Code tree and forgectl's
// config dir; nothing here touches the real home.
type testHome struct {
	t      *testing.T
	home   string
	claude string
	fc     string
	bin    string // a fake claude on PATH
	stdin  string // what the next run reads on stdin
}

func newHome(t *testing.T) *testHome {
	t.Helper()
	h := &testHome{t: t, home: t.TempDir()}
	h.claude = filepath.Join(h.home, ".claude")
	h.fc = filepath.Join(h.home, ".config", "forgectl")
	h.bin = filepath.Join(h.home, "bin", "claude")
	os.MkdirAll(filepath.Dir(h.bin), 0o755)
	os.WriteFile(h.bin, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	return h
}

func (h *testHome) repo(name string) string {
	d := filepath.Join(h.home, "src", name)
	os.MkdirAll(filepath.Join(d, ".git"), 0o755)
	return d
}

// session writes a transcript the way Claude Code does, with mtime at age ago.
func (h *testHome) session(id, cwd, branch, prompt, title string, age time.Duration) {
	h.t.Helper()
	enc := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
	dir := filepath.Join(h.claude, "projects", enc)
	os.MkdirAll(dir, 0o700)
	var b strings.Builder
	msg, _ := json.Marshal(prompt)
	fmt.Fprintf(&b, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%s},"uuid":"u1","timestamp":"2026-11-29T10:00:00Z","entrypoint":"cli","cwd":%q,"sessionId":%q,"version":"2.1.332","gitBranch":%q}`+"\n", msg, cwd, id, branch)
	if title != "" {
		fmt.Fprintf(&b, `{"type":"custom-title","customTitle":%q,"sessionId":%q}`+"\n", title, id)
	}
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		h.t.Fatal(err)
	}
	mt := time.Now().Add(-age)
	os.Chtimes(p, mt, mt)
}

// live starts a real process and registers it for the session with its
// real start time, as Claude Code would.
func (h *testHome) live(id string) int {
	h.t.Helper()
	cmd := exec.Command("sleep", "120")
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	st, err := proc.StartTime(cmd.Process.Pid)
	if err != nil {
		h.t.Fatal(err)
	}
	h.register(cmd.Process.Pid, id, st)
	return cmd.Process.Pid
}

func (h *testHome) register(pid int, id, procStart string) {
	dir := filepath.Join(h.claude, "sessions")
	os.MkdirAll(dir, 0o700)
	body := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/x","procStart":%q,"version":"2.1.332","status":"idle","tmux":"cc:@0.%%3"}`, pid, id, procStart)
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", pid)), []byte(body), 0o644)
}

func (h *testHome) config(body string) {
	os.MkdirAll(h.fc, 0o700)
	os.WriteFile(filepath.Join(h.fc, "config.toml"), []byte(body), 0o600)
}

type execCall struct {
	argv0 string
	argv  []string
	env   []string
	dir   string
}

type result struct {
	code           int
	stdout, stderr string
	exec           *execCall
}

type fakePicker struct {
	choose   int
	err      error
	rows     []string
	previews []string
}

func (f *fakePicker) Pick(ctx context.Context, _ string, src *picker.Source) (picker.Item, error) {
	items, err := src.Wait(ctx)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		f.rows = append(f.rows, it.Row())
		f.previews = append(f.previews, it.Preview(80))
	}
	if f.err != nil {
		return nil, f.err
	}
	return items[f.choose], nil
}

// recorder holds what an in-process run printed and would have exec'd.
type recorder struct {
	out, errb bytes.Buffer
	exec      *execCall
}

// newTestApp makes forgectl for this home; exec is recorded, never done.
func (h *testHome) newTestApp(tty bool, p picker.Picker, env map[string]string) (*app, *recorder) {
	rec := &recorder{}
	a := newApp(strings.NewReader(h.stdin), &rec.out, &rec.errb)
	vars := map[string]string{"HOME": h.home, "FORGECTL_CONFIG_DIR": h.fc, "PATH": filepath.Dir(h.bin)}
	for k, v := range env {
		vars[k] = v
	}
	a.getenv = func(k string) string { return vars[k] }
	a.environ = func() []string { return []string{"PATH=" + vars["PATH"], "KEEP=1", "HTTP_PROXY=inherited"} }
	a.home = h.home
	a.goos = "linux"
	a.stdinTTY, a.stdoutTTY = tty, tty
	a.lookPath = func(name string) (string, error) {
		if strings.Contains(name, "/") {
			return exec.LookPath(name)
		}
		p := filepath.Join(vars["PATH"], name)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
		return "", exec.ErrNotFound
	}
	if p == nil {
		p = &fakePicker{err: fmt.Errorf("picker must not open")}
	}
	a.picker = p
	var dir string
	a.chdir = func(d string) error { dir = d; return nil }
	a.exec = func(argv0 string, argv, env []string) error {
		rec.exec = &execCall{argv0: argv0, argv: argv, env: env, dir: dir}
		return nil
	}
	a.self = filepath.Join(h.home, "bin", "forgectl")
	return a, rec
}

// runWith runs forgectl in-process with this home.
func (h *testHome) runWith(tty bool, p picker.Picker, env map[string]string, args ...string) result {
	h.t.Helper()
	a, rec := h.newTestApp(tty, p, env)
	code := a.run(context.Background(), args)
	return result{code: code, stdout: rec.out.String(), stderr: rec.errb.String(), exec: rec.exec}
}

func (h *testHome) run(args ...string) result { return h.runWith(false, nil, nil, args...) }
