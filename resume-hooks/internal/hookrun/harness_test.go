package hookrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"forgectl.dev/shared/claudever"
	"forgectl.dev/shared/hookstate"
)

// syncBuffer is a bytes.Buffer safe to read while a run writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rig is a temporary world: real claude executables that print their
// version, a real symlink that an update flips, a config directory, and a
// Runner wired to them.
type rig struct {
	t      *testing.T
	dir    string
	bin    string // holds claude-<v> executables and the claude link
	link   string
	files  hookstate.Files
	stdout *syncBuffer
	stderr *syncBuffer
	r      *Runner
}

func newRig(t *testing.T, hooks ...Hook) *rig {
	t.Helper()
	dir := t.TempDir()
	g := &rig{
		t: t, dir: dir, bin: filepath.Join(dir, "bin"),
		files:  hookstate.Files{Dir: filepath.Join(dir, "config", "resume-hooks")},
		stdout: &syncBuffer{}, stderr: &syncBuffer{},
	}
	g.link = filepath.Join(g.bin, "claude")
	if err := os.MkdirAll(g.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"FORGECTL_CLAUDE_BIN": g.link}
	finder := claudever.Finder{Getenv: func(k string) string { return env[k] }, Home: dir, Timeout: 10 * time.Second}
	g.r = &Runner{
		Files:       g.files,
		RestartLock: filepath.Join(dir, "config", "restart.lock"),
		Harness:     "claude",
		Hooks:       hooks,
		ReadVersion: func(ctx context.Context) (string, error) {
			in, err := finder.Find(ctx)
			if err != nil {
				return "", err
			}
			return in.Version.String(), nil
		},
		Settle:  20 * time.Millisecond,
		Trigger: hookstate.TriggerManual,
		Env:     append(os.Environ(), "RIG="+dir),
		Now:     time.Now,
		Stdout:  g.stdout,
		Stderr:  g.stderr,
		Pid:     os.Getpid(),
	}
	return g
}

// install makes claude-<v>, an executable that prints the version as the
// real claude --version does, and points the link at it.
func (g *rig) install(v string) {
	g.t.Helper()
	exe := filepath.Join(g.bin, "claude-"+v)
	if _, err := os.Stat(exe); err != nil {
		script := "#!/bin/sh\necho '" + v + " (Claude Code)'\n"
		if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
			g.t.Fatal(err)
		}
	}
	g.point(exe)
}

// point replaces the link the way an installer does: a new link renamed
// over the old one.
func (g *rig) point(target string) {
	g.t.Helper()
	tmp := g.link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		g.t.Fatal(err)
	}
	if err := os.Rename(tmp, g.link); err != nil {
		g.t.Fatal(err)
	}
}

func (g *rig) run() int {
	g.t.Helper()
	return g.r.Run(context.Background(), false)
}

func (g *rig) state() hookstate.HarnessState {
	g.t.Helper()
	st, err := hookstate.LoadState(g.files.State())
	if err != nil {
		g.t.Fatal(err)
	}
	return st.Harnesses["claude"]
}

func (g *rig) records() []hookstate.Record {
	g.t.Helper()
	recs, err := hookstate.ReadRecords(g.files, -1)
	if err != nil {
		g.t.Fatal(err)
	}
	return recs
}

// outcomes summarises the audit trail as "old->new hook N kind outcome".
func (g *rig) outcomes() []string {
	var out []string
	for _, r := range g.records() {
		if r.Event != hookstate.EventHook {
			continue
		}
		s := r.OldVersion + "->" + r.NewVersion + " " + hookstate.DescribeHook(r.Hook) + " " + r.Outcome
		if r.Attempt > 0 {
			s += fmt.Sprintf(" #%d", r.Attempt)
		}
		out = append(out, s)
	}
	return out
}

// script writes an executable shell script into the rig.
func (g *rig) script(name, body string) string {
	g.t.Helper()
	p := filepath.Join(g.dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		g.t.Fatal(err)
	}
	return p
}

// lines reads a file the hooks append to, one entry per line. A file a
// shell's >> has created but not yet written holds no entry.
func (g *rig) lines(name string) []string {
	b, err := os.ReadFile(filepath.Join(g.dir, name))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// fakeRestart is a resume-restart stand-in: it logs its argv, counts its
// runs, prints a progress line on stderr and the --json array on stdout,
// and exits 1 (incomplete) for its first $FAILS runs.
func (g *rig) fakeRestart(fails int, stranded bool) {
	session := `{"session_id":"0123abcd-aaaa","outcome":"waiting","reason":"busy","signalled":false,"command":"forgectl resume 0123abcd-aaaa"}`
	if stranded {
		session = `{"session_id":"0123abcd-aaaa","outcome":"failed","reason":"relaunch_failed","signalled":true,"command":"'/opt/my tools/forgectl' resume 0123abcd-aaaa"}`
	}
	g.r.RestartArgv = []string{g.script("resume-restart", `
echo "$*" >> "$RIG/restart.args"
n=$(wc -l < "$RIG/restart.args")
echo "forgectl: waiting for session 0123abcd-aaaa" >&2
if [ "$n" -le `+itoa(fails)+` ]; then
cat <<'JSON'
[`+session+`]
JSON
exit 1
fi
echo '[]'
`), "restart", "--outdated"}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// processGone reports a pid that no longer runs; a zombie counts as gone
// (the kill reached it; only its reaping by whoever adopted it remains).
func processGone(pidText string) bool {
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	if err != nil || pid <= 0 {
		return false
	}
	if unix.Kill(pid, 0) == unix.ESRCH {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}
