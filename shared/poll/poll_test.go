package poll_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

// recorder is a testing.TB whose Fatalf records the message instead of
// ending the test, so a timeout can be looked at.
type recorder struct {
	testing.TB
	fatal []string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = append(r.fatal, fmt.Sprintf(format, args...))
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	r := &recorder{TB: t}
	n := 0
	poll.Until(r, poll.Long, "the third check", func() (bool, string) { n++; return n == 3, "" })
	if n != 3 || len(r.fatal) != 0 {
		t.Fatalf("checked %d times, failures %q", n, r.fatal)
	}
}

func TestUntilNamesWhatAndTheLastState(t *testing.T) {
	r := &recorder{TB: t}
	n := 0
	poll.Every(time.Millisecond).Until(r, 30*time.Millisecond, "the pane to draw", func() (bool, string) {
		n++
		return false, fmt.Sprintf("screen %d", n)
	})
	if len(r.fatal) != 1 {
		t.Fatalf("failures %q, want one", r.fatal)
	}
	msg := r.fatal[0]
	if !strings.Contains(msg, "timed out after 30ms waiting for the pane to draw") || !strings.HasSuffix(msg, fmt.Sprintf("screen %d", n)) {
		t.Errorf("message %q: want what was awaited and the last state, screen %d", msg, n)
	}

	r.fatal = nil
	poll.Every(time.Millisecond).Until(r, 0, "nothing to say", func() (bool, string) { return false, "" })
	if len(r.fatal) != 1 || r.fatal[0] != "timed out after 0s waiting for nothing to say" {
		t.Errorf("failures %q", r.fatal)
	}
}

func TestWaitAsksAtLeastOnceAndAfterTheDeadline(t *testing.T) {
	if !poll.Wait(0, func() bool { return true }) {
		t.Error("a condition that holds at once, with no time, was not seen")
	}
	if poll.Every(time.Millisecond).Wait(20*time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never holds was reported held")
	}
}
