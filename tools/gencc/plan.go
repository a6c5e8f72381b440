package gencc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const (
	versionNew = "2.1.332"
	versionOld = "2.1.197"
	// upgradeAge is when the simulated user moved from 2.1.197 to 2.1.332.
	upgradeAge = 25 * 24 * time.Hour
	spreadAge  = 60 * 24 * time.Hour

	minTarget int64 = 12 << 10
	maxNormal int64 = 2 << 20
)

// Session kinds; the empty kind is an interactive session.
const (
	kindPrint     = "print"
	kindSidechain = "sidechain"
)

// How a session got its custom title.
const (
	renameSlash  = "slash"  // /rename: custom-title + agent-name + sidecar
	renamePicker = "picker" // Ctrl+R in the picker: custom-title only
	renameFlag   = "flag"   // --name at launch: custom-title before the first prompt
)

type repoSpec struct {
	name          string
	path          string
	git           bool
	defaultBranch string
	branches      []string
	subdirs       []string
	worktrees     []*worktreeSpec
	head          string
	headAt        time.Time
	sessions      int
}

type worktreeSpec struct {
	name, path, branch string
	exists             bool
}

type renameEvent struct {
	after int // prompt index after which it happens; -1 is before the first
	name  string
	how   string
}

type taskSpec struct {
	subject, description, activeForm, status string
	blocks, blockedBy                        []string
}

type sessionSpec struct {
	idx       int
	id        string
	firstUUID string
	kind      string
	repo      *repoSpec
	wt        *worktreeSpec
	cwd       string
	cwdExists bool

	// segStarts[i] is the prompt index at which the i-th launch (the first
	// run, then each --resume) begins; branches and versions follow it.
	segStarts []int
	branches  []string
	versions  []string

	model, effort, permMode string
	start, end              time.Time
	target                  int64
	prompts                 []string
	nPrompts                int

	renames      []renameEvent
	aiTitle      string
	aiTitleAfter int
	summary      string
	tag          string
	prLink       int
	renameMiddle bool

	tasks      []taskSpec
	tasksReset bool // all completed: the files are gone, .highwatermark stays
	taskDelete bool // one task deleted: a gap and a .highwatermark

	broken    string
	forkOf    *sessionSpec
	compact   bool
	subagents int
	stopHook  bool
	hugeLines bool
}

func (s *sessionSpec) inHistory() bool { return s.kind == "" }

func (s *sessionSpec) entrypoint() string {
	if s.kind == kindPrint {
		return "sdk-cli"
	}
	return "cli"
}

func (s *sessionSpec) hasTaskDir() bool { return len(s.tasks) > 0 }

type plan struct {
	repos    []*repoSpec
	sessions []*sessionSpec
	scratch  []string // non-git directories to create
	stale    *sessionSpec
}

func newUUID(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	a = a&^0xF000 | 0x4000         // version 4
	b = b&^(0xC<<60) | (0x8 << 60) // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xFFFF, a&0xFFFF, b>>48, b&0xFFFFFFFFFFFF)
}

func ageToTime(now time.Time, age time.Duration) time.Time {
	return now.Add(-age).Truncate(time.Millisecond)
}

func versionAt(now, t time.Time) string {
	if now.Sub(t) > upgradeAge {
		return versionOld
	}
	return versionNew
}

// ---------------------------------------------------------------- demo

func demoPlan(o *Options, r *rand.Rand) *plan {
	src := filepath.Join(o.Home, "src")
	mk := func(name, def string, branches ...string) *repoSpec {
		return &repoSpec{name: name, path: filepath.Join(src, name), git: true, defaultBranch: def, branches: append([]string{def}, branches...)}
	}
	api := mk("api-server", "main", "feature/login", "fix/rate-limit")
	web := mk("web-app", "main", "feat/dark-mode", "perf/bundle-size")
	infra := mk("infra", "main", "chore/bump-providers")
	notes := mk("notes", "main")
	pag := &worktreeSpec{name: "pagination-cursor", path: filepath.Join(api.path, ".claude", "worktrees", "pagination-cursor"), branch: "feat/pagination-cursor", exists: true}
	spike := &worktreeSpec{name: "old-spike", path: filepath.Join(api.path, ".claude", "worktrees", "old-spike"), branch: "spike/grpc-gateway"}
	api.worktrees = []*worktreeSpec{pag, spike}
	scratch := filepath.Join(o.Home, "scratch")
	longSub := "internal/services/authentication/providers/oauth2/openid-connect/discovery/metadata/cache/invalidation/strategies/time-based/sliding-window/v2/handlers/refresh/background/workers/pool"
	p := &plan{repos: []*repoSpec{api, web, infra, notes}, scratch: []string{scratch}}

	h := time.Hour
	d := 24 * h
	add := func(s *sessionSpec, age time.Duration, span time.Duration) *sessionSpec {
		s.idx = len(p.sessions)
		s.id = newUUID(r)
		s.firstUUID = newUUID(r)
		if s.cwd == "" {
			s.cwd = s.repo.path
		}
		if s.wt != nil {
			s.cwd = s.wt.path
			s.cwdExists = s.wt.exists
		} else {
			s.cwdExists = true
		}
		// Round ages would put every mtime on the same minute.
		age += time.Duration(r.IntN(60_000)) * time.Millisecond
		if age >= 24*time.Hour {
			age += time.Duration(r.IntN(300)) * time.Minute
		}
		s.end = ageToTime(o.Now, age)
		s.start = s.end.Add(-span)
		if s.segStarts == nil {
			s.segStarts = []int{0}
		}
		if s.versions == nil {
			for range s.segStarts {
				s.versions = append(s.versions, versionAt(o.Now, s.start))
			}
		}
		if len(s.branches) == 0 {
			s.branches = []string{"HEAD"}
		}
		for len(s.branches) < len(s.segStarts) {
			s.branches = append(s.branches, s.branches[len(s.branches)-1])
		}
		s.nPrompts = len(s.prompts)
		if s.model == "" {
			s.model = "claude-sonnet-4-6"
		}
		if s.effort == "" {
			s.effort = "medium"
		}
		if s.permMode == "" {
			s.permMode = "auto"
		}
		s.aiTitleAfter = max(s.aiTitleAfter, 0)
		p.sessions = append(p.sessions, s)
		return s
	}

	add(&sessionSpec{
		repo: api, branches: []string{"feature/login"},
		prompts: []string{
			"the login page redirects forever after the OAuth callback — can you find out why?",
			`add a regression test for the "remember me" cookie`,
			"now run the whole auth suite and fix what breaks",
		},
		renames: []renameEvent{{after: 1, name: "Login bugfix work", how: renameSlash}},
		aiTitle: "Fix OAuth callback redirect loop", aiTitleAfter: 0,
		prLink: 142,
		tasks: []taskSpec{
			{subject: "Reproduce the redirect loop", description: "Log in with the staging IdP and capture the callback requests", activeForm: "Reproducing the redirect loop", status: "completed", blocks: []string{"2"}, blockedBy: []string{}},
			{subject: "Write unit tests", description: "Add tests for the login flow", activeForm: "Writing unit tests", status: "in_progress", blocks: []string{}, blockedBy: []string{"1"}},
			{subject: "Update the auth docs", description: "Describe the new cookie flags in docs/auth.md", activeForm: "Updating the auth docs", status: "pending", blocks: []string{}, blockedBy: []string{}},
		},
		stopHook: true, target: 260 << 10,
	}, 40*time.Minute, 50*time.Minute)

	rate := add(&sessionSpec{
		repo: api, branches: []string{"fix/rate-limit", "fix/rate-limit"}, segStarts: []int{0, 2},
		prompts: []string{
			"add a token-bucket rate limiter to /v1/search, 20 req/s per API key",
			"make the limits configurable per plan",
			"what happens when redis is down?",
		},
		aiTitle: "Token-bucket rate limiter for /v1/search", aiTitleAfter: 0,
		target: 420 << 10,
	}, 26*h, 20*h)
	p.stale = rate

	add(&sessionSpec{
		repo: api, wt: pag, branches: []string{pag.branch},
		prompts: []string{
			"switch /v1/orders to cursor-based pagination",
			"keep the old ?page= parameter working for one more release",
		},
		renames: []renameEvent{{after: 0, name: "Cursor pagination", how: renameSlash}},
		tasks: []taskSpec{
			{subject: "Encode cursors as opaque tokens", description: "base64 of (created_at, id)", status: "pending", blocks: []string{}, blockedBy: []string{}},
			{subject: "Deprecate ?page=", description: "Return a Deprecation header for one release", status: "pending", blocks: []string{}, blockedBy: []string{}},
		},
		target: 180 << 10,
	}, 5*h, 35*time.Minute)

	add(&sessionSpec{
		repo: api, wt: spike, branches: []string{spike.branch},
		prompts: []string{"try putting grpc-gateway in front of the REST handlers"},
		aiTitle: "Spike: gRPC gateway in front of the REST API",
		target:  150 << 10,
	}, 12*d, 40*time.Minute)

	add(&sessionSpec{
		repo: web, branches: []string{"feat/dark-mode"},
		prompts: []string{
			"add a dark mode toggle to the header — respect `prefers-color-scheme` by default",
			"the toggle flickers on first paint; fix the FOUC",
			"also check the ✨ sparkle icon's contrast in both themes",
		},
		renames: []renameEvent{
			{after: -1, name: "Dark mode", how: renameSlash},
			{after: 1, name: "Dark mode + contrast fixes", how: renameSlash},
		},
		// Written after the renames, as in issue #78264: the custom title must still win.
		aiTitle: "Implement theme toggle", aiTitleAfter: 2,
		tasks: []taskSpec{
			{subject: "Add the theme toggle", description: "Header button that flips data-theme", activeForm: "Adding the theme toggle", status: "completed", blocks: []string{}, blockedBy: []string{}},
			{subject: "Fix first-paint flicker", description: "Inline the theme script in <head>", activeForm: "Fixing first-paint flicker", status: "in_progress", blocks: []string{}, blockedBy: []string{}},
		},
		subagents: 1, stopHook: true, target: 300 << 10,
	}, 25*time.Minute, 70*time.Minute)

	add(&sessionSpec{
		kind: kindPrint, repo: web, branches: []string{"main"},
		prompts:  []string{"summarize the changes in CHANGELOG.md since v2.3.0"},
		permMode: "default", target: 40 << 10,
	}, 3*d, 2*time.Minute)

	add(&sessionSpec{
		repo: web, cwd: filepath.Join(web.path, "packages", "ui"), branches: []string{"main"},
		prompts: []string{"upgrade storybook to v8 in packages/ui", "fix the broken MDX stories"},
		summary: "Storybook upgrade to v8",
		target:  120 << 10,
	}, 20*d, 45*time.Minute)

	mig := add(&sessionSpec{
		repo: infra, branches: []string{"main"},
		prompts: []string{
			"move the terraform state from local files to the S3 backend with DynamoDB locking",
			"plan looks right — apply it to staging",
		},
		renames: []renameEvent{{after: 1, name: "Terraform state migration", how: renamePicker}},
		tasks: []taskSpec{
			{subject: "Create the state bucket", description: "Versioned, encrypted, private", status: "completed", blocks: []string{}, blockedBy: []string{}},
			{subject: "Create the lock table", description: "DynamoDB, PAY_PER_REQUEST", status: "completed", blocks: []string{}, blockedBy: []string{}},
			{subject: "Migrate staging", description: "terraform init -migrate-state", status: "completed", blocks: []string{}, blockedBy: []string{}},
		},
		tasksReset: true, target: 200 << 10,
	}, 4*d, 90*time.Minute)

	add(&sessionSpec{
		repo: infra, branches: []string{"main"}, forkOf: mig,
		prompts: []string{mig.prompts[0], "now do the same for prod, but don't apply yet"},
		target:  150 << 10,
	}, 3*d, 30*time.Minute)

	add(&sessionSpec{
		repo: infra, branches: []string{"chore/bump-providers"},
		prompts: []string{"bump the aws provider to v6 and fix the deprecations", "run terraform validate on every module"},
		aiTitle: "Bump AWS provider to v6",
		broken:  "truncated", target: 160 << 10,
	}, 6*d, 50*time.Minute)

	add(&sessionSpec{
		repo: notes, cwd: filepath.Join(notes.path, "réunions"), branches: []string{"main"},
		prompts: []string{
			"réécris le résumé de la réunion en anglais, s'il te plaît",
			"これを箇条書きにして",
			"add a “Decisions” section at the top 🙏",
		},
		target: 90 << 10,
	}, 9*d, 25*time.Minute)

	add(&sessionSpec{
		repo: notes, branches: []string{"main"},
		prompts: []string{`why does grep find "custom-title" in my notes folder?`},
		aiTitle: "Grep hits in the notes folder",
		broken:  "garbage", target: 110 << 10,
	}, 15*d, 15*time.Minute)

	add(&sessionSpec{
		kind: kindSidechain, repo: api, branches: []string{"main"},
		prompts: []string{"Search the codebase for every caller of refreshToken and report file:line"},
		target:  60 << 10,
	}, 2*d, 3*time.Minute)

	add(&sessionSpec{
		cwd: scratch, branches: []string{"HEAD"},
		prompts: []string{`write a bash one-liner that counts "TODO" lines per file`},
		target:  70 << 10,
	}, 40*d, 5*time.Minute)

	add(&sessionSpec{
		repo: api, cwd: filepath.Join(api.path, filepath.FromSlash(longSub)), branches: []string{"main"},
		prompts: []string{"document how the sliding-window refresh strategy picks its window size"},
		aiTitle: "Sliding-window token refresh docs",
		target:  100 << 10,
	}, 25*d, 20*time.Minute)

	add(&sessionSpec{
		repo: api, branches: []string{"main"},
		prompts: []string{
			"add an error-budget panel to the SLO dashboard",
			"pull the burn rate from the metrics API instead of computing it",
			"use a 30-day rolling window",
			"the panel is empty for services without traffic — show 100% instead",
			"add a test for the empty-service case",
			"tidy up the Grafana JSON",
			"now regenerate the dashboard snapshots",
			"ok, write the PR description",
		},
		renames:      []renameEvent{{after: 2, name: "Error budget dashboard", how: renameSlash}},
		renameMiddle: true,
		aiTitle:      "Add SLO error-budget panel", aiTitleAfter: 6,
		target: 900 << 10,
	}, 7*d, 3*h)

	add(&sessionSpec{
		repo: web, branches: []string{"perf/bundle-size"},
		prompts: []string{
			"our bundle is 412 KB gzipped. Here is the analyzer output:\n\n  vendor.js      301 KB\n    moment       71 KB\n    lodash       69 KB\n    chart.js     58 KB\n  app.js         111 KB\n\nget it under 200 KB without dropping features; start with moment and lodash, and tell me what you would do with chart.js",
			"go with date-fns and lodash-es",
		},
		aiTitle: "Cut the bundle size below 200 KB", tag: "perf", prLink: 388,
		target: 230 << 10,
	}, 10*d, 2*h)

	for _, s := range p.sessions {
		s.stopHook = s.stopHook || s.kind == ""
	}
	finishRepos(p)
	return p
}

// finishRepos points each repo's HEAD at the branch of its most recent
// session in the main working copy, as a real checkout would be.
func finishRepos(p *plan) {
	for _, s := range p.sessions {
		if s.repo == nil {
			continue
		}
		s.repo.sessions++
		if s.wt != nil {
			continue
		}
		if s.end.After(s.repo.headAt) {
			s.repo.headAt = s.end
			s.repo.head = s.branches[len(s.branches)-1]
		}
	}
	for _, rp := range p.repos {
		if rp.head == "" {
			rp.head = rp.defaultBranch
		}
	}
}

// ---------------------------------------------------------------- random

var subdirChoices = []string{"internal/auth", "web/src", "cmd/server", "docs", "deploy/helm", "pkg/store"}

func randomRepos(o *Options, r *rand.Rand) []*repoSpec {
	src := filepath.Join(o.Home, "src")
	seen := map[string]bool{}
	var repos []*repoSpec
	order := r.Perm(len(repoPrefixes) * len(repoSuffixes))
	for i := 0; len(repos) < o.Repos; i++ {
		k := order[i%len(order)]
		name := repoPrefixes[k/len(repoSuffixes)] + "-" + repoSuffixes[k%len(repoSuffixes)]
		if i >= len(order) {
			name = fmt.Sprintf("%s-%d", name, i/len(order)+1)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		def := "main"
		if r.IntN(6) == 0 {
			def = "master"
		}
		rp := &repoSpec{name: name, path: filepath.Join(src, name), git: true, defaultBranch: def, branches: []string{def}}
		for range 1 + r.IntN(4) {
			if b := randomBranch(r); !slices.Contains(rp.branches, b) {
				rp.branches = append(rp.branches, b)
			}
		}
		for _, sd := range subdirChoices {
			if r.IntN(3) == 0 {
				rp.subdirs = append(rp.subdirs, sd)
			}
		}
		if len(rp.subdirs) == 0 {
			rp.subdirs = []string{subdirChoices[r.IntN(len(subdirChoices))]}
		}
		repos = append(repos, rp)
	}
	return repos
}

// special cases assigned to distinct sessions before the random mix, so that
// even a small home has one of each.
const (
	spPrint = iota
	spSidechain
	spTruncated
	spGarbage
	spWorktree
	spDeletedWorktree
	spScratch
	spSubdir
	spTasks
	spTasksReset
	spRenameSlash
	spRenamePicker
	spAITitle
	spSummary
	spFork
	spLongCwd
	spCount
)

func randomPlan(o *Options, r *rand.Rand) *plan {
	p := &plan{repos: randomRepos(o, r)}
	weights := make([]float64, len(p.repos))
	var wsum float64
	for i := range weights {
		weights[i] = 1 / math.Pow(float64(i+1), 0.8)
		wsum += weights[i]
	}
	pickRepo := func() *repoSpec {
		x := r.Float64() * wsum
		for i, w := range weights {
			if x < w {
				return p.repos[i]
			}
			x -= w
		}
		return p.repos[len(p.repos)-1]
	}

	n := o.Sessions
	special := make([]int, n)
	for i := range special {
		special[i] = -1
	}
	if n >= spCount {
		for k, i := range r.Perm(n)[:spCount] {
			special[i] = k
		}
	}
	targets := sizePlan(o, r, n)

	for i := range n {
		s := &sessionSpec{idx: i, id: newUUID(r), firstUUID: newUUID(r), cwdExists: true}
		sp := special[i]
		s.target = targets[i]
		s.repo = pickRepo()
		s.cwd = s.repo.path

		switch big := s.target >= 8<<20; {
		case big:
		case sp == spPrint || (sp < 0 && r.IntN(100) < 4):
			s.kind = kindPrint
			s.target = min(s.target, 60<<10)
		case sp == spSidechain || (sp < 0 && r.IntN(100) < 1):
			s.kind = kindSidechain
			s.target = min(s.target, 80<<10)
		}

		branch := pick(r, s.repo.branches)
		switch {
		case sp == spWorktree || sp == spDeletedWorktree || (sp < 0 && s.kind == "" && r.IntN(100) < 4):
			wt := &worktreeSpec{name: slug(pick(r, nouns)) + fmt.Sprintf("-%d", i), branch: randomBranch(r), exists: sp != spDeletedWorktree && r.IntN(5) != 0}
			wt.path = filepath.Join(s.repo.path, ".claude", "worktrees", wt.name)
			s.repo.worktrees = append(s.repo.worktrees, wt)
			s.wt, s.cwd, s.cwdExists, branch = wt, wt.path, wt.exists, wt.branch
		case sp == spScratch || (sp < 0 && r.IntN(100) < 2):
			dir := filepath.Join(o.Home, "scratch", slug(pick(r, nouns)))
			if !slices.Contains(p.scratch, dir) {
				p.scratch = append(p.scratch, dir)
			}
			s.repo, s.cwd, branch = nil, dir, "HEAD"
		case sp == spLongCwd:
			long := filepath.Join(s.repo.path, "services", "authentication", "providers", "oauth2", "openid-connect", "discovery", "metadata", "cache", "invalidation", "strategies", "time-based", "sliding-window", "v2", "handlers", "refresh", "background", "workers", "pool")
			s.repo.subdirs = append(s.repo.subdirs, mustRel(s.repo.path, long))
			s.cwd = long
		case sp == spSubdir || (sp < 0 && r.IntN(100) < 12):
			s.cwd = filepath.Join(s.repo.path, filepath.FromSlash(pick(r, s.repo.subdirs)))
		}

		// Age: newest most common.
		u := r.Float64()
		age := time.Duration(u*u*float64(spreadAge)) + time.Duration(1+r.IntN(600))*time.Second
		s.end = ageToTime(o.Now, age)

		s.nPrompts = promptsFor(r, s.target)
		if s.kind == kindPrint {
			s.nPrompts = 1
		}
		if s.kind == kindSidechain {
			s.nPrompts = 1 + r.IntN(2)
		}
		s.prompts = make([]string, s.nPrompts)
		for k := range s.prompts {
			s.prompts[k] = randomPrompt(r)
		}
		span := time.Duration(s.nPrompts) * time.Duration(2+r.IntN(7)) * time.Minute
		s.segStarts = []int{0}
		if s.kind == "" && sp != spFork && s.nPrompts >= 4 && r.IntN(100) < 15 {
			for k := 1 + r.IntN(2); k > 0; k-- {
				if at := 1 + r.IntN(s.nPrompts-1); !slices.Contains(s.segStarts, at) {
					s.segStarts = append(s.segStarts, at)
				}
			}
			slices.Sort(s.segStarts)
			span += time.Duration(2+r.IntN(70)) * time.Hour
		}
		s.start = s.end.Add(-span)
		for k := range s.segStarts {
			segT := s.start.Add(span * time.Duration(s.segStarts[k]) / time.Duration(s.nPrompts))
			s.versions = append(s.versions, versionAt(o.Now, segT))
			if k > 0 && branch != "HEAD" && s.wt == nil && r.IntN(4) == 0 {
				branch = pick(r, s.repo.branches)
			}
			s.branches = append(s.branches, branch)
		}

		s.model = pick(r, []string{"claude-sonnet-4-6", "claude-sonnet-4-6", "claude-opus-4-7", "claude-haiku-4-5"})
		s.effort = pick(r, []string{"low", "medium", "medium", "high"})
		s.permMode = pick(r, []string{"auto", "auto", "acceptEdits", "default", "plan"})
		s.stopHook = s.kind == "" && r.IntN(3) == 0
		s.hugeLines = s.target >= 8<<20 || s.target >= 1200<<10 && r.IntN(2) == 0

		if s.kind == "" {
			randomTitles(r, s, sp)
			if sp == spTasks || sp == spTasksReset || (sp < 0 && r.IntN(100) < 12) {
				s.tasks = randomTasks(r, s.nPrompts)
				s.tasksReset = sp == spTasksReset || (sp != spTasks && r.IntN(6) == 0)
				if s.tasksReset {
					for k := range s.tasks {
						s.tasks[k].status = "completed"
					}
				} else if len(s.tasks) > 2 && r.IntN(4) == 0 {
					s.taskDelete = true
				}
			}
			if s.target >= 1<<20 && r.IntN(2) == 0 {
				s.compact = true
			}
			if r.IntN(100) < 6 {
				s.subagents = 1 + r.IntN(3)
			}
			if r.IntN(100) < 3 {
				s.tag = pick(r, []string{"perf", "wip", "review", "oncall"})
			}
			if r.IntN(100) < 3 {
				s.prLink = 10 + r.IntN(4000)
			}
		}
		switch {
		case sp == spTruncated || (sp < 0 && r.IntN(1000) < 5):
			s.broken = "truncated"
		case sp == spGarbage || (sp < 0 && r.IntN(1000) < 3):
			s.broken = "garbage"
		}
		p.sessions = append(p.sessions, s)
	}
	for i, sp := range special {
		if sp == spFork {
			makeFork(o, r, p, p.sessions[i])
		}
	}
	for _, rp := range p.repos {
		slices.Sort(rp.subdirs)
		rp.subdirs = slices.Compact(rp.subdirs)
	}
	if o.PromptBytes > 0 {
		pastePrompts(o, p)
	}
	finishRepos(p)
	return p
}

// pastePrompts appends a pasted block of prose to every typed prompt
// (Options.PromptBytes). Each session draws from a stream of its own, so
// the rest of the plan is what it would be without it; a fork's first
// prompt stays its parent's, as Claude Code copies it.
func pastePrompts(o *Options, p *plan) {
	paste := func(s *sessionSpec, from int) {
		r := rand.New(rand.NewPCG(o.Seed^0x70617374, uint64(s.idx)+1))
		for k := from; k < len(s.prompts); k++ {
			s.prompts[k] += "\n\n" + sentence(r, o.PromptBytes/2+r.IntN(o.PromptBytes+1))
		}
	}
	for _, s := range p.sessions {
		if s.forkOf == nil {
			paste(s, 0)
		}
	}
	for _, s := range p.sessions {
		if s.forkOf != nil {
			s.prompts[0] = s.forkOf.prompts[0]
			paste(s, 1)
		}
	}
}

// makeFork turns s into a --fork-session copy of another interactive
// session of a main working copy, chosen at random.
func makeFork(o *Options, r *rand.Rand, p *plan, s *sessionSpec) {
	var parents []*sessionSpec
	for _, q := range p.sessions {
		if q != s && q.kind == "" && q.repo != nil && q.wt == nil && q.forkOf == nil {
			parents = append(parents, q)
		}
	}
	if len(parents) == 0 {
		return
	}
	q := pick(r, parents)
	s.forkOf, s.repo, s.cwd, s.cwdExists = q, q.repo, q.cwd, q.cwdExists
	if !s.end.After(q.end) {
		s.end = q.end.Add(o.Now.Sub(q.end) / 2).Truncate(time.Millisecond)
	}
	s.start = s.end.Add(-time.Duration(s.nPrompts) * 4 * time.Minute)
	if s.start.Before(q.end) {
		s.start = q.end.Add(time.Second)
	}
	if !s.start.Before(s.end) {
		s.start = s.end.Add(-time.Second)
	}
	s.segStarts = []int{0}
	s.versions = []string{versionAt(o.Now, s.start)}
	s.branches = []string{q.branches[len(q.branches)-1]}
	// A fork starts with its parent's first prompt and only exists on disk
	// once the user typed something of its own.
	s.prompts[0] = q.prompts[0]
	if s.nPrompts == 1 {
		s.prompts = append(s.prompts, randomPrompt(r))
		s.nPrompts = 2
	}
}

func mustRel(base, target string) string {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return target
	}
	return filepath.ToSlash(rel)
}

func promptsFor(r *rand.Rand, target int64) int {
	per := int64(40<<10) + int64(r.IntN(60<<10))
	n := 1 + int(target/per)
	return min(max(n, 1), 40)
}

func randomTitles(r *rand.Rand, s *sessionSpec, sp int) {
	renamed := sp == spRenameSlash || sp == spRenamePicker || (sp < 0 && r.IntN(100) < 25)
	if renamed {
		how := renameSlash
		switch x := r.IntN(10); {
		case sp == spRenamePicker || (sp < 0 && x < 2):
			how = renamePicker
		case sp < 0 && x == 2:
			how = renameFlag
		}
		after := r.IntN(s.nPrompts)
		if how == renameFlag {
			after = -1
		}
		s.renames = append(s.renames, renameEvent{after: after, name: randomRename(r), how: how})
		if s.nPrompts > 2 && r.IntN(10) == 0 {
			s.renames = append(s.renames, renameEvent{after: s.nPrompts - 1, name: randomRename(r) + " (part 2)", how: renameSlash})
		}
		if s.target >= 400<<10 && s.nPrompts >= 4 && r.IntN(10) == 0 {
			s.renameMiddle = true
			s.renames = s.renames[:1]
			s.renames[0].after = s.nPrompts / 2
			s.renames[0].how = renameSlash
		}
	}
	if sp == spAITitle || (sp < 0 && r.IntN(100) < 45) {
		s.aiTitle = randomTitle(r)
		s.aiTitleAfter = r.IntN(s.nPrompts)
	}
	old := s.versions[0] == versionOld
	if sp == spSummary || (sp < 0 && old && r.IntN(100) < 15) {
		s.summary = randomTitle(r)
	}
}

func randomTasks(r *rand.Rand, nPrompts int) []taskSpec {
	n := 1 + r.IntN(6)
	statuses := []string{"pending", "in_progress", "completed"}
	ts := make([]taskSpec, n)
	for i := range ts {
		noun := pick(r, nouns)
		verb := pick(r, []string{"Write tests for", "Refactor", "Document", "Fix", "Profile", "Review"})
		ts[i] = taskSpec{
			subject:     verb + " the " + noun,
			description: sentence(r, 40+r.IntN(120)),
			activeForm:  strings.TrimSuffix(verb, " for") + "ing the " + noun,
			status:      statuses[r.IntN(3)],
			blocks:      []string{},
			blockedBy:   []string{},
		}
	}
	if n > 1 && r.IntN(2) == 0 {
		ts[0].blocks = []string{"2"}
		ts[1].blockedBy = []string{"1"}
	}
	return ts
}

// sizePlan draws a transcript size for each session. Scale mode follows a
// lognormal around ~100 KB (one trivial real prompt already writes 160 KB)
// with a 1% tail to 2 MB and a few huge files; the median is fitted to the
// MaxBytes budget, and whatever still overshoots is scaled down.
func sizePlan(o *Options, r *rand.Rand, n int) []int64 {
	const sigma, tailShare = 0.45, 1
	t := make([]int64, n)
	huge := map[int]bool{}
	var sumHuge int64
	if o.Mode == ModeScale {
		idx := r.Perm(n)[:min(max(o.HugeFiles, 0), n)]
		slices.Sort(idx)
		for _, i := range idx {
			huge[i] = true
			t[i] = o.HugeBytes + int64(r.Float64()*0.25*float64(o.HugeBytes))
			sumHuge += t[i]
		}
	}
	budget := int64(math.MaxInt64)
	if o.MaxBytes > 0 {
		// Aim a little under the cap: real sizes overshoot targets slightly.
		budget = o.MaxBytes * 96 / 100
	}
	median := 150e3
	if normal := n - len(huge); o.Mode == ModeScale && normal > 0 && budget-sumHuge > 0 {
		avail := float64(budget-sumHuge) / float64(normal)
		tailMean := float64(tailShare) / 100 * float64(maxNormal-(400<<10)) / math.Log(float64(maxNormal)/float64(400<<10))
		median = min(max((avail-tailMean)/math.Exp(sigma*sigma/2), 40e3), 150e3)
	}
	for i := range t {
		switch {
		case huge[i]:
		case o.Mode == ModeScale && r.IntN(100) < tailShare:
			t[i] = logUniform(r, 400<<10, maxNormal)
		case o.Mode == ModeScale:
			t[i] = clamp(int64(median*math.Exp(sigma*r.NormFloat64())), 40<<10, maxNormal)
		default:
			t[i] = clamp(int64(60e3*math.Exp(0.7*r.NormFloat64())), minTarget, 400<<10)
		}
	}
	if o.MaxBytes <= 0 {
		return t
	}
	total := func() (all, normal int64) {
		for i, v := range t {
			all += v
			if !huge[i] {
				normal += v
			}
		}
		return
	}
	all, normal := total()
	if all > budget && budget-sumHuge < int64(n-len(huge))*minTarget*2 {
		// The huge files do not fit: demote them.
		for i := range huge {
			t[i] = 500 << 10
			delete(huge, i)
		}
		sumHuge = 0
		all, normal = total()
	}
	if all > budget {
		f := float64(budget-sumHuge) / float64(normal)
		for i := range t {
			if !huge[i] {
				t[i] = max(minTarget, int64(float64(t[i])*f))
			}
		}
	}
	return t
}

func logUniform(r *rand.Rand, lo, hi int64) int64 {
	return int64(math.Exp(math.Log(float64(lo)) + r.Float64()*(math.Log(float64(hi))-math.Log(float64(lo)))))
}

func clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }
