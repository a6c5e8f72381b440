package config

import (
	"strings"
	"testing"
)

func TestResumeCostKeys(t *testing.T) {
	cfg, err := Parse("config.toml", []byte(`
[resume]
warn_context_tokens = 150000

[resume.prices]
"claude-opus-4" = { cache_write = 6.25, cache_read = 0.5 }
"claude-opus-4-5" = { cache_write = 7, cache_read = 1 }
"claude-sonnet-4-6" = { cache_write = 3.75 }
`))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Resume
	if r.WarnContextTokens != 150000 {
		t.Errorf("warn_context_tokens = %d", r.WarnContextTokens)
	}
	for _, c := range []struct {
		model string
		want  Price
		ok    bool
	}{
		{"claude-opus-4-5-20251101", Price{CacheWrite: 7, CacheRead: 1}, true}, // the longest name that begins it
		{"claude-opus-4-1", Price{CacheWrite: 6.25, CacheRead: 0.5}, true},
		{"claude-sonnet-4-6", Price{CacheWrite: 3.75}, true},
		{"claude-haiku-4-5", Price{}, false},
	} {
		if got, ok := r.PriceFor(c.model); got != c.want || ok != c.ok {
			t.Errorf("PriceFor(%q) = %+v %v, want %+v %v", c.model, got, ok, c.want, c.ok)
		}
	}
	if len(cfg.Ignored) != 0 {
		t.Errorf("ignored %v", cfg.Ignored)
	}
	// Off by default, and no price is compiled in.
	cfg, err = Parse("config.toml", []byte("[resume]\n"))
	if err != nil || cfg.Resume.WarnContextTokens != 0 || len(cfg.Resume.Prices) != 0 {
		t.Fatalf("empty [resume]: %+v %v", cfg.Resume, err)
	}
	if _, ok := cfg.Resume.PriceFor("claude-opus-4-5"); ok {
		t.Fatal("a price with no [resume.prices]")
	}
}

func TestResumeCostKeysRefuseNegatives(t *testing.T) {
	_, err := Parse("config.toml", []byte("[resume]\nwarn_context_tokens = -1\n\n[resume.prices]\nopus = { cache_write = -2 }\n"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"config.toml:2: [resume]: warn_context_tokens is -1", "config.toml:5: [resume.prices]: a price below zero"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
