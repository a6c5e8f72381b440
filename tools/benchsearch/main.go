// Command benchsearch measures `forgectl resume search` on a generated
// Claude Code home of 10,000 sessions against baselines measured in the
// same run on the same files, and prints ratios:
//
//	warm search          vs rg -l -F WORD over the projects dir     target ≤ 0.05×
//	first search         vs LC_ALL=C grep -r -l -F WORD (no index)  target ≤ 1.0×
//	first search on a terminal, a common word: first hit on screen
//	                     vs the same grep                            target ≤ 0.3×
//	                     and done                                    target ≤ 1.0×
//	after 1% appended    vs a find -printf stat walk                target ≤ 3×
//	index size           vs the transcripts' bytes                  target ≤ 10%
//	peak RSS             building ≤ 128 MB, warm query ≤ 64 MB
//
// WORD is one no transcript holds, so every baseline reads every byte and
// the search does all its work (update, query, listing). A common word's
// warm search is reported too, without a target. Targets are reported,
// never asserted: these machines are shared and noisy.
//
// -text-heavy measures only the first search, on a text-heavy home (gencc
// -prompt-bytes 3KB -reply-bytes 6KB, 240 KB a session), in runs paired
// with the grep: wall and CPU time (user plus system) of both, whose ratio
// is the fairer one when the shared machine is loaded.
//
// Usage: benchsearch -bin DIR -work DIR [-sessions N] [-runs N] [-text-heavy]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"forgectl.dev/tools/benchkit"
)

func main() { benchkit.Main(run) }

type bench struct {
	out, log io.Writer
	benchkit.Home
	textHeavy bool
}

func run(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchsearch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	b := bench{out: stdout, log: stderr}
	b.Flags(fs, "the generated home is kept and reused", 5)
	fs.BoolVar(&b.textHeavy, "text-heavy", false, "only the first search against grep, paired, on a text-heavy home")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !b.Check("benchsearch", stderr) {
		return 2
	}
	do := b.all
	if b.textHeavy {
		do = b.heavy
	}
	if err := do(ctx); err != nil {
		fmt.Fprintf(stderr, "benchsearch: %v\n", err)
		return 1
	}
	return 0
}

type sample = benchkit.Sample

// measure runs argv n times (prep, untimed, before each) and returns the
// median wall time and the largest peak RSS. Exit status 1 is a valid
// answer ("no match") for every command measured here.
func (b *bench) measure(ctx context.Context, n int, prep func() error, env []string, argv ...string) (sample, error) {
	return benchkit.Measure(ctx, n, prep, env, []int{1}, argv...)
}

func (b *bench) all(ctx context.Context) error {
	home := filepath.Join(b.Work, fmt.Sprintf("home-%d", b.Sessions))
	if err := b.generate(ctx, home); err != nil {
		return err
	}
	projects := filepath.Join(home, ".claude", "projects")
	fc := filepath.Join(b.Work, "forgectl-config")
	index := filepath.Join(fc, "cache", "search")
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "FORGECTL_CONFIG_DIR=" + fc}
	forgectl := filepath.Join(b.Bin, "forgectl")
	const word = "quokkalanternfish" // in no transcript
	search := []string{forgectl, "resume", "search", "--json", word}
	if _, err := exec.LookPath("rg"); err != nil {
		return errors.New("ripgrep (rg) is not installed: apt-get install ripgrep")
	}
	size, files := benchkit.TreeSize(projects)
	fmt.Fprintf(b.out, "home: %d transcripts, %.2f GB, %d timed runs each (median); WORD %q\n\n", files, float64(size)/1e9, b.Runs, word)

	// Warm the page cache, and the listing's own index, once.
	if _, err := b.measure(ctx, 1, nil, []string{"LC_ALL=C"}, "grep", "-r", "-l", "-F", word, projects); err != nil {
		return err
	}
	if _, err := b.measure(ctx, 1, nil, env, forgectl, "resume", "ls", "--json"); err != nil {
		return err
	}
	statWalk, err := b.measure(ctx, b.Runs, nil, []string{"LC_ALL=C"}, "find", projects, "-name", "*.jsonl", "-printf", `%s %T@\n`)
	if err != nil {
		return err
	}
	grep, err := b.measure(ctx, b.Runs, nil, []string{"LC_ALL=C"}, "grep", "-r", "-l", "-F", word, projects)
	if err != nil {
		return err
	}
	rg, err := b.measure(ctx, b.Runs, nil, nil, "rg", "-l", "-F", word, projects)
	if err != nil {
		return err
	}
	first, err := b.measure(ctx, b.Runs, func() error { return os.RemoveAll(index) }, env, search...)
	if err != nil {
		return err
	}
	isize, _ := dirSize(index)
	// The same first search on a terminal, for a word many sessions hold:
	// the hits stream while the index is built.
	const often = "login"
	var screen onScreen
	if _, err := exec.LookPath("script"); err == nil {
		screen, err = b.terminal(ctx, b.Runs, func() error { return os.RemoveAll(index) }, env, forgectl, "resume", "search", often)
		if err != nil {
			return err
		}
	}
	warm, err := b.measure(ctx, b.Runs, nil, env, search...)
	if err != nil {
		return err
	}
	common, err := b.measure(ctx, b.Runs, nil, env, forgectl, "resume", "search", "--json", "login")
	if err != nil {
		return err
	}
	seed := 300
	appended, err := b.measure(ctx, b.Runs, func() error {
		seed++
		return exec.CommandContext(ctx, filepath.Join(b.Bin, "gencc"), "-home", home, "-append-percent", "1", "-seed", strconv.Itoa(seed)).Run()
	}, env, search...)
	if err != nil {
		return err
	}

	fmt.Fprintf(b.out, "%-36s %10s %10s %8s %s\n", "measurement", "median", "baseline", "ratio", "target")
	fmt.Fprintf(b.out, "%-36s %10s\n", "baseline: stat walk (find)", benchkit.MS(statWalk.Wall))
	fmt.Fprintf(b.out, "%-36s %10s\n", "baseline: LC_ALL=C grep -r -l -F", benchkit.MS(grep.Wall))
	fmt.Fprintf(b.out, "%-36s %10s\n", "baseline: rg -l -F", benchkit.MS(rg.Wall))
	row := func(name string, s, base sample, target float64) {
		r := float64(s.Wall) / float64(base.Wall)
		verdict := "ok"
		if r > target {
			verdict = "MISSED"
		}
		fmt.Fprintf(b.out, "%-36s %10s %10s %7.2fx ≤ %.2fx %s\n", name, benchkit.MS(s.Wall), benchkit.MS(base.Wall), r, target, verdict)
	}
	row("search warm (vs rg)", warm, rg, 0.05)
	row("first search, no index (vs grep)", first, grep, 1.0)
	if screen.rows > 0 {
		row(fmt.Sprintf("first search %q, first hit on screen", often), sample{Wall: screen.first}, grep, 0.3)
		row(fmt.Sprintf("first search %q, done (%d rows)", often, screen.rows), sample{Wall: screen.done}, grep, 1.0)
	} else {
		fmt.Fprintf(b.out, "%-36s (script from util-linux is not installed)\n", "first search on a terminal")
	}
	row("search after 1% appended (vs walk)", appended, statWalk, 3)
	fmt.Fprintf(b.out, "%-36s %10s %10s %7.2fx (no target)\n", "search warm, common word \"login\"", benchkit.MS(common.Wall), benchkit.MS(rg.Wall), float64(common.Wall)/float64(rg.Wall))
	share := float64(isize) / float64(size)
	verdict := "ok"
	if share > 0.10 {
		verdict = "MISSED"
	}
	fmt.Fprintf(b.out, "%-36s %7.1f MB %8.1f%% ≤ 10%% %s\n", "index size (of transcript bytes)", float64(isize)/1e6, 100*share, verdict)
	for _, m := range []struct {
		name  string
		rss   int64
		limit int64
	}{{"peak RSS building", first.MaxRSS, 128 << 20}, {"peak RSS warm query", max(warm.MaxRSS, common.MaxRSS), 64 << 20}} {
		verdict := "ok"
		if m.rss > m.limit {
			verdict = "MISSED"
		}
		fmt.Fprintf(b.out, "%-36s %7.1f MB ≤ %d MB %s\n", m.name, float64(m.rss)/(1<<20), m.limit>>20, verdict)
	}
	return nil
}

func (b *bench) generate(ctx context.Context, home string, extra ...string) error {
	return benchkit.Generate(ctx, b.Bin, home, b.Sessions, b.log, extra...)
}

// heavy times a first search (no index) on a text-heavy home against grep,
// each run of one right after a run of the other, so both meet the same
// load; the page cache is warm for both (grep reads the same files).
func (b *bench) heavy(ctx context.Context) error {
	home := filepath.Join(b.Work, fmt.Sprintf("home-heavy-%d", b.Sessions))
	if err := b.generate(ctx, home, "-prompt-bytes", "3KB", "-reply-bytes", "6KB", "-max-bytes", strconv.Itoa(b.Sessions*240)+"KB"); err != nil {
		return err
	}
	projects := filepath.Join(home, ".claude", "projects")
	fc := filepath.Join(b.Work, "forgectl-config-heavy")
	index := filepath.Join(fc, "cache", "search")
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "FORGECTL_CONFIG_DIR=" + fc}
	const word = "quokkalanternfish" // in no transcript
	search := []string{filepath.Join(b.Bin, "forgectl"), "resume", "search", "--json", word}
	grepArgv := []string{"grep", "-r", "-l", "-F", word, projects}
	size, files := benchkit.TreeSize(projects)
	fmt.Fprintf(b.out, "text-heavy home: %d transcripts, %.2f GB, %d paired runs (medians); WORD %q\n\n", files, float64(size)/1e9, b.Runs, word)
	// Warm the page cache, and the listing's own index, once, as above.
	if _, err := b.measure(ctx, 1, nil, []string{"LC_ALL=C"}, grepArgv...); err != nil {
		return err
	}
	if _, err := b.measure(ctx, 1, nil, env, filepath.Join(b.Bin, "forgectl"), "resume", "ls", "--json"); err != nil {
		return err
	}
	var gw, gc, fw, fcpu, rw, rc []time.Duration
	var rss int64
	for range b.Runs {
		g, err := b.measure(ctx, 1, nil, []string{"LC_ALL=C"}, grepArgv...)
		if err != nil {
			return err
		}
		f, err := b.measure(ctx, 1, func() error { return os.RemoveAll(index) }, env, search...)
		if err != nil {
			return err
		}
		gw, gc, fw, fcpu = append(gw, g.Wall), append(gc, g.CPU), append(fw, f.Wall), append(fcpu, f.CPU)
		// Per-pair ratios, kept as durations of a thousandth.
		rw = append(rw, time.Duration(1000*float64(f.Wall)/float64(g.Wall)))
		rc = append(rc, time.Duration(1000*float64(f.CPU)/float64(max(g.CPU, time.Millisecond))))
		rss = max(rss, f.MaxRSS)
	}
	isize, _ := dirSize(index)
	fmt.Fprintf(b.out, "%-36s %10s %10s %8s %s\n", "measurement", "median", "grep", "ratio", "target")
	verdict := "ok"
	if r := float64(benchkit.Median(rw)) / 1000; r > 1.0 {
		verdict = "MISSED"
	}
	fmt.Fprintf(b.out, "%-36s %10s %10s %7.2fx ≤ 1.00x %s\n", "first search, wall", benchkit.MS(benchkit.Median(fw)), benchkit.MS(benchkit.Median(gw)), float64(benchkit.Median(rw))/1000, verdict)
	fmt.Fprintf(b.out, "%-36s %10s %10s %7.2fx (user+sys)\n", "first search, CPU", benchkit.MS(benchkit.Median(fcpu)), benchkit.MS(benchkit.Median(gc)), float64(benchkit.Median(rc))/1000)
	fmt.Fprintf(b.out, "%-36s %7.1f MB %8.1f%%\n", "index size (of transcript bytes)", float64(isize)/1e6, 100*float64(isize)/float64(size))
	fmt.Fprintf(b.out, "%-36s %7.1f MB\n", "peak RSS building", float64(rss)/(1<<20))
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(b.out, "load average after: %s", la)
	}
	return nil
}

func dirSize(dir string) (int64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n, nil
}
