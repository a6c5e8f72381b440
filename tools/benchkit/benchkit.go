// Package benchkit is what the benchmark drivers share: their main and the
// flags of a generated home, timing a command over repeated runs,
// generating the home they measure, and its size.
package benchkit

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

// Sample is a measured command: the median wall time, the median CPU time
// (user plus system: on a shared machine the fairer figure, as it leaves
// out the waits for a core) and the largest peak RSS over its runs.
type Sample struct {
	Wall   time.Duration
	CPU    time.Duration
	MaxRSS int64 // bytes
}

// Measure runs argv (with env added) n times and returns its Sample. prep
// runs before each timed run, untimed. okCodes are exit statuses that are
// a valid answer (grep's 1 for "no match" is still a full scan).
func Measure(ctx context.Context, n int, prep func() error, env []string, okCodes []int, argv ...string) (Sample, error) {
	var walls, cpus []time.Duration
	var rss int64
	for range n {
		if prep != nil {
			if err := prep(); err != nil {
				return Sample{}, err
			}
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout = io.Discard
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && contains(okCodes, ee.ExitCode())) {
			return Sample{}, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
		}
		walls = append(walls, wall)
		cpus = append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > rss {
			rss = ru.Maxrss * 1024 // Linux reports KiB
		}
	}
	return Sample{Wall: Median(walls), CPU: Median(cpus), MaxRSS: rss}, nil
}

// Median is the middle of d (the upper one of an even count); d is sorted.
func Median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func contains(l []int, v int) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// Generate writes a scale home of n sessions at home with gencc from bin,
// unless one is there already (it is kept for later runs). Above 10,000
// sessions it is the same generator at a tenth of the sizes: ten times the
// sessions in five times the bytes.
func Generate(ctx context.Context, bin, home string, n int, log io.Writer, extra ...string) error {
	if _, err := os.Stat(filepath.Join(home, "gencc-manifest.json")); err == nil {
		fmt.Fprintf(log, "reusing %s\n", home)
		return nil
	}
	os.RemoveAll(home)
	fmt.Fprintf(log, "generating %d sessions in %s (once; kept for later runs)\n", n, home)
	args := append([]string{"-home", home, "-scale", "-sessions", strconv.Itoa(n)}, extra...)
	if n > 10000 {
		args = append(args, "-max-bytes", strconv.Itoa(n/10000*750)+"MB")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "gencc"), args...)
	cmd.Stdout, cmd.Stderr = log, log
	return cmd.Run()
}

// TreeSize is the bytes and the number of the transcripts under root.
func TreeSize(root string) (int64, int) {
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

// MS formats a duration in milliseconds.
func MS(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// GenerateCodex writes a Codex home of n threads at home (its Codex home is
// home/.codex) with gencodex from bin, unless one is there already.
func GenerateCodex(ctx context.Context, bin, home string, n int, log io.Writer) error {
	if _, err := os.Stat(filepath.Join(home, "gencodex-manifest.json")); err == nil {
		fmt.Fprintf(log, "reusing %s\n", home)
		return nil
	}
	os.RemoveAll(home)
	fmt.Fprintf(log, "generating %d Codex threads in %s (once; kept for later runs)\n", n, home)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "gencodex"), "-home", home, "-threads", strconv.Itoa(n), "-repos", "40")
	cmd.Stdout, cmd.Stderr = log, log
	return cmd.Run()
}
