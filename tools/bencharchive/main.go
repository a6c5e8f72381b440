// Command bencharchive measures forgectl resume archive and unarchive
// against the tools people would use instead, in the same run:
//
//   - archiving N sessions (default 1,000, the oldest of a generated home)
//     against `tar -czf` over the same files: throughput ratio ≥ 0.5x;
//   - restoring one session (the median-sized one) against `cp -a` of its
//     files: ≤ 2x;
//   - `resume ls --json` with 10,000 archived sessions against a `find`
//     stat walk of the tree, the warm listing target (≤ 2x); ls --archived
//     and ls --all are reported beside it.
//
// The home it generates (with gencc, as make bench's others) is its own:
// archiving moves files, and the other drivers' homes are left alone.
//
//	bencharchive -bin DIR -work DIR [-sessions N] [-archive N] [-runs N]
package main

import (
	"context"
	"encoding/json"
	"flag"
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

func main() { benchkit.Main(run) }

type bench struct {
	benchkit.Home
	archive, listed int
	out, log        io.Writer
	home, fc        string
}

func run(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bencharchive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	b := bench{out: stdout, log: stderr}
	b.Flags(fs, "the generated homes are kept and reused", 3)
	fs.IntVar(&b.archive, "archive", 1000, "sessions archived in the throughput measurement")
	fs.IntVar(&b.listed, "listed", 10000, "archived sessions in the listing measurement")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !b.Check("bencharchive", stderr) {
		return 2
	}
	if err := b.all(ctx); err != nil {
		fmt.Fprintf(stderr, "bencharchive: %v\n", err)
		return 1
	}
	return 0
}

func (b *bench) env(home, fc string) []string {
	return []string{"HOME=" + home, "FORGECTL_CONFIG_DIR=" + fc, "CLAUDE_CONFIG_DIR=", "LC_ALL=C"}
}

// forgectl runs forgectl with the bench home, untimed.
func (b *bench) forgectl(ctx context.Context, home, fc string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(b.Bin, "forgectl"), args...)
	cmd.Env = append(os.Environ(), b.env(home, fc)...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("forgectl %s: %v: %s", strings.Join(args[:min(len(args), 3)], " "), err, strings.TrimSpace(errb.String()))
	}
	return string(out), nil
}

type row struct {
	ID           string `json:"session_id"`
	LastActivity string `json:"last_activity"`
	Size         int64  `json:"size_bytes"`
}

func (b *bench) all(ctx context.Context) error {
	b.home = filepath.Join(b.Work, fmt.Sprintf("archive-home-%d", b.Sessions))
	b.fc = filepath.Join(b.Work, fmt.Sprintf("archive-config-%d", b.Sessions))
	if err := benchkit.Generate(ctx, b.Bin, b.home, b.Sessions, b.log); err != nil {
		return err
	}
	// A run stopped half way left sessions archived: put them back first.
	if _, err := os.Stat(filepath.Join(b.fc, "resume-archive")); err == nil {
		if err := b.unarchiveAll(ctx); err != nil {
			return err
		}
	}
	out, err := b.forgectl(ctx, b.home, b.fc, "resume", "ls", "--all", "--json")
	if err != nil {
		return err
	}
	var rows []row
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		return err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].LastActivity < rows[j].LastActivity })
	n := min(b.archive, len(rows))
	ids := make([]string, n)
	for i := range n {
		ids[i] = rows[i].ID
	}
	files, bytes, err := b.files(ctx, ids)
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "home: %d sessions; archiving the %d oldest: %d files, %.1f MB; %d timed runs each (median)\n\n",
		len(rows), n, len(files), float64(bytes)/1e6, b.Runs)
	fmt.Fprintf(b.out, "%-36s %10s %10s %8s %s\n", "measurement", "median", "baseline", "ratio", "target")

	// Archive throughput against tar -czf over the same files.
	list := filepath.Join(b.Work, "bencharchive-files.txt")
	if err := os.WriteFile(list, []byte(strings.Join(files, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	tgz := filepath.Join(b.Work, "bencharchive.tgz")
	tar, err := benchkit.Measure(ctx, b.Runs, func() error { return os.RemoveAll(tgz) }, nil, nil,
		"tar", "-czf", tgz, "-P", "-T", list)
	if err != nil {
		return err
	}
	os.Remove(tgz)
	arch, err := benchkit.Measure(ctx, b.Runs, func() error { return b.unarchiveAll(ctx) }, b.env(b.home, b.fc), nil,
		append([]string{filepath.Join(b.Bin, "forgectl"), "resume", "archive", "--yes"}, ids...)...)
	if err != nil {
		return err
	}
	// Throughput is bytes over time; both moved the same bytes.
	b.line(fmt.Sprintf("archive %d sessions (throughput)", n), arch, tar, float64(tar.Wall)/float64(arch.Wall), 0.5, true)
	if err := b.unarchiveAll(ctx); err != nil {
		return err
	}

	// Restoring one session against cp -a of its files.
	one := ids[len(ids)/2]
	oneFiles, _, err := b.files(ctx, []string{one})
	if err != nil {
		return err
	}
	dst := filepath.Join(b.Work, "bencharchive-cp")
	// cp --parents takes the paths relative to where it runs: from /.
	rel := make([]string, len(oneFiles))
	for i, f := range oneFiles {
		rel[i] = strings.TrimPrefix(f, "/")
	}
	cp, err := measureIn(ctx, "/", b.Runs, func() error {
		os.RemoveAll(dst)
		return os.MkdirAll(dst, 0o700)
	}, append(append([]string{"cp", "-a", "--parents"}, rel...), dst)...)
	if err != nil {
		return err
	}
	os.RemoveAll(dst)
	restore, err := benchkit.Measure(ctx, b.Runs, func() error {
		_, err := b.forgectl(ctx, b.home, b.fc, "resume", "archive", one)
		return err
	}, b.env(b.home, b.fc), nil, filepath.Join(b.Bin, "forgectl"), "resume", "unarchive", "--keep-mtime", one)
	if err != nil {
		return err
	}
	b.line("restore one session", restore, cp, float64(restore.Wall)/float64(cp.Wall), 2, false)
	// What any forgectl run costs before it does anything: the floor
	// under the restore's ratio.
	start, err := benchkit.Measure(ctx, b.Runs, nil, b.env(b.home, b.fc), nil, filepath.Join(b.Bin, "forgectl"), "--version")
	if err != nil {
		return err
	}
	b.line("  forgectl --version (start-up)", start, cp, float64(start.Wall)/float64(cp.Wall), 0, false)

	return b.listing(ctx)
}

// listing measures ls with b.listed archived sessions: archived from a
// second generated home (so the first keeps its tree), into the config
// dir the first home's listing reads.
func (b *bench) listing(ctx context.Context) error {
	src := filepath.Join(b.Work, fmt.Sprintf("archive-source-%d", b.listed))
	fc := filepath.Join(b.Work, fmt.Sprintf("archive-listed-%d", b.listed))
	if _, err := os.Stat(filepath.Join(fc, "resume-archive", "index.bin")); err != nil {
		os.RemoveAll(src)
		os.RemoveAll(fc)
		fmt.Fprintf(b.log, "archiving %d sessions for the listing measurement (once; kept for later runs)\n", b.listed)
		gen := exec.CommandContext(ctx, filepath.Join(b.Bin, "gencc"), "-home", src, "-sessions", strconv.Itoa(b.listed), "-repos", "40", "-max-bytes", "150MB", "-seed", "7")
		gen.Stdout, gen.Stderr = b.log, b.log
		if err := gen.Run(); err != nil {
			return err
		}
		if _, err := b.forgectl(ctx, src, fc, "resume", "archive", "--yes", "--older-than", "1s"); err != nil {
			return err
		}
	}
	projects := filepath.Join(b.home, ".claude", "projects")
	walk, err := benchkit.Measure(ctx, b.Runs, nil, []string{"LC_ALL=C"}, nil, "find", projects, "-name", "*.jsonl", "-printf", `%s %T@\n`)
	if err != nil {
		return err
	}
	fcl := filepath.Join(b.Bin, "forgectl")
	b.forgectl(ctx, b.home, fc, "resume", "ls", "--json") // warm the listing's index
	empty := filepath.Join(b.Work, "archive-none")
	b.forgectl(ctx, b.home, empty, "resume", "ls", "--json")
	none, err := benchkit.Measure(ctx, b.Runs, nil, b.env(b.home, empty), nil, fcl, "resume", "ls", "--json")
	if err != nil {
		return err
	}
	b.line("ls --json, nothing archived", none, walk, float64(none.Wall)/float64(walk.Wall), 2, false)
	for _, c := range []struct {
		name   string
		args   []string
		target float64
	}{
		{fmt.Sprintf("ls --json, %d archived", b.listed), []string{"resume", "ls", "--json"}, 2},
		{fmt.Sprintf("ls --archived --json (%d rows)", b.listed), []string{"resume", "ls", "--archived", "--json"}, 2},
		{"ls --all --json (tree + archive)", []string{"resume", "ls", "--all", "--json"}, 0},
	} {
		s, err := benchkit.Measure(ctx, b.Runs, nil, b.env(b.home, fc), nil, append([]string{fcl}, c.args...)...)
		if err != nil {
			return err
		}
		b.line(c.name, s, walk, float64(s.Wall)/float64(walk.Wall), c.target, false)
	}
	return nil
}

// files are the files archive would move for ids, from its dry run.
func (b *bench) files(ctx context.Context, ids []string) ([]string, int64, error) {
	out, err := b.forgectl(ctx, b.home, b.fc, append([]string{"resume", "archive", "--dry-run"}, ids...)...)
	if err != nil {
		return nil, 0, err
	}
	var files []string
	var total int64
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && strings.HasPrefix(l, "  /") {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			files = append(files, f[0])
			total += n
		}
	}
	return files, total, nil
}

func (b *bench) unarchiveAll(ctx context.Context) error {
	out, err := b.forgectl(ctx, b.home, b.fc, "resume", "ls", "--archived", "--json")
	if err != nil {
		return err
	}
	var rows []row
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	args := []string{"resume", "unarchive", "--keep-mtime"}
	for _, r := range rows {
		args = append(args, r.ID)
	}
	_, err = b.forgectl(ctx, b.home, b.fc, args...)
	return err
}

// line prints one measurement; atLeast says the ratio's target is a floor.
func (b *bench) line(name string, s, base benchkit.Sample, ratio, target float64, atLeast bool) {
	verdict := ""
	switch {
	case target == 0:
		verdict = "(reported)"
	case atLeast && ratio >= target, !atLeast && ratio <= target:
		verdict = "ok"
	default:
		verdict = "MISSED"
	}
	cmp := "≤"
	if atLeast {
		cmp = "≥"
	}
	goal := fmt.Sprintf("%s %.1fx", cmp, target)
	if target == 0 {
		goal = ""
	}
	fmt.Fprintf(b.out, "%-36s %10s %10s %7.2fx %s %s\n", name, benchkit.MS(s.Wall), benchkit.MS(base.Wall), ratio, goal, verdict)
}

// measureIn is benchkit.Measure for a command that must run in dir.
func measureIn(ctx context.Context, dir string, n int, prep func() error, argv ...string) (benchkit.Sample, error) {
	var walls []time.Duration
	for range n {
		if err := prep(); err != nil {
			return benchkit.Sample{}, err
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil {
			return benchkit.Sample{}, fmt.Errorf("%s: %v: %s", argv[0], err, out)
		}
		walls = append(walls, wall)
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	return benchkit.Sample{Wall: walls[len(walls)/2]}, nil
}
