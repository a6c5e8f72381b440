// Package lineage decides where a Claude Code session came from: the
// session it was branched from (/branch), forked from (claude --resume X
// --fork-session) or continued after /clear, from markers a transcript
// reader collected (see transcript.Summary's Copied*, ClearedAt and
// ProcessSession) and the /clear lines of the prompt history. It reads no
// files: it is a pure function of what it is given.
//
// The markers, as the real CLI (2.1.332, 2.1.333) writes them:
//
//   - /branch copies the parent's rows into a new transcript, each with
//     "forkedFrom":{"sessionId":<parent>,...}.
//   - --fork-session copies the rows with sessionId rewritten and no
//     forkedFrom; every copied assistant row gains "requestSessionId": the
//     session that made the request, kept through later copies. So in a
//     fork of a fork, rows copied from the grandparent name it and rows the
//     parent added name the parent.
//   - Copies come first in the file, so the session named by the last
//     copied row is the nearest ancestor: the one whose rows this session
//     shares most (every ancestor's rows are a prefix of the next one's).
//   - /clear starts a new transcript, sharing no uuid with the old one, that
//     opens with a caveat row and the /clear command; its rows carry
//     "session_id": the id the process started with. After two /clears in
//     one process both new transcripts name the first session, so the
//     nearer parent comes from the prompt history, which logs /clear under
//     the session it cleared a few milliseconds before the new file's first
//     row, or else from the order of the continuations.
package lineage

import "time"

// The relations a session can have to its parent.
const (
	Branch = "branch"
	Fork   = "fork"
	Clear  = "clear"
)

// Marks are what a transcript says about its origin.
type Marks struct {
	// CopiedFrom is the other session named by the last copied row
	// (forkedFrom.sessionId, else requestSessionId); CopiedBy is Branch or
	// Fork accordingly.
	CopiedFrom, CopiedBy string
	// ClearedAt is when the /clear that opens the transcript ran (RFC 3339,
	// as the row records it); "" when it does not open with one.
	ClearedAt string
	// ProcessSession is the last session_id naming another session: for a
	// /clear continuation, the id its process started with.
	ProcessSession string
}

// Node is one session with its marks.
type Node struct {
	ID string
	Marks
}

// ClearEvent is one /clear line of the prompt history: the session it
// cleared and when (epoch ms).
type ClearEvent struct {
	SessionID string
	AtMs      int64
}

// Link is a decided parent.
type Link struct {
	Parent   string
	Relation string // Branch, Fork, Clear or ""
}

// clearWindow is how far before a continuation's first row the history's
// /clear line may be (observed: 2 to 30 ms; a loaded machine is slower).
const clearWindow = 5 * time.Second

// Decide gives a session's parent from its own marks and the history's
// /clear lines, so a listing can decide each row as it comes. A session
// copied from another is its branch or fork, whatever else it carries (a
// fork of a /clear continuation copies its /clear rows too). A /clear
// continuation's parent is the session the history logged the closest
// /clear under just before it began (the CLI logs it a few milliseconds
// before the new file's first row; closest also orders a chain of quick
// /clears in one process); without such a line, the session its process
// started as. A session never names itself.
func Decide(n Node, clears []ClearEvent) Link {
	switch {
	case n.CopiedFrom != "" && n.CopiedFrom != n.ID:
		return Link{n.CopiedFrom, n.CopiedBy}
	case n.ClearedAt == "":
		return Link{}
	}
	parent := ""
	if at := parseMs(n.ClearedAt); at > 0 {
		parent = fromHistory(n, at, clears)
	}
	if parent == "" && n.ProcessSession != n.ID {
		parent = n.ProcessSession
	}
	if parent == "" {
		return Link{}
	}
	return Link{parent, Clear}
}

// fromHistory finds the /clear line that made n: the closest to n's start,
// within clearWindow before it (or a second after: one machine's clocks,
// a row stamped a moment early).
func fromHistory(n Node, at int64, clears []ClearEvent) string {
	best := ""
	var bestGap int64
	for _, c := range clears {
		gap := at - c.AtMs
		if c.SessionID == n.ID || gap < -int64(time.Second/time.Millisecond) || gap > clearWindow.Milliseconds() {
			continue
		}
		if gap < 0 {
			gap = -gap
		}
		if best == "" || gap < bestGap {
			best, bestGap = c.SessionID, gap
		}
	}
	return best
}

func parseMs(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// IsClearCommand reports whether a history line's display text is a /clear
// (or its aliases /reset and /new, optionally with a name after it).
func IsClearCommand(display string) bool {
	for _, c := range []string{"/clear", "/reset", "/new"} {
		if display == c || len(display) > len(c) && display[:len(c)] == c && display[len(c)] == ' ' {
			return true
		}
	}
	return false
}
