package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"forgectl.dev/shared/config"
)

// TestHarnessRoster checks what each harness of the roster must say, and
// that the config's vocabulary is the roster's: the config file is read
// by resume-restart and resume-hooks too, which cannot see forgectl's
// roster, so shared/config keeps the list of names and this test keeps
// the two the same.
func TestHarnessRoster(t *testing.T) {
	if got := knownHarnesses(); !slices.Equal(got, config.KnownHarnesses) {
		t.Errorf("the roster's harnesses are %v, config.KnownHarnesses %v: add the name to both", got, config.KnownHarnesses)
	}
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	a.home = t.TempDir()
	a.getenv = func(string) string { return "" }
	seen := map[string]string{}
	for _, e := range harnessRoster() {
		h := a.harnessNamed(e.name)
		if h == nil || h.Name() != e.name {
			t.Fatalf("the roster's %q makes %v", e.name, h)
		}
		ab := h.About()
		for what, v := range map[string]string{"mark": ab.Mark, "index": ab.Index, "search": ab.Search} {
			if v == "" {
				t.Errorf("%s: no %s", e.name, what)
			}
			if other, dup := seen[what+v]; dup {
				t.Errorf("%s and %s share the %s %q", other, e.name, what, v)
			}
			seen[what+v] = e.name
		}
		if len([]rune(ab.Mark)) != 2 || ab.Desc == "" || ab.ByHand == "" {
			t.Errorf("%s: About %+v needs a two-letter mark, a description and a command", e.name, ab)
		}
		if e, hint := h.NoneFound(); e == "" || hint == "" {
			t.Errorf("%s: NoneFound needs an error and a hint", h.Name())
		}
	}
	if !a.primary().Present() {
		t.Errorf("the primary harness %s must be listed whether or not its home exists", a.primary().Name())
	}
}
