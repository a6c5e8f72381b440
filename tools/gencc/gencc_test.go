package gencc_test

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/tools/gencc"
)

var testNow = time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC)

func TestEncodeProjectDir(t *testing.T) {
	t.Parallel()
	// Expected values computed with Claude Code's own JavaScript expression
	// (replace(/[^a-zA-Z0-9]/g,"-"), then the 200-char rule with the
	// (h<<5)-h+charCode|0 hash in base 36) under node.
	long := "/home/alice/src/api-server/internal/services/authentication/providers/oauth2/openid-connect/discovery/metadata/cache/invalidation/strategies/time-based/sliding-window/v2/handlers/refresh/background/workers/pool"
	tests := []struct{ cwd, want string }{
		{"/home/alice/src/demo-repo", "-home-alice-src-demo-repo"},
		{"/home/alice/src/café/naïve", "-home-alice-src-caf--na-ve"},
		{"/home/alice/🚀/x", "-home-alice----x"},
		{"/home/alice/src/api-server/.claude/worktrees/fix-auth", "-home-alice-src-api-server--claude-worktrees-fix-auth"},
		{long, "-home-alice-src-api-server-internal-services-authentication-providers-oauth2-openid-connect-discovery-metadata-cache-invalidation-strategies-time-based-sliding-window-v2-handlers-refresh-background-wo-rfwl67"},
		{"/home/alice/" + strings.Repeat("x", 300), "-home-alice-" + strings.Repeat("x", 188) + "-bo2q40"},
		{"/home/alice/" + strings.Repeat("日本語", 80) + "/🚀", strings.Repeat("-", 1) + "home-alice" + strings.Repeat("-", 189) + "-rzhvr6"},
		{"/a/b-c", "-a-b-c"},
		{"/a/b.c", "-a-b-c"},
	}
	for _, tt := range tests {
		if got := gencc.EncodeProjectDir(tt.cwd); got != tt.want {
			t.Errorf("EncodeProjectDir(%q)\n got %q\nwant %q", tt.cwd, got, tt.want)
		}
	}
}

func generate(t *testing.T, o gencc.Options) *gencc.Manifest {
	t.Helper()
	if o.Home == "" {
		o.Home = t.TempDir()
	}
	if o.Now.IsZero() {
		o.Now = testNow
	}
	m, err := gencc.Generate(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDemoHome(t *testing.T) {
	t.Parallel()
	m := generate(t, gencc.Options{Mode: gencc.ModeDemo, Seed: 7})
	verifyHome(t, m.Home)

	// The demo's cast, keyed by first prompt.
	type row struct {
		repo, branch, name, source, hidden, broken string
		worktree, cwdExists                        bool
	}
	want := map[string]row{
		"the login page redirects forever after the OAuth callback — can you find out why?": {"api-server", "feature/login", "Login bugfix work", "custom_title", "", "", false, true},
		"add a token-bucket rate limiter to /v1/search, 20 req/s per API key":               {"api-server", "fix/rate-limit", "Token-bucket rate limiter for /v1/search", "ai_title", "", "", false, true},
		"switch /v1/orders to cursor-based pagination":                                      {"api-server", "feat/pagination-cursor", "Cursor pagination", "custom_title", "", "", true, true},
		"try putting grpc-gateway in front of the REST handlers":                            {"api-server", "spike/grpc-gateway", "Spike: gRPC gateway in front of the REST API", "ai_title", "", "", true, false},
		"add a dark mode toggle to the header — respect `prefers-color-scheme` by default":  {"web-app", "feat/dark-mode", "Dark mode + contrast fixes", "custom_title", "", "", false, true},
		"summarize the changes in CHANGELOG.md since v2.3.0":                                {"web-app", "main", "", "", "print", "", false, true},
		"upgrade storybook to v8 in packages/ui":                                            {"web-app", "main", "Storybook upgrade to v8", "summary", "", "", false, true},
		"bump the aws provider to v6 and fix the deprecations":                              {"infra", "chore/bump-providers", "Bump AWS provider to v6", "ai_title", "", "truncated", false, true},
		"réécris le résumé de la réunion en anglais, s'il te plaît":                         {"notes", "main", "", "", "", "", false, true},
		`why does grep find "custom-title" in my notes folder?`:                             {"notes", "main", "Grep hits in the notes folder", "ai_title", "", "garbage", false, true},
		"Search the codebase for every caller of refreshToken and report file:line":         {"api-server", "main", "", "", "sidechain", "", false, true},
		`write a bash one-liner that counts "TODO" lines per file`:                          {"scratch", "HEAD", "", "", "", "", false, true},
		"document how the sliding-window refresh strategy picks its window size":            {"api-server", "main", "Sliding-window token refresh docs", "ai_title", "", "", false, true},
		"add an error-budget panel to the SLO dashboard":                                    {"api-server", "main", "Error budget dashboard", "custom_title", "", "", false, true},
	}
	got := map[string]row{}
	var terraform []gencc.SessionInfo
	// The lineage cast comes last and copies its parents' first prompts: it
	// has a test of its own (TestLineageCast).
	for _, s := range m.Sessions[:len(m.Sessions)-gencc.LineageSessions] {
		if strings.HasPrefix(s.FirstPrompt, "move the terraform state") {
			terraform = append(terraform, s)
			continue
		}
		if strings.HasPrefix(s.FirstPrompt, "our bundle is 412 KB") {
			if s.Tag != "perf" || s.NameSource != "ai_title" || !strings.Contains(s.FirstPrompt, "\n") || len(s.FirstPrompt) <= 200 {
				t.Errorf("bundle-size session: %+v", s)
			}
			continue
		}
		got[s.FirstPrompt] = row{s.Repo, s.Branch, s.Name, s.NameSource, s.HiddenReason, s.Broken, s.Worktree, s.CwdExists}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{})); diff != "" {
		t.Errorf("demo cast (-want +got):\n%s", diff)
	}

	// The picker-renamed migration and its fork share a name; only the
	// original has a (reset) task list, and the fork's last-prompt row holds
	// the original's first prompt.
	if len(terraform) != 2 {
		t.Fatalf("want the migration and its fork, got %d sessions", len(terraform))
	}
	orig, fork := terraform[0], terraform[1]
	if orig.ForkedFrom != "" {
		orig, fork = fork, orig
	}
	if fork.ForkedFrom != orig.SessionID || fork.Name != "Terraform state migration" || orig.Name != fork.Name {
		t.Errorf("fork: %+v\noriginal: %+v", fork, orig)
	}
	if fork.LastPrompt != orig.FirstPrompt || fork.TaskDir != "" {
		t.Errorf("fork last prompt %q, task dir %q", fork.LastPrompt, fork.TaskDir)
	}
	if orig.AgentName != "" || orig.SidecarTitle || orig.HighWatermark != 3 || orig.Tasks.Total != 0 || orig.TaskDir == "" {
		t.Errorf("picker rename with a reset task list: %+v", orig)
	}

	byName := map[string]gencc.SessionInfo{}
	for _, s := range m.Sessions {
		byName[s.Name] = s
	}
	if s := byName["Login bugfix work"]; s.Tasks != (gencc.TaskCounts{Pending: 1, InProgress: 1, Completed: 1, Total: 3}) || !s.SidecarTitle || s.AgentName != s.Name || s.TitlePosition != "tail" {
		t.Errorf("login session: %+v", s)
	}
	if s := byName["Dark mode + contrast fixes"]; s.AITitle != "Implement theme toggle" || s.Subagents != 1 {
		t.Errorf("an ai-title written after the rename must not win: %+v", s)
	}
	if s := byName["Error budget dashboard"]; s.TitlePosition != "middle" || s.AITitle == "" {
		t.Errorf("a rename buried mid-file: %+v", s)
	}
	if s := byName["Sliding-window token refresh docs"]; len(s.ProjectDir) <= 200 || len(filepath.Base(s.ProjectDir)) > 210 {
		t.Errorf("long cwd project dir %q", s.ProjectDir)
	}

	// Times spread over the last ~60 days, nothing in the future.
	var oldest, newest time.Time
	for _, s := range m.Sessions {
		mt := parseTime(t, s.Mtime)
		if oldest.IsZero() || mt.Before(oldest) {
			oldest = mt
		}
		if mt.After(newest) {
			newest = mt
		}
	}
	if newest.After(testNow) || testNow.Sub(newest) > time.Hour || testNow.Sub(oldest) < 30*24*time.Hour || testNow.Sub(oldest) > 61*24*time.Hour {
		t.Errorf("mtimes span %s .. %s", oldest, newest)
	}

	if len(m.Registry) != 1 || !m.Registry[0].Stale {
		t.Fatalf("want one stale registry file, got %+v", m.Registry)
	}
	if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(m.Registry[0].PID))); err == nil {
		t.Errorf("stale registry pid %d is alive", m.Registry[0].PID)
	}
}

// snapshot reads every file under dir: path -> mode, mtime and content.
func snapshot(t *testing.T, dir string, now time.Time) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil // the home itself may predate the run
		}
		if d.IsDir() {
			out[rel] = info.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// Only mtimes the generator sets (never after now) are reproducible;
		// the rest are the wall-clock time of writing.
		mtime := ""
		if !info.ModTime().After(now) {
			mtime = info.ModTime().UTC().Format(time.RFC3339Nano)
		}
		out[rel] = info.Mode().String() + " " + mtime + "\n" + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	for _, mode := range []gencc.Mode{gencc.ModeDemo, gencc.ModeDefault} {
		t.Run(string(mode), func(t *testing.T) {
			home := t.TempDir()
			now := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
			o := gencc.Options{Home: home, Mode: mode, Seed: 42, Sessions: 20, Repos: 3, Workers: 2, Now: now}
			generate(t, o)
			first := snapshot(t, home, now)
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
			o.Workers = 1 // scheduling must not matter
			generate(t, o)
			second := snapshot(t, home, now)
			for _, k := range slices.Sorted(maps.Keys(first)) {
				if first[k] != second[k] {
					t.Errorf("%s differs between two runs with one seed: %.200q vs %.200q", k, first[k], second[k])
				}
			}
			if len(first) != len(second) {
				t.Errorf("first run wrote %d entries, second %d", len(first), len(second))
			}

			other := generate(t, gencc.Options{Mode: mode, Seed: 43, Sessions: 20, Repos: 3})
			m, err := gencc.ReadManifest(home)
			if err != nil {
				t.Fatal(err)
			}
			if other.Sessions[0].SessionID == m.Sessions[0].SessionID {
				t.Error("a different seed gave the same session id")
			}
		})
	}
}

func TestDefaultModeCoversEveryCase(t *testing.T) {
	t.Parallel()
	m := generate(t, gencc.Options{Sessions: 40, Repos: 5, Seed: 3})
	verifyHome(t, m.Home)
	if len(m.Sessions) != 40+gencc.LineageSessions || len(m.Repos) != 5 {
		t.Fatalf("got %d sessions over %d repos", len(m.Sessions), len(m.Repos))
	}
	seen := map[string]bool{}
	for _, s := range m.Sessions {
		seen["hidden:"+s.HiddenReason] = true
		seen["broken:"+s.Broken] = true
		seen["source:"+s.NameSource] = true
		seen["worktree:"+strconv.FormatBool(s.Worktree)] = true
		seen["cwd_exists:"+strconv.FormatBool(s.CwdExists)] = true
		seen["in_git:"+strconv.FormatBool(s.GitToplevel != "")] = true
		seen["tasks:"+strconv.FormatBool(s.Tasks.Total > 0)] = true
		seen["reset_tasks:"+strconv.FormatBool(s.TaskDir != "" && s.Tasks.Total == 0)] = true
		seen["fork:"+strconv.FormatBool(s.ForkedFrom != "")] = true
		seen["long_cwd:"+strconv.FormatBool(len(s.ProjectDir) > 200)] = true
		seen["subdir:"+strconv.FormatBool(s.GitToplevel != "" && s.Cwd != s.GitToplevel)] = true
	}
	for _, k := range []string{
		"hidden:", "hidden:print", "hidden:sidechain", "broken:", "broken:truncated", "broken:garbage",
		"source:custom_title", "source:ai_title", "source:summary", "source:", "worktree:true", "cwd_exists:false",
		"in_git:false", "tasks:true", "reset_tasks:true", "fork:true", "long_cwd:true", "subdir:true",
	} {
		if !seen[k] {
			t.Errorf("no session with %s", k)
		}
	}
}

func TestScaleMode(t *testing.T) {
	t.Parallel()
	const maxBytes = 20 << 20
	m := generate(t, gencc.Options{Mode: gencc.ModeScale, Sessions: 30, Repos: 6, Seed: 5, MaxBytes: maxBytes, HugeFiles: 1, HugeBytes: 8 << 20})
	verifyHome(t, m.Home)
	if m.TotalBytes > maxBytes {
		t.Errorf("total %d exceeds the cap %d", m.TotalBytes, maxBytes)
	}
	var huge, sizable int
	for _, s := range m.Sessions {
		if s.SizeBytes >= 8<<20 {
			huge++
			if s.MaxLineBytes < 1<<20 {
				t.Errorf("huge transcript's longest line is only %d bytes", s.MaxLineBytes)
			}
		}
		if s.SizeBytes >= 40<<10 {
			sizable++
		}
	}
	if huge != 1 {
		t.Errorf("%d huge transcripts, want 1", huge)
	}
	if sizable < len(m.Sessions)*9/10 {
		t.Errorf("only %d of %d transcripts are 40 KB or more", sizable, len(m.Sessions))
	}

	// A cap too small for the session count is refused.
	if _, err := gencc.Generate(t.Context(), gencc.Options{Home: t.TempDir(), Mode: gencc.ModeScale, Sessions: 100, MaxBytes: 1 << 20, Now: testNow}); err == nil {
		t.Error("a 1 MB cap for 100 sessions was accepted")
	}
}

func TestConfigDir(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cfg := filepath.Join(home, "elsewhere")
	m := generate(t, gencc.Options{Home: home, ConfigDir: cfg, Sessions: 5, Repos: 2})
	verifyHome(t, home)
	if m.ConfigDir != cfg || m.ClaudeJSON != filepath.Join(cfg, ".claude.json") {
		t.Errorf("config dir %s, .claude.json %s", m.ConfigDir, m.ClaudeJSON)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); err == nil {
		t.Error("wrote ~/.claude although a config dir was given")
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	before := generate(t, gencc.Options{Home: home, Sessions: 30, Repos: 3, Seed: 9})
	at := testNow.Add(time.Hour)
	after, err := gencc.Append(t.Context(), gencc.AppendOptions{Home: home, Percent: 10, Seed: 1, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	verifyHome(t, home)

	if len(after.Appends) != 1 {
		t.Fatalf("appends = %+v", after.Appends)
	}
	rec := after.Appends[0]
	if want := (len(before.Sessions)*10 + 99) / 100; len(rec.Sessions) != want {
		t.Errorf("appended to %d transcripts, want %d of %d", len(rec.Sessions), want, len(before.Sessions))
	}
	for _, id := range rec.Sessions {
		if s := before.Session(id); s.Broken != "" || s.Hidden {
			t.Errorf("appended to a broken or hidden transcript: %+v", s)
		}
	}
	var grown int64
	for i, s := range after.Sessions {
		old := before.Sessions[i]
		if !slices.Contains(rec.Sessions, s.SessionID) {
			old.LastSessionForCwd = s.LastSessionForCwd // may move to an appended sibling
			if diff := cmp.Diff(old, s); diff != "" {
				t.Errorf("untouched session %s changed (-before +after):\n%s", s.SessionID, diff)
			}
			continue
		}
		grown += s.SizeBytes - old.SizeBytes
		if s.SizeBytes <= old.SizeBytes || s.PromptCount <= old.PromptCount || s.LastPrompt == old.LastPrompt && s.PromptCount == old.PromptCount {
			t.Errorf("session %s did not grow: %+v", s.SessionID, s)
		}
		if mt := parseTime(t, s.Mtime); mt.After(at) || at.Sub(mt) > time.Second {
			t.Errorf("session %s mtime %s, want about %s", s.SessionID, mt, at)
		}
		if s.Name != old.Name || s.FirstPrompt != old.FirstPrompt {
			t.Errorf("append changed name or first prompt of %s", s.SessionID)
		}
	}
	if grown != rec.Bytes || after.TotalBytes != before.TotalBytes+grown {
		t.Errorf("grown %d, record %d, totals %d -> %d", grown, rec.Bytes, before.TotalBytes, after.TotalBytes)
	}

	// Appending again picks with a fresh stream and records a second run.
	again, err := gencc.Append(t.Context(), gencc.AppendOptions{Home: home, Percent: 1, Seed: 1, Now: at.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Appends) != 2 || len(again.Appends[1].Sessions) != 1 {
		t.Errorf("second append: %+v", again.Appends)
	}
	verifyHome(t, home)

	if _, err := gencc.Append(t.Context(), gencc.AppendOptions{Home: t.TempDir(), Percent: 1}); err == nil {
		t.Error("append to a home without a manifest succeeded")
	}
	if _, err := gencc.Append(t.Context(), gencc.AppendOptions{Home: home, Percent: 0}); err == nil {
		t.Error("append of 0% succeeded")
	}
}

func startSleeper(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(path, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

func TestWriteRegistry(t *testing.T) {
	t.Parallel()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	// A command name with a space and a parenthesis shifts naive field
	// counting of /proc/<pid>/stat by one.
	odd := filepath.Join(t.TempDir(), "cl aude) x")
	if err := os.Symlink(sleep, odd); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, bin string
		awkField  int
		legacy    bool
	}{
		{"plain", sleep, 22, false},
		{"odd comm", odd, 24, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := startSleeper(t, tt.bin)
			pid := cmd.Process.Pid
			out, err := exec.Command("awk", "{print $"+strconv.Itoa(tt.awkField)+"}", "/proc/"+strconv.Itoa(pid)+"/stat").Output()
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(string(out))

			cfg := t.TempDir()
			path, err := gencc.WriteRegistry(cfg, gencc.Registry{PID: pid, SessionID: "1fc9d747-58cb-4e62-b7f1-a85d62252943", Cwd: "/home/alice/src/demo-repo", Name: "Login bugfix work", Tmux: "cc:@0.%0", Legacy: tt.legacy})
			if err != nil {
				t.Fatal(err)
			}
			if path != filepath.Join(cfg, "sessions", strconv.Itoa(pid)+".json") {
				t.Errorf("path %s", path)
			}
			st, err := os.Stat(path)
			if err != nil || st.Mode().Perm() != 0o644 {
				t.Errorf("registry file mode: %v %v", st, err)
			}
			rows := readJSONLines(t, path)
			if len(rows) != 1 {
				t.Fatalf("registry has %d objects", len(rows))
			}
			r := rows[0]
			if r["pid"] != float64(pid) || r["procStart"] != want || r["sessionId"] != "1fc9d747-58cb-4e62-b7f1-a85d62252943" ||
				r["name"] != "Login bugfix work" || r["nameSource"] != "user" || r["status"] != "idle" || r["kind"] != "interactive" || r["entrypoint"] != "cli" {
				t.Errorf("registry = %v, want procStart %s", r, want)
			}
			_, hasTmux := r["tmux"]
			_, hasDomain := r["pidDomain"]
			if hasTmux == tt.legacy || hasDomain == tt.legacy {
				t.Errorf("legacy=%v but tmux=%v pidDomain=%v", tt.legacy, hasTmux, hasDomain)
			}
			if ps, err := gencc.ProcStart(pid); err != nil || ps != want {
				t.Errorf("ProcStart = %q, %v; want %q", ps, err, want)
			}
		})
	}

	if _, err := gencc.WriteRegistry(t.TempDir(), gencc.Registry{PID: 0, SessionID: "x"}); err == nil {
		t.Error("pid 0 accepted")
	}
	cmd := startSleeper(t, sleep)
	path, err := gencc.WriteRegistry(t.TempDir(), gencc.Registry{PID: cmd.Process.Pid, SessionID: "s", Cwd: "/x/My Repo", ProcStart: "1"})
	if err != nil {
		t.Fatal(err)
	}
	r := readJSONLines(t, path)[0]
	if r["procStart"] != "1" || r["nameSource"] != "derived" || !strings.HasPrefix(r["name"].(string), "my-repo-") {
		t.Errorf("explicit procStart / derived name: %v", r)
	}
}

func TestRegenerateAndRefuse(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	first := generate(t, gencc.Options{Home: home, Sessions: 20, Repos: 3, Seed: 1})
	// A second run with another seed replaces the first one entirely.
	second := generate(t, gencc.Options{Home: home, Sessions: 5, Repos: 1, Seed: 2})
	verifyHome(t, home)
	if len(second.Sessions) != 5 || first.Sessions[0].SessionID == second.Sessions[0].SessionID {
		t.Errorf("regenerated home has %d sessions", len(second.Sessions))
	}
	if _, err := os.Stat(first.Sessions[0].TranscriptPath); err == nil {
		t.Error("a transcript of the first run survived")
	}

	// A Claude Code directory gencc did not write is never touched.
	real := t.TempDir()
	mine := filepath.Join(real, ".claude", "projects", "-home-alice-src-x", "keep.jsonl")
	if err := os.MkdirAll(filepath.Dir(mine), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := gencc.Generate(t.Context(), gencc.Options{Home: real, Now: testNow})
	if err == nil || !strings.Contains(err.Error(), "was not written by gencc") {
		t.Errorf("generating into a foreign home: %v", err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "{}\n" {
		t.Errorf("foreign transcript changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(real, gencc.ManifestName)); err == nil {
		t.Error("wrote a manifest into a foreign home")
	}
}
