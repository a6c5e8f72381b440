package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWritesAHomeThenAppends(t *testing.T) {
	home := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-home", home, "-threads", "12", "-seed", "3", "-now", "2026-12-01T12:00:00Z"}, nil, &out, &errOut)
	if code != 0 || !strings.HasPrefix(out.String(), "gencodex: 12 threads in ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "session_index.jsonl")); err != nil {
		t.Error(err)
	}
	out.Reset()
	if code := run(context.Background(), []string{"-home", home, "-append-percent", "25"}, nil, &out, &errOut); code != 0 || out.String() != "gencodex: appended a turn to 3 threads\n" {
		t.Errorf("append: exit %d, stdout %q", code, out.String())
	}
	// A second generation into the same home is refused, not merged.
	if code := run(context.Background(), []string{"-home", home, "-threads", "12", "-seed", "3", "-now", "2026-12-01T12:00:00Z"}, nil, &out, &errOut); code != 1 {
		t.Errorf("a second run into the same home: exit %d, want 1", code)
	}
	for _, args := range [][]string{{}, {"-home", home, "extra"}, {"-home", home, "-now", "yesterday"}} {
		if code := run(context.Background(), args, nil, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
