package main

import (
	"flag"
	"strings"
	"time"

	"forgectl.dev/forgectl/internal/when"
	"forgectl.dev/shared/exitcode"
)

// dateFlags declares --since and --until on fs; the function it returns
// reads them into a window, or reports a bad value (exit 2) with the forms
// there are.
func dateFlags(a *app, fs *flag.FlagSet, cmd string) func() (when.Window, error) {
	since := fs.String("since", "", "only sessions last active at or after `WHEN` (2d, 3h, 2026-11-24, yesterday, monday)")
	until := fs.String("until", "", "only sessions last active at or before `WHEN` (a day counts whole)")
	return func() (when.Window, error) {
		w, err := when.Make(*since, *until, a.now(), a.location())
		if err != nil {
			a.errorf("%v", err)
			a.hintf("give %s (run 'forgectl %s--help')", when.Forms, cmd)
			return when.Window{}, exit(exitcode.Refused)
		}
		return w, nil
	}
}

// location is the time zone days are counted in: TZ's, as the C library
// reads it (":Area/City" too), else the system's.
func (a *app) location() *time.Location {
	tz := strings.TrimPrefix(a.getenv("TZ"), ":")
	if tz == "" {
		return time.Local
	}
	if loc, err := time.LoadLocation(tz); err == nil {
		return loc
	}
	return time.Local
}

// datesHelp is the --since and --until entry of every FLAGS list that has
// them.
const datesHelp = `  --since WHEN, --until WHEN
              only sessions last active (the transcript's last write) at or
              after, at or before WHEN: an age (90m, 3h, 2d, 1w: that long
              ago), a day (2026-11-24, today, yesterday, or a weekday name,
              monday or mon: the last one before today) or an RFC 3339 time.
              A day counts whole at both ends (--until 2026-11-24 keeps all
              of the 24th), in the local time zone (TZ). Decided on the
              files' modification times, so the transcripts left out are
              never read. A value neither form reads is refused (exit 2).
`
