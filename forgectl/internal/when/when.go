// Package when reads the --since and --until values of ls, search and
// resume into a window of last-activity times.
//
// A value is an instant or a day. An instant is an age ("90m", "3h",
// "2d", "1w": that long before now) or an RFC 3339 time. A day is a date
// ("2026-11-24"), "today", "yesterday" or a weekday name ("tuesday" or
// "tue": the most recent such day before today, so on a Tuesday it is the
// Tuesday a week ago). Days are whole calendar days in the local time zone
// (TZ), and both bounds include them: --since DAY starts at its midnight,
// --until DAY ends at the next midnight. An instant bound includes the
// instant itself.
package when

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// Forms names the accepted values, for a hint.
const Forms = `2d, 3h, 90m, 1w (that long ago), 2026-11-24, today, yesterday, a weekday (monday or mon: the last one before today), or an RFC 3339 time`

// Window is a range of times: From (inclusive) up to To (exclusive). A
// zero bound is open.
type Window struct {
	From, To time.Time
}

// Open says the window keeps every time.
func (w Window) Open() bool { return w.From.IsZero() && w.To.IsZero() }

// Holds says t is inside the window.
func (w Window) Holds(t time.Time) bool {
	return (w.From.IsZero() || !t.Before(w.From)) && (w.To.IsZero() || t.Before(w.To))
}

// HoldsNs is Holds for a time in nanoseconds since the epoch (a file's
// mtime), without making a time.Time per file of a walk.
func (w Window) HoldsNs(ns int64) bool {
	return (w.From.IsZero() || ns >= w.From.UnixNano()) && (w.To.IsZero() || ns < w.To.UnixNano())
}

// Empty says no time fits (--since after --until).
func (w Window) Empty() bool { return !w.From.IsZero() && !w.To.IsZero() && !w.From.Before(w.To) }

// Make reads the two flag values ("" for none) at now, days in loc.
func Make(since, until string, now time.Time, loc *time.Location) (Window, error) {
	var w Window
	if since != "" {
		from, _, err := parse(since, now, loc)
		if err != nil {
			return Window{}, &Error{Flag: "since", Value: since, Err: err}
		}
		w.From = from
	}
	if until != "" {
		from, to, err := parse(until, now, loc)
		if err != nil {
			return Window{}, &Error{Flag: "until", Value: until, Err: err}
		}
		if to.IsZero() { // an instant: included
			to = from.Add(time.Nanosecond)
		}
		w.To = to
	}
	return w, nil
}

// Error is a value neither form reads.
type Error struct {
	Flag, Value string
	Err         error
}

func (e *Error) Error() string {
	return "--" + e.Flag + " " + strconv.Quote(e.Value) + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// parse reads one value: an instant (to zero) or a day [from, to).
func parse(s string, now time.Time, loc *time.Location) (from, to time.Time, err error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return time.Time{}, time.Time{}, errors.New("no value")
	}
	if d, ok, err := age(v); ok || err != nil {
		return now.Add(-d), time.Time{}, err
	}
	today := midnight(now.In(loc))
	switch v {
	case "today", "now":
		if v == "now" {
			return now, time.Time{}, nil
		}
		return day(today, 0)
	case "yesterday":
		return day(today, -1)
	}
	if wd, ok := weekday(v); ok {
		back := (int(today.Weekday()) - int(wd) + 7) % 7
		if back == 0 {
			back = 7 // the most recent one before today
		}
		return day(today, -back)
	}
	if t, err := time.ParseInLocation("2006-01-02", v, loc); err == nil {
		return day(t, 0)
	}
	if t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(v)); err == nil {
		return t, time.Time{}, nil
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04", strings.ToUpper(v), loc); err == nil {
		return t, time.Time{}, nil
	}
	return time.Time{}, time.Time{}, errors.New("not an age, a date, a day name or a time")
}

// age reads "<n><unit>" (m, h, d, w); ok is false for anything else.
func age(v string) (time.Duration, bool, error) {
	if len(v) < 2 || v[0] < '0' || v[0] > '9' {
		return 0, false, nil
	}
	units := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	unit, ok := units[v[len(v)-1]]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(v[:len(v)-1], 10, 32)
	if err != nil {
		return 0, false, nil // 2026-11-24 starts with digits too
	}
	if time.Duration(n) > (1<<62)/unit {
		return 0, true, errors.New("too long ago")
	}
	return time.Duration(n) * unit, true, nil
}

func weekday(v string) (time.Weekday, bool) {
	for d := time.Sunday; d <= time.Saturday; d++ {
		name := strings.ToLower(d.String())
		if v == name || v == name[:3] {
			return d, true
		}
	}
	return 0, false
}

func midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// day is the day n days from d (a midnight), as [its midnight, the next):
// time.Date normalises, so a day of 23 or 25 hours (DST) is whole.
func day(d time.Time, n int) (time.Time, time.Time, error) {
	from := time.Date(d.Year(), d.Month(), d.Day()+n, 0, 0, 0, 0, d.Location())
	to := time.Date(d.Year(), d.Month(), d.Day()+n+1, 0, 0, 0, 0, d.Location())
	return from, to, nil
}
