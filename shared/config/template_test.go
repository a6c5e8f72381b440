package config

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// uncomment enables every example of the template: a "#" directly followed
// by something other than a space or another "#".
func uncomment(s string) string {
	return regexp.MustCompile(`(?m)^#([^ #\n])`).ReplaceAllString(s, "$1")
}

func TestTemplateAsWrittenIsEmpty(t *testing.T) {
	cfg, msgs := problems(t, Template())
	if msgs != nil {
		t.Fatalf("problems: %q", msgs)
	}
	if diff := cmp.Diff(&Config{Path: "config.toml", Exists: true}, cfg); diff != "" {
		t.Errorf("the template configures something while commented (-want +got):\n%s", diff)
	}
}

func TestTemplateExamplesAreValid(t *testing.T) {
	src := uncomment(Template())
	for _, section := range []string{"[launch.defaults]", "[[launch.project]]", "[proxy]", "[proxy.profiles.corp]", "[resume]", "[resume.prices]", "[[resume.on_update]]"} {
		if !strings.Contains(src, "\n"+section+"\n") {
			t.Errorf("the template has no %s example", section)
		}
	}
	cfg, msgs := problems(t, src)
	if msgs != nil {
		t.Fatalf("the uncommented template has problems: %q\n%s", msgs, src)
	}
	if cfg.Ignored != nil {
		t.Errorf("the template uses keys nothing reads: %q", cfg.Ignored)
	}

	hooks := cfg.Resume.OnUpdate
	if len(hooks) != 2 || hooks[0].Kind() != "restart" || hooks[1].Kind() != "command" {
		t.Errorf("on_update examples = %+v, want a restart and a command", hooks)
	}

	if p, ok := cfg.Resume.PriceFor("claude-opus-4-5-20251101"); cfg.Resume.WarnContextTokens != 150000 || !ok || p.CacheWrite != 6.25 {
		t.Errorf("the [resume] examples: warn %d, opus price %+v %v", cfg.Resume.WarnContextTokens, p, ok)
	}

	env, err := cfg.ProxyEnv()
	if err != nil || len(env) != 8 {
		t.Errorf("ProxyEnv = %q, %v", env, err)
	}

	r := Resolve(cfg, "/home/u/src/work/api", "/home/u")
	want := Resolved{
		Harness: "claude", Model: "sonnet", Effort: "high", PermissionMode: "plan",
		BinaryPath: "/home/u/.local/bin/claude",
		AddDir:     []string{"/home/u/notes", "/home/u/src/work/shared-lib"},
		Env:        map[string]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"},
		Match:      "~/src/work",
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("the template's project example (-want +got):\n%s", diff)
	}
}
