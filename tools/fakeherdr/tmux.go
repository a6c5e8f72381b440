package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tmuxTimeout bounds each tmux client call; a wedged tmux must not turn into
// a hang the test did not script.
const tmuxTimeout = 10 * time.Second

// tmuxServer is the private tmux server behind the fake: every call goes
// through its own -L socket and ignores the user's tmux.conf.
type tmuxServer struct {
	socket string
	env    []string
}

func (t tmuxServer) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tmuxTimeout)
	defer cancel()
	full := append([]string{"-L", t.socket, "-f", "/dev/null"}, args...)
	cmd := exec.CommandContext(ctx, "tmux", full...)
	cmd.Env = t.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// livePane is what tmux knows about one of its panes right now.
type livePane struct {
	id       string
	pid      int
	width    int
	height   int
	history  int
	windowID string
}

// livePanes lists the panes of the private server; no server means no panes.
// A server that is exiting (its last pane just closed) answers "server
// exited unexpectedly" to a client that connected as it went: it has no
// panes either.
func (t tmuxServer) livePanes(ctx context.Context) (map[string]livePane, error) {
	out, err := t.run(ctx, "list-panes", "-a", "-F", "#{pane_id}\t#{pane_pid}\t#{pane_width}\t#{pane_height}\t#{history_size}\t#{window_id}\t#{pane_dead}")
	if err != nil {
		if noServer(err) {
			return map[string]livePane{}, nil
		}
		return nil, err
	}
	panes := map[string]livePane{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 7 || f[6] == "1" {
			continue
		}
		lp := livePane{id: f[0], windowID: f[5]}
		lp.pid, _ = strconv.Atoi(f[1])
		lp.width, _ = strconv.Atoi(f[2])
		lp.height, _ = strconv.Atoi(f[3])
		lp.history, _ = strconv.Atoi(f[4])
		panes[lp.id] = lp
	}
	return panes, nil
}

func (t tmuxServer) hasSession(ctx context.Context, name string) bool {
	_, err := t.run(ctx, "has-session", "-t", "="+name)
	return err == nil
}

// tmuxSocketPath is where `tmux -L name` keeps its socket.
func tmuxSocketPath(tmpdir, name string) string {
	if tmpdir == "" {
		tmpdir = "/tmp"
	}
	return filepath.Join(tmpdir, fmt.Sprintf("tmux-%d", os.Getuid()), name)
}

// hexArgs renders bytes for `send-keys -H`, which types them exactly.
func hexArgs(s string) []string {
	out := make([]string, 0, len(s))
	for i := 0; i < len(s); i++ {
		out = append(out, strconv.FormatUint(uint64(s[i]), 16))
	}
	return out
}

// noServer says a tmux command failed because the private server is not
// there: never started, gone, or exiting under the command.
func noServer(err error) bool {
	m := err.Error()
	return strings.Contains(m, "no server running") || strings.Contains(m, "error connecting") || strings.Contains(m, "server exited unexpectedly")
}
