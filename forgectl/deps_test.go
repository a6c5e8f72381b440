package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forgectl is the Stop hook too: `forgectl init --stop-hook` wires
// `forgectl resume snapshot --quiet`, which runs on every Claude Code turn.
// The front binary links the picker, so its guard differs from
// resume-snapshot's (TestDependencies there): what it links must not
// include a network stack, an SQL engine or templates, tcell must be a
// release whose init is cheap, and nothing that the snapshot does not use
// (the search index above all) may do work at start-up.
func TestHookPathDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["forgectl.dev/shared/snaprun"] || !deps["github.com/gdamore/tcell/v2"] {
		t.Fatalf("the dependency list looks wrong:\n%s", out)
	}
	// database/sql/driver is only interfaces (tcell's colour package
	// names it); database/sql itself is the engine's front.
	// testing: the suite's test helpers (shared/poll, shared/manual/manualtest)
	// are for tests only.
	for _, f := range []string{"net/http", "database/sql", "text/template", "html/template", "testing"} {
		if deps[f] {
			t.Errorf("forgectl links %s (forbidden on the hook's path)", f)
		}
	}
	for p := range deps {
		for _, f := range []string{"modernc.org/sqlite", "modernc.org/libc", "github.com/mattn/go-sqlite3", "net/http/"} {
			if p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("forgectl links %s (forbidden on the hook's path: %s)", p, f)
			}
		}
	}

	// go-fuzzyfinder v0.9.0 asks for tcell v2.6.0, whose init builds a
	// rune-width table on every start (about 20 ms); v2.8.0 dropped it.
	v, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/gdamore/tcell/v2").Output()
	if err != nil {
		t.Fatalf("go list -m tcell: %v", err)
	}
	if tv := strings.TrimSpace(string(v)); !atLeastMinor(tv, 2, 8) {
		t.Errorf("tcell %s is selected; pin v2.8.0 or later in forgectl/go.mod", tv)
	}
}

// atLeastMinor reports whether a vMAJOR.MINOR.PATCH version is at least
// major.minor.
func atLeastMinor(v string, major, minor int) bool {
	f := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(f) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(f[0])
	mi, err2 := strconv.Atoi(f[1])
	return err1 == nil && err2 == nil && (ma > major || ma == major && mi >= minor)
}

// The snapshot's start-up, as the runtime reports it: the search index's
// packages hold nothing but a few sentinel values (no table is built, no
// index opened), no initialiser allocates more than a small table (tcell
// v2.6's rune-width table was megabytes), and the run leaves no search
// index behind. Bytes, not milliseconds: the count is the same on a busy
// machine.
func TestHookPathInit(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "forgectl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, "resume", "snapshot", "--quiet")
	cmd.Env = append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR=", "FORGECTL_CONFIG_DIR="+filepath.Join(home, "cfg"), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("resume snapshot --quiet: %v\n%s", err, out)
	}
	const maxInitBytes = 128 << 10
	inits := 0
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		inits++
		pkg := f[1]
		if n, err := strconv.Atoi(f[7]); err == nil && n > 1024 && strings.HasPrefix(pkg, "forgectl.dev/forgectl/internal/search") {
			t.Errorf("the search index does work at start: %s", sc.Text())
		}
		if n, err := strconv.Atoi(f[7]); err == nil && n > maxInitBytes {
			t.Errorf("%s allocates %d bytes at start (at most %d on the hook's path)", pkg, n, maxInitBytes)
		}
	}
	if inits == 0 {
		t.Fatalf("no init trace was printed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, "cfg", "cache", "search")); !os.IsNotExist(err) {
		t.Errorf("resume snapshot touched the search index (cache/search): %v", err)
	}
}
