// Package capture takes snapshots of live Claude Code sessions: what a
// session's exit destroys (its user-given name, its task bodies) plus the
// recovery metadata around them, merged into the snapshot store.
//
// Two callers share it: the resume-snapshot Stop hook, which captures every
// live session on each turn (Run), and the restart runner, which captures
// the one session it is about to stop (Session).
//
// It is on the Stop hook's hot path, so it depends on the standard library,
// x/sys and shared's hot-safe packages only: no config, no TOML.
package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"forgectl.dev/shared/parallel"

	"golang.org/x/sys/unix"

	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
)

// TaskListEnv names a task list other than the session id, both in the
// hook's environment and in a claude process's own environment.
const TaskListEnv = "CLAUDE_CODE_TASK_LIST_ID"

// PidEnv is the pid of the claude that runs a hook.
const PidEnv = "CLAUDE_PID"

// Capturer captures sessions into Store. Every dependency is a field so a
// test can point it at a temporary home. Sessions are captured in
// parallel, so Now and the getenv functions must be safe for concurrent use.
type Capturer struct {
	Claude paths.Claude
	Store  snapstore.Store
	// Now is the clock for capture times.
	Now func() time.Time
	// Getenv reads this process's environment: for a Stop hook, the
	// environment claude gave it (CLAUDE_PID, CLAUDE_CODE_TASK_LIST_ID).
	Getenv func(string) string
	// ProcGetenv reads one variable of another process's environment; nil
	// means proc.Getenv. It finds a session's own CLAUDE_CODE_TASK_LIST_ID.
	ProcGetenv func(pid int, key string) (string, bool, error)
}

// Captured summarises one session of a pass.
type Captured struct {
	SessionID string
	Name      string
	// Tasks counts the tasks the record holds, Gone those of them no
	// longer seen live.
	Tasks, Gone int
	// Unchanged means nothing changed since the session's last full
	// capture (see the fast path in fingerprint.go), so its record, which
	// already holds all of it, was left alone.
	Unchanged bool
}

func summarise(r snapstore.Record) Captured {
	s := Captured{SessionID: r.SessionID, Name: r.Name, Tasks: len(r.Tasks)}
	for _, t := range r.Tasks {
		if t.GoneSince != nil {
			s.Gone++
		}
	}
	return s
}

// Result is what one pass did.
type Result struct {
	// Sessions holds one summary per session captured, in order.
	Sessions []Captured
	// Live lists the ids of every session judged live, captured or not;
	// pruning must never retire them.
	Live []string
	// Problems are reported, never fatal: one bad registry file or one
	// unwritable record must not stop the others.
	Problems []error
}

// target is one session to capture, gathered from the registry, the hook
// or both.
type target struct {
	id          string
	cwd         string
	version     string
	name        string
	nameSource  string
	formerNames []string
	pid         int
	procStart   string
	listID      string
	transcript  string
	// probeEnv: read CLAUDE_CODE_TASK_LIST_ID from the process's own
	// environment (every session but the hook's, whose environment is ours).
	probeEnv bool
	// hook marks the session whose Stop hook is running: its fingerprint
	// is taken deep.
	hook bool
}

func fromEntry(e registry.Entry) target {
	t := target{id: e.SessionID, cwd: e.Cwd, version: e.Version, pid: e.Pid, procStart: e.ProcStart, formerNames: e.FormerNames()}
	if e.UserNamed() {
		t.name, t.nameSource = e.Name, e.NameSource
	}
	return t
}

// Session captures one live session from its registry entry. The caller
// has established that the entry is live; the session's own environment
// supplies CLAUDE_CODE_TASK_LIST_ID when it set one.
//
// notes are what the capture could not read (a half-written task file, a
// task list it could not list) while the record still reached the store;
// err says the record did not reach it.
func (c Capturer) Session(e registry.Entry) (rec snapstore.Record, notes []error, err error) {
	if e.SessionID == "" {
		return snapstore.Record{}, nil, fmt.Errorf("registry entry %s has no session id", e.File)
	}
	t := fromEntry(e)
	t.probeEnv = true
	t, sidecar := c.resolve(t)
	return c.capture(t, sidecar)
}

// Run captures every live session in the registry, and the hook's own
// session (h, with CLAUDE_PID and CLAUDE_CODE_TASK_LIST_ID from Getenv)
// even when the registry does not show it yet. A zero Hook means the run
// was not started by a hook. Sessions are captured in a stable order: the
// hook's first, then by pid.
func (c Capturer) Run(ctx context.Context, h Hook) Result {
	var res Result
	entries, problems := registry.Read(c.Claude.Registry())
	res.Problems = append(res.Problems, problems...)

	hookPid := 0
	if s := c.getenv(PidEnv); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			hookPid = n
		}
	}
	hookID := h.SessionID
	if hookID != "" && !plausibleID(hookID) {
		res.Problems = append(res.Problems, fmt.Errorf("hook stdin: session_id %q is not a session id", clip(hookID)))
		hookID = ""
	}

	var targets []target
	index := map[string]int{}
	add := func(t target) {
		if i, ok := index[t.id]; ok {
			targets[i] = fill(targets[i], t)
			targets[i].probeEnv = false // the hook's environment already spoke
			return
		}
		index[t.id] = len(targets)
		targets = append(targets, t)
	}

	// The hook's session goes first, from stdin and the environment, so it
	// is captured even while its registry file is missing or behind.
	if hookID != "" {
		t := target{id: hookID, cwd: h.Cwd, transcript: h.TranscriptPath, listID: c.getenv(TaskListEnv), hook: true}
		if hookPid > 0 && proc.Alive(hookPid) {
			t.pid = hookPid
			t.procStart, _ = proc.StartTime(hookPid)
		}
		add(t)
	}

	localDomain, domainRead := "", false
	for _, e := range entries {
		if e.SessionID == "" || e.ParkedJobID != "" || !plausibleID(e.SessionID) {
			continue
		}
		if e.PidDomain != "" && !domainRead {
			localDomain, domainRead = registry.LocalPidDomain(), true
		}
		st := registry.CheckIn(e, localDomain)
		ours := hookPid > 0 && e.Pid == hookPid
		// The claude running this hook is alive by definition: its entry
		// counts even when it carries no procStart to verify.
		if st != registry.Alive && !(ours && st == registry.Unverified) {
			continue
		}
		if ours && hookID != "" && e.SessionID != hookID {
			// The registry lags a session switch (/clear, the picker); the
			// hook's stdin names the session this process runs now. Only
			// process facts carry over, never the old session's name.
			i := index[hookID]
			targets[i] = fill(targets[i], target{version: e.Version, pid: e.Pid, procStart: e.ProcStart})
			continue
		}
		t := fromEntry(e)
		if ours && hookID == "" {
			t.listID = c.getenv(TaskListEnv)
			t.hook = true
		}
		t.probeEnv = !ours
		add(t)
	}

	for _, t := range targets {
		res.Live = append(res.Live, t.id)
	}
	cache := loadCache(c.cachePath())
	outs := make([]outcome, len(targets))
	var full []int
	for i := range targets {
		// Fingerprints are a few system calls each: no goroutines, whose
		// threads would cost more than the work they share.
		if outs[i] = c.look(&targets[i], cache); !outs[i].done {
			full = append(full, i)
		}
	}
	// Captures of different sessions take different locks and mostly wait
	// on the file system: at least two at a time, even on one core.
	parallel.For(ctx, len(full), max(2, runtime.GOMAXPROCS(0)), 1, func(k int) { i := full[k]; outs[i] = c.full(targets[i], outs[i]) })
	fresh := map[string]cacheEntry{}
	wrote := false
	for i, o := range outs {
		t := targets[i]
		res.Problems = append(res.Problems, o.notes...)
		if o.err != nil {
			res.Problems = append(res.Problems, fmt.Errorf("snapshot %s: %w", t.id, o.err))
			continue
		}
		if !o.done {
			continue // cancelled before its turn
		}
		res.Sessions = append(res.Sessions, o.summary)
		if o.cached {
			fresh[t.id] = o.entry
		}
		wrote = wrote || !o.summary.Unchanged
	}
	if err := ctx.Err(); err != nil {
		res.Problems = append(res.Problems, err)
	}
	if wrote {
		if err := saveCache(c.cachePath(), fresh); err != nil {
			res.Problems = append(res.Problems, fmt.Errorf("snapshot cache: %w", err))
		}
	}
	return res
}

// outcome is one session's part of a pass.
type outcome struct {
	done    bool
	summary Captured
	entry   cacheEntry
	cached  bool // entry is worth keeping
	notes   []error
	err     error

	// Set by look for full: what it resolved and measured.
	sidecar         string
	deep, shallow   print
	deepOK, shallOK bool
}

// look resolves t and takes its fingerprint; the outcome is done when the
// store already holds everything the session has.
func (c Capturer) look(t *target, cache map[string]cacheEntry) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{done: true, err: fmt.Errorf("unexpected failure: %v", r)}
		}
	}()
	prev, known := cache[t.id]
	if t.probeEnv && t.listID == "" && known && t.pid > 0 && prev.Pid == t.pid && prev.ProcStart == t.procStart && t.procStart != "" {
		// Same process as last time, and its environment is fixed at exec.
		t.listID, t.probeEnv = prev.ListID, false
	}
	if t.transcript == "" && known {
		// The transcript is not in the fingerprint; the full capture
		// looks for it again when the cached one has gone.
		t.transcript = prev.Transcript
	}
	var sidecar string
	*t, sidecar = c.resolve(*t)
	now := c.now()
	p, err := c.fingerprint(*t, sidecar, t.hook)
	if err == nil && c.current(prev, known, p, t.hook, now, t.id) {
		return outcome{done: true, cached: true, entry: prev,
			summary: Captured{SessionID: t.id, Name: prev.Name, Tasks: prev.Tasks, Gone: prev.Gone, Unchanged: true}}
	}
	o = outcome{sidecar: sidecar}
	// Both depths are taken before the task files are read, so a write
	// during the capture changes the next pass's fingerprint.
	if t.hook {
		o.deep, o.deepOK = p, err == nil
		o.shallow, err = c.fingerprint(*t, sidecar, false)
		o.shallOK = err == nil
	} else {
		o.shallow, o.shallOK = p, err == nil
		o.deep, err = c.fingerprint(*t, sidecar, true)
		o.deepOK = err == nil
	}
	return o
}

// full captures a session look found changed.
func (c Capturer) full(t target, look outcome) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{done: true, err: fmt.Errorf("unexpected failure: %v", r)}
		}
	}()
	rec, notes, err := c.capture(t, look.sidecar)
	o = outcome{done: true, notes: notes, err: err}
	if err != nil {
		return o
	}
	o.summary = summarise(rec)
	if look.deepOK && look.shallOK && len(notes) == 0 {
		o.cached = true
		o.entry = cacheEntry{Deep: look.deep.sum, Shallow: look.shallow.sum, At: rec.LastCapture,
			Tasks: o.summary.Tasks, Gone: o.summary.Gone, Name: rec.Name,
			Pid: t.pid, ProcStart: t.procStart, ListID: t.listID, Transcript: rec.Transcript}
	}
	return o
}

// fill completes a with what b knows and a does not. The hook's facts come
// first and win; the registry adds name, version and process facts.
func fill(a, b target) target {
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	set(&a.cwd, b.cwd)
	set(&a.version, b.version)
	if a.name == "" && b.name != "" {
		a.name, a.nameSource = b.name, b.nameSource
	}
	if len(a.formerNames) == 0 {
		a.formerNames = b.formerNames
	}
	if a.pid == 0 && b.pid != 0 {
		a.pid, a.procStart = b.pid, b.procStart
	}
	set(&a.procStart, b.procStart)
	set(&a.listID, b.listID)
	set(&a.transcript, b.transcript)
	return a
}

func (c Capturer) getenv(k string) string {
	if c.Getenv == nil {
		return ""
	}
	return c.Getenv(k)
}

func (c Capturer) now() time.Time {
	return c.Now()
}

// procListID is the CLAUDE_CODE_TASK_LIST_ID a claude process was started
// with, which renames its task list; "" when unset or unreadable.
func (c Capturer) procListID(pid int) string {
	if pid <= 0 {
		return ""
	}
	get := c.ProcGetenv
	if get == nil {
		get = proc.Getenv
	}
	v, ok, err := get(pid, TaskListEnv)
	if err != nil || !ok {
		return ""
	}
	return v
}

// resolve fills in what the registry and the hook leave implicit: the list
// id, the transcript, and where a custom-title.json would be when the
// session has no user-given name in the registry.
func (c Capturer) resolve(t target) (target, string) {
	if t.listID == "" && t.probeEnv {
		t.listID = c.procListID(t.pid)
	}
	if t.listID == "" {
		t.listID = t.id
	}
	if t.transcript == "" {
		t.transcript = c.guessTranscript(t.id, t.cwd)
	}
	sidecar := ""
	if t.name == "" && t.transcript != "" {
		sidecar = transcript.SidecarPath(t.transcript, t.id)
	}
	return t, sidecar
}

// capture observes one session and merges it into the store. notes are
// problems that did not stop the capture (a torn task file).
func (c Capturer) capture(t target, sidecar string) (snapstore.Record, []error, error) {
	var notes []error
	if t.transcript != "" && !t.hook && !isFile(t.transcript) {
		t.transcript = c.guessTranscript(t.id, t.cwd)
	}
	if sidecar != "" {
		t.name, t.nameSource = sidecarTitle(sidecar)
	}
	// The time is taken before the task files are read, so that of two
	// overlapping captures the one that read later also counts as later.
	at := c.now()
	dir := c.Claude.TaskList(t.listID)
	obs := snapstore.Observation{
		SessionID:   t.id,
		Cwd:         t.cwd,
		Version:     t.version,
		Name:        t.name,
		NameSource:  t.nameSource,
		FormerNames: t.formerNames,
		Pid:         t.pid,
		ProcStart:   t.procStart,
		TaskListID:  paths.SanitizeListID(t.listID),
		TaskDir:     dir,
		Transcript:  t.transcript,
		At:          at,
	}
	l, err := tasks.ReadList(dir)
	if err == nil && len(l.Problems) > 0 {
		// Claude Code rewrites task files in place; a torn read is almost
		// always a write in flight, gone a moment later.
		l, err = tasks.ReadList(dir)
	}
	switch {
	case err == nil:
		obs.Tasks = l.Tasks
		if obs.Tasks == nil {
			// An empty directory is an observation (every task completed
			// and deleted); nil would mean "not observed".
			obs.Tasks = []tasks.Task{}
		}
		obs.HighWater = highWater(l)
		for _, p := range l.Problems {
			notes = append(notes, fmt.Errorf("snapshot %s: %w", t.id, p))
		}
		// A task file that failed to parse is not a deleted task.
		obs.Partial = len(l.Problems) > 0
	case errors.Is(err, os.ErrNotExist):
		// Most sessions never have a task list.
	default:
		notes = append(notes, fmt.Errorf("snapshot %s: read tasks: %w", t.id, err))
	}
	rec, err := c.Store.Update(obs)
	return rec, notes, err
}

func isFile(p string) bool {
	var st unix.Stat_t
	return unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
}

// highWater is the highest task id the list has used: .highwatermark, or
// a higher file id (the watermark is written only on delete or reset).
func highWater(l tasks.List) int {
	hw := l.HighWaterMark
	for _, t := range l.Tasks {
		if n, err := strconv.Atoi(t.ID); err == nil && n > hw {
			hw = n
		}
	}
	return hw
}

// guessTranscript finds a session's transcript where Claude Code puts it
// for a cwd of up to 200 characters. Longer cwds get a hash suffix whose
// function changed across releases, so they are not guessed; neither is a
// session that has since cd'ed elsewhere (the stat simply misses).
func (c Capturer) guessTranscript(id, cwd string) string {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return ""
	}
	enc := paths.ProjectDirName(cwd)
	if len(enc) > 200 {
		return ""
	}
	p := filepath.Join(c.Claude.Projects(), enc, id+".jsonl")
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	return ""
}

// plausibleID accepts what Claude Code uses as session ids (UUIDs, and the
// session-<hex> variant some builds write), rejecting anything that could
// not name a task folder unchanged.
func plausibleID(id string) bool {
	return id != "" && len(id) <= 128 && paths.SanitizeListID(id) == id
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
