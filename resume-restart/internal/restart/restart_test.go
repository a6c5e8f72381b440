package restart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"forgectl.dev/resume-restart/internal/herdr"
	"forgectl.dev/resume-restart/internal/outdated"
	"forgectl.dev/resume-restart/internal/relaunch"
	"forgectl.dev/shared/poll"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/registry"
)

const (
	sid      = "1fc9d747-58cb-4e62-b7f1-a85d62252943"
	pid      = 4242
	shellPid = 4000
	forge    = "/opt/forgectl/bin/forgectl"
	empty    = "────────────────────────────────────────\n❯\u00a0\n────────────────────────────────────────\n"
	draft    = "────────────────────────────────────────\n❯ half a thought\n────────────────────────────────────────\n"
)

// world is a scripted machine: one claude in one herdr pane. The fake
// herdr and the process functions read it; Terminate and Run change it as
// the real ones would.
type world struct {
	t   *testing.T
	mu  sync.Mutex
	dir string

	alive    map[int]string // pid -> start time
	exe      map[int]string
	panes    map[string]herdr.Pane
	lists    [][]herdr.Pane // what successive pane lists answer (the last repeats); none: the panes map
	fg       map[string]herdr.ProcessInfo
	screen   map[string]string
	statuses []string           // registry status at each identity check; the last repeats
	errs     map[string][]error // "op pane" -> errors to return, in order
	sticky   map[string]error   // "op pane" -> an error every call returns
	onRun    func(w *world)     // what typing the line does; nil: a new claude registers
	onRead   func(w *world)     // what happens while the screen is read (held under mu)
	onKeys   func(w *world)     // what happens when keys are sent (held under mu)
	reads    int                // screen reads so far
	noExit   bool               // SIGTERM is ignored
	keepFile bool               // the registry file stays after exit
	// verdicts are forgectl's successive answers on the relaunch (the last
	// repeats); none: ready, with the transcript below.
	verdicts   []relaunch.Verdict
	resolveErr error
	onResolve  func(w *world) // what happens while forgectl resolves
	resolves   int
	transcript string
	calls      []string
	signalled  []int
	typed      []string
	checks     int
}

func newWorld(t *testing.T) *world {
	w := &world{
		t: t, dir: t.TempDir(),
		alive:  map[int]string{pid: "100", shellPid: "50"},
		exe:    map[int]string{pid: "/home/u/.local/share/claude/versions/2.1.99"},
		panes:  map[string]herdr.Pane{},
		fg:     map[string]herdr.ProcessInfo{},
		screen: map[string]string{},
		errs:   map[string][]error{},
		sticky: map[string]error{},
	}
	w.addPane("w1:p1", sid, pid)
	w.writeEntry(pid, sid, "100", "idle")
	w.transcript = filepath.Join(w.dir, sid+".jsonl")
	if err := os.WriteFile(w.transcript, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// resolve answers as forgectl resume --dry-run --json would.
func (w *world) resolve(ctx context.Context, id string, p int) (relaunch.Verdict, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, "resolve")
	w.resolves++
	if w.onResolve != nil {
		w.onResolve(w)
	}
	if p != pid || id != sid {
		w.t.Errorf("resolve(%s, %d): not the session about to be stopped", id, p)
	}
	if w.resolveErr != nil {
		return relaunch.Verdict{}, w.resolveErr
	}
	if len(w.verdicts) > 0 {
		v := w.verdicts[0]
		if len(w.verdicts) > 1 {
			w.verdicts = w.verdicts[1:]
		}
		return v, nil
	}
	return relaunch.Verdict{OK: true, SessionID: id, Cwd: "/home/u/src/api", Transcript: w.transcript, Argv: []string{"claude", "--resume", id}}, nil
}

func (w *world) addPane(id, session string, fgPid int) {
	p := herdr.Pane{PaneID: id, Agent: "claude", AgentStatus: "idle"}
	if session != "" {
		p.AgentSession = &herdr.AgentSession{Agent: "claude", Kind: "id", Source: "herdr:claude", Value: session}
	}
	w.panes[id] = p
	w.fg[id] = herdr.ProcessInfo{PaneID: id, ShellPid: shellPid, ForegroundProcessGroupID: fgPid}
	w.screen[id] = empty
}

func (w *world) file(p int) string { return filepath.Join(w.dir, fmt.Sprintf("%d.json", p)) }

func (w *world) writeEntry(p int, session, start, status string) {
	b, _ := json.Marshal(map[string]any{"pid": p, "sessionId": session, "procStart": start, "status": status, "version": "2.1.99", "cwd": "/home/u/src/api"})
	if err := os.WriteFile(w.file(p), b, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) session() outdated.Session {
	e, err := registry.ReadFile(w.file(pid))
	if err != nil {
		w.t.Fatal(err)
	}
	return outdated.Session{Entry: e, Installed: "2.1.332", PaneEnv: "w1:p1"}
}

func (w *world) err(op, pane string) error {
	k := op + " " + pane
	if e := w.sticky[k]; e != nil {
		return e
	}
	if q := w.errs[k]; len(q) > 0 {
		w.errs[k] = q[1:]
		return q[0]
	}
	return nil
}

func (w *world) call(op, pane string) error {
	w.calls = append(w.calls, strings.TrimSpace(op+" "+pane))
	return w.err(op, pane)
}

func (w *world) PaneList(ctx context.Context) ([]herdr.Pane, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.call("list", ""); err != nil {
		return nil, err
	}
	if len(w.lists) > 0 {
		l := w.lists[0]
		if len(w.lists) > 1 {
			w.lists = w.lists[1:]
		}
		return l, nil
	}
	var out []herdr.Pane
	for _, p := range w.panes {
		out = append(out, p)
	}
	return out, nil
}

func notFound(id string) error {
	return &herdr.APIError{Op: "pane get", Code: herdr.CodePaneNotFound, Message: "pane " + id + " not found"}
}

func (w *world) PaneGet(ctx context.Context, id string) (herdr.Pane, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.call("get", id); err != nil {
		return herdr.Pane{}, err
	}
	p, ok := w.panes[id]
	if !ok {
		return p, notFound(id)
	}
	return p, nil
}

func (w *world) ProcessInfo(ctx context.Context, id string) (herdr.ProcessInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.call("process-info", id); err != nil {
		return herdr.ProcessInfo{}, err
	}
	pi, ok := w.fg[id]
	if !ok {
		return pi, notFound(id)
	}
	return pi, nil
}

func (w *world) ReadVisible(ctx context.Context, id string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.call("read", id); err != nil {
		return "", err
	}
	w.reads++
	if w.onRead != nil {
		w.onRead(w)
	}
	s, ok := w.screen[id]
	if !ok {
		return "", notFound(id)
	}
	return s, nil
}

func (w *world) SendKeys(ctx context.Context, id string, keys ...string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.call("send-keys", id); err != nil {
		return err
	}
	w.typed = append(w.typed, id+" keys "+strings.Join(keys, " "))
	if w.onKeys != nil {
		w.onKeys(w)
	}
	return nil
}

func (w *world) Run(ctx context.Context, id, line string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.call("run", id)
	if err != nil && !herdr.IsTimeout(err) {
		return err
	}
	w.typed = append(w.typed, id+" run "+line)
	if w.onRun != nil {
		w.onRun(w)
	} else {
		w.relaunch()
	}
	return err
}

// relaunch is a new claude registering the session.
func (w *world) relaunch() {
	w.alive[5151] = "900"
	w.exe[5151] = "/home/u/.local/share/claude/versions/2.1.332"
	w.writeEntry(5151, sid, "900", "idle")
}

func (w *world) startTime(p int) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.alive[p]
	if !ok {
		return "", proc.ErrNoProcess
	}
	return st, nil
}

func (w *world) lookup(p int) (proc.Info, error) {
	st, err := w.startTime(p)
	if err != nil {
		return proc.Info{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	exe := w.exe[p]
	// Each identity check reads the status the script says is current.
	if p == pid && len(w.statuses) > 0 {
		i := min(w.checks, len(w.statuses)-1)
		w.checks++
		b, _ := json.Marshal(map[string]any{"pid": p, "sessionId": sid, "procStart": "100", "status": w.statuses[i], "version": "2.1.99"})
		os.WriteFile(w.file(p), b, 0o600)
	}
	return proc.Info{Pid: p, StartTime: st, Exe: exe, Name: filepath.Base(exe)}, nil
}

func (w *world) check(e registry.Entry) registry.State {
	st, err := w.startTime(e.Pid)
	if err != nil || st != e.ProcStart {
		return registry.Stale
	}
	return registry.Alive
}

func (w *world) terminate(p int, start string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.alive[p] != start {
		return ErrReused
	}
	w.signalled = append(w.signalled, p)
	if w.noExit {
		return nil
	}
	delete(w.alive, p)
	if !w.keepFile {
		os.Remove(w.file(p))
	}
	for id, pi := range w.fg {
		if pi.ForegroundProcessGroupID == p {
			pi.ForegroundProcessGroupID = pi.ShellPid
			w.fg[id] = pi
			w.screen[id] = "~/src ❯ "
		}
	}
	return nil
}

func (w *world) config(s ...outdated.Session) Config {
	if len(s) == 0 {
		s = []outdated.Session{w.session()}
	}
	return Config{
		Sessions: s, Timeout: 300 * time.Millisecond,
		Herdr: w, Forgectl: forge,
		RegistryDir: w.dir, Self: 1, IsAncestor: func(int, int) bool { return false },
		Lookup: w.lookup, Args: func(int) ([]string, error) { return nil, nil },
		StartTime: w.startTime, Check: w.check, Terminate: w.terminate, Resolve: w.resolve,
		Poll: time.Millisecond, Settle: time.Millisecond,
		StopWait: 300 * time.Millisecond, RegisterWait: 300 * time.Millisecond,
		Progress: &strings.Builder{},
	}
}

// summary is what a case asserts: the outcome, and what reached the
// process and the pane.
type summary struct {
	Outcome, Reason, Pane, Source string
	Signalled                     []int
	Typed                         []string
	Command                       string
}

func (w *world) summarise(rep Report) summary {
	if len(rep.Outcomes) != 1 {
		w.t.Fatalf("outcomes = %+v, want one", rep.Outcomes)
	}
	o := rep.Outcomes[0]
	return summary{Outcome: o.Outcome, Reason: o.Reason, Pane: o.PaneID, Source: o.PaneSource,
		Signalled: w.signalled, Typed: w.typed, Command: o.Command}
}

const line = forge + " resume " + sid

var relaunched = []string{"w1:p1 keys ctrl+u", "w1:p1 run " + line}

func TestRun(t *testing.T) {
	cases := []struct {
		name  string
		setup func(w *world, c *Config)
		want  summary
	}{
		{"idle and empty: restarted", nil,
			summary{Outcome: Resumed, Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched}},
		{"busy, then idle within the timeout", func(w *world, c *Config) { w.statuses = []string{"busy", "busy", "idle"} },
			summary{Outcome: Resumed, Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched}},
		{"busy throughout: waiting", func(w *world, c *Config) { w.statuses = []string{"busy"} },
			summary{Outcome: Waiting, Reason: "busy", Pane: "w1:p1", Source: "session", Command: line}},
		{"status missing reads as busy", func(w *world, c *Config) { w.statuses = []string{""} },
			summary{Outcome: Waiting, Reason: "busy", Pane: "w1:p1", Source: "session", Command: line}},
		{"a draft is never lost", func(w *world, c *Config) { w.screen["w1:p1"] = draft },
			summary{Outcome: Waiting, Reason: "draft", Pane: "w1:p1", Source: "session", Command: line}},
		{"an unrecognised screen counts as a draft", func(w *world, c *Config) { w.screen["w1:p1"] = "Do you want to proceed?\n❯ 1. Yes\n" },
			summary{Outcome: Waiting, Reason: "input_unrecognized", Pane: "w1:p1", Source: "session", Command: line}},
		{"scrolled back: waits", func(w *world, c *Config) {
			p := w.panes["w1:p1"]
			p.Scroll = &herdr.Scroll{OffsetFromBottom: 12}
			w.panes["w1:p1"] = p
		}, summary{Outcome: Waiting, Reason: "scrolled", Pane: "w1:p1", Source: "session", Command: line}},
		{"pid reused", func(w *world, c *Config) { w.alive[pid] = "777" },
			summary{Outcome: Skipped, Reason: "identity_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"not a claude executable", func(w *world, c *Config) { w.exe[pid] = "/usr/bin/vim" },
			summary{Outcome: Skipped, Reason: "identity_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"session id changed under the pid", func(w *world, c *Config) { w.writeEntry(pid, "other-session", "100", "idle") },
			summary{Outcome: Skipped, Reason: "identity_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"exited before the check", func(w *world, c *Config) { delete(w.alive, pid); os.Remove(w.file(pid)) },
			summary{Outcome: Skipped, Reason: "exited", Pane: "w1:p1", Source: "session", Command: line}},
		{"pane labelled with another session", func(w *world, c *Config) {
			w.lists = [][]herdr.Pane{{w.panes["w1:p1"]}}
			p := w.panes["w1:p1"]
			p.AgentSession = &herdr.AgentSession{Agent: "claude", Value: "someone-else"}
			w.panes["w1:p1"] = p
		}, summary{Outcome: Skipped, Reason: "pane_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"prompt submitted during the first screen read: not signalled", func(w *world, c *Config) {
			w.onRead = func(w *world) {
				if w.reads == 1 {
					w.writeEntry(pid, sid, "100", "busy")
				}
			}
		}, summary{Outcome: Waiting, Reason: "busy", Pane: "w1:p1", Source: "session", Command: line}},
		{"prompt submitted during the screen read after the capture: not signalled", func(w *world, c *Config) {
			w.onRead = func(w *world) {
				if w.reads == 2 {
					w.writeEntry(pid, sid, "100", "busy")
				}
			}
		}, summary{Outcome: Waiting, Reason: "busy", Pane: "w1:p1", Source: "session", Command: line}},
		{"busy during one screen read, idle again later: restarted", func(w *world, c *Config) {
			w.onRead = func(w *world) {
				if w.reads == 2 {
					w.writeEntry(pid, sid, "100", "busy")
				}
			}
			// The turn ends after the re-read that saw it busy.
			busySeen := 0
			c.Lookup = func(p int) (proc.Info, error) {
				if e, _ := registry.ReadFile(w.file(pid)); e.Status == "busy" {
					if busySeen++; busySeen > 1 {
						w.writeEntry(pid, sid, "100", "idle")
					}
				}
				return w.lookup(p)
			}
		}, summary{Outcome: Resumed, Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched}},
		{"registry file replaced by another session during the screen read", func(w *world, c *Config) {
			w.onRead = func(w *world) {
				if w.reads == 2 {
					w.writeEntry(pid, "other-session", "100", "idle")
				}
			}
		}, summary{Outcome: Skipped, Reason: "identity_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"nested claude in its parent's foreground job: not signalled", func(w *world, c *Config) {
			// The parent claude (3999) leads the pane's foreground group;
			// this session is its child, listed in the same group.
			w.fg["w1:p1"] = herdr.ProcessInfo{PaneID: "w1:p1", ShellPid: shellPid, ForegroundProcessGroupID: 3999,
				ForegroundProcesses: []herdr.ForegroundProcess{{Pid: 3999, Name: "claude"}, {Pid: pid, Name: "claude"}}}
		}, summary{Outcome: Skipped, Reason: "not_foreground", Pane: "w1:p1", Source: "session", Command: line}},
		{"not the pane's foreground process (nested claude)", func(w *world, c *Config) {
			pi := w.fg["w1:p1"]
			pi.ForegroundProcessGroupID = 3999
			w.fg["w1:p1"] = pi
		}, summary{Outcome: Skipped, Reason: "not_foreground", Pane: "w1:p1", Source: "session", Command: line}},
		{"no pane at all", func(w *world, c *Config) {
			w.panes = map[string]herdr.Pane{}
			c.Sessions[0].PaneEnv = ""
		}, summary{Outcome: Skipped, Reason: "no_pane", Command: line}},
		{"herdr missing", func(w *world, c *Config) { c.Herdr, c.HerdrMissing = nil, errors.New("herdr not found on PATH") },
			summary{Outcome: Skipped, Reason: "no_pane", Command: line}},
		{"two panes claim the session", func(w *world, c *Config) { w.addPane("w1:p2", sid, 3999) },
			summary{Outcome: Skipped, Reason: "duplicate_pane", Command: line}},
		{"renumbered pane found by session", func(w *world, c *Config) {
			w.panes["w3:p1"] = w.panes["w1:p1"]
			p := w.panes["w3:p1"]
			p.PaneID = "w3:p1"
			w.panes["w3:p1"], w.fg["w3:p1"], w.screen["w3:p1"] = p, w.fg["w1:p1"], empty
			delete(w.panes, "w1:p1")
			delete(w.fg, "w1:p1")
			delete(w.screen, "w1:p1")
		}, summary{Outcome: Resumed, Pane: "w3:p1", Source: "session", Signalled: []int{pid},
			Typed: []string{"w3:p1 keys ctrl+u", "w3:p1 run " + line}}},
		{"unlabelled pane: HERDR_PANE_ID fallback, then the label check refuses", func(w *world, c *Config) {
			p := w.panes["w1:p1"]
			p.AgentSession = nil
			w.panes["w1:p1"] = p
		}, summary{Outcome: Skipped, Reason: "pane_mismatch", Pane: "w1:p1", Source: "env", Command: line}},
		{"pane list fails: fallback to HERDR_PANE_ID", func(w *world, c *Config) {
			w.errs["list "] = []error{&herdr.CallError{Op: "pane list", Exit: 1, Reason: "garbage"}}
		}, summary{Outcome: Resumed, Pane: "w1:p1", Source: "env", Signalled: []int{pid}, Typed: relaunched}},
		{"pane_not_found, re-read finds the new pane", func(w *world, c *Config) {
			orig := w.panes["w1:p1"]
			moved := orig
			moved.PaneID = "w2:p1"
			w.lists = [][]herdr.Pane{{orig}, {moved}}
			w.panes = map[string]herdr.Pane{"w2:p1": moved}
			w.fg["w2:p1"], w.screen["w2:p1"] = w.fg["w1:p1"], empty
			delete(w.fg, "w1:p1")
		}, summary{Outcome: Resumed, Pane: "w2:p1", Source: "session", Signalled: []int{pid},
			Typed: []string{"w2:p1 keys ctrl+u", "w2:p1 run " + line}}},
		{"pane_not_found, re-read finds two panes", func(w *world, c *Config) {
			orig := w.panes["w1:p1"]
			a, b := orig, orig
			a.PaneID, b.PaneID = "w2:p1", "w2:p2"
			w.lists = [][]herdr.Pane{{orig}, {a, b}}
			delete(w.panes, "w1:p1")
		}, summary{Outcome: Skipped, Reason: "duplicate_pane", Pane: "w1:p1", Source: "session", Command: line}},
		{"pane_not_found, nobody holds it: pane gone", func(w *world, c *Config) {
			w.lists = [][]herdr.Pane{{}}
			delete(w.panes, "w1:p1")
		}, summary{Outcome: PaneGone, Reason: "pane_not_found", Pane: "w1:p1", Source: "env", Command: line}},
		{"pane_not_found twice: re-read only once", func(w *world, c *Config) {
			orig := w.panes["w1:p1"]
			moved := orig
			moved.PaneID = "w2:p1"
			w.lists = [][]herdr.Pane{{orig}, {moved}}
			delete(w.panes, "w1:p1")
		}, summary{Outcome: PaneGone, Reason: "pane_not_found", Pane: "w2:p1", Source: "session", Command: line}},
		{"herdr errors wait", func(w *world, c *Config) {
			w.sticky["get w1:p1"] = &herdr.APIError{Op: "pane get", Code: "server_not_running", Message: "no server"}
			c.Poll = 10 * time.Millisecond
		}, summary{Outcome: Waiting, Reason: "herdr_error", Pane: "w1:p1", Source: "session", Command: line}},
		{"a herdr error that clears", func(w *world, c *Config) {
			w.errs["read w1:p1"] = []error{&herdr.TimeoutError{Op: "pane read", After: time.Second}}
		}, summary{Outcome: Resumed, Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched}},
		{"the run is inside the session", func(w *world, c *Config) { c.IsAncestor = func(p, self int) bool { return p == pid } },
			summary{Outcome: Skipped, Reason: "inside_session", Pane: "w1:p1", Source: "session", Command: line}},
		{"unverified (no procStart): never signalled", func(w *world, c *Config) {
			w.writeEntry(pid, sid, "", "idle")
			c.Sessions[0].Entry.ProcStart = ""
			c.Sessions[0].Unverified = true
		}, summary{Outcome: Skipped, Reason: "unverified", Pane: "w1:p1", Source: "session", Command: line}},
		{"no procStart, even if not marked: refused at the identity check", func(w *world, c *Config) {
			w.writeEntry(pid, sid, "", "idle")
			c.Sessions[0].Entry.ProcStart = ""
		}, summary{Outcome: Skipped, Reason: "identity_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"background session", func(w *world, c *Config) { c.Sessions[0].Entry.Kind = "bg" },
			summary{Outcome: Skipped, Reason: "not_interactive", Pane: "w1:p1", Source: "session"}},
		{"daemon session", func(w *world, c *Config) { c.Sessions[0].Entry.Kind = "daemon" },
			summary{Outcome: Skipped, Reason: "not_interactive", Pane: "w1:p1", Source: "session"}},
		{"daemon worker", func(w *world, c *Config) { c.Sessions[0].Entry.Kind = "daemon-worker" },
			summary{Outcome: Skipped, Reason: "not_interactive", Pane: "w1:p1", Source: "session"}},
		{"SDK entrypoint", func(w *world, c *Config) { c.Sessions[0].Entry.Entrypoint = "sdk-ts" },
			summary{Outcome: Skipped, Reason: "not_interactive", Pane: "w1:p1", Source: "session"}},
		{"cli entrypoint, interactive kind: restarted", func(w *world, c *Config) {
			c.Sessions[0].Entry.Entrypoint, c.Sessions[0].Entry.Kind = "cli", "interactive"
		}, summary{Outcome: Resumed, Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched}},
		{"unparseable version", func(w *world, c *Config) { c.Sessions[0].VersionUnparseable = true },
			summary{Outcome: Skipped, Reason: "version_unparseable", Pane: "w1:p1", Source: "session", Command: line}},
		{"capture fails: never stopped", func(w *world, c *Config) {
			c.Capture = func(context.Context, registry.Entry) error { return errors.New("store is read-only") }
		}, summary{Outcome: Waiting, Reason: "capture_failed", Pane: "w1:p1", Source: "session", Command: line}},
		{"forgectl not found: never stopped", func(w *world, c *Config) { c.Forgectl, c.ForgectlErr = "", errors.New("forgectl not on PATH") },
			summary{Outcome: Failed, Reason: "relaunch_invalid", Pane: "w1:p1", Source: "session", Command: "forgectl resume " + sid}},
		{"SIGTERM ignored", func(w *world, c *Config) { w.noExit = true },
			summary{Outcome: Failed, Reason: "still_running", Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Command: line}},
		{"registry file stays", func(w *world, c *Config) { w.keepFile = true },
			summary{Outcome: Failed, Reason: "registry_file_remains", Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Command: line}},
		{"already running again", func(w *world, c *Config) {
			orig := c.Terminate
			c.Terminate = func(p int, start string) error {
				err := orig(p, start)
				w.mu.Lock()
				w.relaunch()
				w.mu.Unlock()
				return err
			}
		}, summary{Outcome: Skipped, Reason: "already_running", Pane: "w1:p1", Source: "session", Signalled: []int{pid}}},
		{"shell does not come back", func(w *world, c *Config) {
			orig := c.Terminate
			c.Terminate = func(p int, start string) error {
				err := orig(p, start)
				w.mu.Lock()
				pi := w.fg["w1:p1"]
				pi.ForegroundProcessGroupID = 6000 // something else took the terminal
				w.fg["w1:p1"] = pi
				w.mu.Unlock()
				return err
			}
		}, summary{Outcome: Failed, Reason: "shell_not_back", Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Command: line}},
		{"another shell holds the pane after the stop: nothing typed", func(w *world, c *Config) {
			orig := c.Terminate
			c.Terminate = func(p int, start string) error {
				err := orig(p, start)
				w.mu.Lock()
				// The pane was respawned: a new shell at its prompt.
				w.fg["w1:p1"] = herdr.ProcessInfo{PaneID: "w1:p1", ShellPid: 4100, ForegroundProcessGroupID: 4100}
				w.mu.Unlock()
				return err
			}
		}, summary{Outcome: Failed, Reason: "shell_not_back", Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Command: line}},
		{"something takes the foreground after Ctrl-U: nothing typed", func(w *world, c *Config) {
			w.onKeys = func(w *world) {
				pi := w.fg["w1:p1"]
				pi.ForegroundProcessGroupID = 6000
				w.fg["w1:p1"] = pi
			}
		}, summary{Outcome: Failed, Reason: "shell_not_back", Pane: "w1:p1", Source: "session", Signalled: []int{pid},
			Typed: []string{"w1:p1 keys ctrl+u"}, Command: line}},
		{"registry file gone while the pid lives: refused", func(w *world, c *Config) { os.Remove(w.file(pid)) },
			summary{Outcome: Skipped, Reason: "identity_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"registry file gone during the screen read while the pid lives: refused", func(w *world, c *Config) {
			w.onRead = func(w *world) {
				if w.reads == 2 {
					os.Remove(w.file(pid))
				}
			}
		}, summary{Outcome: Skipped, Reason: "identity_mismatch", Pane: "w1:p1", Source: "session", Command: line}},
		{"pane run killed at the bound, line arrived", func(w *world, c *Config) {
			w.errs["run w1:p1"] = []error{&herdr.TimeoutError{Op: "pane run", After: 10 * time.Second}}
		}, summary{Outcome: Resumed, Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched}},
		{"pane run killed at the bound, nothing registers", func(w *world, c *Config) {
			w.errs["run w1:p1"] = []error{&herdr.TimeoutError{Op: "pane run", After: 10 * time.Second}}
			w.onRun = func(*world) {}
		}, summary{Outcome: DeliveryUnknown, Reason: "run_timeout", Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched, Command: line}},
		{"typed but never registers", func(w *world, c *Config) { w.onRun = func(*world) {} },
			summary{Outcome: Failed, Reason: "not_registered", Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched, Command: line}},
		{"pane run refused", func(w *world, c *Config) {
			w.errs["run w1:p1"] = []error{&herdr.APIError{Op: "pane run", Code: "pane_send_failed"}}
		}, summary{Outcome: Failed, Reason: "herdr_error", Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: []string{"w1:p1 keys ctrl+u"}, Command: line}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			cfg := w.config()
			longBounds(&cfg, c.want)
			if c.setup != nil {
				c.setup(w, &cfg)
			}
			got := w.summarise(Run(context.Background(), cfg))
			if d := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("(-want +got):\n%s\nprogress:\n%s", d, cfg.Progress)
			}
		})
	}
}

// longBounds gives every bound a case does not mean to run out all the
// time a busy machine may need. The cases run in parallel, each polling
// every millisecond, and some pass only on a second look (an error that
// clears): with 300 ms for everything, a case starved of the CPU that long
// ended Waiting or Failed with the code right. The world answers at once,
// so a bound that is not run out costs nothing.
func longBounds(c *Config, want summary) {
	expires := map[string]*time.Duration{
		"still_running": &c.StopWait, "registry_file_remains": &c.StopWait, "shell_not_back": &c.StopWait,
		"not_registered": &c.RegisterWait, "run_timeout": &c.RegisterWait,
	}
	keep := expires[want.Reason]
	if want.Outcome == Waiting {
		keep = &c.Timeout
	}
	for _, d := range []*time.Duration{&c.Timeout, &c.StopWait, &c.RegisterWait} {
		if d != keep {
			*d = poll.Long
		}
	}
}

func TestInterruptEndsWaitingOnly(t *testing.T) {
	w := newWorld(t)
	w.statuses = []string{"busy"}
	cfg := w.config()
	cfg.Timeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Lookup = func(p int) (proc.Info, error) {
		if w.checks >= 3 {
			cancel() // Ctrl-C while it waits
		}
		return w.lookup(p)
	}
	rep := Run(ctx, cfg)
	got := w.summarise(rep)
	want := summary{Outcome: Waiting, Reason: "busy", Pane: "w1:p1", Source: "session", Command: line}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !strings.Contains(rep.Outcomes[0].Detail, "interrupted") {
		t.Errorf("detail %q does not say it was interrupted", rep.Outcomes[0].Detail)
	}
	if !rep.Incomplete() {
		t.Error("an interrupted run must be incomplete")
	}
}

func TestInterruptAfterSignalStillRelaunches(t *testing.T) {
	w := newWorld(t)
	cfg := w.config()
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Terminate = func(p int, start string) error {
		cancel() // the terminal closes right after the stop
		return w.terminate(p, start)
	}
	got := w.summarise(Run(ctx, cfg))
	want := summary{Outcome: Resumed, Pane: "w1:p1", Source: "session", Signalled: []int{pid}, Typed: relaunched}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestCheckOrderAndCalls(t *testing.T) {
	w := newWorld(t)
	cfg := w.config()
	cfg.Lookup = func(p int) (proc.Info, error) {
		w.mu.Lock()
		w.calls = append(w.calls, "identity")
		w.mu.Unlock()
		return w.lookup(p)
	}
	cfg.Capture = func(context.Context, registry.Entry) error {
		w.mu.Lock()
		w.calls = append(w.calls, "capture")
		w.mu.Unlock()
		return nil
	}
	cfg.Terminate = func(p int, start string) error {
		w.mu.Lock()
		w.calls = append(w.calls, "terminate")
		w.mu.Unlock()
		return w.terminate(p, start)
	}
	got := w.summarise(Run(context.Background(), cfg))
	if got.Outcome != Resumed {
		t.Fatalf("outcome %+v", got)
	}
	// One list; the four checks and the identity/status re-read twice
	// (before and after the capture), the re-read last before the signal;
	// then the foreground wait, Ctrl-U, the foreground again, the relaunch.
	want := []string{
		"list", "resolve",
		"identity", "get w1:p1", "process-info w1:p1", "read w1:p1", "identity",
		"capture", "resolve",
		"identity", "get w1:p1", "process-info w1:p1", "read w1:p1", "identity",
		"terminate",
		"process-info w1:p1", "send-keys w1:p1", "process-info w1:p1", "run w1:p1",
	}
	if d := cmp.Diff(want, w.calls); d != "" {
		t.Errorf("herdr calls (-want +got):\n%s", d)
	}
}

func TestDryRun(t *testing.T) {
	cases := []struct {
		name  string
		setup func(w *world, c *Config)
		want  Outcome
	}{
		{"ready", nil, Outcome{Outcome: Ready, Detail: "would capture, stop and type: " + line,
			Checks: Checks{Identity: "ok", Status: "ok", Pane: "ok", Input: "ok", Relaunch: "ok"}}},
		{"busy with a draft", func(w *world, c *Config) {
			w.writeEntry(pid, sid, "100", "busy")
			w.screen["w1:p1"] = draft
		}, Outcome{Outcome: WouldWait, Reason: "busy",
			Detail: "would wait: busy (status busy) and holding an unsent draft (the input line holds a draft)",
			Checks: Checks{Identity: "ok", Status: "busy: busy (status busy)", Pane: "ok",
				Input: "draft: holding an unsent draft (the input line holds a draft)", Relaunch: "ok"}}},
		{"pane gone: no re-read", func(w *world, c *Config) {
			w.lists = [][]herdr.Pane{{w.panes["w1:p1"]}}
			delete(w.panes, "w1:p1")
			delete(w.screen, "w1:p1")
		}, Outcome{Outcome: PaneGone, Reason: "pane_not_found", Command: line,
			Detail: "herdr answered pane_not_found for w1:p1; a real run would read the pane list once more",
			Checks: Checks{Identity: "ok", Status: "ok", Pane: "pane_not_found: herdr answered pane_not_found for w1:p1",
				Input: "pane_not_found: herdr answered pane_not_found for w1:p1", Relaunch: "ok"}}},
		{"pid reused", func(w *world, c *Config) { w.alive[pid] = "1" }, Outcome{Outcome: Skipped, Reason: "identity_mismatch", Command: line,
			Detail: `pid 4242 started at "1", not at the registry's procStart "100": the pid was reused`,
			Checks: Checks{Identity: `identity_mismatch: pid 4242 started at "1", not at the registry's procStart "100": the pid was reused`, Pane: "ok", Input: "ok", Relaunch: "ok"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			cfg := w.config()
			cfg.DryRun = true
			if c.setup != nil {
				c.setup(w, &cfg)
			}
			rep := Run(context.Background(), cfg)
			o := rep.Outcomes[0]
			got := Outcome{Outcome: o.Outcome, Reason: o.Reason, Detail: o.Detail, Command: o.Command, Checks: o.Checks}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if len(w.signalled) > 0 || len(w.typed) > 0 {
				t.Errorf("a dry run signalled %v and typed %v", w.signalled, w.typed)
			}
			for _, call := range w.calls {
				if op := strings.Fields(call)[0]; op != "list" && op != "get" && op != "process-info" && op != "read" && op != "resolve" {
					t.Errorf("a dry run called %s", call)
				}
			}
			if n := strings.Count(strings.Join(w.calls, "\n"), "list"); n != 1 {
				t.Errorf("a dry run listed panes %d times, want once", n)
			}
		})
	}
}

func TestUnmatchedSessions(t *testing.T) {
	rep := Run(context.Background(), Config{Unmatched: []string{"nope"}})
	want := []Outcome{{SessionID: "nope", Outcome: Skipped, Reason: "not_outdated", Detail: "no live session with this id runs an older claude"}}
	if d := cmp.Diff(want, rep.Outcomes); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if rep.Incomplete() {
		t.Error("skips alone are complete")
	}
}

func TestRelaunchLine(t *testing.T) {
	cases := []struct {
		path, id, want, err string
	}{
		{"/usr/local/bin/forgectl", sid, "/usr/local/bin/forgectl resume " + sid, ""},
		{"/Users/me/Application Support/forgectl", "a b", `'/Users/me/Application Support/forgectl' resume 'a b'`, ""},
		{"/opt/it's/forgectl", "x", `'/opt/it'\''s/forgectl' resume x`, ""},
		{"/opt/$HOME/forgectl", "x;rm -rf ~", `'/opt/$HOME/forgectl' resume 'x;rm -rf ~'`, ""},
		{"forgectl", "x", "", "not absolute"},
		{"/opt/a\\b/forgectl", "x", "", "backslash"},
		{"/opt/forgectl", "x\ny", "", "control character"},
		{"/opt/forgectl", "", "", "empty session id"},
	}
	for _, c := range cases {
		got, err := RelaunchLine(c.path, c.id)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("RelaunchLine(%q, %q) = %q, %v; want %q, error containing %q", c.path, c.id, got, err, c.want, c.err)
		}
	}
}

func TestIsClaudeExecutable(t *testing.T) {
	cases := []struct {
		info proc.Info
		args []string
		want bool
	}{
		{proc.Info{Name: "claude", Exe: "/home/u/.local/bin/claude"}, nil, true},
		{proc.Info{Name: "2.1.332", Exe: "/home/u/.local/share/claude/versions/2.1.332"}, nil, true},
		{proc.Info{Name: "2.1.99", Exe: "/home/u/.local/share/claude/versions/2.1.99 (deleted)"}, nil, true},
		{proc.Info{Name: "node", Exe: "/usr/bin/node"}, []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}, true},
		{proc.Info{Name: "MainThread", Exe: "/usr/bin/node"}, []string{"claude"}, true},
		{proc.Info{Name: "claude-code", Exe: "/x/claude-code"}, nil, true},
		{proc.Info{Name: "vim", Exe: "/usr/bin/vim"}, []string{"vim", "claude"}, false},
		{proc.Info{Name: "2.1.332", Exe: "/tmp/versions/2.1.332"}, nil, false},
		{proc.Info{Name: "node", Exe: "/usr/bin/node"}, []string{"node", "server.js"}, false},
	}
	for _, c := range cases {
		if got := IsClaudeExecutable(c.info, c.args); got != c.want {
			t.Errorf("IsClaudeExecutable(%+v, %q) = %v, want %v", c.info, c.args, got, c.want)
		}
	}
}

// The pane list is read once when planning and at most once more per
// session after pane_not_found, however long the session waits.
func TestPaneListReadOnce(t *testing.T) {
	cases := []struct {
		name  string
		setup func(w *world, c *Config)
		lists int
	}{
		{"resumed", nil, 1},
		{"waiting many rounds", func(w *world, c *Config) { w.statuses = []string{"busy"} }, 1},
		{"pane_not_found on every call", func(w *world, c *Config) {
			w.sticky["get w1:p1"] = notFound("w1:p1")
		}, 2},
		{"pane_not_found, moved, then not found again", func(w *world, c *Config) {
			orig := w.panes["w1:p1"]
			moved := orig
			moved.PaneID = "w2:p1"
			w.lists = [][]herdr.Pane{{orig}, {moved}}
			delete(w.panes, "w1:p1")
		}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			cfg := w.config()
			if c.setup != nil {
				c.setup(w, &cfg)
			}
			Run(context.Background(), cfg)
			n := 0
			for _, call := range w.calls {
				if call == "list" {
					n++
				}
			}
			if n != c.lists {
				t.Errorf("pane list read %d times, want %d; calls %q", n, c.lists, w.calls)
			}
		})
	}
}

// The real Terminate, against a real process: a wrong procStart is a
// reused pid and is never signalled; the right one is.
func TestTerminateRealProcess(t *testing.T) {
	start := func(t *testing.T) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}

	t.Run("wrong start time", func(t *testing.T) {
		cmd := start(t)
		p := cmd.Process.Pid
		st, err := proc.StartTime(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := Terminate(p, st+"1", proc.StartTime); !errors.Is(err, ErrReused) {
			t.Fatalf("Terminate = %v, want ErrReused", err)
		}
		if got, err := proc.StartTime(p); err != nil || got != st {
			t.Errorf("after a refused Terminate: start time %q, %v; want the process alive at %q", got, err, st)
		}
	})

	t.Run("right start time", func(t *testing.T) {
		cmd := start(t)
		p := cmd.Process.Pid
		st, err := proc.StartTime(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := Terminate(p, st, proc.StartTime); err != nil {
			t.Fatalf("Terminate = %v", err)
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("sleep ended with %v, want SIGTERM", err)
		}
	})

	t.Run("exited", func(t *testing.T) {
		cmd := start(t)
		p := cmd.Process.Pid
		st, _ := proc.StartTime(p)
		cmd.Process.Kill()
		cmd.Wait()
		if err := Terminate(p, st, proc.StartTime); !errors.Is(err, ErrExited) && !errors.Is(err, ErrReused) {
			t.Errorf("Terminate on a reaped pid = %v, want ErrExited (or ErrReused)", err)
		}
	})
}

// TestRelaunchPlanOutcomes: whatever would make the typed `forgectl resume
// <id>` fail skips the session before any signal, with its own reason and
// hint, whether forgectl says so when the run plans or only right before
// the stop.
func TestRelaunchPlanOutcomes(t *testing.T) {
	refusal := func(reason, err, hint string, code int) relaunch.Verdict {
		return relaunch.Verdict{Reason: reason, Error: err, Hint: hint, ExitCode: code, Argv: []string{}}
	}
	noMatch := refusal("no_match", `no session matches "`+sid+`"`, "'forgectl resume ls' lists every session", 1)
	ready := relaunch.Verdict{OK: true, SessionID: sid, Transcript: "set below", Argv: []string{"claude"}}
	type want struct {
		Outcome, Reason, Command string
		Hint                     string // a substring
		Resolves                 int
		Relaunch                 string // the relaunch check, a prefix
	}
	cases := []struct {
		name  string
		setup func(w *world, c *Config)
		want  want
	}{
		{"no transcript yet", func(w *world, c *Config) { w.verdicts = []relaunch.Verdict{noMatch} },
			want{Skipped, NoTranscript, "", "quit it and start claude in /home/u/src/api, or run `cd /home/u/src/api && /opt/forgectl/bin/forgectl launch`", 1, "no_transcript: there is nothing to resume"}},
		{"no transcript and no pane: the transcript is the reason", func(w *world, c *Config) {
			w.verdicts = []relaunch.Verdict{noMatch}
			w.panes = map[string]herdr.Pane{}
			c.Sessions[0].PaneEnv = ""
		}, want{Skipped, NoTranscript, "", "start claude in", 1, "no_transcript"}},
		{"deleted cwd", func(w *world, c *Config) {
			w.verdicts = []relaunch.Verdict{refusal("cwd_gone", "the session's directory /home/u/src/api no longer exists",
				"recreate it (for a deleted worktree: 'git worktree add /home/u/src/api <branch>') and run this again", 1)}
		}, want{Skipped, CwdGone, line, "git worktree add", 1, "cwd_gone: the relaunch would fail: the session's directory"}},
		{"bad launch profile", func(w *world, c *Config) {
			w.verdicts = []relaunch.Verdict{refusal("bad_launch_profile", `[proxy] launch_profile "corp" names no profile`,
				"define [proxy.profiles.corp] or remove launch_profile", 2)}
		}, want{Skipped, BadLaunchProfile, line, "[proxy.profiles.corp]", 1, "bad_launch_profile"}},
		{"launch profile names codex", func(w *world, c *Config) {
			w.verdicts = []relaunch.Verdict{refusal("harness_unsupported", `harness "codex" is not supported yet`,
				`set harness = "claude" (or remove it) in /home/u/.config/forgectl/config.toml`, 2)}
		}, want{Skipped, HarnessUnsupported, line, `harness = "claude"`, 1, "harness_unsupported: the relaunch would fail: harness \"codex\""}},
		{"claude binary missing", func(w *world, c *Config) {
			w.verdicts = []relaunch.Verdict{refusal("claude_not_found", "claude not found on PATH", "install Claude Code", 1)}
		}, want{Skipped, ClaudeNotFound, line, "install Claude Code", 1, "claude_not_found"}},
		{"another process runs it", func(w *world, c *Config) {
			w.verdicts = []relaunch.Verdict{refusal("live", "session "+sid+" is running (pid 9)", "", 2)}
		}, want{Skipped, RelaunchRefused, line, "", 1, "relaunch_refused: the relaunch would fail (forgectl: live)"}},
		{"no verdict: failed, not signalled", func(w *world, c *Config) {
			w.resolveErr = &relaunch.Error{Reason: "forgectl resume --dry-run did not answer within 1m0s"}
		}, want{Failed, RelaunchUnverified, line, line + " --dry-run", 1, "relaunch_unverified"}},
		{"ready at the plan, directory deleted before the stop", func(w *world, c *Config) {
			w.verdicts = []relaunch.Verdict{ready, refusal("cwd_gone", "the session's directory /home/u/src/api no longer exists", "recreate it", 1)}
		}, want{Skipped, CwdGone, line, "recreate it", 2, "cwd_gone"}},
		{"transcript gone between the last resolution and the signal", func(w *world, c *Config) {
			w.onRead = func(w *world) {
				if w.reads == 2 { // the screen read of the checks after the capture
					os.Remove(w.transcript)
				}
			}
		}, want{Skipped, NoTranscript, "", "where its transcript went", 2, "no_transcript: its transcript"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			cfg := w.config()
			if c.setup != nil {
				c.setup(w, &cfg)
			}
			for i := range w.verdicts {
				if w.verdicts[i].Transcript == "set below" {
					w.verdicts[i].Transcript = w.transcript
				}
			}
			rep := Run(context.Background(), cfg)
			o := rep.Outcomes[0]
			if o.Outcome != c.want.Outcome || o.Reason != c.want.Reason || o.Command != c.want.Command ||
				!strings.Contains(o.Hint, c.want.Hint) || w.resolves != c.want.Resolves || !strings.HasPrefix(o.Checks.Relaunch, c.want.Relaunch) {
				t.Errorf("got %s/%s command %q hint %q, %d resolutions, relaunch check %q\nwant %+v\ndetail: %s",
					o.Outcome, o.Reason, o.Command, o.Hint, w.resolves, o.Checks.Relaunch, c.want, o.Detail)
			}
			if len(w.signalled) > 0 || len(w.typed) > 0 || o.Signalled {
				t.Errorf("signalled %v, typed %v", w.signalled, w.typed)
			}
			if got := rep.Incomplete(); got != (c.want.Outcome == Failed) {
				t.Errorf("incomplete = %v for %s", got, c.want.Outcome)
			}
			progress := cfg.Progress.(*strings.Builder).String()
			if !strings.Contains(progress, sid+": "+o.Outcome+": "+o.Reason+": ") || (o.Hint != "" && !strings.Contains(progress, sid+": hint: "+o.Hint)) {
				t.Errorf("progress lines do not name the reason and hint:\n%s", progress)
			}
		})
	}
}

// TestDryRunShowsRelaunchRefusals: --dry-run asks forgectl too, and reports
// the refusal as the plan.
func TestDryRunShowsRelaunchRefusals(t *testing.T) {
	w := newWorld(t)
	cfg := w.config()
	cfg.DryRun = true
	w.verdicts = []relaunch.Verdict{{Reason: "no_match", Error: "no session matches", ExitCode: 1}}
	o := Run(context.Background(), cfg).Outcomes[0]
	if o.Outcome != Skipped || o.Reason != NoTranscript || o.Command != "" || o.Hint == "" || !strings.HasPrefix(o.Checks.Relaunch, "no_transcript: ") {
		t.Errorf("%+v", o)
	}
	for _, call := range w.calls {
		if call != "list" && call != "resolve" {
			t.Errorf("a dry run of a session with nothing to resume still called %s", call)
		}
	}
}
