// Package poll is how the suite's tests wait for something another process
// does: a file written, a screen drawn, a pid gone. One helper instead of a
// hand-rolled deadline loop in every test file, so that every wait checks
// its condition at least once after its time is up and every timeout says
// what it waited for and what it saw last.
//
// It is for tests only (it takes a testing.TB) and no binary links it; it
// needs nothing beyond the standard library.
package poll

import (
	"testing"
	"time"
)

// Every is the pause between two checks. A check that is cheap (a stat, a
// read of a small file) can be asked often; one that is costly (a tmux
// screen capture, a herdr call, with two cores shared by many tests) or
// must be sampled at its own pace keeps the interval it always had.
type Every time.Duration

// Default is the interval of Until and Wait.
const Default = Every(10 * time.Millisecond)

// Long is how long a test waits for something that will happen: a program
// starting, a screen drawing, a file appearing. It is one figure for the
// whole suite, sized for CI's 2-core machine shared with other jobs, where
// what takes 50 ms on an idle machine has been seen to take 15 s. A wait
// that succeeds returns as soon as its condition holds, so a generous
// figure costs nothing when the code is right; only a test that is already
// failing waits it out. It is not for a wait whose timeout is the expected
// outcome (that something does not happen): those stay short and only risk
// a false pass.
const Long = 60 * time.Second

// Until waits up to within for cond to hold, asking it every 10 ms. When
// time runs out it fails the test (Fatalf) with what it waited for and the
// state cond last reported ("" says nothing more).
func Until(t testing.TB, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	Default.Until(t, within, what, cond)
}

// Wait waits up to within for cond to hold, asking it every 10 ms, and
// reports whether it did: for a wait whose timeout is not a failure (a
// cleanup that kills what would not go) or that fails in its own words.
func Wait(within time.Duration, cond func() bool) bool {
	return Default.Wait(within, cond)
}

// Until is the package's Until, asking cond at this interval.
func (e Every) Until(t testing.TB, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	if !e.Wait(within, func() bool {
		var ok bool
		ok, last = cond()
		return ok
	}) {
		if last == "" {
			t.Fatalf("timed out after %v waiting for %s", within, what)
			return
		}
		t.Fatalf("timed out after %v waiting for %s; last seen:\n%s", within, what, last)
	}
}

// Wait is the package's Wait, asking cond at this interval. cond is asked
// at least once, and again after the last pause even when that pause ends
// past the deadline, so a late wake-up never fails a condition that holds.
func (e Every) Wait(within time.Duration, cond func() bool) bool {
	return e.wait(within, cond, clock{time.Now, time.Sleep})
}

// clock is where wait reads the time and pauses: the real one, or in the
// package's own tests one that moves only when told, so what they assert
// about the deadline does not depend on how busy the machine is.
type clock struct {
	now   func() time.Time
	sleep func(time.Duration)
}

func (e Every) wait(within time.Duration, cond func() bool, c clock) bool {
	deadline := c.now().Add(within)
	for {
		if cond() {
			return true
		}
		if !c.now().Before(deadline) {
			return false
		}
		c.sleep(time.Duration(e))
	}
}
