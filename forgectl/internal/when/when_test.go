package when

import (
	"errors"
	"testing"
	"time"
)

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

// A day is the local calendar day, both bounds inclusive of it, in time
// zones behind and ahead of UTC (Kolkata's is a half-hour offset).
func TestDaysInTimeZones(t *testing.T) {
	for _, zone := range []string{"America/Los_Angeles", "Asia/Kolkata"} {
		loc := mustLoad(t, zone)
		// Wednesday 2026-11-25, 10:00 local.
		now := time.Date(2026, 11, 25, 10, 0, 0, 0, loc)
		cases := []struct {
			since, until string
			from, to     time.Time
		}{
			{"2026-11-24", "", time.Date(2026, 11, 24, 0, 0, 0, 0, loc), time.Time{}},
			{"", "2026-11-24", time.Time{}, time.Date(2026, 11, 25, 0, 0, 0, 0, loc)},
			{"yesterday", "yesterday", time.Date(2026, 11, 24, 0, 0, 0, 0, loc), time.Date(2026, 11, 25, 0, 0, 0, 0, loc)},
			{"today", "", time.Date(2026, 11, 25, 0, 0, 0, 0, loc), time.Time{}},
			// The most recent Wednesday before today is a week ago.
			{"wednesday", "Wed", time.Date(2026, 11, 18, 0, 0, 0, 0, loc), time.Date(2026, 11, 19, 0, 0, 0, 0, loc)},
			{"monday", "", time.Date(2026, 11, 23, 0, 0, 0, 0, loc), time.Time{}},
			{"thu", "", time.Date(2026, 11, 19, 0, 0, 0, 0, loc), time.Time{}},
		}
		for _, c := range cases {
			w, err := Make(c.since, c.until, now, loc)
			if err != nil {
				t.Fatalf("%s: Make(%q, %q): %v", zone, c.since, c.until, err)
			}
			if !w.From.Equal(c.from) || !w.To.Equal(c.to) {
				t.Errorf("%s: Make(%q, %q) = [%v, %v), want [%v, %v)", zone, c.since, c.until, w.From, w.To, c.from, c.to)
			}
		}
	}
}

// The boundaries: a day's first and last nanosecond are in it, the next
// midnight is not; an age's instant is included by both flags.
func TestBoundaries(t *testing.T) {
	loc := mustLoad(t, "Asia/Kolkata")
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, loc)
	w, err := Make("2026-11-24", "2026-11-24", now, loc)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 24, 0, 0, 0, 0, loc)
	for _, c := range []struct {
		t    time.Time
		want bool
	}{
		{start.Add(-time.Nanosecond), false},
		{start, true},
		{start.Add(24*time.Hour - time.Nanosecond), true},
		{start.Add(24 * time.Hour), false},
		// 23:59 UTC on the 23rd is 05:29 on the 24th in Kolkata.
		{time.Date(2026, 11, 23, 23, 59, 0, 0, time.UTC), true},
		// 18:30 UTC on the 24th is midnight of the 25th there.
		{time.Date(2026, 11, 24, 18, 30, 0, 0, time.UTC), false},
	} {
		if got := w.Holds(c.t); got != c.want {
			t.Errorf("Holds(%v) = %v, want %v", c.t, got, c.want)
		}
		if got := w.HoldsNs(c.t.UnixNano()); got != c.want {
			t.Errorf("HoldsNs(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	w, err = Make("2h", "2h", now, loc)
	if err != nil {
		t.Fatal(err)
	}
	at := now.Add(-2 * time.Hour)
	if !w.Holds(at) || w.Holds(at.Add(time.Nanosecond)) || w.Holds(at.Add(-time.Nanosecond)) {
		t.Errorf("2h..2h holds only %v: %+v", at, w)
	}
}

// A day across a DST change is its 23 or 25 hours, not 24.
func TestDaylightSaving(t *testing.T) {
	loc := mustLoad(t, "America/Los_Angeles")
	now := time.Date(2026, 11, 3, 12, 0, 0, 0, loc)
	w, err := Make("2026-11-01", "2026-11-01", now, loc) // clocks go back that night
	if err != nil {
		t.Fatal(err)
	}
	if got := w.To.Sub(w.From); got != 25*time.Hour {
		t.Errorf("2026-11-01 in Los Angeles lasts %v, want 25h", got)
	}
}

func TestAgesAndTimes(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Time{
		"2d":                   now.Add(-48 * time.Hour),
		"3h":                   now.Add(-3 * time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
		"1w":                   now.Add(-7 * 24 * time.Hour),
		"2026-11-20T08:00:00Z": time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC),
		"2026-11-20T08:00":     time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC),
	} {
		w, err := Make(v, "", now, time.UTC)
		if err != nil || !w.From.Equal(want) {
			t.Errorf("Make(%q) = %v, %v; want %v", v, w.From, err, want)
		}
	}
}

func TestBadValues(t *testing.T) {
	now := time.Now()
	for _, v := range []string{"x", "2 days", "2y", "2026-13-01", "-2d", "funday", "99999999999d", " "} {
		_, err := Make("", v, now, time.UTC)
		var e *Error
		if !errors.As(err, &e) || e.Flag != "until" || e.Value != v {
			t.Errorf("Make(until %q) = %v, want an *Error naming --until", v, err)
		}
	}
}
