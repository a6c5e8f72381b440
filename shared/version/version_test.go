package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		main     string
		settings map[string]string
		want     string
	}{
		{"v0.2.0", nil, "v0.2.0"},
		{"v0.2.1-0.20261201123456-abcdef123456", map[string]string{"vcs.revision": "abcdef1234567890"}, "v0.2.1-0.20261201123456-abcdef123456"},
		{"(devel)", map[string]string{"vcs.revision": "abcdef1234567890", "vcs.modified": "false"}, "(devel)-abcdef123456"},
		{"(devel)", map[string]string{"vcs.revision": "abcdef1234567890", "vcs.modified": "true"}, "(devel)-abcdef123456-dirty"},
		{"", nil, "(devel)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "forgectl.dev/forgectl", Version: c.main}}
		for k, v := range c.settings {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := FromBuildInfo(bi); got != c.want {
			t.Errorf("%q %v: %q, want %q", c.main, c.settings, got, c.want)
		}
	}
}
