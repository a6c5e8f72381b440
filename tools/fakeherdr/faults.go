package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"
)

// fault is a scripted misbehaviour for the next calls of one verb.
type fault struct {
	Verb string `json:"verb"`           // list, get, process-info, read, send-keys, send-text, run, rename or any
	Pane string `json:"pane,omitempty"` // only calls naming this pane id
	// Remaining counts the calls still to fail; -1 means every call until
	// `admin clear-faults`.
	Remaining int    `json:"remaining"`
	Mode      string `json:"mode"` // error, truncated, raw or hang
	Code      string `json:"code,omitempty"`
	Message   string `json:"message,omitempty"`
	Exit0     bool   `json:"exit0,omitempty"` // error: the envelope on stdout with exit 0
	Stdout    string `json:"stdout,omitempty"`
	Stderr    string `json:"stderr,omitempty"`
	Exit      int    `json:"exit,omitempty"`
	Seconds   int    `json:"seconds,omitempty"`
	// After makes a hang happen after the verb's effect (the line typed),
	// like a `pane run` that delivered its keys and then wedged.
	After bool `json:"after,omitempty"`
}

var faultVerbs = map[string]bool{"list": true, "get": true, "process-info": true, "read": true,
	"send-keys": true, "send-text": true, "run": true, "rename": true, "any": true}

// takeFault removes and returns the first fault matching verb and pane,
// counting one use.
func takeFault(s *state, verb, pane string) (*fault, bool) {
	for i, f := range s.Faults {
		if f.Verb != "any" && f.Verb != verb {
			continue
		}
		if f.Pane != "" && f.Pane != pane {
			continue
		}
		cp := *f
		if f.Remaining > 0 {
			f.Remaining--
			if f.Remaining == 0 {
				s.Faults = append(s.Faults[:i], s.Faults[i+1:]...)
			}
		}
		return &cp, true
	}
	return nil, false
}

func defaultFaultMessage(code string) string {
	switch code {
	case "pane_send_failed":
		return "failed to send input to pane"
	case "protocol_mismatch":
		return "herdr server protocol version does not match this client"
	case "server_not_running":
		return "no herdr server is running; run `herdr` to start or attach it"
	case "timeout":
		return "timed out"
	}
	return "scripted error " + code
}

// failNow writes the output of a terminal (non-hang) fault and returns the
// exit code.
func failNow(f *fault, id string, stdout, stderr io.Writer) int {
	switch f.Mode {
	case "error":
		msg := f.Message
		if msg == "" {
			msg = defaultFaultMessage(f.Code)
		}
		env := errorEnvelope(id, f.Code, msg)
		if f.Exit0 {
			writeJSON(stdout, env)
			return 0
		}
		writeJSON(stderr, env)
		return 1
	case "truncated":
		b, _ := marshalCompact(errorEnvelope(id, "pane_send_failed", "the reply was cut off here and never finished"))
		stderr.Write(b[:len(b)/2])
		return 1
	case "raw":
		io.WriteString(stdout, f.Stdout)
		io.WriteString(stderr, f.Stderr)
		return f.Exit
	}
	fmt.Fprintf(stderr, "fakeherdr: unknown fault mode %q\n", f.Mode)
	return 1
}

// hang sleeps in a child process of our own process group, so that only a
// caller that kills the whole group ends both: the child's pid is logged to
// hangs.jsonl for the test to check. A signal to this process alone ends it
// and leaves the child running, which is what a group-less kill would do.
func (a *app) hang(ctx context.Context, f *fault, argv []string) {
	secs := f.Seconds
	if secs <= 0 {
		secs = 300
	}
	child := exec.Command(a.exe, "__hang", strconv.Itoa(secs))
	if err := child.Start(); err != nil {
		fmt.Fprintf(a.stderr, "fakeherdr: start hang child: %v\n", err)
		return
	}
	a.store.appendJSONL(hangsFile, map[string]any{
		"argv": argv, "child_pid": child.Process.Pid, "pid": a.pid, "seconds": secs,
		"time": a.now().UTC().Format(time.RFC3339Nano),
	})
	done := make(chan struct{})
	go func() { child.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
