package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// app carries everything a fakeherdr invocation depends on, so tests can
// build one with their own environment and buffers.
type app struct {
	stdout  io.Writer
	stderr  io.Writer
	getenv  func(string) string
	environ []string
	now     func() time.Time
	exe     string
	pid     int
	cwd     string

	store store
	tmux  tmuxServer
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "fakeherdr: error: cannot find own executable: %v\n", err)
		return 1
	}
	cwd, _ := os.Getwd()
	a := &app{
		stdout: stdout, stderr: stderr,
		getenv: os.Getenv, environ: os.Environ(), now: time.Now,
		exe: exe, pid: os.Getpid(), cwd: cwd,
	}
	return a.main(ctx, args)
}

func (a *app) main(ctx context.Context, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "__hang":
			return hangChild(ctx, args[1:])
		case "admin":
			return a.admin(ctx, args[1:])
		}
	}
	return a.herdr(ctx, args)
}

// configure resolves the state directory and tmux socket from the
// environment; every verb except usage and help needs them.
func (a *app) configure() error {
	dir := a.getenv("FAKEHERDR_STATE")
	if dir == "" {
		return fmt.Errorf("FAKEHERDR_STATE is not set; point it at the fake's state directory")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(a.cwd, dir)
	}
	a.store = store{dir: dir}
	sock := a.getenv("FAKEHERDR_TMUX")
	if sock == "" {
		// One private tmux server per state directory unless told otherwise.
		sum := sha256.Sum256([]byte(dir))
		sock = "fakeherdr-" + hex.EncodeToString(sum[:6])
	}
	a.tmux = tmuxServer{socket: sock, env: a.environ}
	return nil
}

// hangChild is the sleeping child of a scripted hang.
func hangChild(ctx context.Context, args []string) int {
	secs := 300
	if len(args) > 0 {
		if n, err := strconv.Atoi(args[0]); err == nil && n > 0 {
			secs = n
		}
	}
	t := time.NewTimer(time.Duration(secs) * time.Second)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		return 1
	}
}
