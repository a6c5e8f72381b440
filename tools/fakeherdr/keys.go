package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tmuxKey is one herdr key translated for tmux: either a tmux key name
// (sent with send-keys) or literal bytes (sent with send-keys -H, which
// sidesteps tmux's own parsing of arguments such as ";").
type tmuxKey struct {
	name    string
	literal string
}

var namedKeys = map[string]string{
	"enter": "Enter", "return": "Enter",
	"esc": "Escape", "escape": "Escape",
	"tab": "Tab", "backtab": "BTab",
	"backspace": "BSpace", "bspace": "BSpace",
	"up": "Up", "down": "Down", "left": "Left", "right": "Right",
	"home": "Home", "end": "End",
	"pageup": "PPage", "pgup": "PPage", "pagedown": "NPage", "pgdn": "NPage",
	"delete": "DC", "del": "DC", "insert": "IC",
	"space": "Space",
	"f1":    "F1", "f2": "F2", "f3": "F3", "f4": "F4", "f5": "F5", "f6": "F6",
	"f7": "F7", "f8": "F8", "f9": "F9", "f10": "F10", "f11": "F11", "f12": "F12",
}

var literalKeys = map[string]string{"minus": "-", "plus": "+"}

// translateKey maps one herdr key name to tmux. Names are matched without
// regard to case; modifiers are ctrl+, alt+ and shift+ (shift only with tab),
// and tmux-style C-x / M-x are accepted as aliases.
func translateKey(key string) (tmuxKey, error) {
	bad := fmt.Errorf("unsupported key %s", key)
	if key == "" {
		return tmuxKey{}, bad
	}
	lower := strings.ToLower(key)
	if name, ok := namedKeys[lower]; ok {
		return tmuxKey{name: name}, nil
	}
	if lit, ok := literalKeys[lower]; ok {
		return tmuxKey{literal: lit}, nil
	}
	if utf8.RuneCountInString(key) == 1 {
		r, _ := utf8.DecodeRuneInString(key)
		if r >= 0x20 && r != 0x7f {
			return tmuxKey{literal: key}, nil
		}
		return tmuxKey{}, bad
	}
	var mod, base string
	switch {
	case strings.HasPrefix(lower, "ctrl+"):
		mod, base = "C-", key[len("ctrl+"):]
	case strings.HasPrefix(lower, "alt+"):
		mod, base = "M-", key[len("alt+"):]
	case strings.HasPrefix(lower, "shift+"):
		if strings.EqualFold(key[len("shift+"):], "tab") {
			return tmuxKey{name: "BTab"}, nil
		}
		return tmuxKey{}, bad
	case len(key) == 3 && (key[:2] == "C-" || key[:2] == "c-"):
		mod, base = "C-", key[2:]
	case len(key) == 3 && (key[:2] == "M-" || key[:2] == "m-"):
		mod, base = "M-", key[2:]
	default:
		return tmuxKey{}, bad
	}
	inner, err := translateKey(base)
	if err != nil || strings.Contains(base, "+") && len(base) > 1 {
		return tmuxKey{}, bad
	}
	switch {
	case inner.name != "":
		return tmuxKey{name: mod + inner.name}, nil
	case utf8.RuneCountInString(inner.literal) == 1 && inner.literal[0] < 0x80:
		c := inner.literal
		if mod == "C-" {
			// Control letters are case-insensitive in a terminal; tmux wants lower case.
			c = strings.ToLower(c)
		}
		return tmuxKey{name: mod + c}, nil
	}
	return tmuxKey{}, bad
}
