package gencc

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The vocabularies below are deliberately free of the metadata type names
// (custom-title, ai-title, …) so that a byte scan for them only ever hits the
// rows and the few prompts that mention them on purpose.

var codeWords = []string{
	"func", "return", "if", "err", "nil", "ctx", "for", "range", "var", "const",
	"type", "struct", "interface", "map", "string", "int64", "bool", "defer",
	"go", "select", "case", "default", "package", "import", "switch", "else",
	"client", "server", "request", "response", "handler", "config", "token",
	"session", "cache", "retry", "timeout", "buffer", "reader", "writer",
	"index", "offset", "length", "cursor", "page", "limit", "query", "row",
	"user", "account", "login", "logout", "refresh", "expiry", "claims",
	"header", "cookie", "redirect", "route", "middleware", "logger", "metric",
	"counter", "gauge", "span", "trace", "event", "queue", "worker", "pool",
}

var proseWords = []string{
	"the", "a", "this", "that", "we", "it", "is", "was", "should", "could",
	"now", "then", "because", "when", "after", "before", "so", "but", "and",
	"test", "tests", "failing", "passing", "change", "changes", "file", "files",
	"function", "method", "module", "package", "build", "deploy", "release",
	"bug", "fix", "issue", "error", "warning", "value", "values", "field",
	"looks", "seems", "works", "breaks", "returns", "calls", "reads", "writes",
	"first", "last", "next", "previous", "every", "each", "only", "still",
	"update", "check", "verify", "run", "add", "remove", "rename", "move",
}

var fileNames = []string{
	"internal/auth/session.go", "internal/auth/oauth.go", "cmd/server/main.go",
	"pkg/ratelimit/bucket.go", "pkg/store/postgres.go", "api/v1/search.go",
	"src/components/Header.tsx", "src/theme/tokens.ts", "src/hooks/useTheme.ts",
	"terraform/modules/vpc/main.tf", "terraform/envs/prod/backend.tf",
	"scripts/release.sh", "Makefile", "README.md", "docs/architecture.md",
	"internal/billing/invoice.go", "web/src/pages/settings.tsx", "go.mod",
	"package.json", "internal/queue/consumer.go", "deploy/helm/values.yaml",
}

var nouns = []string{
	"login", "session", "cache", "rate limiter", "pagination", "search index",
	"billing", "invoice", "webhook", "migration", "deploy script", "theme",
	"header", "sidebar", "settings page", "queue consumer", "retry loop",
	"metrics exporter", "health check", "CLI parser", "config loader",
	"feature flag", "audit log", "token refresh", "upload handler",
}

var problems = []string{
	"flaky test", "race condition", "memory leak", "timeout", "nil pointer",
	"off-by-one", "slow query", "deadlock", "wrong status code", "stale cache",
	"broken redirect", "double submit", "missing index", "panic on startup",
}

var promptTemplates = []string{
	"fix the %[2]s in the %[1]s",
	"why does the %[1]s hit a %[2]s when the request is retried?",
	"add a regression test for the %[1]s %[2]s",
	"refactor %[3]s so the %[1]s logic lives in one place",
	"can you explain what %[3]s does with the %[1]s?",
	"the %[1]s is slow again — profile it and tell me where the time goes",
	"run the tests for %[3]s and fix whatever fails",
	"rename the \"%[1]s\" helpers to something clearer",
	"add structured logging around the %[1]s",
	"write a short design note on the %[1]s in docs/",
	"check whether the %[2]s in %[3]s is still reproducible",
	"ok, commit that with a good message",
	"now update the changelog",
	"looks good, but handle the empty-input case too",
}

// nonASCIIPrompts keep encoders honest: accents, CJK, emoji and quotes.
var nonASCIIPrompts = []string{
	"pourquoi le test « %[1]s » échoue-t-il seulement en CI ?",
	"%[1]s のエラーメッセージを日本語で分かりやすくして",
	"make the %[1]s banner say “Willkommen zurück” 👋",
	"the %[1]s logs show \"naïve datetime\" warnings — fix them",
	"ajoute un test pour le cas où l'utilisateur n'a pas de « %[1]s »",
}

var titleTemplates = []string{
	"Fix %[1]s %[2]s",
	"Investigate %[2]s in %[1]s",
	"Refactor %[1]s",
	"Add tests for %[1]s",
	"Speed up %[1]s",
	"Document the %[1]s",
}

var renameTemplates = []string{
	"%[1]s work", "%[1]s cleanup", "%[1]s v2", "%[2]s hunt", "%[1]s",
}

var branchPrefixes = []string{"feature", "fix", "chore", "refactor", "spike"}

var repoPrefixes = []string{
	"atlas", "billing", "checkout", "data", "edge", "fleet", "gateway",
	"harbor", "identity", "ledger", "metrics", "notify", "orbit", "payments",
	"quartz", "search", "telemetry", "vault", "warehouse", "zephyr",
}

var repoSuffixes = []string{"api", "service", "web", "worker", "cli", "infra", "sdk", "docs"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func randomPrompt(r *rand.Rand) string {
	n, p, f := pick(r, nouns), pick(r, problems), pick(r, fileNames)
	switch x := r.IntN(100); {
	case x < 6:
		return fill(pick(r, nonASCIIPrompts), n)
	case x < 10:
		// A pasted stack trace: multi-line and longer than the picker's 200 chars.
		return fmt.Sprintf("I get this when I run the %s tests:\n\npanic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x4f2a1c]\n\ngoroutine 37 [running]:\nexample.com/app/%s\n\t/src/%s:%d +0x3c\n\nwhat's going on?", n, f, f, 10+r.IntN(400))
	default:
		return fill(pick(r, promptTemplates), n, p, f)
	}
}

// fill is Sprintf for templates that may use only some of the arguments,
// or none.
func fill(tmpl string, args ...any) string {
	if !strings.Contains(tmpl, "%[") {
		return tmpl
	}
	return fmt.Sprintf(tmpl, args...)
}

func randomTitle(r *rand.Rand) string {
	t := fill(pick(r, titleTemplates), pick(r, nouns), pick(r, problems))
	return strings.ToUpper(t[:1]) + t[1:]
}

func randomRename(r *rand.Rand) string {
	t := fill(pick(r, renameTemplates), pick(r, nouns), pick(r, problems))
	return strings.ToUpper(t[:1]) + t[1:]
}

func randomBranch(r *rand.Rand) string {
	return pick(r, branchPrefixes) + "/" + slug(pick(r, nouns)) + "-" + slug(pick(r, problems))
}

// sentence returns roughly n bytes of plausible assistant prose.
func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pick(r, proseWords))
		if r.IntN(12) == 0 {
			b.WriteString(". ")
			b.WriteString("`" + pick(r, fileNames) + "`")
		}
	}
	b.WriteByte('.')
	return b.String()
}

// corpus is a seeded block of code-like ASCII text. Big payloads (file reads,
// attachments) are windows into it, which keeps multi-gigabyte homes cheap to
// produce while still looking like source code to a reader or a compressor.
type corpus struct{ text string }

func newCorpus(r *rand.Rand, size int) *corpus {
	var b strings.Builder
	b.Grow(size + 256)
	line := 1
	for b.Len() < size {
		indent := r.IntN(4)
		for range indent {
			b.WriteByte('\t')
		}
		words := 3 + r.IntN(9)
		for w := range words {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(pick(r, codeWords))
			switch r.IntN(10) {
			case 0:
				b.WriteString("()")
			case 1:
				b.WriteString(" := ")
			case 2:
				b.WriteString(`("` + pick(r, proseWords) + `")`)
			case 3:
				b.WriteString(" {")
			}
		}
		if r.IntN(25) == 0 {
			b.WriteString(" // <tag> & \"quoted\" \\ path")
		}
		b.WriteByte('\n')
		line++
	}
	return &corpus{text: b.String()}
}

// window returns n bytes of corpus text starting at a random offset, wrapping
// around and repeating as needed.
func (c *corpus) window(r *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	if n <= len(c.text) {
		off := r.IntN(len(c.text) - n + 1)
		return c.text[off : off+n]
	}
	var b strings.Builder
	b.Grow(n)
	for b.Len() < n {
		off := r.IntN(len(c.text))
		chunk := c.text[off:]
		if rest := n - b.Len(); len(chunk) > rest {
			chunk = chunk[:rest]
		}
		b.WriteString(chunk)
	}
	return b.String()
}

// numbered renders a window as `cat -n` output, the way the Read tool returns
// file contents.
func (c *corpus) numbered(r *rand.Rand, n int) string {
	body := c.window(r, n)
	var b strings.Builder
	b.Grow(len(body) + len(body)/6)
	line := 1 + r.IntN(200)
	for len(body) > 0 {
		i := strings.IndexByte(body, '\n')
		var l string
		if i < 0 {
			l, body = body, ""
		} else {
			l, body = body[:i], body[i+1:]
		}
		fmt.Fprintf(&b, "%6d→%s\n", line, l)
		line++
	}
	return b.String()
}
