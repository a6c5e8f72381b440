package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"forgectl.dev/tools/benchkit"
)

// mixed measures the listing on the Claude Code home plus a Codex home of
// b.codexThreads threads (CODEX_HOME), against baselines over both trees:
// the same targets as the Claude-only figures, whose runs point CODEX_HOME
// at nothing so that they stay Claude-only.
func (b *bench) mixed(ctx context.Context) error {
	codexHome := filepath.Join(b.Work, fmt.Sprintf("codex-%d", b.codexThreads))
	if err := benchkit.GenerateCodex(ctx, b.Bin, codexHome, b.codexThreads, b.log); err != nil {
		return err
	}
	codex := filepath.Join(codexHome, ".codex")
	projects := filepath.Join(b.home, ".claude", "projects")
	fc := filepath.Join(b.Work, fmt.Sprintf("forgectl-config-mixed-%d-%d", b.Sessions, b.codexThreads))
	noIndex := func() error { return removeGlob(filepath.Join(fc, "cache", "*.idx")) }
	env := []string{"HOME=" + b.home, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=" + codex, "FORGECTL_CONFIG_DIR=" + fc}
	forgectl := filepath.Join(b.Bin, "forgectl")
	lsJSON := []string{forgectl, "resume", "ls", "--json"}

	fmt.Fprintf(b.out, "\n== mixed home: %d Claude Code sessions + %d Codex threads (%s)\n", b.Sessions, b.codexThreads, codex)
	probe := exec.CommandContext(ctx, forgectl, "resume", "ls", "--json", "--harness", "codex")
	probe.Env = append(os.Environ(), env...)
	if out, err := probe.Output(); err != nil {
		fmt.Fprintln(b.out, "forgectl does NOT list Codex threads (ls --harness codex fails): the figures below time the Claude listing against the stat walk of both trees")
	} else {
		fmt.Fprintf(b.out, "forgectl lists Codex threads: %d bytes of codex rows\n", len(out))
	}

	both := []string{"find", projects, filepath.Join(codex, "sessions"), filepath.Join(codex, "archived_sessions"),
		"(", "-name", "*.jsonl", "-o", "-name", "*.jsonl.zst", ")", "-printf", `%s %T@\n`}
	scan := []string{"grep", "-c", "-F", "custom-title", "-r", projects, codex}
	if _, err := b.measure(ctx, 1, nil, nil, scan...); err != nil { // warm the page cache
		return err
	}
	statWalk, err := b.measure(ctx, b.Runs, nil, []string{"LC_ALL=C"}, both...)
	if err != nil {
		return err
	}
	byteScan, err := b.measure(ctx, b.Runs, nil, []string{"LC_ALL=C"}, scan...)
	if err != nil {
		return err
	}
	r := &report{out: b.out}
	r.baseline("stat walk of both trees, warm", statWalk)
	r.baseline("byte scan of both (grep -F -r)", byteScan)
	cold, err := b.measure(ctx, b.Runs, noIndex, env, lsJSON...)
	if err != nil {
		return err
	}
	warm, err := b.measure(ctx, b.Runs, nil, env, lsJSON...)
	if err != nil {
		return err
	}
	table, err := b.measure(ctx, b.Runs, nil, env, forgectl, "resume", "ls")
	if err != nil {
		return err
	}
	seed := 200
	appended, err := b.measure(ctx, b.Runs, func() error {
		seed++
		if err := exec.CommandContext(ctx, filepath.Join(b.Bin, "gencc"), "-home", b.home, "-append-percent", "1", "-seed", strconv.Itoa(seed)).Run(); err != nil {
			return err
		}
		return exec.CommandContext(ctx, filepath.Join(b.Bin, "gencodex"), "-home", codexHome, "-append-percent", "1", "-seed", strconv.Itoa(seed)).Run()
	}, env, lsJSON...)
	if err != nil {
		return err
	}
	r.ratio("mixed: ls --json warm", warm, statWalk, 2)
	r.ratio("mixed: ls (table) warm", table, statWalk, 2)
	r.ratio("mixed: ls --json cold (no index)", cold, byteScan, 1)
	r.ratio("mixed: ls --json after 1% appended", appended, statWalk, 3)
	budget := int64(64 << 20)
	r.rss("mixed: peak RSS of ls --json, warm", warm.MaxRSS, budget)
	r.rss("mixed: peak RSS of ls --json, cold", cold.MaxRSS, budget)
	r.rss("mixed: peak RSS, 1% appended", appended.MaxRSS, budget)
	r.rss("mixed: peak RSS of ls (table)", table.MaxRSS, budget)
	if b.skipPicker {
		return nil
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Fprintf(b.out, "%-36s skipped: tmux is not installed\n", "mixed: picker first rows")
		return nil
	}
	if _, err := b.measure(ctx, 1, nil, env, lsJSON...); err != nil { // an index for the first figure
		return err
	}
	indexed, err := b.pickerFirstRows(ctx, env, forgectl, nil)
	if err != nil {
		return err
	}
	r.ratio("mixed: picker first rows, index", sample{Wall: indexed}, statWalk, 2)
	coldRan, err := b.pickerNoIndex(ctx, r, env, forgectl, noIndex, statWalk, both, pickerLabels{
		fresh:    "mixed: picker first rows, no index",
		coldSkip: "mixed: picker, cold cache",
		coldWalk: "stat walk of both, cold cache",
		coldPick: "mixed: picker first rows, cold",
	})
	if err != nil || !coldRan {
		return err
	}
	_, err = b.measure(ctx, 1, nil, nil, scan...)
	return err
}
