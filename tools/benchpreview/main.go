// Command benchpreview measures the picker's preview of a 100 MB
// transcript, warm, for `make bench`: it runs the Go benchmarks beside the
// reader (forgectl/internal/harness/claude, BenchmarkTail100MB, with
// BenchmarkReadWhole100MB and BenchmarkScanWhole100MB as baselines on the
// same file in the same run) and prints the medians, how much of the file
// one preview read, and the ratios; then Codex's (internal/harness/codex,
// BenchmarkTail100MB: a rollout of shell calls with long outputs), since
// the target holds for Codex threads too. Figures are reported
// against the target, never asserted.
//
// Usage:
//
//	benchpreview [-src DIR] [-count N]
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// target is the figure for a preview of a 100 MB transcript, warm.
const targetMs = 20.0

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchpreview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	src := fs.String("src", "../forgectl", "the forgectl module")
	count := fs.Int("count", 5, "runs of each benchmark; the median is reported")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	res, err := bench(ctx, *src, "./internal/harness/claude/", "^Benchmark(Tail|ReadWhole|ScanWhole)100MB$", *count, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "benchpreview: error: %v\n", err)
		return 1
	}
	tail, whole, scan := median(res["Tail100MB"]), median(res["ReadWhole100MB"]), median(res["ScanWhole100MB"])
	if tail == 0 || whole == 0 || scan == 0 {
		fmt.Fprintf(stderr, "benchpreview: error: the Claude Code benchmarks printed no figures\n")
		return 1
	}
	fmt.Fprintf(stdout, "preview of a %.0f MB transcript, warm: %.1f ms (median of %d), reading %.1f MB of it   target ≤ %.0f ms\n",
		res.metric("Tail100MB", "file-MB"), tail, len(res["Tail100MB"]), res.metric("Tail100MB", "read-MB"), targetMs)
	fmt.Fprintf(stdout, "  against reading the file whole: %.2fx (%.1f ms); against summarising it whole: %.2fx (%.1f ms)\n",
		tail/whole, whole, tail/scan, scan)
	cx, err := bench(ctx, *src, "./internal/harness/codex/", "^BenchmarkTail100MB$", *count, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "benchpreview: error: %v\n", err)
		return 1
	}
	ctail := median(cx["Tail100MB"])
	if ctail == 0 {
		fmt.Fprintf(stderr, "benchpreview: error: the Codex benchmark printed no figures\n")
		return 1
	}
	verdict := "ok"
	if ctail > targetMs {
		verdict = "MISSED"
	}
	fmt.Fprintf(stdout, "preview of a %.0f MB Codex rollout, warm: %.1f ms (median of %d)   target ≤ %.0f ms  %s\n",
		cx.metric("Tail100MB", "file-MB"), ctail, len(cx["Tail100MB"]), targetMs, verdict)
	return 0
}

// bench runs the benchmarks of pkg that pattern names, count times each,
// in the forgectl module src, and parses what they print.
func bench(ctx context.Context, src, pkg, pattern string, count int, stderr io.Writer) (results, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", pattern, "-count", strconv.Itoa(count), pkg)
	cmd.Dir = src
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go test -bench %s: %v\n%s", pkg, err, out.String())
	}
	return parse(&out), nil
}

// results are each benchmark's ns/op figures in ms, and its other metrics.
type results map[string][]float64

var line = regexp.MustCompile(`^Benchmark(\w+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$`)
var metric = regexp.MustCompile(`([\d.]+) ([\w-]+)`)

func parse(r io.Reader) results {
	res := results{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		res[m[1]] = append(res[m[1]], ns/1e6)
		for _, x := range metric.FindAllStringSubmatch(m[3], -1) {
			v, _ := strconv.ParseFloat(x[1], 64)
			res[m[1]+" "+x[2]] = append(res[m[1]+" "+x[2]], v)
		}
	}
	return res
}

func (r results) metric(bench, name string) float64 { return median(r[bench+" "+name]) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
