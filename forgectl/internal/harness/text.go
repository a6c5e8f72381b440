package harness

// Role says where a piece of searchable text came from.
type Role uint8

const (
	// Prompt is what the person typed.
	Prompt Role = iota + 1
	// Reply is an assistant text block.
	Reply
	// Tool is the input of a tool call (a command, a file path, a pattern).
	Tool
	// Name is a session name: custom title, agent name, AI title, summary.
	Name
)

func (r Role) String() string {
	switch r {
	case Prompt:
		return "prompt"
	case Reply:
		return "reply"
	case Tool:
		return "tool"
	case Name:
		return "name"
	}
	return "unknown"
}

// Message is one piece of the text search indexes: what a person typed
// and read in a session, decoded from the agent's files.
type Message struct {
	Role Role
	// At is when it was written (Unix milliseconds): the row's timestamp,
	// or for a name row (which has none) that of the newest prompt, reply
	// or tool call before it.
	At   int64
	Text string
}

// TextRead is what reading a session file's text from an offset found.
type TextRead struct {
	Msgs []Message
	// Offset is just past the last complete line: where the next read of
	// an appended file starts.
	Offset int64
	// LastAt is the newest timestamp seen (Unix milliseconds), for rows
	// that carry none.
	LastAt int64
}

// TextVersioner is a harness whose searchable text of a file depends on
// more than the file (Codex: a thread's names live in
// session_index.jsonl, which a rename appends to without touching the
// rollout). TextVersion is a number that changes when that other text
// does; search reads a file whose indexed version differs again whole.
type TextVersioner interface {
	TextVersion(path string) uint64
}
