package poll

import (
	"testing"
	"time"
)

// fakeClock's time moves only by the pauses wait takes (and by what a
// condition adds), so these tests see the same sequence on any machine:
// with the real clock a busy machine could pass the deadline between two
// statements and change how many times the condition is asked.
type fakeClock struct{ at time.Time }

func (f *fakeClock) clock() clock {
	return clock{now: func() time.Time { return f.at }, sleep: func(d time.Duration) { f.at = f.at.Add(d) }}
}

func TestWaitAsksAfterThePauseThatPassesTheDeadline(t *testing.T) {
	f := &fakeClock{at: time.Unix(0, 0)}
	start := f.at
	var asked []time.Duration
	held := Every(50*time.Millisecond).wait(time.Millisecond, func() bool {
		asked = append(asked, f.at.Sub(start))
		return f.at.Sub(start) >= 50*time.Millisecond
	}, f.clock())
	if !held || len(asked) != 2 || asked[1] != 50*time.Millisecond {
		t.Errorf("held %v, asked at %v: want held, asked at 0 and again after the 50ms pause", held, asked)
	}
}

func TestWaitAsksEveryPauseUntilTheDeadline(t *testing.T) {
	f := &fakeClock{at: time.Unix(0, 0)}
	n := 0
	if Every(time.Millisecond).wait(20*time.Millisecond, func() bool { n++; return false }, f.clock()) {
		t.Error("a condition that never holds was reported held")
	}
	// Asked at 0, 1, ..., 20 ms: the last at the deadline itself.
	if n != 21 {
		t.Errorf("asked %d times, want 21", n)
	}
	if got := f.at.Sub(time.Unix(0, 0)); got != 20*time.Millisecond {
		t.Errorf("gave up at %v, want 20ms", got)
	}
}

func TestWaitDeadlinePassedWhileAsking(t *testing.T) {
	// A condition that itself takes past the deadline is not asked again.
	f := &fakeClock{at: time.Unix(0, 0)}
	n := 0
	if Every(time.Millisecond).wait(20*time.Millisecond, func() bool { n++; f.at = f.at.Add(time.Second); return false }, f.clock()) || n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
}
