package main

import (
	"context"
	"io"
	"os"
	"testing"
	"time"
)

func TestZZProfCold(t *testing.T) {
	h := os.Getenv("ZZ_HOME")
	if h == "" {
		t.Skip()
	}
	t.Setenv("HOME", h)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", os.Getenv("ZZ_CODEX"))
	fc := t.TempDir()
	t.Setenv("FORGECTL_CONFIG_DIR", fc)
	for i := 0; i < 3; i++ {
		os.Remove(fc + "/cache/transcripts.idx")
		os.RemoveAll(fc + "/cache")
		run(context.Background(), []string{"resume", "ls", "--json"}, nil, io.Discard, io.Discard)
	}
}

func TestZZRestore(t *testing.T) {
	h := os.Getenv("ZZ_RHOME")
	if h == "" {
		t.Skip()
	}
	t.Setenv("HOME", h)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "/nonexist")
	t.Setenv("FORGECTL_CONFIG_DIR", os.Getenv("ZZ_FC"))
	id := os.Getenv("ZZ_ID")
	var total time.Duration
	for i := 0; i < 30; i++ {
		run(context.Background(), []string{"resume", "archive", "--yes", id}, nil, io.Discard, io.Discard)
		s := time.Now()
		run(context.Background(), []string{"resume", "unarchive", "--keep-mtime", id}, nil, io.Discard, io.Discard)
		total += time.Since(s)
	}
	t.Logf("unarchive mean %v", total/30)
}
