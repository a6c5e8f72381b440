package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/cchome"
	"github.com/google/go-cmp/cmp"
)

// datesHome has four sessions at the edges of 2026-11-24 in Kolkata, and
// a run of forgectl whose clock reads 2026-11-25 10:00 there, in zone.
type datesHome struct {
	*testHome
	now time.Time
}

const (
	idDayStart  = "11111111-0000-4000-8000-000000000001" // 2026-11-24 00:00:00 Kolkata
	idDayBefore = "11111111-0000-4000-8000-000000000002" // 2026-11-23 23:59:59 Kolkata
	idNextDay   = "11111111-0000-4000-8000-000000000003" // 2026-11-25 00:00:00 Kolkata
	idRecent    = "11111111-0000-4000-8000-000000000004" // 3 h before now
)

func newDatesHome(t *testing.T) datesHome {
	kol, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	h := datesHome{testHome: newHome(t), now: time.Date(2026, 11, 25, 10, 0, 0, 0, kol)}
	cwd := h.repo("api")
	for id, at := range map[string]time.Time{
		idDayStart:  time.Date(2026, 11, 24, 0, 0, 0, 0, kol),
		idDayBefore: time.Date(2026, 11, 23, 23, 59, 59, 0, kol),
		idNextDay:   time.Date(2026, 11, 25, 0, 0, 0, 0, kol),
		idRecent:    h.now.Add(-3 * time.Hour),
	} {
		h.cc.Transcript(cwd, id, at, cchome.Prompt(cwd, id, "main", "cli", "prompt of "+id))
	}
	return h
}

// ids runs ls --json with the clock at h.now and days in zone, and
// returns the ids it printed.
func (h datesHome) ids(zone string, args ...string) ([]string, result) {
	h.t.Helper()
	a, rec := h.newTestApp(false, nil, map[string]string{"TZ": zone})
	a.now = func() time.Time { return h.now }
	code := a.run(context.Background(), append([]string{"resume", "ls", "--json"}, args...))
	r := result{code: code, stdout: rec.out.String(), stderr: rec.errb.String()}
	var ids []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if i := strings.Index(l, `"session_id":"`); i >= 0 {
			ids = append(ids, l[i+14:i+14+36])
		}
	}
	return ids, r
}

func TestLsSinceUntilDays(t *testing.T) {
	h := newDatesHome(t)
	for _, c := range []struct {
		zone string
		args []string
		want []string
	}{
		// A day is whole at both ends: its first instant is in, the
		// instant before it and the next midnight are not.
		{"Asia/Kolkata", []string{"--since", "2026-11-24"}, []string{idRecent, idNextDay, idDayStart}},
		{"Asia/Kolkata", []string{"--until", "2026-11-24"}, []string{idDayStart, idDayBefore}},
		{"Asia/Kolkata", []string{"--since", "2026-11-24", "--until", "2026-11-24"}, []string{idDayStart}},
		{"Asia/Kolkata", []string{"--since", "yesterday", "--until", "yesterday"}, []string{idDayStart}},
		// 2026-11-25 is a Wednesday: tuesday is the 24th, monday the 23rd.
		{"Asia/Kolkata", []string{"--since", "tuesday", "--until", "tue"}, []string{idDayStart}},
		{"Asia/Kolkata", []string{"--since", "monday", "--until", "monday"}, []string{idDayBefore}},
		{"Asia/Kolkata", []string{"--since", "3h"}, []string{idRecent}},
		{"Asia/Kolkata", []string{"--until", "3h"}, []string{idRecent, idNextDay, idDayStart, idDayBefore}},
		{"Asia/Kolkata", []string{"--since", "2d", "--until", "4h"}, []string{idNextDay, idDayStart, idDayBefore}},
		// In Los Angeles the same instants fall 13.5 hours earlier on the
		// clock: Kolkata's midnight of the 25th is 10:30 on the 24th there,
		// the other two are on the 23rd, and now is 20:30 on the 24th, so
		// yesterday is the 23rd.
		{"America/Los_Angeles", []string{"--since", "2026-11-24"}, []string{idRecent, idNextDay}},
		{"America/Los_Angeles", []string{"--until", "2026-11-23"}, []string{idDayStart, idDayBefore}},
		{"America/Los_Angeles", []string{"--since", "yesterday", "--until", "yesterday"}, []string{idDayStart, idDayBefore}},
	} {
		got, r := h.ids(c.zone, c.args...)
		if r.code != 0 {
			t.Fatalf("%s %v: exit %d: %s", c.zone, c.args, r.code, r.stderr)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s %v (-want +got):\n%s", c.zone, c.args, d)
		}
	}
}

// Sessions outside the dates are decided on the walk's mtimes: a cold
// listing reads only the transcripts inside them, and writes no index.
func TestLsSinceReadsOnlyWhatItShows(t *testing.T) {
	h := newDatesHome(t)
	_, r := h.ids("Asia/Kolkata", "--verbose", "--since", "3h")
	if !strings.Contains(r.stderr, "1 transcripts read, 0 from the index") {
		t.Fatalf("a --since listing read more than its one session: %s", r.stderr)
	}
	_, r = h.ids("Asia/Kolkata", "--verbose")
	if !strings.Contains(r.stderr, "4 transcripts read, 0 from the index") {
		t.Fatalf("the listing after it: %s", r.stderr)
	}
}

func TestDatesBadValues(t *testing.T) {
	h := newDatesHome(t)
	for _, args := range [][]string{
		{"resume", "ls", "--since", "last week"},
		{"resume", "ls", "--until", "2026-02-30"},
		{"resume", "search", "--since", "soon", "prompt"},
		{"resume", "--until", "3x", "api"},
	} {
		r := h.run(args...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", args, r.code, r.stdout)
		}
		if !strings.Contains(r.stderr, "forgectl: error: --") || !strings.Contains(r.stderr, "forgectl: hint: give 2d, 3h") || !strings.Contains(r.stderr, "yesterday") {
			t.Errorf("%v: stderr %q", args, r.stderr)
		}
	}
}

// A FILTER and a search see only the sessions inside the dates.
func TestResumeAndSearchSince(t *testing.T) {
	h := newDatesHome(t)
	run := func(args ...string) result {
		a, rec := h.newTestApp(false, nil, map[string]string{"TZ": "Asia/Kolkata"})
		a.now = func() time.Time { return h.now }
		code := a.run(context.Background(), args)
		return result{code: code, stdout: rec.out.String(), stderr: rec.errb.String()}
	}
	// "api" matches all four; the day leaves one, which resumes.
	r := run("resume", "--dry-run", "--since", "2026-11-24", "--until", "2026-11-24", "api")
	if r.code != 0 || !strings.Contains(r.stdout, idDayStart) {
		t.Fatalf("resume --since/--until api: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = run("resume", "search", "--since", "monday", "--until", "monday", "prompt")
	if r.code != 0 || !strings.Contains(r.stdout, idDayBefore) || strings.Count(r.stdout, "\n") != 2 {
		t.Fatalf("search --since monday: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = run("resume", "search", "--since", "1h", "prompt")
	if r.code != 1 || !strings.Contains(r.stderr, "4 session(s) hold it, last active outside --since/--until") {
		t.Fatalf("search outside the dates: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

// The picker lists only the sessions inside the dates.
func TestPickerSinceUntil(t *testing.T) {
	h := newDatesHome(t)
	p := &fakePicker{}
	a, rec := h.newTestApp(true, p, map[string]string{"TZ": "Asia/Kolkata"})
	a.now = func() time.Time { return h.now }
	code := a.run(context.Background(), []string{"resume", "--since", "tuesday", "--until", "2026-11-24"})
	if code != 0 || len(p.rows) != 1 || rec.exec == nil || !strings.Contains(strings.Join(rec.exec.argv, " "), idDayStart) {
		t.Fatalf("exit %d, rows %q, exec %+v: %s", code, p.rows, rec.exec, rec.errb.String())
	}
}
