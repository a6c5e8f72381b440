package inputbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadCorpus(t *testing.T) {
	want := map[string]Verdict{
		"empty.screen":                           Empty,
		"empty-extra-blank-line.screen":          Empty,
		"empty-crlf.screen":                      Empty,
		"inverse-cursor-empty.ansi":              Empty,
		"osc-title-and-cursor-moves.ansi":        Empty,
		"status-meter-empty.screen":              Empty,
		"try-hint.screen":                        Empty,
		"try-hint-ansi.ansi":                     Empty,
		"dim-suggestion.ansi":                    Empty,
		"grey-90-suggestion.ansi":                Empty,
		"grey-256-suggestion.ansi":               Empty,
		"grey-truecolor-suggestion.ansi":         Empty,
		"cursor-then-dim.ansi":                   Empty,
		"draft.screen":                           Draft,
		"draft-crlf.screen":                      Draft,
		"wrapped-draft.screen":                   Draft,
		"dim-suggestion-stripped.screen":         Draft, // without --ansi ghost text is indistinguishable
		"typed-then-suggestion.ansi":             Draft,
		"red-text.ansi":                          Draft,
		"cursor-on-typed-char.ansi":              Draft,
		"dim-reset-by-zero.ansi":                 Draft,
		"status-meter-draft.screen":              Draft,
		"try-hint-then-second-line.screen":       Draft,
		"try-unterminated.screen":                Draft,
		"permission-dialog.screen":               Unrecognized,
		"permission-dialog-below-old-box.screen": Unrecognized,
		"shell-prompt.screen":                    Unrecognized,
		"shell-prompt-with-command.screen":       Unrecognized,
		"one-rule.screen":                        Unrecognized,
		"no-rules.screen":                        Unrecognized,
		"rules-no-caret.screen":                  Unrecognized,
		"rounded-box.screen":                     Unrecognized,
		"adjacent-rules.screen":                  Unrecognized,
		"short-rules.screen":                     Unrecognized,
	}
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.Base(f)] = Read(string(b)).Verdict
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
}

func TestIsRule(t *testing.T) {
	rule := func(n int) string {
		s := ""
		for range n {
			s += "─"
		}
		return s
	}
	cases := []struct {
		line string
		want bool
	}{
		{rule(20), true},
		{rule(19), false},
		{"  " + rule(120) + "  ", true},
		{rule(20) + " 0/200k (0%)", false}, // a context meter: 20 of 30
		{rule(39) + " 0/200k (0%)", false}, // 39 of 49: under 4/5
		{rule(40) + " 0/200k (0%)", true},  // 40 of 50: exactly 4/5
		{rule(40) + " 0/20 (0%)", true},    // 40 of 48: over 4/5
		{"╭" + rule(100) + "╮", true},      // a rounded box border is a rule
		{"━━━━━━━───────────── 70k/200k", false},  // heavy and light mixed
		{"╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌", false}, // dashed separator
		{"", false},
	}
	for _, c := range cases {
		if got := isRule(c.line); got != c.want {
			t.Errorf("isRule(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

func TestSGR(t *testing.T) {
	cases := []struct {
		params string
		from   style
		want   style
	}{
		{"2", style{}, style{dim: true}},
		{"0", style{dim: true, grey: true, inverse: true}, style{}},
		{"", style{dim: true}, style{}},
		{"22", style{dim: true}, style{}},
		{"1;2;7", style{}, style{dim: true, inverse: true}},
		{"90", style{}, style{grey: true}},
		{"39", style{grey: true}, style{}},
		{"38;5;8", style{}, style{grey: true}},
		{"38;5;244", style{}, style{grey: true}},
		{"38;5;255", style{}, style{}},
		{"38;5;1", style{grey: true}, style{}},
		{"38:5:8", style{}, style{grey: true}},
		{"38;2;153;153;153", style{}, style{grey: true}},
		{"38;2;255;255;255", style{}, style{}},
		{"38:2::128:128:128", style{}, style{grey: true}},
		{"48;5;8", style{}, style{}},                   // background grey is not ghost text
		{"48;2;90;90;90;2", style{}, style{dim: true}}, // parameters after a background colour still apply
		{"4:3", style{}, style{}},
		{"?25", style{}, style{}},
	}
	for _, c := range cases {
		st := c.from
		sgr(c.params, &st)
		if st != c.want {
			t.Errorf("sgr(%q) from %+v = %+v, want %+v", c.params, c.from, st, c.want)
		}
	}
}

func TestReasonNeverQuotesTheScreen(t *testing.T) {
	secret := "hunter2-secret-token"
	screens := []string{
		"❯ " + secret,
		"────────────────────────\n❯ " + secret + "\n────────────────────────\n",
		"────────────────────────\n" + secret + "\n────────────────────────\n",
	}
	for _, s := range screens {
		if r := Read(s); contains(r.Reason, secret) {
			t.Errorf("reason %q quotes the screen", r.Reason)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
