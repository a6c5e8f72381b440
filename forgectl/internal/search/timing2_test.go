package search

import (
	"os"
	"testing"
	"time"
)

func TestTimingCold(t *testing.T) {
	home := os.Getenv("I11_HOME")
	if home == "" {
		t.Skip()
	}
	opt := Options{Projects: home + "/.claude/projects", Dir: "/tmp/i11-cold"}
	os.RemoveAll(opt.Dir)
	os.MkdirAll(opt.Dir, 0o700)
	t0 := time.Now()
	st := Stats{}
	ix, _, err := update(opt, &st)
	t.Logf("cold update %v %v %+v", time.Since(t0), err, st)
	ix.close()
}
