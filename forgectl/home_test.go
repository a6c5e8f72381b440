package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/picker"
	"forgectl.dev/shared/cchome"
)

// testHome is a temporary HOME with a Claude Code tree and forgectl's
// config dir; nothing here touches the real home.
type testHome struct {
	t      *testing.T
	home   string
	claude string
	fc     string
	bin    string // a fake claude on PATH
	cc     *cchome.Home
	stdin  string // what the next run reads on stdin
}

func newHome(t *testing.T) *testHome {
	t.Helper()
	h := &testHome{t: t, home: t.TempDir()}
	h.claude = filepath.Join(h.home, ".claude")
	h.cc = cchome.New(t, h.claude)
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
	lines := []string{cchome.Prompt(cwd, id, branch, "cli", prompt)}
	if title != "" {
		lines = append(lines, cchome.Title(id, title))
	}
	h.cc.Transcript(cwd, id, time.Now().Add(-age), lines...)
}

// live starts a real process and registers it for the session with its
// real start time, as Claude Code would.
func (h *testHome) live(id string) int {
	h.t.Helper()
	return h.cc.Live(id, map[string]any{"cwd": "/x", "tmux": "cc:@0.%3"}).Process.Pid
}

// register registers pid for the session with the given start time (a
// wrong one makes a stale registry file).
func (h *testHome) register(pid int, id, procStart string) {
	h.cc.Register(pid, id, map[string]any{"cwd": "/x", "tmux": "cc:@0.%3", "procStart": procStart})
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
	// meanwhile runs after the rows are drawn and before the choice is
	// returned: what happens while a person looks at the picker.
	meanwhile func()
}

func (f *fakePicker) Pick(ctx context.Context, _ string, src *picker.Source) (picker.Item, error) {
	items, err := src.Wait(ctx)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		f.rows = append(f.rows, it.Row())
		f.previews = append(f.previews, it.Preview(80, 40))
	}
	if f.err != nil {
		return nil, f.err
	}
	if f.meanwhile != nil {
		f.meanwhile()
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
