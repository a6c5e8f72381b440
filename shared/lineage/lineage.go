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

import (
	"sort"
	"time"
)

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

// clearLate is how far after it the line may be: one machine's clocks, a
// row stamped a moment early.
const clearLate = time.Second

// Clears are the prompt history's /clear lines in time order, so that a
// continuation's line is found by a binary search: a home whose /clear
// chain is thousands long must not cost every continuation a scan of all
// of them.
type Clears struct {
	ev []ClearEvent
}

// NewClears orders the history's /clear lines by time; lines of one
// millisecond keep the history's order.
func NewClears(ev []ClearEvent) Clears {
	c := Clears{ev: append([]ClearEvent(nil), ev...)}
	sort.SliceStable(c.ev, func(a, b int) bool { return c.ev[a].AtMs < c.ev[b].AtMs })
	return c
}

// Decide gives a session's parent from its own marks and the history's
// /clear lines, so a listing can decide each row as it comes. A session
// copied from another is its branch or fork, whatever else it carries (a
// fork of a /clear continuation copies its /clear rows too). A /clear
// continuation's parent is the session the history logged the closest
// /clear under just before it began (the CLI logs it a few milliseconds
// before the new file's first row; closest also orders a chain of quick
// /clears in one process); without such a line, the session its process
// started as. A session never names itself.
func Decide(n Node, clears Clears) Link {
	switch {
	case n.CopiedFrom != "" && n.CopiedFrom != n.ID:
		return Link{n.CopiedFrom, n.CopiedBy}
	case n.ClearedAt == "":
		return Link{}
	}
	parent := ""
	if at := parseMs(n.ClearedAt); at > 0 {
		parent, _ = clears.closest(n.ID, at)
	}
	if parent == "" && n.ProcessSession != n.ID {
		parent = n.ProcessSession
	}
	if parent == "" {
		return Link{}
	}
	return Link{parent, Clear}
}

// closest is the session of the /clear line nearest at, within
// clearWindow before it or clearLate after it, that is not id's own. In
// the lines' order (time, then as logged) the nearest on each side of at
// compete, and on a tie the one before wins (the CLI logs it before the
// row). It also says how many lines it looked at: those two and the id's
// own lines next to them (a session logs few), never the whole history.
func (c Clears) closest(id string, at int64) (string, int) {
	looked := 0
	pos := sort.Search(len(c.ev), func(k int) bool { return c.ev[k].AtMs > at })
	before, after := -1, -1
	for k := pos - 1; k >= 0 && at-c.ev[k].AtMs <= clearWindow.Milliseconds(); k-- {
		looked++
		if c.ev[k].SessionID != id {
			before = k
			break
		}
	}
	for k := pos; k < len(c.ev) && c.ev[k].AtMs-at <= clearLate.Milliseconds(); k++ {
		looked++
		if c.ev[k].SessionID != id {
			after = k
			break
		}
	}
	switch {
	case before >= 0 && (after < 0 || at-c.ev[before].AtMs <= c.ev[after].AtMs-at):
		return c.ev[before].SessionID, looked
	case after >= 0:
		return c.ev[after].SessionID, looked
	}
	return "", looked
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
