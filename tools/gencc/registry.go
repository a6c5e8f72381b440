package gencc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Registry describes one live-process registry file,
// <configDir>/sessions/<pid>.json.
type Registry struct {
	PID       int
	SessionID string
	Cwd       string
	// ProcStart is field 22 of /proc/<pid>/stat as Claude Code records it.
	// Empty means "read it from /proc now"; set it to simulate a reused pid.
	ProcStart string
	StartedAt time.Time // zero means now
	UpdatedAt time.Time // zero means now
	Version   string    // default 2.1.332
	// Kind is interactive (default), bg, daemon or daemon-worker.
	Kind       string
	Entrypoint string // default cli
	Name       string
	NameSource string // default "derived" when Name is empty
	Status     string // idle (default), busy, shell, waiting
	Tmux       string // "session:@window.%pane", only written when set
	// PIDDomain defaults to this machine's linux:<machine-id>:pid:[<ns>].
	PIDDomain string
	// Legacy writes the 2.1.197 shape: no tmux, pidDomain or peer fields.
	Legacy bool
}

// WriteRegistry writes the registry file for r (mode 0644 in a 0700
// directory, one JSON line, like Claude Code) and returns its path.
func WriteRegistry(configDir string, r Registry) (string, error) {
	if r.PID <= 0 {
		return "", errors.New("registry needs a pid")
	}
	if r.SessionID == "" {
		return "", errors.New("registry needs a session id")
	}
	if r.ProcStart == "" {
		ps, err := ProcStart(r.PID)
		if err != nil {
			return "", err
		}
		r.ProcStart = ps
	}
	now := time.Now()
	if r.StartedAt.IsZero() {
		r.StartedAt = now
	}
	if r.Version == "" {
		r.Version = versionNew
	}
	if r.Kind == "" {
		r.Kind = "interactive"
	}
	if r.Entrypoint == "" {
		r.Entrypoint = "cli"
	}
	if r.Status == "" {
		r.Status = "idle"
	}
	if r.Name == "" {
		r.Name = fmt.Sprintf("%s-%02x", slug(filepath.Base(r.Cwd)), r.PID&0xff)
		r.NameSource = "derived"
	} else if r.NameSource == "" {
		r.NameSource = "user"
	}
	if r.PIDDomain == "" && !r.Legacy {
		r.PIDDomain, _ = PIDDomain()
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = now
	}
	started := r.StartedAt.UnixMilli()
	updated := max(r.UpdatedAt.UnixMilli(), started)
	doc := obj{
		{"pid", r.PID}, {"sessionId", r.SessionID}, {"cwd", r.Cwd}, {"startedAt", started},
		{"procStart", r.ProcStart}, {"version", r.Version}, {"peerProtocol", 1},
	}
	if !r.Legacy {
		doc = append(doc, kv{"peerFeatures", []string{"notify_idle", "reply_across_default_dirs", "artifact_yield"}})
	}
	doc = append(doc, kv{"kind", r.Kind}, kv{"entrypoint", r.Entrypoint})
	if !r.Legacy {
		if r.PIDDomain != "" {
			doc = append(doc, kv{"pidDomain", r.PIDDomain})
		}
		doc = append(doc, kv{"asksForConvertedSkills", nil})
		if r.Tmux != "" {
			doc = append(doc, kv{"tmux", r.Tmux})
		}
		doc = append(doc, kv{"messagingSocketPath", filepath.Join(os.TempDir(), "cc-socks", strconv.Itoa(r.PID)+".sock")})
	}
	doc = append(doc, kv{"name", r.Name}, kv{"nameSource", r.NameSource})
	if !r.Legacy && r.NameSource != "derived" {
		doc = append(doc, kv{"nameSince", updated})
	}
	doc = append(doc, kv{"status", r.Status}, kv{"updatedAt", updated}, kv{"statusUpdatedAt", updated})

	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(configDir, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, strconv.Itoa(r.PID)+".json")
	return path, writeFileAtomic(path, b, 0o644)
}

// ProcStart returns field 22 (starttime, clock ticks since boot) of
// /proc/<pid>/stat as a decimal string, the way Claude Code records it. The
// command name in field 2 may hold spaces and parentheses, so the fields are
// counted from the last ')'.
func ProcStart(pid int) (string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", fmt.Errorf("unexpected /proc/%d/stat: no ')'", pid)
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 {
		return "", fmt.Errorf("unexpected /proc/%d/stat: %d fields after comm", pid, len(fields))
	}
	return fields[19], nil
}

// PIDDomain returns linux:<machine-id>:pid:[<pid namespace inode>], the
// registry's guard against records from another container.
func PIDDomain() (string, error) {
	id, err := os.ReadFile("/etc/machine-id")
	if err != nil {
		return "", err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return "", err
	}
	return "linux:" + strings.TrimSpace(string(id)) + ":" + ns, nil
}

// writeStaleRegistry leaves the record a SIGKILLed claude leaves: a pid that
// is not running (the highest free pid below pid_max) and a procStart no
// live process could have.
func writeStaleRegistry(o *Options, s *sessionSpec) (RegistryRef, error) {
	pidMax := 4194304
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			pidMax = v
		}
	}
	pid := pidMax - 7
	for ; pid > 1; pid-- {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	r := Registry{
		PID: pid, SessionID: s.id, Cwd: s.cwd, ProcStart: "1", StartedAt: s.start,
		UpdatedAt: s.end, Version: s.versions[len(s.versions)-1], Status: "idle",
	}
	path, err := WriteRegistry(o.ConfigDir, r)
	if err != nil {
		return RegistryRef{}, err
	}
	if err := os.Chtimes(path, s.end, s.end); err != nil {
		return RegistryRef{}, err
	}
	return RegistryRef{Path: path, PID: pid, SessionID: s.id, ProcStart: r.ProcStart, Stale: true}, nil
}
