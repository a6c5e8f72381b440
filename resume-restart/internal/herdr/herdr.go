// Package herdr is a client for the herdr CLI: each call runs the herdr
// binary once, in a process group of its own, bounded by a deadline.
//
// The process group matters twice. A terminal's Ctrl-C or hangup is sent to
// the foreground process group, so a call in a group of its own survives
// both and its effect (a line typed into a pane) is never half done by a
// signal meant for the runner. And a call that runs past its bound is killed
// as a whole group, helpers included.
//
// Replies are classified strictly, because a restart decides whether to
// stop a process on them:
//   - exit 0 with a JSON reply: success, unless the reply is an error
//     envelope, which is an *APIError;
//   - exit 1 with a complete JSON error envelope on stderr: an *APIError
//     carrying herdr's code;
//   - a call killed at its bound or by cancellation: a *TimeoutError, never
//     an error code, even if its stderr already held JSON;
//   - anything else (another exit status, stderr that is not one complete
//     envelope, stdout that does not parse): a *CallError.
package herdr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// DefaultTimeout bounds each herdr call.
const DefaultTimeout = 10 * time.Second

// Codes the restart runner tells apart. Any other code is still an
// *APIError; callers must match on Code, never on the message.
const (
	CodePaneNotFound     = "pane_not_found"
	CodeServerNotRunning = "server_not_running"
)

// Client runs herdr. The zero Timeout means DefaultTimeout.
type Client struct {
	// Binary is the herdr executable's path.
	Binary string
	// Env is the environment of each call; nil inherits this process's.
	Env []string
	// Timeout bounds one call, from start to exit.
	Timeout time.Duration
}

// APIError is an error herdr itself reported, with its machine code.
type APIError struct {
	Op      string // "pane get", …
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("herdr %s: %s: %s", e.Op, e.Code, e.Message)
}

// TimeoutError is a call that did not finish within its bound (or whose
// context ended first) and was killed with its process group. Its effect is
// unknown: a `pane run` may already have typed its line.
type TimeoutError struct {
	Op       string
	After    time.Duration
	Canceled bool // the caller's context ended, rather than the bound
}

func (e *TimeoutError) Error() string {
	if e.Canceled {
		return fmt.Sprintf("herdr %s: interrupted, call killed", e.Op)
	}
	return fmt.Sprintf("herdr %s: no answer within %s, call killed", e.Op, e.After)
}

// CallError is a failure that carries no trustworthy error code: herdr
// could not be started, exited with an unexpected status, or printed
// something that is not a complete reply.
type CallError struct {
	Op     string
	Exit   int    // -1 when the process did not run or was signalled
	Reason string // what went wrong, without the reply's content
	Err    error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("herdr %s: %s", e.Op, e.Reason)
}

func (e *CallError) Unwrap() error { return e.Err }

// IsCode reports whether err is an *APIError with the given code.
func IsCode(err error, code string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == code
}

// IsTimeout reports whether err is a call killed at its bound or by cancellation.
func IsTimeout(err error) bool {
	var te *TimeoutError
	return errors.As(err, &te)
}

// envelope is the shape of every JSON reply.
type envelope struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call runs herdr with args and returns its stdout on exit 0.
func (c Client) call(ctx context.Context, op string, args ...string) ([]byte, error) {
	if c.Binary == "" {
		return nil, &CallError{Op: op, Exit: -1, Reason: "herdr not found", Err: exec.ErrNotFound}
	}
	bound := c.Timeout
	if bound <= 0 {
		bound = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.Binary, args...)
	cmd.Env = c.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The negative pid names the group; the call's helpers go too.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	// Bounds the wait for output pipes held open by a grandchild that
	// escaped the group.
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cctx.Err() != nil {
		// Whatever it printed, a killed call's output is not a reply.
		return nil, &TimeoutError{Op: op, After: bound, Canceled: ctx.Err() != nil}
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, &CallError{Op: op, Exit: -1, Reason: "cannot run herdr: " + errText(err), Err: err}
		}
		code := ee.ExitCode()
		if code == 1 {
			if ae := parseErrorEnvelope(op, stderr.Bytes()); ae != nil {
				return nil, ae
			}
			return nil, &CallError{Op: op, Exit: 1, Reason: "failed without a readable error reply" + stderrHint(stderr.Bytes())}
		}
		if code < 0 {
			return nil, &CallError{Op: op, Exit: -1, Reason: "herdr was killed by a signal", Err: err}
		}
		return nil, &CallError{Op: op, Exit: code, Reason: fmt.Sprintf("exited with status %d", code) + stderrHint(stderr.Bytes())}
	}
	if ae := parseErrorEnvelope(op, stdout.Bytes()); ae != nil {
		return nil, ae
	}
	return stdout.Bytes(), nil
}

// parseErrorEnvelope returns the APIError when b is exactly one complete
// JSON error envelope with a code, and nil for anything else (a truncated
// or foreign text must never be read as a code).
func parseErrorEnvelope(op string, b []byte) *APIError {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var env envelope
	if err := dec.Decode(&env); err != nil || dec.More() {
		return nil
	}
	if env.Error == nil || env.Error.Code == "" {
		return nil
	}
	return &APIError{Op: op, Code: env.Error.Code, Message: env.Error.Message}
}

// stderrHint gives the first line of a failure's stderr, which is herdr's
// own diagnostic (usage text, a crash), never a pane's content.
func stderrHint(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 160
	if len(s) > max {
		s = s[:max] + "…"
	}
	return ": " + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

func errText(err error) string {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	return err.Error()
}

// decodeResult parses a success reply and checks its result type.
func decodeResult(op string, out []byte, wantType string, into any) error {
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&env); err != nil || dec.More() || len(env.Result) == 0 {
		return &CallError{Op: op, Exit: 0, Reason: "reply is not a herdr JSON result"}
	}
	var typ struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(env.Result, &typ); err != nil || typ.Type != wantType {
		return &CallError{Op: op, Exit: 0, Reason: fmt.Sprintf("reply has result type %q, want %q", typ.Type, wantType)}
	}
	if err := json.Unmarshal(env.Result, into); err != nil {
		return &CallError{Op: op, Exit: 0, Reason: "reply does not decode: " + err.Error()}
	}
	return nil
}

// AgentSession is the session herdr's agent integration reported for a pane.
type AgentSession struct {
	Agent  string `json:"agent"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Value  string `json:"value"`
}

// Scroll is a pane's scroll position; OffsetFromBottom 0 is the live view.
type Scroll struct {
	OffsetFromBottom    int `json:"offset_from_bottom"`
	MaxOffsetFromBottom int `json:"max_offset_from_bottom"`
	ViewportRows        int `json:"viewport_rows"`
}

// Pane is herdr's PaneInfo, the fields this tool reads.
type Pane struct {
	PaneID       string        `json:"pane_id"`
	WorkspaceID  string        `json:"workspace_id"`
	TabID        string        `json:"tab_id"`
	Agent        string        `json:"agent"`
	AgentStatus  string        `json:"agent_status"`
	AgentSession *AgentSession `json:"agent_session"`
	Label        string        `json:"label"`
	Cwd          string        `json:"cwd"`
	Scroll       *Scroll       `json:"scroll"`
}

// ClaudeSession is the Claude session id herdr labels the pane with, or "".
func (p Pane) ClaudeSession() string {
	if p.AgentSession == nil || p.AgentSession.Agent != "claude" {
		return ""
	}
	return p.AgentSession.Value
}

// ScrolledBack reports whether the pane's view is away from the bottom, so
// that its visible screen is history rather than the live screen.
func (p Pane) ScrolledBack() bool {
	return p.Scroll != nil && p.Scroll.OffsetFromBottom > 0
}

// ForegroundProcess is one process of a pane's foreground process group.
type ForegroundProcess struct {
	Pid  int    `json:"pid"`
	Name string `json:"name"`
}

// ProcessInfo says who holds a pane's terminal.
type ProcessInfo struct {
	PaneID                   string              `json:"pane_id"`
	ShellPid                 int                 `json:"shell_pid"`
	ForegroundProcessGroupID int                 `json:"foreground_process_group_id"`
	ForegroundProcesses      []ForegroundProcess `json:"foreground_processes"`
}

// ShellForeground reports whether the pane's own shell holds the terminal
// (it sits at its prompt).
func (pi ProcessInfo) ShellForeground() bool {
	return pi.ShellPid > 0 && pi.ForegroundProcessGroupID == pi.ShellPid
}

// InForeground reports whether pid leads the pane's foreground process
// group while the shell is not at its prompt. Membership alone is not
// enough: a claude started from inside another claude (its shell tool, a
// hook) runs in its parent's foreground job, so it is listed there too, and
// stopping it would leave the parent, not a shell, reading the pane.
func (pi ProcessInfo) InForeground(pid int) bool {
	if pid <= 0 || pi.ForegroundProcessGroupID <= 0 || pi.ShellForeground() {
		return false
	}
	return pi.ForegroundProcessGroupID == pid
}

// PaneList is `herdr pane list`.
func (c Client) PaneList(ctx context.Context) ([]Pane, error) {
	const op = "pane list"
	out, err := c.call(ctx, op, "pane", "list")
	if err != nil {
		return nil, err
	}
	var r struct {
		Panes []Pane `json:"panes"`
	}
	if err := decodeResult(op, out, "pane_list", &r); err != nil {
		return nil, err
	}
	return r.Panes, nil
}

// PaneGet is `herdr pane get <id>`.
func (c Client) PaneGet(ctx context.Context, id string) (Pane, error) {
	const op = "pane get"
	out, err := c.call(ctx, op, "pane", "get", id)
	if err != nil {
		return Pane{}, err
	}
	var r struct {
		Pane *Pane `json:"pane"`
	}
	if err := decodeResult(op, out, "pane_info", &r); err != nil {
		return Pane{}, err
	}
	if r.Pane == nil || r.Pane.PaneID == "" {
		return Pane{}, &CallError{Op: op, Exit: 0, Reason: "reply names no pane"}
	}
	return *r.Pane, nil
}

// ProcessInfo is `herdr pane process-info --pane <id>`. The pane is always
// named: with none, herdr answers for the focused pane.
func (c Client) ProcessInfo(ctx context.Context, id string) (ProcessInfo, error) {
	const op = "pane process-info"
	out, err := c.call(ctx, op, "pane", "process-info", "--pane", id)
	if err != nil {
		return ProcessInfo{}, err
	}
	var r struct {
		ProcessInfo *ProcessInfo `json:"process_info"`
	}
	if err := decodeResult(op, out, "pane_process_info", &r); err != nil {
		return ProcessInfo{}, err
	}
	if r.ProcessInfo == nil {
		return ProcessInfo{}, &CallError{Op: op, Exit: 0, Reason: "reply has no process_info"}
	}
	return *r.ProcessInfo, nil
}

// ReadVisible is `herdr pane read <id> --source visible --ansi`: the
// current screen with its SGR styling kept, so that dim ghost text can be
// told from typed text. The text is another program's screen: callers must
// not log it.
func (c Client) ReadVisible(ctx context.Context, id string) (string, error) {
	out, err := c.call(ctx, "pane read", "pane", "read", id, "--source", "visible", "--ansi")
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// SendKeys is `herdr pane send-keys <id> <key>…`.
func (c Client) SendKeys(ctx context.Context, id string, keys ...string) error {
	_, err := c.call(ctx, "pane send-keys", append([]string{"pane", "send-keys", id}, keys...)...)
	return err
}

// Run is `herdr pane run <id> <line>`: types line into the pane and presses
// Enter. herdr joins its arguments with spaces and types `--` literally, so
// the line travels as one argument, already quoted for the pane's shell.
func (c Client) Run(ctx context.Context, id, line string) error {
	_, err := c.call(ctx, "pane run", "pane", "run", id, line)
	return err
}
