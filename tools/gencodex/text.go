package gencodex

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var (
	verbs     = []string{"fix", "refactor", "add tests for", "speed up", "document", "review", "debug", "rename", "simplify", "port"}
	objects   = []string{"the login flow", "the upload client", "the cache layer", "the billing export", "the retry loop", "the CSV importer", "the config loader", "the websocket handler", "the search index", "the migration script", "the rate limiter", "the session store"}
	details   = []string{"it fails on empty input", "the CI job is flaky", "it leaks file handles", "p95 latency doubled", "the error message is unclear", "users see a blank page", "it panics on a nil map", "the docs are out of date", "the timeout is too short", ""}
	vocab     = []string{"handler", "request", "timeout", "buffer", "parser", "schema", "token", "index", "worker", "queue", "client", "server", "field", "branch", "commit", "test", "fixture", "module", "function", "error"}
	commands  = []string{"rg -n TODO src", "go test ./...", "git status --short", "sed -n 1,80p main.go", "ls -la", "npm test", "cat README.md", "git diff HEAD~1"}
	branches  = []string{"main", "main", "feature/login", "fix/flaky-ci", "refactor/cache", "release/2.4"}
	renames   = []string{"Login rework", "Flaky CI hunt", "Cache cleanup", "Billing export v2", "Perf pass", "Docs refresh"}
	nicknames = []string{"Scout", "Atlas", "Wren", "Juniper"}
	repos     = []string{"api-server", "web-app", "billing", "infra", "cli-tools", "data-pipeline", "mobile", "docs-site"}
)

func pick(r *rand.Rand, l []string) string { return l[r.IntN(len(l))] }

func repoName(i int) string {
	if i < len(repos) {
		return repos[i]
	}
	return fmt.Sprintf("%s-%d", repos[i%len(repos)], i/len(repos))
}

// promptText is a typed prompt, sometimes over several lines.
func promptText(r *rand.Rand) string {
	p := pick(r, verbs) + " " + pick(r, objects)
	if d := pick(r, details); d != "" {
		p += ": " + d
	}
	if r.IntN(5) == 0 {
		p += "\n\nContext: the " + words(r, 8) + "."
	}
	return p
}

func words(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = pick(r, vocab)
	}
	return strings.Join(w, " ")
}

func replyText(r *rand.Rand, prompt string) string {
	first, _, _ := strings.Cut(prompt, "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "I looked into it (%s). ", first)
	for k := 1 + r.IntN(6); k > 0; k-- {
		fmt.Fprintf(&b, "The %s now checks the %s before the %s. ", pick(r, vocab), pick(r, vocab), pick(r, vocab))
	}
	return strings.TrimSpace(b.String())
}

func toolOutput(r *rand.Rand) string {
	var b strings.Builder
	for k := 3 + r.IntN(30); k > 0; k-- {
		fmt.Fprintf(&b, "src/%s/%s.go:%d: %s\n", pick(r, vocab), pick(r, vocab), 1+r.IntN(400), words(r, 5))
	}
	return b.String()
}

// title is what the stand-in title call gives a prompt: its first words,
// at most 36 characters, as 0.171.0's schema allows.
func title(prompt string) string {
	first, _, _ := strings.Cut(prompt, "\n")
	first, _, _ = strings.Cut(first, ":")
	w := strings.Fields(first)
	if len(w) > 5 {
		w = w[:5]
	}
	t := []rune(strings.Join(w, " "))
	if len(t) > 36 {
		t = t[:36]
	}
	s := strings.TrimSpace(string(t))
	if s == "" {
		return "Untitled task"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// systemPrompt stands in for the system prompt every session_meta embeds
// (base_instructions.text, about 21.5 KB in 0.171.0): made-up guidance, the
// same in every thread, so the first line has the real one's size.
var systemPrompt = func() string {
	var b strings.Builder
	b.WriteString("You are a coding agent working in a terminal on the user's computer.\n\n")
	sections := []string{"Planning", "Editing files", "Running commands", "Testing", "Reviewing", "Communicating", "Sandboxing", "Git hygiene"}
	for i := 0; b.Len() < 21500; i++ {
		s := sections[i%len(sections)]
		fmt.Fprintf(&b, "## %s (%d)\n\n", s, i/len(sections)+1)
		fmt.Fprintf(&b, "- When %s, keep the change small, say what you did and why, and prefer the project's own conventions over your habits.\n", strings.ToLower(s))
		fmt.Fprintf(&b, "- Read the surrounding %s before changing a %s; check the %s afterwards.\n\n", vocab[i%len(vocab)], vocab[(i+3)%len(vocab)], vocab[(i+7)%len(vocab)])
	}
	return b.String()
}()
