package settings

import (
	"bytes"
)

// Hook is one command hook a settings document wires.
type Hook struct {
	Event   string // "Stop", "SessionStart", …
	Command string
	// Exec is the exec form: with an "args" array Claude Code runs Command
	// with Args directly, no shell in between.
	Exec bool
	Args []string
}

// Hooks is what a settings document wires, read the way Claude Code reads
// it: the last of duplicate keys wins at every level (JSON.parse keeps the
// last), keys are case-sensitive, and a leading byte-order mark or UTF-16
// text is accepted.
type Hooks struct {
	// Disabled is "disableAllHooks": true.
	Disabled bool
	// List holds the command hooks, event by event in the order of the
	// events' keys, each event's in document order.
	List []Hook
}

// ReadHooks reads the command hooks of a settings document. Shapes that
// hold no command hook (a "hooks" that is not an object, a group without
// a "hooks" array) are skipped, not refused: Claude Code's schema grows
// every release and this only looks for hooks. Empty data has no hooks.
func ReadHooks(data []byte) (Hooks, error) {
	var h Hooks
	text, _ := decodeText(data)
	if len(bytes.TrimSpace(text)) == 0 {
		return h, nil
	}
	root, err := parse(text)
	if err != nil {
		return h, err
	}
	if root.kind != '{' {
		return h, &ShapeError{"the document is not a JSON object"}
	}
	if _, d := root.last("disableAllHooks"); d != nil && d.kind == 'v' && string(text[d.start:d.end]) == "true" {
		h.Disabled = true
	}
	_, hooks := root.last("hooks")
	if hooks == nil || hooks.kind != '{' {
		return h, nil
	}
	for i, ev := range hooks.members {
		if j, _ := hooks.last(ev.key); j != i || ev.val.kind != '[' {
			continue // a later key of the same name is the one read
		}
		h.List = append(h.List, eventHooks(ev.key, ev.val)...)
	}
	return h, nil
}
