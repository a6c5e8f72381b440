package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"forgectl.dev/tools/benchkit"
)

type bench struct {
	out, log io.Writer
	benchkit.Home
	skipPicker bool
	onlyPicker bool
	removeHome bool
	// onlyComplete measures shell completion only.
	onlyComplete bool
	// codexThreads, when positive, adds the mixed measurements: the same
	// home plus a Codex home of this many threads.
	codexThreads int

	home string
}

type sample = benchkit.Sample

// measure runs argv (with env added) n times and returns the median wall
// time and the largest peak RSS. prep runs before each timed run, untimed.
// grep -c exits 1 when some file has no match: that is still a full scan.
func (b *bench) measure(ctx context.Context, n int, prep func() error, env []string, argv ...string) (sample, error) {
	var ok []int
	if argv[0] == "grep" {
		ok = []int{1}
	}
	return benchkit.Measure(ctx, n, prep, env, ok, argv...)
}

func (b *bench) all(ctx context.Context) error {
	b.home = filepath.Join(b.Work, fmt.Sprintf("home-%d", b.Sessions))
	if err := b.generate(ctx); err != nil {
		return err
	}
	projects := filepath.Join(b.home, ".claude", "projects")
	fc := filepath.Join(b.Work, fmt.Sprintf("forgectl-config-%d", b.Sessions))
	index := filepath.Join(fc, "cache", "transcripts.idx")
	noIndex := func() error { return removeIfExists(index) }
	// CODEX_HOME names nothing: these figures stay Claude-only (a forgectl
	// lists every harness whose home exists).
	env := []string{"HOME=" + b.home, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=" + filepath.Join(b.Work, "no-codex-home"), "FORGECTL_CONFIG_DIR=" + fc}
	forgectl := filepath.Join(b.Bin, "forgectl")
	lsJSON := []string{forgectl, "resume", "ls", "--json"}
	lsTable := []string{forgectl, "resume", "ls"}

	if b.onlyComplete {
		if _, err := b.measure(ctx, 1, nil, env, lsJSON...); err != nil {
			return err
		}
		return b.completion(ctx, env, forgectl, &report{out: b.out})
	}
	size, files := benchkit.TreeSize(projects)
	fmt.Fprintf(b.out, "home: %d transcripts, %.2f GB, %d timed runs each (median)\n\n", files, float64(size)/1e9, b.Runs)

	// Warm the page cache once so every contender reads from memory.
	if _, err := b.measure(ctx, 1, nil, nil, "grep", "-c", "-F", "custom-title", "-r", projects); err != nil {
		return err
	}
	find := []string{"find", projects, "-name", "*.jsonl", "-printf", `%s %T@\n`}
	statWalk, err := b.measure(ctx, b.Runs, nil, []string{"LC_ALL=C"}, find...)
	if err != nil {
		return err
	}
	r := &report{out: b.out}
	r.baseline("stat walk (find), warm", statWalk)
	if !b.onlyPicker {
		byteScan, err := b.measure(ctx, b.Runs, nil, []string{"LC_ALL=C"}, "grep", "-c", "-F", "custom-title", "-r", projects)
		if err != nil {
			return err
		}
		r.baseline("byte scan (grep -F -r)", byteScan)
		cold, err := b.measure(ctx, b.Runs, noIndex, env, lsJSON...)
		if err != nil {
			return err
		}
		warm, err := b.measure(ctx, b.Runs, nil, env, lsJSON...)
		if err != nil {
			return err
		}
		table, err := b.measure(ctx, b.Runs, nil, env, lsTable...)
		if err != nil {
			return err
		}
		gencc := filepath.Join(b.Bin, "gencc")
		seed := 100
		appended, err := b.measure(ctx, b.Runs, func() error {
			seed++
			return exec.CommandContext(ctx, gencc, "-home", b.home, "-append-percent", "1", "-seed", strconv.Itoa(seed)).Run()
		}, env, lsJSON...)
		if err != nil {
			return err
		}
		r.ratio("ls --json warm", warm, statWalk, 2)
		r.ratio("ls (table) warm", table, statWalk, 2)
		r.ratio("ls --json cold (no index)", cold, byteScan, 1)
		r.ratio("ls --json after 1% appended", appended, statWalk, 3)
		budget := int64(64 << 20)
		if b.Sessions >= 100000 {
			budget = 96 << 20
		}
		r.rss("peak RSS of ls --json, warm", warm.MaxRSS, budget)
		r.rss("peak RSS of ls --json, cold", cold.MaxRSS, budget)
		r.rss("peak RSS of ls --json, 1% appended", appended.MaxRSS, budget)
		r.rss("peak RSS of ls (table)", table.MaxRSS, budget)
		// Completion's target is set at 10,000 sessions.
		if b.Sessions <= 10000 {
			if err := b.completion(ctx, env, forgectl, r); err != nil {
				return err
			}
		}
	} else if _, err := b.measure(ctx, 1, nil, env, lsJSON...); err != nil {
		return err // the picker's indexed figure needs an index
	}
	if b.skipPicker {
		return nil
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Fprintf(b.out, "%-36s skipped: tmux is not installed\n", "picker first rows (tmux)")
		return nil
	}
	indexed, err := b.pickerFirstRows(ctx, env, forgectl, nil)
	if err != nil {
		return err
	}
	r.ratio("picker first rows, index", sample{Wall: indexed}, statWalk, 2)
	if b.Sessions >= 100000 {
		return nil // the first-run targets are set at 10,000 sessions
	}
	coldRan, err := b.pickerNoIndex(ctx, r, env, forgectl, noIndex, statWalk, find, pickerLabels{
		fresh:    "picker first rows, no index",
		coldSkip: "picker first rows, cold cache",
		coldWalk: "stat walk (find), cold cache",
		coldPick: "picker first rows, no index, cold",
	})
	if err != nil || !coldRan {
		return err
	}
	// Leave the page cache warm for whatever runs next.
	_, err = b.measure(ctx, 1, nil, nil, "grep", "-c", "-F", "custom-title", "-r", projects)
	return err
}

// pickerLabels name the figures pickerNoIndex reports.
type pickerLabels struct{ fresh, coldSkip, coldWalk, coldPick string }

// pickerNoIndex times the picker's first rows with no index, against the
// warm stat walk, and then right after a reboot (nothing in the page
// cache) against walk timed cold. It reports false, having said why, when
// the page cache cannot be dropped.
func (b *bench) pickerNoIndex(ctx context.Context, r *report, env []string, forgectl string, noIndex func() error, statWalk sample, walk []string, l pickerLabels) (bool, error) {
	fresh, err := b.pickerFirstRows(ctx, env, forgectl, noIndex)
	if err != nil {
		return false, err
	}
	r.ratio(l.fresh, sample{Wall: fresh}, statWalk, 3)
	if err := dropCaches(); err != nil {
		fmt.Fprintf(b.out, "%-36s skipped: cannot drop the page cache: %v\n", l.coldSkip, err)
		return false, nil
	}
	coldWalk, err := b.measure(ctx, b.Runs, dropCaches, []string{"LC_ALL=C"}, walk...)
	if err != nil {
		return false, err
	}
	r.baseline(l.coldWalk, coldWalk)
	coldPick, err := b.pickerFirstRows(ctx, env, forgectl, func() error {
		if err := noIndex(); err != nil {
			return err
		}
		return dropCaches()
	})
	if err != nil {
		return false, err
	}
	r.ratio(l.coldPick, sample{Wall: coldPick}, coldWalk, 3)
	return true, nil
}

// completion times `forgectl __complete` on the warm index: Tab after an id
// prefix, and after "resume " with nothing typed (every name and repo),
// each a whole process. The target is a wall time a person feels (≤ 50 ms
// per Tab); the ratio to a bare process start (--version) shows what the
// listing adds.
func (b *bench) completion(ctx context.Context, env []string, forgectl string, r *report) error {
	prefix, err := b.idPrefix(ctx, env, forgectl)
	if err != nil {
		return err
	}
	start, err := b.measure(ctx, b.Runs, nil, env, forgectl, "--version")
	if err != nil {
		return err
	}
	completeID, err := b.measure(ctx, b.Runs, nil, env, forgectl, "__complete", "resume", prefix)
	if err != nil {
		return err
	}
	completeAll, err := b.measure(ctx, b.Runs, nil, env, forgectl, "__complete", "resume", "")
	if err != nil {
		return err
	}
	r.baseline("process start (--version)", start)

	for _, c := range []struct {
		name string
		s    sample
	}{{"complete an id prefix (Tab)", completeID}, {"complete FILTER, nothing typed", completeAll}} {
		verdict := "ok"
		if c.s.Wall > 50*time.Millisecond {
			verdict = "MISSED"
		}
		r.head()
		fmt.Fprintf(b.out, "%-36s %10s %10s %7.2fx ≤ 50 ms %s\n", c.name, benchkit.MS(c.s.Wall), benchkit.MS(start.Wall), float64(c.s.Wall)/float64(start.Wall), verdict)
	}
	return nil
}

// idPrefix is the first 8 characters of the newest session's id.
func (b *bench) idPrefix(ctx context.Context, env []string, forgectl string) (string, error) {
	cmd := exec.CommandContext(ctx, forgectl, "resume", "ls", "--json")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("resume ls --json: %w", err)
	}
	var rows []struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) == 0 || len(rows[0].SessionID) < 8 {
		return "", fmt.Errorf("resume ls --json gave no session id (%v)", err)
	}
	return rows[0].SessionID[:8], nil
}

// report prints the figures as they are measured.
type report struct {
	out    io.Writer
	header bool
}

func (r *report) head() {
	if !r.header {
		fmt.Fprintf(r.out, "%-36s %10s %10s %8s %s\n", "measurement", "median", "baseline", "ratio", "target")
		r.header = true
	}
}

func (r *report) baseline(name string, s sample) {
	r.head()
	fmt.Fprintf(r.out, "%-36s %10s\n", "baseline: "+name, benchkit.MS(s.Wall))
}

func (r *report) ratio(name string, s, base sample, target float64) {
	r.head()
	ratio := float64(s.Wall) / float64(base.Wall)
	verdict := "ok"
	if ratio > target {
		verdict = "MISSED"
	}
	fmt.Fprintf(r.out, "%-36s %10s %10s %7.2fx ≤ %.1fx %s\n", name, benchkit.MS(s.Wall), benchkit.MS(base.Wall), ratio, target, verdict)
}

func (r *report) rss(name string, rss, budget int64) {
	r.head()
	verdict := "ok"
	if rss > budget {
		verdict = "MISSED"
	}
	fmt.Fprintf(r.out, "%-36s %10.1f MB ≤ %d MB %s\n", name, float64(rss)/(1<<20), budget>>20, verdict)
}

// dropCaches empties the page cache, as a reboot would (root only).
func dropCaches() error {
	if err := exec.Command("sync").Run(); err != nil {
		return err
	}
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0o200)
}

func (b *bench) generate(ctx context.Context) error {
	return benchkit.Generate(ctx, b.Bin, b.home, b.Sessions, b.log)
}

// pickerFirstRows returns the median time from the exec of `forgectl
// resume` to the first session row reaching its terminal, in tmux. tmux
// copies what the pane receives to a file (pipe-pane), which is watched with
// plain reads: polling the screen with capture-pane starts a tmux client
// every few milliseconds, and on two cores that took the CPU the picker
// needs. prep runs before each run, untimed.
func (b *bench) pickerFirstRows(ctx context.Context, env []string, forgectl string, prep func() error) (time.Duration, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return 0, errors.New("tmux not installed")
	}
	// The clock starts when the launcher execs forgectl (a stamp written
	// just before the exec), not when tmux is asked to type.
	stamp := filepath.Join(b.Work, "picker-start")
	launcher := filepath.Join(b.Work, "run-picker.sh")
	script := "#!/bin/sh\ndate +%s%N > " + stamp + "\nexec env " + strings.Join(quoteAll(env), " ") + " TERM=xterm-256color " + forgectl + " resume\n"
	if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
		return 0, err
	}
	var times []time.Duration
	retries := 3
	for len(times) < b.Runs {
		if prep != nil {
			if err := prep(); err != nil {
				return 0, err
			}
		}
		d, lost, err := b.pickerRun(ctx, launcher, stamp)
		if lost && retries > 0 {
			retries--
			fmt.Fprintln(b.log, "benchls: tmux copied none of the picker's output; measuring that run again")
			continue
		}
		if err != nil {
			return 0, err
		}
		times = append(times, d)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2], nil
}

// pickerRun times one picker in a tmux server of its own (a server reused
// across runs now and then stopped copying the pane's output for good).
// lost reports a run whose output tmux never copied although the picker
// drew: a failed measurement, not a failed picker.
func (b *bench) pickerRun(ctx context.Context, launcher, stamp string) (d time.Duration, lost bool, err error) {
	sock := fmt.Sprintf("benchls-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) ([]byte, error) {
		out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", sock}, args...)...).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("tmux %s: %v: %s", args[0], err, bytes.TrimSpace(ee.Stderr))
			}
		}
		return out, err
	}
	defer tmux("kill-server")
	if _, err := tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "b", "sh"); err != nil {
		return 0, true, err
	}
	output := filepath.Join(b.Work, "picker-output")
	os.Remove(stamp)
	if err := os.WriteFile(output, nil, 0o600); err != nil {
		return 0, false, err
	}
	if _, err := tmux("pipe-pane", "-t", "b", "-O", "cat >> '"+output+"'"); err != nil {
		return 0, false, err
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := tmux("send-keys", "-t", "b", "sh "+launcher, "Enter"); err != nil {
		return 0, false, err
	}
	drawn, err := waitForRow(output, 10*time.Second)
	if err != nil {
		screen, _ := tmux("capture-pane", "-p", "-t", "b")
		got, _ := os.ReadFile(output)
		lost = len(got) == 0 && bytes.Contains(screen, []byte(" ago "))
		err = fmt.Errorf("%w; %d bytes of output; the screen:\n%s", err, len(got), bytes.TrimRight(screen, "\n"))
	}
	// Leave the picker with Esc rather than killing it with the server: a
	// killed picker could leave a cache write half done.
	tmux("send-keys", "-t", "b", "Escape")
	time.Sleep(400 * time.Millisecond)
	if err != nil {
		return 0, lost, err
	}
	raw, err := os.ReadFile(stamp)
	if err != nil {
		return 0, false, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0, false, err
	}
	return drawn.Sub(time.Unix(0, ns)), false, nil
}

// waitForRow watches the pane's output for a session row (every row has an
// age, "… ago") and returns when it arrived.
func waitForRow(path string, limit time.Duration) (time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	var seen []byte
	buf := make([]byte, 64<<10)
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		n, _ := f.Read(buf)
		if n == 0 {
			time.Sleep(time.Millisecond)
			continue
		}
		seen = append(seen, buf[:n]...)
		// A row's age column: "3m ago", or "just now" for a session
		// written in the last minute (the bench's appends are).
		if bytes.Contains(seen, []byte(" ago ")) || bytes.Contains(seen, []byte("just now ")) {
			return time.Now(), nil
		}
	}
	return time.Time{}, errors.New("the picker never drew its rows")
}

func removeGlob(pattern string) error {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return err
	}
	for _, m := range matches {
		if err := removeIfExists(m); err != nil {
			return err
		}
	}
	return nil
}

func quoteAll(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		out[i] = "'" + strings.ReplaceAll(kv, "'", `'\''`) + "'"
	}
	return out
}

func removeIfExists(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
