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
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"forgectl.dev/tools/benchkit"
)

type check struct {
	out, log       io.Writer
	oldBin, newBin string
	work           string
	scale          int
	keepHomes      bool
	ignore         []string
	ignoreLines    []*regexp.Regexp

	runs, mismatches int
}

// home is one generated home and the two builds' config directories.
type home struct {
	name string
	dir  string
	// cfg is the config directory both builds are run with, so that no
	// path in their output differs; each build's own copy is renamed to it
	// for the length of one command.
	cfg, cfgOld, cfgNew string
}

// result is what a command printed, with the ignored fields taken out.
type result struct {
	stdout, stderr []byte
	code           int
}

func (c *check) all(ctx context.Context) (bool, error) {
	for _, b := range []string{c.oldBin, c.newBin} {
		if _, err := os.Stat(filepath.Join(b, "forgectl")); err != nil {
			return false, fmt.Errorf("no forgectl in %s (make build BIN=%s)", b, b)
		}
	}
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return false, err
	}
	stand, err := c.standIn()
	if err != nil {
		return false, err
	}
	homes := []struct {
		name string
		make func(dir string) error
		kept bool
	}{
		{"demo", func(dir string) error { return c.gencc(ctx, "-home", dir, "-demo") }, c.keepHomes},
		{"lineage", func(dir string) error { return c.gencc(ctx, "-home", dir, "-sessions", "40", "-repos", "5") }, c.keepHomes},
	}
	if c.scale > 0 {
		n := c.scale
		homes = append(homes, struct {
			name string
			make func(dir string) error
			kept bool
		}{"home-" + strconv.Itoa(n), func(dir string) error { return benchkit.Generate(ctx, c.newBin, dir, n, c.log) }, true})
	}
	for _, hs := range homes {
		h := &home{name: hs.name, dir: filepath.Join(c.work, hs.name)}
		if !hs.kept {
			os.RemoveAll(h.dir)
		}
		if err := hs.make(h.dir); err != nil {
			return false, fmt.Errorf("%s home: %w", hs.name, err)
		}
		h.cfg = filepath.Join(c.work, "config-"+hs.name)
		h.cfgOld, h.cfgNew = h.cfg+".old", h.cfg+".new"
		for _, d := range []string{h.cfg, h.cfgOld, h.cfgNew} {
			os.RemoveAll(d)
		}
		for _, d := range []string{h.cfgOld, h.cfgNew} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return false, err
			}
		}
		fmt.Fprintf(c.log, "== %s\n", h.name)
		err := c.home(ctx, h, stand)
		for _, d := range []string{h.cfg, h.cfgOld, h.cfgNew} {
			os.RemoveAll(d)
		}
		if !hs.kept {
			os.RemoveAll(h.dir)
		}
		if err != nil {
			return false, fmt.Errorf("%s home: %w", h.name, err)
		}
	}
	fmt.Fprintf(c.out, "samecheck: %d commands on both builds, %d differed\n", c.runs, c.mismatches)
	return c.mismatches == 0, nil
}

func (c *check) gencc(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.newBin, "gencc"), args...)
	cmd.Stdout, cmd.Stderr = io.Discard, c.log
	return cmd.Run()
}

// standIn writes the claude both builds resolve to: the dry runs print its
// path, so it must be one file for both.
func (c *check) standIn() (string, error) {
	dir := filepath.Join(c.work, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "claude")
	return p, os.WriteFile(p, []byte("#!/bin/sh\necho \"claude (a stand-in) $*\"\n"), 0o755)
}

// home runs every command on one home, cold and then warm.
func (c *check) home(ctx context.Context, h *home, stand string) error {
	cmds, err := c.commands(ctx, h, stand)
	if err != nil {
		return err
	}
	for pass, label := range []string{"cold", "warm"} {
		for _, args := range cmds {
			if pass == 0 && !strings.HasPrefix(strings.Join(args, " "), "resume") {
				continue // help and completion scripts read no home
			}
			if err := c.compare(ctx, h, stand, label, args); err != nil {
				return err
			}
		}
	}
	return nil
}

// compare runs args on both builds and reports a difference, after one
// more try of both. The old build runs on both sides of the new one, so
// that an age that ticks over a minute between two runs ("13m", "14m")
// matches the old run on its side of the tick.
func (c *check) compare(ctx context.Context, h *home, stand, label string, args []string) error {
	var a, b result
	for try := range 2 {
		var err error
		if a, err = c.exec(ctx, h, stand, c.oldBin, h.cfgOld, args); err != nil {
			return err
		}
		if b, err = c.exec(ctx, h, stand, c.newBin, h.cfgNew, args); err != nil {
			return err
		}
		if a.equal(b) {
			break
		}
		after, err := c.exec(ctx, h, stand, c.oldBin, h.cfgOld, args)
		if err != nil {
			return err
		}
		if after.equal(b) {
			a = after
			break
		}
		if try == 1 {
			break
		}
	}
	c.runs++
	if a.equal(b) {
		return nil
	}
	c.mismatches++
	fmt.Fprintf(c.out, "DIFFERS %s %s: forgectl %s\n", h.name, label, quoteArgs(args))
	if a.code != b.code {
		fmt.Fprintf(c.out, "  exit %d before, %d after\n", a.code, b.code)
	}
	for _, s := range []struct {
		name   string
		before []byte
		after  []byte
	}{{"stdout", a.stdout, b.stdout}, {"stderr", a.stderr, b.stderr}} {
		if !bytes.Equal(s.before, s.after) {
			fmt.Fprintf(c.out, "  %s first differs at line %s\n", s.name, firstDiff(s.before, s.after))
		}
	}
	return nil
}

func (r result) equal(o result) bool {
	return r.code == o.code && bytes.Equal(r.stdout, o.stdout) && bytes.Equal(r.stderr, o.stderr)
}

// exec runs one build with the home's environment and its own config
// directory renamed into the shared place.
func (c *check) exec(ctx context.Context, h *home, stand, bin, cfg string, args []string) (result, error) {
	if err := os.Rename(cfg, h.cfg); err != nil {
		return result{}, err
	}
	defer os.Rename(h.cfg, cfg)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "forgectl"), args...)
	cmd.Env = append(os.Environ(), "HOME="+h.dir, "CLAUDE_CONFIG_DIR=", "FORGECTL_CONFIG_DIR="+h.cfg,
		"FORGECTL_CLAUDE_BIN="+stand, "NO_COLOR=", "COLUMNS=", "LC_ALL=C.UTF-8", "TZ=UTC")
	cmd.Dir = h.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		return result{}, err
	}
	return result{stdout: c.dropLines(c.strip(out.Bytes())), stderr: c.dropLines(errb.Bytes()), code: code}, nil
}

// strip takes the ignored keys out of JSON text, with the comma that
// joined them to the next key or the one before.
func (c *check) strip(b []byte) []byte {
	for _, f := range c.ignore {
		v := `"` + regexp.QuoteMeta(f) + `":("(?:[^"\\]|\\.)*"|-?[0-9.eE+]+|true|false|null)`
		b = regexp.MustCompile(v+`,`).ReplaceAll(b, nil)
		b = regexp.MustCompile(`,?`+v).ReplaceAll(b, nil)
	}
	return b
}

// dropLines takes out the lines an -ignore-line expression matches.
func (c *check) dropLines(b []byte) []byte {
	if len(c.ignoreLines) == 0 {
		return b
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := lines[:0]
	for _, l := range lines {
		drop := false
		for _, re := range c.ignoreLines {
			drop = drop || re.Match(bytes.TrimSuffix(l, []byte("\n")))
		}
		if !drop {
			out = append(out, l)
		}
	}
	return bytes.Join(out, nil)
}

// lsRow is what commands are made of: the listing's own answers.
type lsRow struct {
	ID        string `json:"session_id"`
	Name      string `json:"name"`
	Repo      string `json:"repo"`
	First     string `json:"first_prompt"`
	Last      string `json:"last_prompt"`
	Hidden    bool   `json:"hidden"`
	ParentID  string `json:"parent_session_id"`
	LastAfter string `json:"last_activity"`
}

// commands is the fixed set of invocations for a home, derived from what
// the old build lists there, so that both builds get the same ones.
func (c *check) commands(ctx context.Context, h *home, stand string) ([][]string, error) {
	r, err := c.exec(ctx, h, stand, c.oldBin, h.cfgOld, []string{"resume", "ls", "--json", "--all"})
	if err != nil {
		return nil, err
	}
	if r.code != 0 {
		return nil, fmt.Errorf("resume ls --json --all exited %d: %s", r.code, r.stderr)
	}
	var rows []lsRow
	if err := json.Unmarshal(r.stdout, &rows); err != nil {
		return nil, fmt.Errorf("resume ls --json --all: %w", err)
	}
	if len(rows) == 0 {
		return nil, errors.New("the home lists no session")
	}
	cmds := [][]string{
		{"resume", "ls"}, {"resume", "ls", "--all"}, {"resume", "ls", "--json"}, {"resume", "ls", "--json", "--all"},
		{"resume", "ls", "--tree"}, {"resume", "ls", "--tree", "--json"}, {"resume", "ls", "--tree", "--all"},
		{"resume", "ls", "--roots"}, {"resume", "ls", "--roots", "--json"},
		{"resume", "--dry-run", "--json"}, {"resume", "--dry-run"},
	}
	for _, q := range queries(rows) {
		cmds = append(cmds, []string{"resume", "search", "--json", q}, []string{"resume", "search", q})
	}
	cmds = append(cmds, []string{"resume", "search", "--json", "--all", queries(rows)[0]})
	for _, f := range filters(rows) {
		cmds = append(cmds, []string{"resume", "--dry-run", "--json", f}, []string{"resume", "--dry-run", f},
			[]string{"resume", "ls", "--json", f})
	}
	cmds = append(cmds, completions(rows)...)
	for _, p := range [][]string{{}, {"resume"}, {"resume", "ls"}, {"resume", "search"}, {"launch"}, {"doctor"}, {"init"}, {"completion"}} {
		cmds = append(cmds, append(append([]string{}, p...), "--help"))
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		cmds = append(cmds, []string{"completion", sh})
	}
	return cmds, nil
}

// queries are at least 20 searches: single words from prompts spread over
// the listing, pairs of them, a quoted phrase, a word in capitals, one
// that cannot be there, and one a hidden session holds.
func queries(rows []lsRow) []string {
	var words []string
	seen := map[string]bool{}
	for k := 0; k < len(rows) && len(words) < 16; k += max(1, len(rows)/16) {
		for _, text := range []string{rows[k].First, rows[k].Last} {
			if w := longestWord(text); w != "" && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	qs := append([]string{}, words...)
	for k := 0; k+1 < len(words) && k < 6; k += 2 {
		qs = append(qs, words[k]+" "+words[k+1])
	}
	for _, r := range rows {
		if f := strings.Fields(r.First); len(f) >= 3 {
			qs = append(qs, `"`+f[0]+" "+f[1]+`"`)
			break
		}
	}
	if len(words) > 0 {
		qs = append(qs, strings.ToUpper(words[0]))
	}
	qs = append(qs, "zzqxnotinanytranscript", "the", "go test")
	for _, r := range rows {
		if r.Hidden {
			if w := longestWord(r.First); w != "" {
				qs = append(qs, w)
				break
			}
		}
	}
	return qs
}

func longestWord(s string) string {
	best := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > len(best) {
			best = w
		}
	}
	if len(best) < 4 {
		return ""
	}
	return strings.ToLower(best)
}

// filters are ids, id prefixes, names, repos, a child of a lineage and a
// filter that matches nothing.
func filters(rows []lsRow) []string {
	var fs []string
	add := func(s string) {
		for _, f := range fs {
			if f == s {
				return
			}
		}
		if s != "" {
			fs = append(fs, s)
		}
	}
	step := max(1, len(rows)/5)
	for k := 0; k < len(rows); k += step {
		add(rows[k].ID)
		add(rows[k].ID[:8])
		add(rows[k].Name)
	}
	repos := map[string]bool{}
	for _, r := range rows {
		repos[r.Repo] = true
		if r.ParentID != "" {
			add(r.ID)
		}
	}
	names := make([]string, 0, len(repos))
	for n := range repos {
		names = append(names, n)
	}
	sort.Strings(names)
	for k := 0; k < len(names) && k < 3; k++ {
		add(names[k])
	}
	add("no-such-session-xyz")
	return fs
}

// completions are what the shells ask __complete for as a word is typed.
func completions(rows []lsRow) [][]string {
	cs := [][]string{
		{"__complete", ""}, {"__complete", "re"}, {"__complete", "resume", ""}, {"__complete", "resume", "-"},
		{"__complete", "resume", "ls", "--"}, {"__complete", "resume", "search", "--"}, {"__complete", "completion", ""},
		{"__complete", "resume", "restart", "--session", ""},
	}
	r := rows[0]
	cs = append(cs, []string{"__complete", "resume", r.ID[:4]}, []string{"__complete", "resume", "ls", r.ID[:6]})
	for _, s := range []string{r.Name, r.Repo} {
		if len(s) >= 2 {
			cs = append(cs, []string{"__complete", "resume", s[:2]})
		}
	}
	return cs
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for k, a := range args {
		if a == "" || strings.ContainsAny(a, " \"'") {
			a = strconv.Quote(a)
		}
		q[k] = a
	}
	return strings.Join(q, " ")
}

// firstDiff names the first line where two outputs differ and shows both.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for k := 0; k < len(la) || k < len(lb); k++ {
		var x, y string
		if k < len(la) {
			x = la[k]
		}
		if k < len(lb) {
			y = lb[k]
		}
		if x != y || k >= len(la) || k >= len(lb) {
			return fmt.Sprintf("%d\n    before: %.300s\n    after:  %.300s", k+1, x, y)
		}
	}
	return "?"
}
