// Package snapcheck is forgectl doctor's "resume tasks" check: whether the
// Stop-hook snapshotter is wired, actually capturing, and still pointed at
// where Claude Code keeps task lists.
//
// Because the snapshotter always exits 0, a hook that is missing,
// misspelled or wired into the wrong settings file looks exactly like one
// that works, until a session exits and its tasks are gone. These rows are
// the detector. The check only reads: it never writes the store, the
// settings or Claude Code's files.
package snapcheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/settings"
	"forgectl.dev/forgectl/internal/shellword"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/registry"
	"forgectl.dev/shared/snapstore"
)

// Name is the check's name in doctor's table; every row carries it.
const Name = "resume tasks"

// Status is a row's verdict. doctor exits non-zero only on Fail.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Row is one finding.
type Row struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Worst is the most severe status among rows (OK for none).
func Worst(rows []Row) Status {
	w := OK
	for _, r := range rows {
		switch {
		case r.Status == Fail:
			return Fail
		case r.Status == Warn:
			w = Warn
		}
	}
	return w
}

// HookCommand is the Stop hook the spec documents.
const HookCommand = "forgectl resume snapshot --quiet"

// Checker holds the check's inputs; tests point it at a temporary home.
type Checker struct {
	Claude paths.Claude
	Store  snapstore.Store
	Now    func() time.Time
	// ProcGetenv reads another process's environment; nil means
	// proc.Getenv.
	ProcGetenv func(pid int, key string) (string, bool, error)
	// NoPrune reports FORGECTL_RESUME_NO_PRUNE being set, which makes a
	// missing prune stamp expected.
	NoPrune bool
	// Home is the home directory, what sh makes of a ~ or $HOME in the
	// hook's program when Claude Code runs it.
	Home string
}

// Rows runs the check: one row each for the Stop hook, the snapshots, the
// task folders and pruning, in that order.
func (c Checker) Rows() []Row {
	live, _ := registry.Live(c.Claude.Registry())
	recs, _ := c.Store.All()
	storeErr := storeError(c.Store.Dir)
	return []Row{
		c.hookRow(),
		c.snapshotsRow(live, recs, storeErr),
		c.taskDirsRow(live, recs),
		c.pruneRow(len(recs)),
	}
}

func row(s Status, msg, hint string) Row {
	return Row{Name: Name, Status: s, Message: msg, Hint: hint}
}

// --- the Stop hook ---

// hookRow looks for a Stop hook running the snapshotter in the user-scope
// settings. Project settings (.claude/settings.json in a repo) would capture
// only sessions started in that repo, and the feature is cross-repo, so
// they do not count and are not read. The file is read as init reads it
// and as Claude Code does (internal/settings), and each command is split
// as /bin/sh splits it (internal/shellword).
func (c Checker) hookRow() Row {
	file := c.Claude.Settings()
	wire := fmt.Sprintf(`run 'forgectl init --stop-hook' (it merges the hook into %s; --dry-run shows the edit), or merge "Stop": [{"hooks": [{"type": "command", "command": %q}]}] into its "hooks" object by hand (user scope: project settings files do not count, the feature is cross-repo)`, file, HookCommand)
	doc, err := settings.Read(file)
	if err != nil {
		// Here and for a file that does not parse: an error, not a
		// warning, since Claude Code runs none of its hooks.
		return row(Fail, settings.ReadMessage(err)+", so Claude Code runs none of its hooks", settings.ReadHint(err, file))
	}
	if !doc.Exists {
		return row(Warn, fmt.Sprintf("no Stop hook runs the snapshotter: %s does not exist", file), wire)
	}
	if eerr := settings.CheckEditable(doc.Data); eerr != nil {
		// init refuses this file, so the hint cannot be init alone.
		wire = fmt.Sprintf("save %s as UTF-8 (Claude Code reads that too), then run 'forgectl init --stop-hook'; or merge the hook by hand", file)
	}
	hooks, err := settings.ReadHooks(doc.Data)
	var se *settings.SyntaxError
	switch {
	case errors.As(err, &se):
		return row(Fail, fmt.Sprintf("%s:%d:%d: %s, so Claude Code runs none of its hooks", file, se.Line, se.Column, se.Msg),
			"fix the JSON by hand (Claude Code reads none of this file while it does not parse)")
	case err != nil:
		return row(Fail, fmt.Sprintf("%s: %v, so Claude Code runs none of its hooks", file, err), "the file must hold one JSON object; fix it by hand")
	}
	if hooks.Disabled {
		return row(Warn, fmt.Sprintf("%s sets disableAllHooks, so the snapshot hook never runs", file), "remove disableAllHooks from "+file)
	}
	var stop []settings.Hook
	var elsewhere, broken []string
	for _, h := range hooks.List {
		_, runs, perr := snapshotCommand(h)
		switch {
		case perr != nil && h.Event == "Stop" && strings.Contains(h.Command, "snapshot"):
			broken = append(broken, fmt.Sprintf("`%s` (%v)", h.Command, perr))
		case !runs:
		case h.Event == "Stop":
			stop = append(stop, h)
		case !slices.Contains(elsewhere, h.Event):
			elsewhere = append(elsewhere, h.Event)
		}
	}
	if len(stop) == 0 {
		switch {
		case len(broken) > 0:
			return row(Warn, fmt.Sprintf("the Stop hook %s in %s is not a command sh can run, so it never captures", broken[0], file),
				"fix its quoting by hand, or remove it and run 'forgectl init --stop-hook'")
		case len(elsewhere) > 0:
			return row(Warn, fmt.Sprintf("the snapshotter is wired to %s in %s, not to Stop, so a session's tasks are not captured after each turn",
				strings.Join(elsewhere, ", "), file), wire)
		}
		return row(Warn, fmt.Sprintf("no Stop hook in %s runs `resume snapshot` or `resume-snapshot` (project settings files do not count)", file), wire)
	}
	for _, h := range stop {
		if prog, missing := MissingProgram(h, c.Home); missing {
			return row(Warn, fmt.Sprintf("the Stop hook in %s runs %s, which is not an executable file", file, prog),
				"point the hook at forgectl's absolute path (`command -v forgectl`)")
		}
	}
	for _, h := range stop {
		// Not "ok": what runs is the shell's to say, and may be nothing.
		if written, _, ok := Program(h, c.Home); !ok && written != "" {
			return row(Warn, fmt.Sprintf("the Stop hook in %s runs `%s`, whose program %s the shell expands at run time, so doctor cannot check that it exists", file, Display(h), written),
				"point the hook at forgectl's absolute path (`command -v forgectl`); a leading ~ or $HOME is fine too")
		}
	}
	msg := fmt.Sprintf("Stop hook in %s runs `%s`", file, Display(stop[0]))
	if _, prog, ok := Program(stop[0], c.Home); ok && filepath.IsAbs(prog) {
		msg += ", whose program is " + prog
	}
	return row(OK, msg, "")
}

// MissingProgram reports a hook whose program is an absolute path to no
// executable file (an old install, say), once a ~ or $HOME in it is
// expanded against home: it runs, fails, and looks wired. prog is the
// program as it runs.
func MissingProgram(h settings.Hook, home string) (prog string, missing bool) {
	_, prog, ok := Program(h, home)
	if !ok || !filepath.IsAbs(prog) {
		return prog, false
	}
	st, err := os.Stat(prog)
	return prog, err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0
}

// Display is a hook's command as a person would type it.
func Display(h settings.Hook) string {
	if h.Exec {
		return shellword.Join(append([]string{h.Command}, h.Args...))
	}
	return h.Command
}

// snapshotCommand finds the simple command of h that runs the snapshotter,
// as the words it runs with: the exec form's command and args, or the
// command split as sh splits it. A command sh cannot parse runs nothing.
func snapshotCommand(h settings.Hook) ([]shellword.Word, bool, error) {
	var cmds [][]shellword.Word
	if h.Exec {
		ws := []shellword.Word{{Text: h.Command, Literal: true}}
		for _, a := range h.Args {
			ws = append(ws, shellword.Word{Text: a, Literal: true})
		}
		cmds = [][]shellword.Word{ws}
	} else {
		var err error
		if cmds, err = shellword.Parse(h.Command); err != nil {
			return nil, false, err
		}
	}
	for _, ws := range cmds {
		for i, w := range ws {
			if filepath.Base(w.Text) == "resume-snapshot" || w.Text == "resume" && i+1 < len(ws) && ws[i+1].Text == "snapshot" {
				return ws, true, nil
			}
		}
	}
	return nil, false, nil
}

// RunsSnapshot reports whether a hook runs the snapshotter: a command
// whose words include a resume-snapshot program, or "resume snapshot" as
// consecutive words (as in forgectl resume snapshot).
func RunsSnapshot(h settings.Hook) bool {
	_, ok, _ := snapshotCommand(h)
	return ok
}

// Program is the program of the command in h that runs the snapshotter:
// its first word after any NAME=value assignments, as written (quotes
// removed) and as it runs: a leading ~ and $HOME expanded against home as
// sh expands them (shellword.Word.Expand; the exec form runs no shell and
// expands nothing). ok is false when there is none (written is ""), or
// when the shell would expand the word some other way ($VAR, $(…), a
// glob), so that what runs cannot be told from the text.
func Program(h settings.Hook, home string) (written, prog string, ok bool) {
	ws, found, _ := snapshotCommand(h)
	if !found {
		return "", "", false
	}
	for _, w := range ws {
		if !h.Exec && isAssignment(w) {
			continue
		}
		prog, ok = w.Expand(home)
		return w.Text, prog, ok
	}
	return "", "", false
}

func isAssignment(w shellword.Word) bool {
	name, _, ok := strings.Cut(w.Text, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// --- snapshots ---

// storeError is a store the snapshotter cannot use: a folder that cannot
// be listed, or something else in its place. Records that do not parse
// are left to the store (it moves them aside on the next capture).
func storeError(dir string) error {
	_, err := fsutil.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// snapshotsRow checks that captures are happening. Live sessions and an
// empty store mean the hook never ran. Past that, a live session that has
// finished a turn (idle, with a transcript last written over a minute ago)
// and still has no record means the hook is not running now: any session's
// Stop hook captures every live session, so one finished turn anywhere
// since it started would have recorded it.
func (c Checker) snapshotsRow(live []registry.Entry, recs []snapstore.Record, storeErr error) Row {
	dir := c.Store.Dir
	if storeErr != nil {
		return row(Fail, fmt.Sprintf("cannot read the snapshot store %s: %v", dir, storeErr),
			fmt.Sprintf("make %s readable and writable by you (mode 0700)", dir))
	}
	wire := fmt.Sprintf("check that %s has a Stop hook running `%s`, that forgectl is on the hook's PATH (or use its absolute path), then finish a turn in any session", c.Claude.Settings(), HookCommand)
	if len(live) == 0 {
		return row(OK, fmt.Sprintf("no live sessions; %d %s in %s", len(recs), plural(len(recs), "snapshot", "snapshots"), dir), "")
	}
	if len(recs) == 0 {
		return row(Warn, fmt.Sprintf("%d live %s but the snapshot store %s is empty: the Stop hook is missing or wired wrong",
			len(live), plural(len(live), "session", "sessions"), dir), wire)
	}
	have := map[string]bool{}
	for _, r := range recs {
		have[r.SessionID] = true
	}
	now := c.Now()
	var missed []string
	for _, e := range live {
		if have[e.SessionID] || e.Status != "idle" {
			continue
		}
		tr := c.transcriptOf(e)
		if tr == "" {
			continue // no prompt yet: no turn has ended
		}
		if st, err := os.Stat(tr); err == nil && now.Sub(st.ModTime()) > time.Minute {
			missed = append(missed, e.SessionID)
		}
	}
	if len(missed) > 0 {
		return row(Warn, fmt.Sprintf("%d of %d live sessions finished a turn but have no snapshot (%s): the Stop hook is not capturing",
			len(missed), len(live), strings.Join(clipList(missed, 3), ", ")), wire)
	}
	return row(OK, fmt.Sprintf("%d live %s, %d %s in %s", len(live), plural(len(live), "session", "sessions"),
		len(recs), plural(len(recs), "snapshot", "snapshots"), dir), "")
}

// transcriptOf finds a live session's transcript: projects/<enc cwd>/<id>.jsonl
// for a cwd Claude Code encodes plainly, else a search of projects/.
func (c Checker) transcriptOf(e registry.Entry) string {
	if e.Cwd != "" {
		p := filepath.Join(c.Claude.Projects(), paths.ProjectDirName(e.Cwd), e.SessionID+".jsonl")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	matches, _ := filepath.Glob(filepath.Join(c.Claude.Projects(), "*", e.SessionID+".jsonl"))
	if len(matches) > 0 {
		return matches[0]
	}
	return ""
}

// --- task folders ---

// Byte strings that appear in a transcript when the session used the task
// tools: the TaskCreate tool call, and the toolUseResult of a created task.
const (
	markTaskCreate = `"name":"TaskCreate"`
	markTaskResult = `"toolUseResult":{"task":`
)

// tailBytes is how much of a transcript's end is searched for task use.
const tailBytes = 256 << 10

// taskDirsRow checks that Claude Code still names a session's task folder
// after its session id, which task rescue depends on (observed, not
// promised). The heuristic, in full:
//
//   - A live session "has tasks" when its snapshot record holds tasks, or
//     the last 256 KiB of its transcript show the task tools in use.
//   - It is "unmatched" when it has tasks, was not started with
//     CLAUDE_CODE_TASK_LIST_ID (read from its own environment), and there
//     is no tasks/<session id> folder.
//   - A task folder is an "orphan" when its name is no live session's id,
//     no snapshot record's session or task list id, no live session's
//     CLAUDE_CODE_TASK_LIST_ID, and it was modified after the unmatched
//     session started (so it is not an old leftover).
//
// Unmatched sessions with orphan folders warn that folders are named some
// other way; unmatched sessions alone warn that tasks are kept somewhere
// this cannot see (another storage backend). Either way snapshots would
// capture nothing and restore would write where nothing reads.
func (c Checker) taskDirsRow(live []registry.Entry, recs []snapstore.Record) Row {
	tasksDir := c.Claude.Tasks()
	dirs, err := fsutil.ReadDir(tasksDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return row(Warn, fmt.Sprintf("cannot read %s: %v", tasksDir, err), "make it readable; task rescue reads it")
	}
	present := map[string]os.DirEntry{}
	for _, d := range dirs {
		if d.IsDir() {
			present[d.Name()] = d
		}
	}
	known := map[string]bool{}
	recTasks := map[string]int{}
	for _, r := range recs {
		known[paths.SanitizeListID(r.SessionID)] = true
		if r.TaskListID != "" {
			known[paths.SanitizeListID(r.TaskListID)] = true
		}
		recTasks[r.SessionID] = len(r.Tasks)
	}
	get := c.ProcGetenv
	if get == nil {
		get = proc.Getenv
	}
	type unmatched struct {
		id      string
		started time.Time
	}
	var lost []unmatched
	withTasks := 0
	for _, e := range live {
		known[paths.SanitizeListID(e.SessionID)] = true
		if v, ok, err := get(e.Pid, "CLAUDE_CODE_TASK_LIST_ID"); err == nil && ok && v != "" {
			known[paths.SanitizeListID(v)] = true
			continue // the user chose the list's name
		}
		if recTasks[e.SessionID] == 0 && !usedTasks(c.transcriptOf(e)) {
			continue
		}
		withTasks++
		if _, ok := present[paths.SanitizeListID(e.SessionID)]; ok {
			continue
		}
		started := time.UnixMilli(e.StartedAt)
		if e.StartedAt == 0 {
			started = time.Time{}
		}
		lost = append(lost, unmatched{e.SessionID, started})
	}
	if len(lost) == 0 {
		if withTasks == 0 {
			return row(OK, fmt.Sprintf("no live session uses tasks; nothing to compare against %s", tasksDir), "")
		}
		return row(OK, fmt.Sprintf("%d live %s with tasks, each in %s/<session id>", withTasks, plural(withTasks, "session", "sessions"), tasksDir), "")
	}
	earliest := lost[0].started
	for _, u := range lost {
		if u.started.Before(earliest) {
			earliest = u.started
		}
	}
	var orphans []string
	for name, d := range present {
		if known[name] {
			continue
		}
		info, err := d.Info()
		if err == nil && !info.ModTime().Before(earliest) {
			orphans = append(orphans, name)
		}
	}
	sort.Strings(orphans)
	ids := make([]string, len(lost))
	for i, u := range lost {
		ids[i] = u.id
	}
	hint := "task rescue assumes Claude Code names each task folder after its session id; report this with 'claude --version', and do not rely on restored tasks until it is fixed"
	if len(orphans) > 0 {
		return row(Warn, fmt.Sprintf("task folders no longer seem named after session ids: %s %s tasks but no %s/<session id>, while %s changed since and %s no session",
			strings.Join(clipList(ids, 3), ", "), plural(len(ids), "has", "have"), tasksDir,
			strings.Join(clipList(orphans, 3), ", "), plural(len(orphans), "matches", "match")), hint)
	}
	return row(Warn, fmt.Sprintf("%s %s tasks but no folder under %s: Claude Code may keep tasks elsewhere now",
		strings.Join(clipList(ids, 3), ", "), plural(len(ids), "has", "have"), tasksDir), hint)
}

// usedTasks searches a transcript's tail for the task tools; transcripts
// reach 100 MB, so only the end is read.
func usedTasks(transcript string) bool {
	if transcript == "" {
		return false
	}
	f, err := fsutil.OpenRegular(transcript)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false
	}
	off := max(0, st.Size()-tailBytes)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return false
	}
	return bytes.Contains(b, []byte(markTaskCreate)) || bytes.Contains(b, []byte(markTaskResult))
}

// --- pruning ---

func (c Checker) pruneRow(records int) Row {
	if c.NoPrune {
		return row(OK, "pruning is off (FORGECTL_RESUME_NO_PRUNE is set)", "")
	}
	rep, err := c.Store.LastPrune()
	switch {
	case errors.Is(err, snapstore.ErrNoRecord):
		return row(OK, fmt.Sprintf("no prune pass yet (%d %s)", records, plural(records, "snapshot", "snapshots")), "")
	case err != nil:
		return row(Warn, fmt.Sprintf("cannot read the last prune pass: %v", err), "the next snapshot rewrites it")
	case len(rep.ProblemText) > 0 && rep.Refused == "":
		return row(Warn, fmt.Sprintf("the last prune pass (%s) had problems: %s", rep.At.Format(time.RFC3339), rep.ProblemText[0]),
			"it runs again within a day; FORGECTL_RESUME_NO_PRUNE=1 turns pruning off")
	case rep.Refused != "":
		return row(Warn, fmt.Sprintf("the last prune pass (%s) kept %d %s: %s", rep.At.Format(time.RFC3339), rep.Withheld,
			plural(rep.Withheld, "snapshot", "snapshots"), rep.Refused),
			"check that the Stop hook and your shell see the same CLAUDE_CONFIG_DIR; FORGECTL_RESUME_NO_PRUNE=1 turns pruning off")
	}
	return row(OK, fmt.Sprintf("last prune pass %s retired %d of %d", rep.At.Format(time.RFC3339), len(rep.Retired), rep.Records), "")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func clipList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}
