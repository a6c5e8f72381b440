// Command benchsnap measures the Stop-hook snapshotter against its targets.
//
// It builds resume-snapshot and a Go hello-world into a temporary folder,
// sets up a temporary home with live sessions (real child processes whose
// kernel start time is written into their registry files as procStart)
// each holding a task list, then runs the binaries alternately and reports
// the median wall time, the ratio to hello-world and the peak RSS:
//
//	resume-snapshot --quiet          ≤ 2× hello-world, peak RSS ≤ 16 MB
//	forgectl resume snapshot --quiet ≤ 1.5× resume-snapshot --quiet (with -forgectl)
//
// Usage:
//
//	go run ./benchsnap [-n 200] [-sessions 20] [-tasks 30] [-forgectl path] [-root repo]
//
// Targets are reported, not asserted: it exits 0 unless the setup fails
// (exit 1). Run it from anywhere inside the workspace, or name -root.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"forgectl.dev/tools/benchkit"
)

func main() { benchkit.Main(run) }

type options struct {
	n        int
	sessions int
	tasks    int
	forgectl string
	root     string
	keep     bool
}

func run(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchsnap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.n, "n", 200, "runs of each binary")
	fs.IntVar(&o.sessions, "sessions", 20, "live sessions")
	fs.IntVar(&o.tasks, "tasks", 30, "tasks per session")
	fs.StringVar(&o.forgectl, "forgectl", "", "forgectl binary to compare `forgectl resume snapshot` against")
	fs.StringVar(&o.root, "root", "", "workspace root (default: the folder holding go.work above the current one)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary folder")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := bench(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "forgectl: error: benchsnap: %v\n", err)
		return 1
	}
	return 0
}

func bench(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if o.n < 1 || o.sessions < 0 || o.tasks < 0 {
		return errors.New("-n must be positive, -sessions and -tasks not negative")
	}
	root := o.root
	if root == "" {
		var err error
		if root, err = findRoot(); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "benchsnap-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintf(stderr, "benchsnap: keeping %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	bin := filepath.Join(tmp, "bin")

	snap := filepath.Join(bin, "resume-snapshot")
	if err := goBuild(ctx, filepath.Join(root, "resume-snapshot"), snap, nil); err != nil {
		return fmt.Errorf("build resume-snapshot: %w", err)
	}
	hello, err := buildHello(ctx, tmp, bin)
	if err != nil {
		return fmt.Errorf("build hello-world: %w", err)
	}

	home := filepath.Join(tmp, "home")
	env := benchEnv(home, bin)
	hook, kill, err := setupHome(home, o.sessions, o.tasks)
	defer kill()
	if err != nil {
		return fmt.Errorf("set up home: %w", err)
	}

	// The snapshotter runs as session 0's Stop hook, as it does for real:
	// the hook's JSON on stdin and CLAUDE_PID in the environment.
	cmds := []bench1{
		{name: "hello-world", argv: []string{hello}},
		{name: "resume-snapshot --quiet", argv: []string{snap, "--quiet"}, stdin: hook.stdin, env: hook.env},
	}
	if o.forgectl != "" {
		fc, err := filepath.Abs(o.forgectl)
		if err != nil {
			return err
		}
		cmds = append(cmds, bench1{name: "forgectl resume snapshot --quiet", argv: []string{fc, "resume", "snapshot", "--quiet"}, stdin: hook.stdin, env: hook.env})
	}
	// One untimed round: fills the page cache and does the day's prune, so
	// every timed run sees the steady state a Stop hook sees.
	for i := range cmds {
		if err := cmds[i].once(ctx, env); err != nil {
			return err
		}
	}
	for range o.n {
		for i := range cmds {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := cmds[i].once(ctx, env); err != nil {
				return err
			}
		}
	}
	report(stdout, o, cmds)
	return nil
}

// bench1 is one binary under measurement.
type bench1 struct {
	name  string
	argv  []string
	stdin []byte
	env   []string // added to the run's environment
	walls []time.Duration
	cpus  []time.Duration // user + system
	rss   []int64         // bytes
}

func (b *bench1) once(ctx context.Context, env []string) error {
	cmd := exec.CommandContext(ctx, b.argv[0], b.argv[1:]...)
	cmd.Env = append(env, b.env...)
	if b.stdin != nil {
		cmd.Stdin = bytes.NewReader(b.stdin)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return fmt.Errorf("%s: %v: %s", b.name, err, errb.String())
	}
	if errb.Len() > 0 {
		return fmt.Errorf("%s wrote to stderr: %s", b.name, errb.String())
	}
	b.walls = append(b.walls, wall)
	b.cpus = append(b.cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		b.rss = append(b.rss, maxrssBytes(ru.Maxrss))
	}
	return nil
}

// maxrssBytes converts ru_maxrss: kilobytes on Linux, bytes on macOS.
func maxrssBytes(v int64) int64 {
	if runtime.GOOS == "darwin" {
		return v
	}
	return v * 1024
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func report(w io.Writer, o options, cmds []bench1) {
	fmt.Fprintf(w, "benchsnap: %d sessions × %d tasks, %d runs each, %s/%s, %d CPUs\n\n", o.sessions, o.tasks, o.n, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "binary\twall median\twall p90\tcpu median\tpeak RSS*\tratio (wall)\tratio (cpu)\ttarget\tverdict")
	helloMed, helloCPU := median(cmds[0].walls), median(cmds[0].cpus)
	snapMed, snapCPU := median(cmds[1].walls), median(cmds[1].cpus)
	for i, c := range cmds {
		med := median(c.walls)
		s := slices.Clone(c.walls)
		slices.Sort(s)
		p90 := s[len(s)*9/10]
		peak := slices.Max(c.rss)
		cpu := median(c.cpus)
		ratio, cratio, target, verdict := "", "", "", ""
		switch i {
		case 1:
			r := float64(med) / float64(helloMed)
			ratio = fmt.Sprintf("%.2f× hello", r)
			cratio = fmt.Sprintf("%.2f× hello", float64(cpu)/float64(helloCPU))
			target = "≤ 2× hello, ≤ 16 MB"
			verdict = okIf(r <= 2 && peak <= 16<<20)
		case 2:
			r := float64(med) / float64(snapMed)
			ratio = fmt.Sprintf("%.2f× snapshot", r)
			cratio = fmt.Sprintf("%.2f× snapshot", float64(cpu)/float64(snapCPU))
			target = "≤ 1.5× snapshot"
			verdict = okIf(r <= 1.5)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f MB\t%s\t%s\t%s\t%s\n", c.name, round(med), round(p90), round(cpu), float64(peak)/(1<<20), ratio, cratio, target, verdict)
	}
	tw.Flush()
	fmt.Fprintln(w, "\n* peak RSS is wait4's ru_maxrss, an upper bound: on Linux a child started with vfork")
	fmt.Fprintln(w, "  also reports the launching process's RSS, so hello-world's figure is the floor.")
	fmt.Fprintln(w, "  The verdict is on the wall-time median; the machine's load shows in p90.")
}

func okIf(b bool) string {
	if b {
		return "ok"
	}
	return "MISSED"
}

func round(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.work above the current folder; pass -root")
		}
		dir = parent
	}
}

func goBuild(ctx context.Context, dir, out string, env []string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, b)
	}
	return nil
}

// buildHello builds the baseline the same way, outside the workspace.
func buildHello(ctx context.Context, tmp, bin string) (string, error) {
	src := filepath.Join(tmp, "hello")
	if err := os.MkdirAll(src, 0o700); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o600); err != nil {
			return "", err
		}
	}
	out := filepath.Join(bin, "hello")
	return out, goBuild(ctx, src, out, []string{"GOWORK=off"})
}

// benchEnv points every lookup at the temporary home, with bin first on
// PATH so that forgectl dispatches to the resume-snapshot just built when
// it has no sibling of its own.
func benchEnv(home, bin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "PATH", "CLAUDE_CONFIG_DIR", "FORGECTL_CONFIG_DIR", "XDG_CONFIG_HOME",
			"CLAUDE_PID", "CLAUDE_CODE_TASK_LIST_ID", "FORGECTL_RESUME_NO_PRUNE":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"FORGECTL_CONFIG_DIR="+filepath.Join(home, ".config", "forgectl"),
	)
}

// hookInput is what Claude Code hands a Stop hook.
type hookInput struct {
	stdin []byte
	env   []string
}

// setupHome writes n live sessions of k tasks each. The returned function
// stops the sessions' processes; it is safe to call after a failure.
func setupHome(home string, n, k int) (hookInput, func(), error) {
	var hook hookInput
	claude := filepath.Join(home, ".claude")
	var procs []*exec.Cmd
	kill := func() {
		for _, p := range procs {
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			p.Wait()
		}
	}
	for _, d := range []string{"sessions", "tasks", "projects"} {
		if err := os.MkdirAll(filepath.Join(claude, d), 0o700); err != nil {
			return hook, kill, err
		}
	}
	old := time.Now().Add(-time.Hour)
	domain := pidDomain()
	for i := range n {
		// A real process, in its own group so the cleanup kills only it.
		p := exec.Command("sleep", "86400")
		p.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := p.Start(); err != nil {
			return hook, kill, err
		}
		procs = append(procs, p)
		pid := p.Process.Pid
		st, err := startTime(pid)
		if err != nil {
			return hook, kill, err
		}
		id := fmt.Sprintf("%08x-58cb-4e62-b7f1-a85d62252943", 0x1fc90000+i)
		cwd := filepath.Join(home, "src", fmt.Sprintf("repo-%02d", i))
		now := time.Now().UnixMilli()
		entry := map[string]any{
			"pid": pid, "sessionId": id, "cwd": cwd, "startedAt": now, "procStart": st, "pidDomain": domain,
			"version": "2.1.332", "peerProtocol": 1, "kind": "interactive", "entrypoint": "cli",
			"name": fmt.Sprintf("Bench session %d", i), "nameSource": "user", "nameSince": now,
			"status": "idle", "updatedAt": now, "statusUpdatedAt": now,
		}
		if err := writeJSON(filepath.Join(claude, "sessions", fmt.Sprintf("%d.json", pid)), entry, ""); err != nil {
			return hook, kill, err
		}
		list := filepath.Join(claude, "tasks", id)
		if err := os.MkdirAll(list, 0o755); err != nil {
			return hook, kill, err
		}
		for t := 1; t <= k; t++ {
			task := map[string]any{
				"id": fmt.Sprint(t), "subject": fmt.Sprintf("Task %d of session %d", t, i),
				"description": strings.Repeat("Do the thing carefully. ", 8),
				"activeForm":  fmt.Sprintf("Doing task %d", t), "status": []string{"pending", "in_progress", "completed"}[t%3],
				"blocks": []string{}, "blockedBy": []string{},
			}
			path := filepath.Join(list, fmt.Sprintf("%d.json", t))
			if err := writeJSON(path, task, "  "); err != nil {
				return hook, kill, err
			}
			// Tasks written a while ago, as most are on any given turn;
			// files touched in the last seconds always get a full read.
			if err := os.Chtimes(path, old, old); err != nil {
				return hook, kill, err
			}
		}
		proj := filepath.Join(claude, "projects", encode(cwd))
		if err := os.MkdirAll(proj, 0o700); err != nil {
			return hook, kill, err
		}
		line := fmt.Sprintf(`{"type":"user","cwd":%q,"sessionId":%q,"version":"2.1.332"}`+"\n", cwd, id)
		transcript := filepath.Join(proj, id+".jsonl")
		if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
			return hook, kill, err
		}
		if i == 0 {
			in := map[string]any{
				"session_id": id, "transcript_path": transcript, "cwd": cwd, "prompt_id": "f2c5ed29-0000",
				"permission_mode": "auto", "effort": map[string]string{"level": "medium"}, "hook_event_name": "Stop",
				"stop_hook_active": false, "last_assistant_message": "Done.", "background_tasks": []any{}, "session_crons": []any{},
			}
			b, err := json.Marshal(in)
			if err != nil {
				return hook, kill, err
			}
			hook = hookInput{stdin: b, env: []string{fmt.Sprintf("CLAUDE_PID=%d", pid), "CLAUDE_CODE_SESSION_ID=" + id}}
		}
	}
	return hook, kill, nil
}

// pidDomain is what Claude Code 2.1.332 writes as pidDomain on Linux:
// linux:<machine-id>:pid:[<ns inode>]; "" elsewhere, as older builds do.
func pidDomain() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	id, err1 := os.ReadFile("/etc/machine-id")
	ns, err2 := os.Readlink("/proc/self/ns/pid")
	if err1 != nil || err2 != nil || len(strings.TrimSpace(string(id))) == 0 {
		return ""
	}
	return "linux:" + strings.TrimSpace(string(id)) + ":" + ns
}

func writeJSON(path string, v any, indent string) error {
	b, err := json.MarshalIndent(v, "", indent)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func encode(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// startTime reads a process's start time the way Claude Code records
// procStart: /proc/<pid>/stat field 22 on Linux, `ps -o lstart=` elsewhere.
func startTime(pid int) (string, error) {
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return "", err
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if i < 0 || len(f) < 20 {
			return "", fmt.Errorf("/proc/%d/stat: unrecognised", pid)
		}
		return f[19], nil
	}
	cmd := exec.Command("ps", "-o", "lstart=", "-p", fmt.Sprint(pid))
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
