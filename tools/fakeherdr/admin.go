package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// adminUsage lists the test-only verbs; see the package doc for details.
const adminUsage = `usage: fakeherdr admin <verb> [args]

  create-pane [--id ID] [--workspace W] [--tab T] [--cwd DIR] [--env K=V]... [--size COLSxROWS]
              [--socket PATH] [--focus] [--run LINE] [-- CMD [ARG...]]
  close-pane ID
  session ID (--auto | --none | --value UUID | --same-as OTHER_ID)
  label ID (TEXT | --clear)
  status ID (idle|working|blocked|done|unknown | --auto)
  scroll ID N
  focus ID
  paste ID (on|off)
  renumber
  set-id OLD_ID NEW_ID
  fault VERB [--times N] [--pane ID] (--error CODE [--message M] [--exit0] | --truncated |
             --stdout TEXT | --stderr TEXT [--exit N] | --hang [--seconds N] [--after])
  clear-faults
  state
  wait ID (--contains TEXT | --absent TEXT) [--timeout DURATION] [--ansi]
  serve-socket PATH
  kill-server
`

type adminErr struct {
	usage bool
	msg   string
}

func (e *adminErr) Error() string { return e.msg }

func usageErr(format string, a ...any) error {
	return &adminErr{usage: true, msg: fmt.Sprintf(format, a...)}
}

func (a *app) admin(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w, code := a.stdout, 0
		if len(args) == 0 {
			w, code = a.stderr, 2
		}
		fmt.Fprint(w, adminUsage)
		return code
	}
	verb, rest := args[0], args[1:]
	var err error
	if verb == "serve-socket" {
		err = a.serveSocket(ctx, rest)
	} else if err = a.configure(); err == nil {
		switch verb {
		case "create-pane":
			err = a.createPane(ctx, rest)
		case "close-pane":
			err = a.closePane(ctx, rest)
		case "session", "label", "status", "scroll", "focus", "paste":
			err = a.setPaneField(ctx, verb, rest)
		case "renumber":
			err = a.renumber(ctx, rest)
		case "set-id":
			err = a.setID(ctx, rest)
		case "fault":
			err = a.addFault(rest)
		case "clear-faults":
			err = a.store.update(func(s *state) (bool, error) { s.Faults = []*fault{}; return true, nil })
		case "state":
			err = a.dumpState(ctx)
		case "wait":
			err = a.waitScreen(ctx, rest)
		case "kill-server":
			err = a.killServer(ctx)
		default:
			err = usageErr("unknown admin verb %q", verb)
		}
	}
	if err == nil {
		return 0
	}
	var ae *adminErr
	if errors.As(err, &ae) && ae.usage {
		fmt.Fprintf(a.stderr, "fakeherdr: error: %s\n%s", ae.msg, adminUsage)
		return 2
	}
	fmt.Fprintf(a.stderr, "fakeherdr: error: %v\n", err)
	return 1
}

// parseFlags parses flags and positionals in any order, stopping at "--".
func parseFlags(fs *flag.FlagSet, args []string) (pos, tail []string, err error) {
	for i, arg := range args {
		if arg == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, usageErr("%s: %v", fs.Name(), err)
		}
		if fs.NArg() == 0 {
			return pos, tail, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

type envList []string

func (e *envList) String() string { return strings.Join(*e, ",") }
func (e *envList) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

// createPane starts a tmux window for a new herdr pane. The pane runs a
// real shell unless a command follows "--"; herdr's variables are injected
// into its environment the way herdr does for every pane process.
func (a *app) createPane(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("create-pane", flag.ContinueOnError)
	id := fs.String("id", "", "herdr pane id (default: next in the workspace)")
	ws := fs.String("workspace", "w1", "workspace id")
	tab := fs.String("tab", "", "tab id (default <workspace>:t1)")
	cwd := fs.String("cwd", a.cwd, "working directory")
	size := fs.String("size", "120x40", "COLSxROWS")
	sock := fs.String("socket", a.getenv("HERDR_SOCKET_PATH"), "HERDR_SOCKET_PATH given to the pane")
	focus := fs.Bool("focus", false, "make it the focused pane")
	runLine := fs.String("run", "", "line typed into the pane's shell once it has drawn")
	var env envList
	fs.Var(&env, "env", "KEY=VALUE for the pane (repeatable)")
	pos, cmd, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("create-pane: unexpected argument %q (put the command after --)", pos[0])
	}
	cols, rows, ok := parseSize(*size)
	if !ok {
		return usageErr("create-pane: bad --size %q", *size)
	}
	if *id != "" {
		w, _, err := splitPaneID(*id)
		if err != nil {
			return usageErr("create-pane: %v", err)
		}
		*ws = w
	}
	if _, ok := decodeNumber(strings.TrimPrefix(*ws, "w")); !ok || !strings.HasPrefix(*ws, "w") {
		return usageErr("create-pane: bad workspace id %q", *ws)
	}
	if *tab == "" {
		*tab = *ws + ":t1"
	}
	paneEnv := []string{}
	if len(cmd) == 0 {
		shell := strings.Fields(a.getenv("FAKEHERDR_SHELL"))
		if len(shell) == 0 {
			shell = []string{"bash", "--noprofile", "--norc"}
			paneEnv = append(paneEnv, "PS1=$ ", "HISTFILE=/dev/null")
		}
		cmd = shell
	}

	var out map[string]any
	err = a.store.update(func(s *state) (bool, error) {
		live, err := a.tmux.livePanes(ctx)
		if err != nil {
			return false, err
		}
		fresh := !a.tmux.hasSession(ctx, s.TmuxSession)
		if fresh {
			// A new tmux server reuses %N ids: forget every old pane.
			s.Panes = []*paneState{}
			s.Focused = ""
		} else {
			pruneDead(s, live)
		}
		pid := *id
		if pid == "" {
			s.NextPane[*ws] = max(s.NextPane[*ws], 1)
			pid = paneID(*ws, s.NextPane[*ws])
		}
		if s.pane(pid) != nil {
			return false, fmt.Errorf("create-pane: pane %s already exists", pid)
		}
		_, n, _ := splitPaneID(pid)
		s.NextPane[*ws] = max(s.NextPane[*ws], n+1)
		term := "term-" + strconv.Itoa(s.NextTerminal)
		s.NextTerminal++

		// The caller's environment first, so each pane gets the environment
		// of its own create-pane call rather than the tmux server's.
		var full []string
		for _, kv := range a.environ {
			if k, _, _ := strings.Cut(kv, "="); k != "TMUX" && k != "TMUX_PANE" {
				full = append(full, kv)
			}
		}
		full = append(full, []string{
			"HERDR_ENV=1", "HERDR_SOCKET_PATH=" + *sock, "HERDR_PANE_ID=" + pid,
			"HERDR_TAB_ID=" + *tab, "HERDR_WORKSPACE_ID=" + *ws,
			"FAKEHERDR_STATE=" + a.store.dir, "FAKEHERDR_TMUX=" + a.tmux.socket,
		}...)
		full = append(full, paneEnv...)
		full = append(full, env...)
		targs := []string{}
		if fresh {
			targs = append(targs, "new-session", "-d", "-s", s.TmuxSession, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
		} else {
			targs = append(targs, "new-window", "-d", "-t", s.TmuxSession+":")
		}
		targs = append(targs, "-P", "-F", "#{pane_id}\t#{pane_pid}\t#{window_id}\t#{pid}", "-c", *cwd)
		for _, kv := range full {
			targs = append(targs, "-e", kv)
		}
		targs = append(append(targs, "--"), cmd...)
		res, err := a.paneClient(full).run(ctx, targs...)
		if err != nil {
			return false, err
		}
		f := strings.Split(strings.TrimSpace(res), "\t")
		if len(f) != 4 {
			return false, fmt.Errorf("create-pane: unexpected tmux reply %q", res)
		}
		shellPID, _ := strconv.Atoi(f[1])
		serverPID, _ := strconv.Atoi(f[3])
		waitExec(shellPID, serverPID)
		if !fresh {
			if _, err := a.tmux.run(ctx, "resize-window", "-t", f[2], "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)); err != nil {
				return false, err
			}
		}
		s.Panes = append(s.Panes, &paneState{
			ID: pid, WorkspaceID: *ws, TabID: *tab, TerminalID: term,
			TmuxPane: f[0], ShellPID: shellPID, Revision: 1, SessionMode: "auto",
		})
		if *focus || s.Focused == "" {
			s.Focused = pid
		}
		out = map[string]any{"pane_id": pid, "shell_pid": shellPID, "tab_id": *tab, "terminal_id": term, "tmux_pane": f[0], "workspace_id": *ws}
		return true, nil
	})
	if err != nil {
		return err
	}
	if *runLine != "" {
		tp := out["tmux_pane"].(string)
		// Let the shell draw its prompt first, so the line is read by the
		// shell's line editor rather than echoed by the tty beforehand.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			scr, err := a.tmux.run(ctx, "capture-pane", "-p", "-t", tp)
			if err == nil && strings.TrimSpace(scr) != "" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		targs := append([]string{"send-keys", "-t", tp, "-H"}, hexArgs(*runLine)...)
		if _, err := a.tmux.run(ctx, append(targs, ";", "send-keys", "-t", tp, "Enter")...); err != nil {
			return err
		}
	}
	return writeJSON(a.stdout, out)
}

// paneClient is the tmux client that creates a pane. tmux gives a new pane
// the PATH of the client that asked for it, whatever -e says, so a PATH
// meant for the pane must be the client's own.
func (a *app) paneClient(paneEnv []string) tmuxServer {
	path := ""
	for _, kv := range paneEnv {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if path == "" {
		return a.tmux
	}
	env := []string{"PATH=" + path}
	for _, kv := range a.tmux.env {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return tmuxServer{socket: a.tmux.socket, env: env}
}

// waitExec waits until tmux's forked child has exec'd the pane command:
// before that, its /proc entry (environment, name, executable) is still the
// tmux server's, and a test reading it would see the wrong process.
func waitExec(pid, serverPID int) {
	server, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", serverPID))
	if err != nil {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || exe != server {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func parseSize(s string) (int, int, bool) {
	c, r, ok := strings.Cut(s, "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !ok || err1 != nil || err2 != nil || cols < 10 || rows < 5 {
		return 0, 0, false
	}
	return cols, rows, true
}

func pruneDead(s *state, live map[string]livePane) bool {
	changed := false
	for _, p := range append([]*paneState(nil), s.Panes...) {
		if _, ok := paneLive(p, live); !ok {
			s.removePane(p.ID)
			changed = true
		}
	}
	return changed
}

func (a *app) closePane(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageErr("close-pane: want exactly one pane id")
	}
	return a.store.update(func(s *state) (bool, error) {
		p := s.pane(args[0])
		if p == nil {
			return false, fmt.Errorf("close-pane: no pane %s", args[0])
		}
		live, err := a.tmux.livePanes(ctx)
		if err != nil {
			return false, err
		}
		if lp, ok := paneLive(p, live); ok {
			if _, err := a.tmux.run(ctx, "kill-pane", "-t", lp.id); err != nil {
				return false, err
			}
		}
		s.removePane(p.ID)
		return true, nil
	})
}

// setPaneField implements the admin verbs that change one pane's scripted
// state.
func (a *app) setPaneField(ctx context.Context, verb string, args []string) error {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	var auto, none, clear *bool
	var value, sameAs *string
	switch verb {
	case "session":
		auto = fs.Bool("auto", false, "")
		none = fs.Bool("none", false, "")
		value = fs.String("value", "", "")
		sameAs = fs.String("same-as", "", "")
	case "label":
		clear = fs.Bool("clear", false, "")
	case "status":
		auto = fs.Bool("auto", false, "")
	}
	pos, _, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("%s: missing pane id", verb)
	}
	id, pos := pos[0], pos[1:]
	var apply func(s *state, p *paneState) error
	switch verb {
	case "session":
		n := 0
		for _, set := range []bool{*auto, *none, *value != "", *sameAs != ""} {
			if set {
				n++
			}
		}
		if n != 1 || len(pos) > 0 {
			return usageErr("session: give exactly one of --auto, --none, --value UUID, --same-as ID")
		}
		apply = func(s *state, p *paneState) error {
			switch {
			case *auto:
				p.SessionMode, p.SessionValue = "auto", ""
			case *none:
				p.SessionMode, p.SessionValue = "none", ""
			case *value != "":
				p.SessionMode, p.SessionValue = "fixed", *value
			default:
				other := s.pane(*sameAs)
				if other == nil {
					return fmt.Errorf("session: no pane %s", *sameAs)
				}
				live, err := a.tmux.livePanes(ctx)
				if err != nil {
					return err
				}
				lp, ok := paneLive(other, live)
				if !ok {
					return fmt.Errorf("session: pane %s is not running", *sameAs)
				}
				info := describePane(s, other, lp, live)
				if info.AgentSession == nil {
					return fmt.Errorf("session: pane %s reports no agent_session", *sameAs)
				}
				p.SessionMode, p.SessionValue = "fixed", info.AgentSession.Value
			}
			return nil
		}
	case "label":
		if *clear == (len(pos) == 1) || len(pos) > 1 {
			return usageErr("label: give TEXT or --clear")
		}
		apply = func(_ *state, p *paneState) error {
			p.Label = ""
			if !*clear {
				p.Label = pos[0]
			}
			return nil
		}
	case "status":
		if *auto == (len(pos) == 1) || len(pos) > 1 {
			return usageErr("status: give a status or --auto")
		}
		if !*auto {
			switch pos[0] {
			case "idle", "working", "blocked", "done", "unknown":
			default:
				return usageErr("status: %q is not one of idle, working, blocked, done, unknown", pos[0])
			}
		}
		apply = func(_ *state, p *paneState) error {
			p.StatusOverride = ""
			if !*auto {
				p.StatusOverride = pos[0]
			}
			return nil
		}
	case "scroll":
		if len(pos) != 1 {
			return usageErr("scroll: want ID N")
		}
		n, err := strconv.Atoi(pos[0])
		if err != nil || n < 0 {
			return usageErr("scroll: %q is not a non-negative number", pos[0])
		}
		apply = func(_ *state, p *paneState) error { p.Scroll = n; return nil }
	case "focus":
		if len(pos) != 0 {
			return usageErr("focus: want only the pane id")
		}
		apply = func(s *state, p *paneState) error { s.Focused = p.ID; return nil }
	case "paste":
		if len(pos) != 1 || (pos[0] != "on" && pos[0] != "off") {
			return usageErr("paste: want ID on|off")
		}
		apply = func(_ *state, p *paneState) error { p.BracketedPaste = pos[0] == "on"; return nil }
	}
	return a.store.update(func(s *state) (bool, error) {
		p := s.pane(id)
		if p == nil {
			return false, fmt.Errorf("%s: no pane %s", verb, id)
		}
		if err := apply(s, p); err != nil {
			return false, err
		}
		p.Revision++
		return true, nil
	})
}

// renumber simulates a herdr server restart: every live pane gets a new id
// and terminal id, and the old ids answer pane_not_found from then on. The
// processes keep running, so their HERDR_PANE_ID goes stale, as in herdr.
func (a *app) renumber(ctx context.Context, args []string) error {
	if len(args) != 0 {
		return usageErr("renumber takes no arguments")
	}
	mapping := map[string]string{}
	err := a.store.update(func(s *state) (bool, error) {
		live, err := a.tmux.livePanes(ctx)
		if err != nil {
			return false, err
		}
		pruneDead(s, live)
		for _, p := range s.Panes {
			n := max(s.NextPane[p.WorkspaceID], 1)
			s.NextPane[p.WorkspaceID] = n + 1
			old := p.ID
			p.ID = paneID(p.WorkspaceID, n)
			p.TerminalID = "term-" + strconv.Itoa(s.NextTerminal)
			s.NextTerminal++
			p.Revision++
			mapping[old] = p.ID
			if s.Focused == old {
				s.Focused = p.ID
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(a.stdout, mapping)
}

func (a *app) setID(ctx context.Context, args []string) error {
	if len(args) != 2 {
		return usageErr("set-id: want OLD_ID NEW_ID")
	}
	ws, n, err := splitPaneID(args[1])
	if err != nil {
		return usageErr("set-id: %v", err)
	}
	return a.store.update(func(s *state) (bool, error) {
		p := s.pane(args[0])
		if p == nil {
			return false, fmt.Errorf("set-id: no pane %s", args[0])
		}
		if args[0] != args[1] && s.pane(args[1]) != nil {
			return false, fmt.Errorf("set-id: pane %s already exists", args[1])
		}
		if s.Focused == p.ID {
			s.Focused = args[1]
		}
		p.ID, p.WorkspaceID = args[1], ws
		s.NextPane[ws] = max(s.NextPane[ws], n+1)
		p.Revision++
		return true, nil
	})
}

func (a *app) addFault(args []string) error {
	fs := flag.NewFlagSet("fault", flag.ContinueOnError)
	times := fs.Int("times", 1, "calls to affect; 0 means all until clear-faults")
	pane := fs.String("pane", "", "only calls for this pane id")
	code := fs.String("error", "", "error code for a JSON error")
	msg := fs.String("message", "", "error message")
	exit0 := fs.Bool("exit0", false, "error envelope on stdout with exit 0")
	trunc := fs.Bool("truncated", false, "half a JSON error on stderr, exit 1")
	stdout := fs.String("stdout", "", "raw stdout")
	stderr := fs.String("stderr", "", "raw stderr")
	exit := fs.Int("exit", -1, "exit code for --stdout/--stderr")
	hang := fs.Bool("hang", false, "sleep in a child process")
	secs := fs.Int("seconds", 300, "hang length")
	after := fs.Bool("after", false, "hang after the verb's effect")
	pos, _, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || !faultVerbs[pos[0]] {
		return usageErr("fault: want one verb: list, get, process-info, read, send-keys, send-text, run, rename or any")
	}
	if *times < 0 {
		return usageErr("fault: --times must be >= 0")
	}
	f := &fault{Verb: pos[0], Pane: *pane, Remaining: *times}
	if *times == 0 {
		f.Remaining = -1
	}
	modes := 0
	if *code != "" {
		modes++
		f.Mode, f.Code, f.Message, f.Exit0 = "error", *code, *msg, *exit0
	}
	if *trunc {
		modes++
		f.Mode = "truncated"
	}
	if *stdout != "" || *stderr != "" {
		modes++
		f.Mode, f.Stdout, f.Stderr, f.Exit = "raw", *stdout, *stderr, *exit
		if *exit < 0 {
			f.Exit = 1
			if *stderr == "" {
				f.Exit = 0
			}
		}
	}
	if *hang {
		modes++
		f.Mode, f.Seconds, f.After = "hang", *secs, *after
	}
	if modes != 1 {
		return usageErr("fault: give exactly one of --error, --truncated, --stdout/--stderr, --hang")
	}
	return a.store.update(func(s *state) (bool, error) {
		s.Faults = append(s.Faults, f)
		return true, nil
	})
}

// dumpState prints the mapping with what tmux says now, for tests and for
// debugging a failed test.
func (a *app) dumpState(ctx context.Context) error {
	s, err := a.store.read()
	if err != nil {
		return err
	}
	live, err := a.tmux.livePanes(ctx)
	if err != nil {
		return err
	}
	panes := []map[string]any{}
	for _, p := range s.Panes {
		lp, alive := paneLive(p, live)
		panes = append(panes, map[string]any{
			"alive": alive, "bracketed_paste": p.BracketedPaste, "label": p.Label,
			"pane_id": p.ID, "revision": p.Revision, "scroll": p.Scroll,
			"session_mode": p.SessionMode, "session_value": p.SessionValue,
			"shell_pid": p.ShellPID, "status_override": p.StatusOverride,
			"tab_id": p.TabID, "terminal_id": p.TerminalID, "tmux_pane": p.TmuxPane,
			"viewport_rows": lp.height, "workspace_id": p.WorkspaceID,
		})
	}
	faults := s.Faults
	if faults == nil {
		faults = []*fault{}
	}
	return writeJSON(a.stdout, map[string]any{
		"faults": faults, "focused": focusedPane(s, live), "panes": panes,
		"state_dir": a.store.dir, "tmux_socket": a.tmux.socket,
	})
}

// waitScreen polls the visible screen until it contains (or no longer
// contains) a text, for shell-level tests that have no polling loop.
func (a *app) waitScreen(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	contains := fs.String("contains", "", "")
	absent := fs.String("absent", "", "")
	timeout := fs.Duration("timeout", 10*time.Second, "")
	ansi := fs.Bool("ansi", false, "")
	pos, _, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (*contains == "") == (*absent == "") {
		return usageErr("wait: want ID and one of --contains TEXT, --absent TEXT")
	}
	deadline := time.Now().Add(*timeout)
	last := ""
	for {
		s, err := a.store.read()
		if err != nil {
			return err
		}
		live, err := a.tmux.livePanes(ctx)
		if err != nil {
			return err
		}
		p, lp, ok := lookup(s, pos[0], live)
		if !ok {
			return fmt.Errorf("wait: no live pane %s", pos[0])
		}
		last, err = a.readScreen(ctx, call{source: "visible", ansi: *ansi}, p, lp)
		if err != nil {
			return err
		}
		if (*contains != "" && strings.Contains(last, *contains)) || (*absent != "" && !strings.Contains(last, *absent)) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait: timed out after %s; screen:\n%s", *timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// serveSocket stands in for the herdr server's socket: it only has to exist
// and accept connections for the CLI's liveness ping.
func (a *app) serveSocket(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageErr("serve-socket: want PATH")
	}
	if err := os.MkdirAll(filepath.Dir(args[0]), 0o700); err != nil {
		return err
	}
	ln, err := net.Listen("unix", args[0])
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	fmt.Fprintln(a.stdout, "ready")
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		conn.Close()
	}
}

func (a *app) killServer(ctx context.Context) error {
	if _, err := a.tmux.run(ctx, "kill-server"); err != nil && !noServer(err) {
		return err
	}
	// tmux leaves its socket file behind when the server is killed.
	os.Remove(tmuxSocketPath(a.getenv("TMUX_TMPDIR"), a.tmux.socket))
	return a.store.update(func(s *state) (bool, error) {
		s.Panes = []*paneState{}
		s.Focused = ""
		return true, nil
	})
}
