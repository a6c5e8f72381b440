// Package outdated lists the live Claude Code sessions running an older
// claude than the one installed. It only reads: the registry, and each
// process's start time and environment.
package outdated

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/proc"
	"forgectl.dev/shared/registry"
)

// Session is one outdated live session.
type Session struct {
	Entry              registry.Entry
	Installed          string
	VersionUnparseable bool
	// Unverified is a live pid whose registry file has no procStart (older
	// claude versions write none) or whose start time cannot be read: it is
	// listed, but nothing proves the pid is still the claude that wrote it,
	// so restart never signals it.
	Unverified bool
	// Busy is true for every status but exactly "idle" (busy, waiting,
	// shell, a missing or unknown value).
	Busy bool
	// PaneEnv is the process's own HERDR_PANE_ID: what it inherited, not a
	// verified pane (a claude started inside another session inherits its
	// parent's). "" when unreadable.
	PaneEnv string
	// NoTranscript is true when no transcript file exists for the session:
	// Claude Code writes one at the first prompt, so a claude opened and
	// never prompted has nothing to resume (and restart skips it).
	NoTranscript bool
}

// Lister reads the registry. Zero-valued function fields use the real
// implementations.
type Lister struct {
	// RegistryDir is Claude Code's sessions directory.
	RegistryDir string
	// Check says whether an entry's process is the one that wrote it.
	Check func(registry.Entry) registry.State
	// PaneEnv reads HERDR_PANE_ID from a process's environment.
	PaneEnv func(pid int) string
	// ProjectsDir is Claude Code's projects directory, where transcripts
	// live; "" skips the transcript check.
	ProjectsDir string
}

// HasTranscript reports whether any project folder under projects holds
// <id>.jsonl. Every folder is looked in, because the folder is named after
// the directory the session started in, which the registry's cwd (updated
// on cd) need not be, and long names cannot be recomputed. An unreadable
// projects directory reads as "has one": the flag reports an absence seen,
// never a guess.
func HasTranscript(projects, id string) bool {
	if id == "" || strings.ContainsAny(id, "/\x00") || id == "." || id == ".." {
		return false
	}
	dirs, err := fsutil.ReadDir(projects)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if st, err := os.Stat(filepath.Join(projects, d.Name(), id+".jsonl")); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// PaneEnvOf reads HERDR_PANE_ID from /proc/<pid>/environ (kern.procargs2 on
// macOS); "" when it is absent or unreadable.
func PaneEnvOf(pid int) string {
	v, _, err := proc.Getenv(pid, "HERDR_PANE_ID")
	if err != nil {
		return ""
	}
	return v
}

// List returns the live sessions older than installed, sorted by pid, and
// the registry files that could not be read (a missing or unreadable
// registry lists as empty). Only a dead (or reused) pid is skipped: a live
// pid with no procStart to check is listed and marked unverified, since
// the older claude versions that write none are exactly the outdated ones.
// A session whose version does not parse is listed, marked, never guessed
// at.
func (l Lister) List(installed claudever.Version) ([]Session, []error) {
	check := l.Check
	if check == nil {
		check = registry.Check
	}
	paneEnv := l.PaneEnv
	if paneEnv == nil {
		paneEnv = PaneEnvOf
	}
	entries, problems := registry.Read(l.RegistryDir)
	out := []Session{}
	for _, e := range entries {
		st := check(e)
		if st != registry.Alive && st != registry.Unverified {
			continue
		}
		s := Session{Entry: e, Installed: installed.String(), Busy: e.Status != "idle", Unverified: st == registry.Unverified}
		v, err := claudever.Parse(e.Version)
		switch {
		case err != nil:
			s.VersionUnparseable = true
		case claudever.Compare(v, installed) >= 0:
			continue
		}
		s.PaneEnv = paneEnv(e.Pid)
		if l.ProjectsDir != "" {
			s.NoTranscript = !HasTranscript(l.ProjectsDir, e.SessionID)
		}
		out = append(out, s)
	}
	return out, problems
}

// Row is one element of `resume outdated --json`. Its fields are a stable
// contract, documented by FieldTable.
type Row struct {
	SessionID          string `json:"session_id"`
	Pid                int    `json:"pid"`
	Version            string `json:"version"`
	InstalledVersion   string `json:"installed_version"`
	VersionUnparseable bool   `json:"version_unparseable"`
	Unverified         bool   `json:"unverified"`
	Status             string `json:"status"`
	Busy               bool   `json:"busy"`
	Cwd                string `json:"cwd"`
	Name               string `json:"name"`
	HerdrPaneID        string `json:"herdr_pane_id"`
	NoTranscript       bool   `json:"no_transcript"`
}

// FieldTable documents Row for --help.
const FieldTable = `JSON FIELDS (one object per session; [] when none is outdated)
  session_id           string  Claude Code session id
  pid                  number  the claude process id
  version              string  the version its registry file records ("" when missing)
  installed_version    string  the installed claude version it is older than
  version_unparseable  bool    version could not be parsed: listed, not guessed at
  unverified           bool    the pid is alive but its registry file has no
                               procStart (older claude versions) or its start
                               time is unreadable, so it is not proven to be
                               the claude that wrote the file; restart never
                               signals it (PID column: "(unverified)")
  status               string  registry status as recorded ("" when missing)
  busy                 bool    status is anything other than exactly "idle"
  cwd                  string  the session's working directory
  name                 string  the session's name ("" when none)
  herdr_pane_id        string  HERDR_PANE_ID from the process's environment,
                               inherited and not verified; "" when unreadable
  no_transcript        bool    no transcript file exists for it yet (Claude
                               Code writes one at the first prompt): there is
                               nothing to resume, and restart skips it
                               (STATUS column: "(no transcript)")`

// RowOf renders a session for JSON.
func RowOf(s Session) Row {
	return Row{
		SessionID:          s.Entry.SessionID,
		Pid:                s.Entry.Pid,
		Version:            s.Entry.Version,
		InstalledVersion:   s.Installed,
		VersionUnparseable: s.VersionUnparseable,
		Unverified:         s.Unverified,
		Status:             s.Entry.Status,
		Busy:               s.Busy,
		Cwd:                s.Entry.Cwd,
		Name:               s.Entry.Name,
		HerdrPaneID:        s.PaneEnv,
		NoTranscript:       s.NoTranscript,
	}
}

// WriteJSON writes the sessions as one JSON array ([] when empty).
func WriteJSON(w io.Writer, ss []Session) error {
	rows := make([]Row, 0, len(ss))
	for _, s := range ss {
		rows = append(rows, RowOf(s))
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteTable writes a header and one row per session; nothing when empty.
func WriteTable(w io.Writer, ss []Session) error {
	if len(ss) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tPID\tVERSION\tSTATUS\tHERDR_PANE_ID\tNAME\tCWD")
	for _, s := range ss {
		version := s.Entry.Version
		if s.VersionUnparseable {
			version = "unparseable:" + strconv.Quote(version)
		}
		status := s.Entry.Status
		if status == "" {
			status = "(none)"
		}
		if s.Busy && status != "busy" {
			status += " (busy)"
		}
		if s.NoTranscript {
			status += " (no transcript)"
		}
		pid := strconv.Itoa(s.Entry.Pid)
		if s.Unverified {
			pid += " (unverified)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			cellText(s.Entry.SessionID), pid, cellText(version), cellText(status),
			orDash(cellText(s.PaneEnv)), orDash(cellText(s.Entry.Name)), orDash(cellText(s.Entry.Cwd)))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cellText keeps a registry value on one table cell: control characters
// (a terminal escape in a session name) and tabs are shown escaped.
func cellText(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}
