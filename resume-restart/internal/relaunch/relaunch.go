// Package relaunch asks forgectl, before a session is stopped, whether the
// relaunch a restart will type into its pane, `<forgectl> resume <id>`, can
// succeed.
//
// It does not re-implement forgectl's rules: it runs the same forgectl
// binary the pane will run, as `forgectl resume --dry-run --json
// --assume-stopped <pid> <id>`, which resolves the session exactly as the
// relaunch will (the same listing and lookup, the session's directory, the
// config and its [proxy] launch_profile, the [launch] profile, the claude
// binary) and treats only the pid about to be stopped as already gone. The
// answer is one JSON verdict (forgectl resume --help, VERDICT).
//
// The relaunch runs in the pane's shell, not in this process, so the
// variables that steer the resolution (where the homes and config are,
// which claude, PATH) are taken from the session's own environment: the
// claude was started from that shell and inherited them. When that
// environment cannot be read, this process's values stand.
//
// The call runs in a process group of its own, so a terminal's Ctrl-C or
// hangup does not reach it, and is killed as a group at its bound.
package relaunch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/verdict"

	"forgectl.dev/shared/proc"
)

// DefaultTimeout bounds one resolution: a cold listing of a large home
// takes seconds.
const DefaultTimeout = 60 * time.Second

// Verdict is forgectl's answer (its VERDICT table).
type Verdict = verdict.Verdict

// SessionEnv names the variables taken from the session's environment:
// everything forgectl resume reads to find the session, its config and
// claude.
var SessionEnv = []string{
	"HOME", "PATH", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME",
	"FORGECTL_CONFIG_DIR", "FORGECTL_CLAUDE_BIN",
}

// Resolver runs forgectl's dry run. Zero fields use the real implementations.
type Resolver struct {
	// Forgectl is the absolute path the relaunch line types.
	Forgectl string
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout time.Duration
	// Environ is the base environment (os.Environ by default).
	Environ func() []string
	// SessionEnviron reads a process's environment (proc.Environ by default).
	SessionEnviron func(pid int) ([]string, error)
}

// Error is a resolution that gave no verdict: forgectl could not be run,
// did not answer in time, or printed something that is not a verdict (an
// older forgectl without --json, say).
type Error struct {
	Reason string
}

func (e *Error) Error() string { return e.Reason }

// Resolve asks whether `forgectl resume <id>` would exec claude once pid
// has exited. A returned error means no verdict: nothing is known.
func (r Resolver) Resolve(ctx context.Context, id string, pid int) (Verdict, error) {
	if r.Forgectl == "" {
		return Verdict{}, &Error{"forgectl's path is unknown"}
	}
	bound := r.Timeout
	if bound <= 0 {
		bound = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	// "--" keeps an id that starts with "-" an argument.
	cmd := exec.CommandContext(cctx, r.Forgectl, "resume", "--dry-run", "--json",
		"--assume-stopped", strconv.Itoa(pid), "--", id)
	cmd.Env = r.env(pid)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cctx.Err() != nil {
		if ctx.Err() != nil {
			return Verdict{}, &Error{"interrupted while forgectl resume --dry-run resolved the relaunch"}
		}
		return Verdict{}, &Error{fmt.Sprintf("forgectl resume --dry-run did not answer within %s", bound)}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Verdict{}, &Error{fmt.Sprintf("cannot run %s: %v", r.Forgectl, err)}
	}
	var v Verdict
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(stdout.Bytes())))
	if derr := dec.Decode(&v); derr != nil || dec.More() {
		return Verdict{}, &Error{fmt.Sprintf("forgectl resume --dry-run --json gave no verdict (exit %d%s); is %s older than this resume-restart?",
			cmd.ProcessState.ExitCode(), firstError(stderr.Bytes()), r.Forgectl)}
	}
	// The exit code and the verdict must agree, or the verdict is not
	// forgectl's.
	if code := cmd.ProcessState.ExitCode(); v.OK != (code == 0) || v.ExitCode != code {
		return Verdict{}, &Error{fmt.Sprintf("forgectl resume --dry-run's verdict (ok %v, exit_code %d) disagrees with its exit status %d", v.OK, v.ExitCode, code)}
	}
	if v.OK && v.SessionID != id {
		return Verdict{}, &Error{fmt.Sprintf("forgectl resume --dry-run resolved session %q, not %q", v.SessionID, id)}
	}
	return v, nil
}

// env is the base environment with SessionEnv taken from the session's own:
// set when it has the variable, removed when it does not.
func (r Resolver) env(pid int) []string {
	environ := r.Environ
	if environ == nil {
		environ = os.Environ
	}
	read := r.SessionEnviron
	if read == nil {
		read = proc.Environ
	}
	base := environ()
	sess, err := read(pid)
	if err != nil || len(sess) == 0 {
		return base
	}
	take := map[string]bool{}
	for _, k := range SessionEnv {
		take[k] = true
	}
	out := make([]string, 0, len(base)+len(SessionEnv))
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !take[k] {
			out = append(out, kv)
		}
	}
	for _, kv := range sess {
		if k, _, _ := strings.Cut(kv, "="); take[k] {
			out = append(out, kv)
			delete(take, k) // the first value wins, as getenv's does
		}
	}
	return out
}

// firstError is forgectl's first error line, for a call that gave no verdict.
func firstError(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(l, msg.Prefix(msg.Error)); ok {
			if len(m) > 200 {
				m = m[:200] + "…"
			}
			return ": " + strings.Map(func(r rune) rune {
				if r < 0x20 || r == 0x7f {
					return '?'
				}
				return r
			}, m)
		}
	}
	return ""
}
