package harness

import (
	"strings"
	"time"
)

// What a harness supplies for the picker's preview of a conversation: its
// newest turns, read from the end of the session's files only (Harness.
// Tail). A transcript reaches 100 MB; the preview of one must cost no more
// than a few milliseconds, so no harness reads a whole file for it.

// TurnKind says what a Turn is.
type TurnKind uint8

const (
	// TurnPrompt is what the person typed.
	TurnPrompt TurnKind = iota + 1
	// TurnReply is the agent's text reply.
	TurnReply
	// TurnTool is one tool call.
	TurnTool
)

// Turn is one step of a conversation as a preview shows it.
type Turn struct {
	Kind TurnKind
	// Text is a prompt on one line; a reply's opening lines (at most
	// ReplyLines, newlines kept); a tool call as one line, the tool's name
	// and its main argument ("Bash: go test ./...", "Edit: internal/x.go").
	Text string
	// Tool is a tool call's tool name.
	Tool string
	// At is when the row was written; zero when it does not say.
	At time.Time
}

// ReplyLines is how many opening lines of a reply a Turn keeps.
const ReplyLines = 4

// ReplyOpening is a reply's first ReplyLines lines that hold more than
// white space, each cut at 240 characters: a reply Turn's Text.
func ReplyOpening(t string) string {
	var lines []string
	for _, l := range strings.Split(t, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if r := []rune(l); len(r) > 240 {
			l = string(r[:240]) + "…"
		}
		lines = append(lines, l)
		if len(lines) == ReplyLines {
			break
		}
	}
	return strings.Join(lines, "\n")
}

// ToolLine is a tool call's Turn Text: its name, and its main argument on
// one line, cut at 160 characters, when it has one.
func ToolLine(name, arg string) string {
	arg = strings.Join(strings.Fields(arg), " ")
	if arg == "" {
		return name
	}
	if r := []rune(arg); len(r) > 160 {
		arg = string(r[:160]) + "…"
	}
	return name + ": " + arg
}

// TailBytes bounds how much of a session's files Tail reads, from their
// end: past it, the turns found so far are the preview. Lines of tool
// output run to megabytes; a bound keeps a preview of a 100 MB transcript
// whose tail is one huge output at a few milliseconds.
const TailBytes = 16 << 20

// Turns gathers a Tail's turns newest first, as a reader walking back
// from the end of a file finds them, up to a count of the lines a preview
// can show: a prompt or a reply counts one, and a run of tool calls counts
// one, since the preview folds it into one line.
type Turns struct {
	max   int
	n     int
	done  bool   // an older turn than a full run of tool calls came
	turns []Turn // newest first
}

// NewTurns gathers up to max preview lines' worth of turns.
func NewTurns(max int) *Turns { return &Turns{max: max} }

// Full says no further, older turn would be shown: the lines are
// counted out, and the oldest turn taken is not a tool call whose run an
// older call would join.
func (t *Turns) Full() bool {
	return t.done || t.n >= t.max && (len(t.turns) == 0 || t.turns[len(t.turns)-1].Kind != TurnTool)
}

// Add takes the next older turn; it reports whether more are wanted.
func (t *Turns) Add(x Turn) bool {
	// A tool call next to (newer than) a tool call joins its run; the run
	// counts once, when it begins.
	joins := x.Kind == TurnTool && len(t.turns) > 0 && t.turns[len(t.turns)-1].Kind == TurnTool
	if !joins {
		if t.n >= t.max {
			t.done = true
			return false
		}
		t.n++
	}
	t.turns = append(t.turns, x)
	return !t.Full()
}

// Oldest first: the turns in the order they happened.
func (t *Turns) Oldest() []Turn {
	out := make([]Turn, len(t.turns))
	for i, x := range t.turns {
		out[len(out)-1-i] = x
	}
	return out
}
