// Package exitcode holds the one exit-status contract every forgectl binary
// follows, so that scripts and hooks can rely on it across releases.
//
// Callers must treat any code they do not recognise as a failure.
package exitcode

const (
	// OK means the command did what it was asked.
	OK = 0
	// Failed covers "no session matched", "the filter is ambiguous" and
	// "an action failed": all recover by changing the input or retrying.
	Failed = 1
	// Refused means the request names something the caller must fix first
	// (a live session, a bad launch_profile) or the usage was wrong.
	Refused = 2
	// Usage is bad usage (an unknown flag or command, a missing argument):
	// the same 2 as Refused, named for what the caller did.
	Usage = 2
	// Interrupted is the conventional 128+SIGINT, used when the user leaves
	// the picker with Esc or Ctrl-C, or presses Ctrl-C anywhere else.
	Interrupted = 130
	// Terminated is 128+SIGTERM: stopped by SIGTERM.
	Terminated = 143
)

// Table is the exit-status section shared by every --help text and the README.
const Table = `EXIT STATUS
  0    done
  1    no session matched, the filter was ambiguous, or an action failed
  2    refused (a live session, a bad [proxy] launch_profile) or bad usage
  130  interrupted (Esc or Ctrl-C in the picker, Ctrl-C or SIGINT elsewhere;
       a second Ctrl-C ends a command at once)
  143  stopped by SIGTERM
  Any other code is a failure.`
