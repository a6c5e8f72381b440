package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/tools/gencc"
)

func TestRunUsage(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		code       int
		stderr     string // a line stderr must contain
		stdoutNone bool
	}{
		{"no home", nil, 2, "gencc: error: -home is required", true},
		{"bad flag", []string{"-nope"}, 2, "flag provided but not defined: -nope", true},
		{"help", []string{"-help"}, 0, "usage: gencc -home DIR", true},
		{"extra argument", []string{"-home", empty, "x"}, 2, `gencc: error: unexpected argument "x"`, true},
		{"demo and scale", []string{"-home", empty, "-demo", "-scale"}, 2, "gencc: error: -demo and -scale exclude each other", true},
		{"bad now", []string{"-home", empty, "-now", "yesterday"}, 2, `gencc: error: -now: not an rfc 3339 time`, true},
		{"bad size", []string{"-home", empty, "-max-bytes", "lots"}, 2, `invalid value "lots" for flag -max-bytes`, true},
		{"append with demo", []string{"-home", empty, "-demo", "-append-percent", "1"}, 2, "gencc: error: -append-percent works on an existing home", true},
		{"append without a home", []string{"-home", empty, "-append-percent", "1"}, 1, "gencc: hint: generate the home first", true},
		{"append out of range", []string{"-home", empty, "-append-percent", "150"}, 1, "gencc: error: append percent must be in (0, 100]", true},
		{"cap too small", []string{"-home", empty, "-sessions", "50", "-max-bytes", "100K"}, 1, "gencc: error: max bytes 100000 is too small for 50 sessions", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errb.String())
			}
			if !strings.Contains(strings.ToLower(errb.String()), strings.ToLower(tt.stderr)) {
				t.Errorf("stderr does not contain %q:\n%s", tt.stderr, errb.String())
			}
			if tt.stdoutNone && out.Len() > 0 {
				t.Errorf("stdout should be empty, got %q", out.String())
			}
		})
	}
}

func TestRunGeneratesAndAppends(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"-home", home, "-demo", "-seed", "3", "-now", "2026-11-29T12:00:00Z"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	m, err := gencc.ReadManifest(home)
	if err != nil {
		t.Fatal(err)
	}
	if m.Mode != gencc.ModeDemo || m.Seed != 3 || m.Now != "2026-11-29T12:00:00.000Z" || len(m.Sessions) == 0 {
		t.Errorf("manifest mode %s seed %d now %s sessions %d", m.Mode, m.Seed, m.Now, len(m.Sessions))
	}
	// The demo cast, and the lineage cast made from it.
	want := fmt.Sprintf("wrote %d sessions (", 17+gencc.LineageSessions)
	if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), gencc.ManifestPath(home)) || errb.Len() != 0 {
		t.Errorf("stdout %q (want prefix %q), stderr %q", out.String(), want, errb.String())
	}
	for _, p := range []string{".claude/history.jsonl", ".claude.json", ".claude/settings.json", "src/api-server/.git/HEAD"} {
		if _, err := os.Stat(filepath.Join(home, filepath.FromSlash(p))); err != nil {
			t.Error(err)
		}
	}

	out.Reset()
	errb.Reset()
	if code := run(t.Context(), []string{"-home", home, "-append-percent", "20", "-now", "2026-11-29T13:00:00Z"}, nil, &out, &errb); code != 0 {
		t.Fatalf("append exit %d: %s", code, errb.String())
	}
	m, err = gencc.ReadManifest(home)
	if err != nil {
		t.Fatal(err)
	}
	n := 17 + gencc.LineageSessions
	if len(m.Appends) != 1 || len(m.Appends[0].Sessions) != (n*20+99)/100 {
		t.Errorf("appends %+v", m.Appends)
	}
	if !strings.HasPrefix(out.String(), "appended ") || !strings.Contains(out.String(), fmt.Sprintf(" to %d of %d transcripts", (n*20+99)/100, n)) {
		t.Errorf("stdout %q", out.String())
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1500000000", 1_500_000_000, true},
		{"1.5G", 1_500_000_000, true},
		{"200M", 200_000_000, true},
		{"64KiB", 65536, true},
		{"50MiB", 50 << 20, true},
		{"2GB", 2_000_000_000, true},
		{"10B", 10, true},
		{"", 0, false},
		{"-1M", 0, false},
		{"ten", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
