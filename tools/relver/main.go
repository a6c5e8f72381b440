// Command relver prints the version make stamps into a module's binary:
// the module's own tag on HEAD (forgectl/v0.2.0 gives v0.2.0), or else a Go
// pseudo-version built from the newest earlier tag of that module, as the
// go command would give it:
//
//	v0.0.0-20261201123456-abcdef123456       no tag of the module yet
//	v0.2.1-0.20261201123456-abcdef123456     after forgectl/v0.2.0
//	v0.3.0-rc.1.0.20261201123456-abcdef123456 after forgectl/v0.3.0-rc.1
//
// with -dirty appended when the work tree has changes (untracked files
// included, as for the go command's vcs.modified). Tags of other modules
// never count: each binary has its own release cadence.
//
// Usage: relver [-C repo] MODULE
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("relver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("C", ".", "the repository")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "relver: error: name one module (forgectl, resume-snapshot, ...)")
		return 2
	}
	v, err := Version(ctx, *dir, fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "relver: error: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, v)
	return 0
}

// Version computes the version of module in the repository at dir.
func Version(ctx context.Context, dir, module string) (string, error) {
	git := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
		return strings.TrimSpace(string(out)), err
	}
	status, err := git("status", "--porcelain")
	if err != nil {
		return "", err
	}
	dirty := ""
	if status != "" {
		dirty = "-dirty"
	}
	prefix := module + "/"
	exact, _ := git("tag", "--points-at", "HEAD", "--list", prefix+"v*")
	if best := newest(strings.Fields(exact), prefix); best != "" {
		return best + dirty, nil
	}
	rev, err := git("rev-parse", "--short=12", "HEAD")
	if err != nil {
		return "", err
	}
	when, err := git("log", "-1", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S", "HEAD")
	if err != nil {
		return "", err
	}
	merged, _ := git("tag", "--merged", "HEAD", "--list", prefix+"v*")
	base := newest(strings.Fields(merged), prefix)
	return pseudo(base, when, rev) + dirty, nil
}

// pseudo is the Go pseudo-version of a commit after base ("" for none).
func pseudo(base, when, rev string) string {
	suffix := when + "-" + rev
	if base == "" {
		return "v0.0.0-" + suffix
	}
	if i := strings.IndexByte(base, '-'); i >= 0 {
		return base + ".0." + suffix
	}
	major, minor, patch, _ := parse(base)
	return fmt.Sprintf("v%d.%d.%d-0.%s", major, minor, patch+1, suffix)
}

// newest is the highest semantic version among the tags, without prefix.
func newest(tags []string, prefix string) string {
	best := ""
	for _, t := range tags {
		v := strings.TrimPrefix(t, prefix)
		if _, _, _, ok := parse(v); !ok {
			continue
		}
		if best == "" || less(best, v) {
			best = v
		}
	}
	return best
}

func parse(v string) (major, minor, patch int, ok bool) {
	core, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), "-")
	if !strings.HasPrefix(v, "v") {
		return 0, 0, 0, false
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return 0, 0, 0, false
		}
		n[i] = x
	}
	return n[0], n[1], n[2], true
}

// less orders versions by their numbers; a prerelease sorts before its
// release, and prereleases compare as text (enough for rc.1 < rc.2).
func less(a, b string) bool {
	a1, a2, a3, _ := parse(a)
	b1, b2, b3, _ := parse(b)
	if a1 != b1 {
		return a1 < b1
	}
	if a2 != b2 {
		return a2 < b2
	}
	if a3 != b3 {
		return a3 < b3
	}
	_, ap, aPre := strings.Cut(a, "-")
	_, bp, bPre := strings.Cut(b, "-")
	switch {
	case aPre && !bPre:
		return true
	case !aPre:
		return false
	}
	return ap < bp
}
