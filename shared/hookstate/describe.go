package hookstate

import "fmt"

// DescribeHook names a hook as messages and status show it:
// "hook 2: command say" or "hook 1: restart".
func DescribeHook(h *HookRef) string {
	if h == nil {
		return "no hook"
	}
	s := fmt.Sprintf("hook %d: %s", h.Position, h.Kind)
	if h.Program != "" {
		s += " " + h.Program
	}
	return s
}
