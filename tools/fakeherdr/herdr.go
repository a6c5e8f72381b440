package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// herdr runs one herdr-compatible command.
func (a *app) herdr(ctx context.Context, args []string) int {
	c, perr := parseArgs(args)
	cerr := a.configure()
	if cerr != nil && perr == nil && !c.help {
		fmt.Fprintf(a.stderr, "fakeherdr: error: %v\n", cerr)
		return 1
	}
	var f *fault
	var snap *state
	if cerr == nil {
		err := a.store.update(func(s *state) (bool, error) {
			if err := a.store.appendJSONL(callsFile, args); err != nil {
				return false, err
			}
			snap = s
			if perr != nil || c.help {
				return false, nil
			}
			pane := c.pane
			if c.verb == "process-info" && c.current {
				pane = a.getenv("HERDR_PANE_ID")
			}
			var ok bool
			f, ok = takeFault(s, c.verb, pane)
			return ok, nil
		})
		if err != nil {
			fmt.Fprintf(a.stderr, "fakeherdr: error: %v\n", err)
			return 1
		}
	}
	if perr != nil {
		fmt.Fprint(a.stderr, perr.Error())
		return 2
	}
	if c.help {
		u := topUsage
		if c.verb != "" {
			u = usages[c.verb]
		}
		fmt.Fprintf(a.stdout, "Usage: %s\n", u)
		return 0
	}

	if f != nil && f.Mode != "hang" {
		return failNow(f, c.replyID(), a.stdout, a.stderr)
	}
	if f != nil && !f.After {
		a.hang(ctx, f, args)
		if ctx.Err() != nil {
			return 1
		}
		// The test may have changed the panes while this call hung.
		if s, err := a.store.read(); err == nil {
			snap = s
		}
	}
	stdout, stderr := a.stdout, a.stderr
	var outBuf, errBuf bytes.Buffer
	if f != nil && f.After {
		stdout, stderr = &outBuf, &errBuf
	}
	code := a.serve(ctx, c, snap, stdout, stderr)
	if f != nil && f.After {
		a.hang(ctx, f, args)
		if ctx.Err() != nil {
			return 1
		}
		a.stdout.Write(outBuf.Bytes())
		a.stderr.Write(errBuf.Bytes())
	}
	return code
}

// serve answers the call from tmux and /proc, as a running herdr server would.
func (a *app) serve(ctx context.Context, c call, s *state, stdout, stderr io.Writer) int {
	fail := func(code, msg string) int {
		writeJSON(stderr, errorEnvelope(c.replyID(), code, msg))
		return 1
	}
	if sock, hint := a.socketPath(c.session); !socketListening(sock) {
		return fail("server_not_running", fmt.Sprintf("no herdr server is running at %s; run `%s` to start or attach it", sock, hint))
	}
	live, err := a.tmux.livePanes(ctx)
	if err != nil {
		return fail("internal_error", err.Error())
	}
	notFound := func() int { return fail("pane_not_found", fmt.Sprintf("pane %s not found", c.pane)) }

	switch c.verb {
	case "list":
		panes := []paneInfo{}
		known := false
		for _, p := range s.Panes {
			lp, ok := paneLive(p, live)
			if !ok {
				continue
			}
			if c.workspace != "" && p.WorkspaceID != c.workspace {
				continue
			}
			known = true
			panes = append(panes, describePane(s, p, lp, live))
		}
		if c.workspace != "" && !known {
			return fail("workspace_not_found", fmt.Sprintf("workspace %s not found", c.workspace))
		}
		writeJSON(stdout, map[string]any{"id": c.replyID(), "result": map[string]any{"panes": panes, "type": "pane_list"}})
		return 0

	case "get":
		p, lp, ok := lookup(s, c.pane, live)
		if !ok {
			return notFound()
		}
		writeJSON(stdout, map[string]any{"id": c.replyID(), "result": map[string]any{"pane": describePane(s, p, lp, live), "type": "pane_info"}})
		return 0

	case "process-info":
		id := c.pane
		switch {
		case c.current:
			id = a.getenv("HERDR_PANE_ID")
		case id == "":
			id = focusedPane(s, live)
		}
		p, lp, ok := lookup(s, id, live)
		if !ok {
			return fail("pane_not_found", "pane not found")
		}
		info := processInfo{PaneID: p.ID, ShellPID: lp.pid}
		if st, err := readStat(lp.pid); err == nil && st.tpgid > 0 {
			info.ForegroundProcessGroupID = st.tpgid
			info.ForegroundProcesses = foregroundGroup(st.tpgid)
		}
		writeJSON(stdout, map[string]any{"id": c.replyID(), "result": map[string]any{"process_info": info, "type": "pane_process_info"}})
		return 0

	case "read":
		p, lp, ok := lookup(s, c.pane, live)
		if !ok {
			return notFound()
		}
		text, err := a.readScreen(ctx, c, p, lp)
		if err != nil {
			return fail("internal_error", err.Error())
		}
		io.WriteString(stdout, text)
		return 0

	case "send-keys":
		// herdr validates every key before it writes a byte.
		var tk []tmuxKey
		for _, k := range c.keys {
			t, err := translateKey(k)
			if err != nil {
				return fail("invalid_key", err.Error())
			}
			tk = append(tk, t)
		}
		p, lp, ok := lookup(s, c.pane, live)
		if !ok {
			return notFound()
		}
		var args []string
		for _, k := range tk {
			if len(args) > 0 {
				args = append(args, ";")
			}
			if k.name != "" {
				args = append(args, "send-keys", "-t", lp.id, k.name)
			} else {
				args = append(append(args, "send-keys", "-t", lp.id, "-H"), hexArgs(k.literal)...)
			}
		}
		if _, err := a.tmux.run(ctx, args...); err != nil {
			return fail("pane_send_failed", err.Error())
		}
		a.recordTyped(p, lp, map[string]any{"keys": c.keys, "verb": "send-keys"})
		return 0

	case "send-text":
		p, lp, ok := lookup(s, c.pane, live)
		if !ok {
			return notFound()
		}
		if _, err := a.tmux.run(ctx, append([]string{"send-keys", "-t", lp.id, "-H"}, hexArgs(c.text)...)...); err != nil {
			return fail("pane_send_failed", err.Error())
		}
		a.recordTyped(p, lp, map[string]any{"text": c.text, "verb": "send-text"})
		return 0

	case "run":
		p, lp, ok := lookup(s, c.pane, live)
		if !ok {
			return notFound()
		}
		payload := c.text
		if p.BracketedPaste {
			payload = "\x1b[200~" + payload + "\x1b[201~"
		}
		args := append([]string{"send-keys", "-t", lp.id, "-H"}, hexArgs(payload)...)
		args = append(args, ";", "send-keys", "-t", lp.id, "Enter")
		if _, err := a.tmux.run(ctx, args...); err != nil {
			return fail("pane_send_failed", err.Error())
		}
		a.recordTyped(p, lp, map[string]any{"bracketed_paste": p.BracketedPaste, "enter": true, "text": c.text, "verb": "run"})
		return 0

	case "rename":
		var info paneInfo
		found := false
		err := a.store.update(func(st *state) (bool, error) {
			p, lp, ok := lookup(st, c.pane, live)
			if !ok {
				return false, nil
			}
			found = true
			p.Label = c.label
			p.Revision++
			info = describePane(st, p, lp, live)
			return true, nil
		})
		if err != nil {
			return fail("internal_error", err.Error())
		}
		if !found {
			return notFound()
		}
		writeJSON(stdout, map[string]any{"id": c.replyID(), "result": map[string]any{"pane": info, "type": "pane_info"}})
		return 0
	}
	return fail("invalid_request", "unsupported command")
}

func (a *app) recordTyped(p *paneState, lp livePane, rec map[string]any) {
	rec["pane_id"] = p.ID
	rec["tmux_pane"] = lp.id
	rec["time"] = a.now().UTC().Format(time.RFC3339Nano)
	a.store.appendJSONL(typedFile, rec)
}

// readScreen captures the pane the way herdr's pane read sources do:
// visible is the screen as scrolled, recent the last lines of the scrollback.
func (a *app) readScreen(ctx context.Context, c call, p *paneState, lp livePane) (string, error) {
	args := []string{"capture-pane", "-p", "-t", lp.id}
	if c.ansi {
		args = append(args, "-e")
	}
	visible := c.source == "visible" || c.source == "detection"
	if visible {
		if off := min(p.Scroll, lp.history); off > 0 {
			args = append(args, "-S", strconv.Itoa(-off), "-E", strconv.Itoa(lp.height-1-off))
		}
	} else {
		args = append(args, "-S", "-", "-E", "-")
		if c.source == "recent-unwrapped" {
			args = append(args, "-J")
		}
	}
	out, err := a.tmux.run(ctx, args...)
	if err != nil {
		return "", err
	}
	n := c.lines
	if !visible {
		if n == 0 {
			n = 80
		}
		out = strings.TrimRight(out, "\n") + "\n"
	}
	if n > 0 {
		lines := strings.SplitAfter(out, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > n {
			out = strings.Join(lines[len(lines)-n:], "")
		}
	}
	return out, nil
}

// socketPath picks the socket the way herdr's CLI does: --session, then
// HERDR_SOCKET_PATH, then HERDR_SESSION, then the default. hint is the
// command herdr suggests when nothing listens there.
func (a *app) socketPath(session string) (path, hint string) {
	configDir := a.getenv("XDG_CONFIG_HOME")
	if configDir != "" {
		configDir = filepath.Join(configDir, "herdr")
	} else {
		configDir = filepath.Join(a.getenv("HOME"), ".config", "herdr")
	}
	named := func(n string) (string, string) {
		return filepath.Join(configDir, "sessions", n, "herdr.sock"), "herdr session attach " + n
	}
	switch {
	case session != "":
		return named(session)
	case a.getenv("HERDR_SOCKET_PATH") != "":
		return a.getenv("HERDR_SOCKET_PATH"), "herdr"
	case a.getenv("HERDR_SESSION") != "":
		return named(a.getenv("HERDR_SESSION"))
	}
	return filepath.Join(configDir, "herdr.sock"), "herdr"
}

// socketListening is herdr's ping reduced to its observable part: the path
// is a Unix socket something listens on.
func socketListening(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return false
	}
	conn, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// paneLive finds the tmux pane behind a herdr pane, if it still exists.
func paneLive(p *paneState, live map[string]livePane) (livePane, bool) {
	lp, ok := live[p.TmuxPane]
	if !ok || lp.pid != p.ShellPID {
		return livePane{}, false
	}
	return lp, true
}

func lookup(s *state, id string, live map[string]livePane) (*paneState, livePane, bool) {
	p := s.pane(id)
	if p == nil || id == "" {
		return nil, livePane{}, false
	}
	lp, ok := paneLive(p, live)
	return p, lp, ok
}

// focusedPane is the test-chosen focus, or the first live pane.
func focusedPane(s *state, live map[string]livePane) string {
	if p := s.pane(s.Focused); p != nil {
		if _, ok := paneLive(p, live); ok {
			return p.ID
		}
	}
	for _, p := range s.Panes {
		if _, ok := paneLive(p, live); ok {
			return p.ID
		}
	}
	return ""
}

// describePane builds PaneInfo from the mapping and from the live processes:
// the agent comes from the foreground process group, its status and session
// from that claude's registry file.
func describePane(s *state, p *paneState, lp livePane, live map[string]livePane) paneInfo {
	info := paneInfo{
		PaneID: p.ID, TerminalID: p.TerminalID, WorkspaceID: p.WorkspaceID, TabID: p.TabID,
		Revision: p.Revision, Label: p.Label, AgentStatus: "unknown",
		Focused: focusedPane(s, live) == p.ID,
		Scroll:  &scrollInfo{MaxOffsetFromBottom: lp.history, OffsetFromBottom: p.Scroll, ViewportRows: lp.height},
	}
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", lp.pid)); err == nil {
		info.Cwd = cwd
	}
	autoSession := ""
	if st, err := readStat(lp.pid); err == nil && st.tpgid > 0 {
		fg := foregroundGroup(st.tpgid)
		if len(fg) > 0 {
			info.ForegroundCwd = fg[0].Cwd
		}
		for _, proc := range fg {
			if !isClaude(proc) {
				continue
			}
			info.Agent = "claude"
			if reg, ok := readClaudeRegistry(proc.Pid); ok {
				info.AgentStatus = agentStatusFor(reg.Status)
				autoSession = reg.SessionID
			}
			break
		}
	}
	if p.StatusOverride != "" {
		info.AgentStatus = p.StatusOverride
	}
	value := ""
	switch p.SessionMode {
	case "fixed":
		value = p.SessionValue
	case "none":
	default:
		value = autoSession
	}
	if value != "" {
		info.AgentSession = &agentSession{Agent: "claude", Kind: "id", Source: "herdr:claude", Value: value}
	}
	return info
}
