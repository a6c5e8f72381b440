package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type bench struct {
	out, log   io.Writer
	bin, work  string
	sessions   int
	runs       int
	skipPicker bool

	home string
}

type sample struct {
	wall   time.Duration
	maxRSS int64 // bytes
}

// measure runs argv (with env added) n times and returns the median wall
// time and the largest peak RSS. prep runs before each timed run, untimed.
func (b *bench) measure(ctx context.Context, n int, prep func() error, env []string, argv ...string) (sample, error) {
	var walls []time.Duration
	var rss int64
	for range n {
		if prep != nil {
			if err := prep(); err != nil {
				return sample{}, err
			}
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout = io.Discard
		cmd.Stderr = io.Discard
		start := time.Now()
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			// grep -c exits 1 when some file has no match; that is still a full scan.
			if !errors.As(err, &ee) || argv[0] != "grep" {
				return sample{}, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
			}
		}
		walls = append(walls, time.Since(start))
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > rss {
			rss = ru.Maxrss * 1024 // Linux reports KiB
		}
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	return sample{wall: walls[len(walls)/2], maxRSS: rss}, nil
}

func (b *bench) all(ctx context.Context) error {
	b.home = filepath.Join(b.work, fmt.Sprintf("home-%d", b.sessions))
	if err := b.generate(ctx); err != nil {
		return err
	}
	projects := filepath.Join(b.home, ".claude", "projects")
	fc := filepath.Join(b.work, "forgectl-config")
	index := filepath.Join(fc, "cache", "transcripts.idx")
	env := []string{"HOME=" + b.home, "CLAUDE_CONFIG_DIR=", "FORGECTL_CONFIG_DIR=" + fc}
	forgectl := filepath.Join(b.bin, "forgectl")
	ls := []string{forgectl, "resume", "ls", "--json"}

	size, files := treeSize(projects)
	fmt.Fprintf(b.out, "home: %d transcripts, %.2f GB, %d timed runs each (median)\n\n", files, float64(size)/1e9, b.runs)

	// Warm the page cache once so every contender reads from memory.
	if _, err := b.measure(ctx, 1, nil, nil, "grep", "-c", "-F", "custom-title", "-r", projects); err != nil {
		return err
	}
	statWalk, err := b.measure(ctx, b.runs, nil, []string{"LC_ALL=C"}, "find", projects, "-name", "*.jsonl", "-printf", `%s %T@\n`)
	if err != nil {
		return err
	}
	byteScan, err := b.measure(ctx, b.runs, nil, []string{"LC_ALL=C"}, "grep", "-c", "-F", "custom-title", "-r", projects)
	if err != nil {
		return err
	}
	cold, err := b.measure(ctx, b.runs, func() error { return removeIfExists(index) }, env, ls...)
	if err != nil {
		return err
	}
	warm, err := b.measure(ctx, b.runs, nil, env, ls...)
	if err != nil {
		return err
	}
	gencc := filepath.Join(b.bin, "gencc")
	seed := 100
	appended, err := b.measure(ctx, b.runs, func() error {
		seed++
		return exec.CommandContext(ctx, gencc, "-home", b.home, "-append-percent", "1", "-seed", strconv.Itoa(seed)).Run()
	}, env, ls...)
	if err != nil {
		return err
	}

	rss := max(cold.maxRSS, warm.maxRSS, appended.maxRSS)
	fmt.Fprintf(b.out, "%-34s %10s %10s %8s %s\n", "measurement", "median", "baseline", "ratio", "target")
	row := func(name string, s, base sample, target float64) {
		r := float64(s.wall) / float64(base.wall)
		verdict := "ok"
		if r > target {
			verdict = "MISSED"
		}
		fmt.Fprintf(b.out, "%-34s %10s %10s %7.2fx ≤ %.1fx %s\n", name, ms(s.wall), ms(base.wall), r, target, verdict)
	}
	fmt.Fprintf(b.out, "%-34s %10s\n", "baseline: stat walk (find)", ms(statWalk.wall))
	fmt.Fprintf(b.out, "%-34s %10s\n", "baseline: byte scan (grep -F -r)", ms(byteScan.wall))
	row("ls --json warm", warm, statWalk, 2)
	row("ls --json cold (no index)", cold, byteScan, 1)
	row("ls --json after 1% appended", appended, statWalk, 3)
	verdict := "ok"
	if rss > 64<<20 {
		verdict = "MISSED"
	}
	fmt.Fprintf(b.out, "%-34s %10.1f MB ≤ 64 MB %s\n", "peak RSS of ls", float64(rss)/(1<<20), verdict)

	if b.skipPicker {
		return nil
	}
	first, err := b.pickerFirstRows(ctx, env, forgectl)
	if err != nil {
		fmt.Fprintf(b.out, "%-34s skipped: %v\n", "picker first rows (tmux)", err)
		return nil
	}
	verdict = "ok"
	if first > 100*time.Millisecond {
		verdict = "MISSED"
	}
	fmt.Fprintf(b.out, "%-34s %10s ≤ 100 ms %s\n", "picker first rows (tmux, warm)", ms(first), verdict)
	return nil
}

func (b *bench) generate(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(b.home, "gencc-manifest.json")); err == nil {
		fmt.Fprintf(b.log, "reusing %s\n", b.home)
		return nil
	}
	os.RemoveAll(b.home)
	fmt.Fprintf(b.log, "generating %d sessions in %s (once; kept for later runs)\n", b.sessions, b.home)
	cmd := exec.CommandContext(ctx, filepath.Join(b.bin, "gencc"), "-home", b.home, "-scale", "-sessions", strconv.Itoa(b.sessions))
	cmd.Stdout, cmd.Stderr = b.log, b.log
	return cmd.Run()
}

// pickerFirstRows starts `forgectl resume` in a private tmux server and
// polls the screen until the picker shows its prompt and a session row.
func (b *bench) pickerFirstRows(ctx context.Context, env []string, forgectl string) (time.Duration, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return 0, errors.New("tmux not installed")
	}
	sock := fmt.Sprintf("benchls-%d", os.Getpid())
	tmux := func(args ...string) ([]byte, error) {
		return exec.CommandContext(ctx, "tmux", append([]string{"-L", sock}, args...)...).Output()
	}
	defer tmux("kill-server")
	if _, err := tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "b", "sh"); err != nil {
		return 0, err
	}
	// The clock starts when the launcher execs forgectl (a stamp written
	// just before the exec), not when tmux is asked to type: what is
	// measured is forgectl's own time to first rows, plus the polling's
	// granularity.
	stamp := filepath.Join(b.work, "picker-start")
	launcher := filepath.Join(b.work, "run-picker.sh")
	script := "#!/bin/sh\ndate +%s%N > " + stamp + "\nexec env " + strings.Join(quoteAll(env), " ") + " TERM=xterm-256color " + forgectl + " resume\n"
	if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
		return 0, err
	}
	var times []time.Duration
	for range b.runs {
		os.Remove(stamp)
		if _, err := tmux("send-keys", "-t", "b", "sh "+launcher, "Enter"); err != nil {
			return 0, err
		}
		var drawn time.Time
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			screen, _ := tmux("capture-pane", "-p", "-t", "b")
			if strings.Contains(string(screen), "resume>") && strings.Contains(string(screen), " ago ") {
				drawn = time.Now()
				break
			}
			// Each poll starts a tmux client; polling harder would take
			// the CPU the picker needs (two cores).
			time.Sleep(5 * time.Millisecond)
		}
		tmux("send-keys", "-t", "b", "Escape")
		time.Sleep(300 * time.Millisecond)
		tmux("send-keys", "-t", "b", "clear", "Enter")
		time.Sleep(100 * time.Millisecond)
		if drawn.IsZero() {
			return 0, errors.New("the picker never drew its rows")
		}
		raw, err := os.ReadFile(stamp)
		if err != nil {
			return 0, err
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil {
			return 0, err
		}
		times = append(times, drawn.Sub(time.Unix(0, ns)))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2], nil
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

func treeSize(root string) (int64, int) {
	var size int64
	var n int
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			if info, err := d.Info(); err == nil {
				size += info.Size()
				n++
			}
		}
		return nil
	})
	return size, n
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
