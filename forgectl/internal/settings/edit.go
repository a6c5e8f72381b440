package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// group is the Stop entry forgectl adds, in the shape Claude Code's
// documentation gives; fields are in the order they are written.
type group struct {
	Hooks []command `json:"hooks"`
}

type command struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// ShapeError is a settings document whose hooks are not where Claude Code
// reads them (a "hooks" that is not an object, say). It is refused rather
// than repaired: the user's intent is unknown.
type ShapeError struct{ Msg string }

func (e *ShapeError) Error() string { return e.Msg }

// Result is an edit's outcome.
type Result struct {
	Out     []byte
	Changed bool
	// Existing is a Stop hook already doing the job, when AddStopHook found
	// one and changed nothing.
	Existing Hook
}

// AddStopHook adds a Stop group running cmd, unless a Stop hook that
// satisfies already (say, one running the snapshotter) is there. It edits
// the hooks Claude Code reads: the last "hooks" and its last "Stop".
// Empty data (a missing file) becomes a new document. Nothing outside the
// inserted text changes.
func AddStopHook(data []byte, cmd string, already func(Hook) bool) (Result, error) {
	prefix, text, eerr := editable(data)
	if eerr != nil {
		// A file this cannot rewrite may still hold the hook already.
		text, _ := decodeText(data)
		if res, err := addStopHook(text, cmd, already); err == nil && !res.Changed {
			return Result{Out: data, Existing: res.Existing}, nil
		}
		return Result{}, eerr
	}
	res, err := addStopHook(text, cmd, already)
	if len(prefix) > 0 && err == nil {
		res.Out = append(append([]byte{}, prefix...), res.Out...)
	}
	return res, err
}

func addStopHook(data []byte, cmd string, already func(Hook) bool) (Result, error) {
	entry := group{Hooks: []command{{Type: "command", Command: cmd}}}
	if len(bytes.TrimSpace(data)) == 0 {
		out := render(struct {
			Hooks struct {
				Stop []group `json:"Stop"`
			} `json:"hooks"`
		}{Hooks: struct {
			Stop []group `json:"Stop"`
		}{Stop: []group{entry}}}, "", "  ")
		return Result{Out: append(out, '\n'), Changed: true}, nil
	}
	root, err := parse(data)
	if err != nil {
		return Result{}, err
	}
	if root.kind != '{' {
		return Result{}, &ShapeError{"the document is not a JSON object"}
	}
	f := formatOf(data)
	_, hooks := root.last("hooks")
	if hooks == nil {
		val := struct {
			Stop []group `json:"Stop"`
		}{Stop: []group{entry}}
		return Result{Out: f.addMember(data, root, "hooks", val), Changed: true}, nil
	}
	if hooks.kind != '{' {
		return Result{}, &ShapeError{lastOf(root, "hooks", `"hooks"`) + " is not an object"}
	}
	_, stop := hooks.last("Stop")
	if stop == nil {
		return Result{Out: f.addMember(data, hooks, "Stop", []group{entry}), Changed: true}, nil
	}
	if stop.kind != '[' {
		return Result{}, &ShapeError{lastOf(hooks, "Stop", `"hooks"."Stop"`) + " is not an array"}
	}
	for _, h := range eventHooks("Stop", stop) {
		if already(h) {
			return Result{Out: data, Existing: h}, nil
		}
	}
	return Result{Out: f.addElem(data, stop, entry), Changed: true}, nil
}

// lastOf names a key for a message, saying which one counts when there
// are several: a person looking at the first would not see the problem.
func lastOf(obj *node, key, name string) string {
	if n := obj.count(key); n > 1 {
		return fmt.Sprintf("the last of the %d %s keys (the one Claude Code reads)", n, name)
	}
	return name
}

// eventHooks lists the command hooks of an event's groups, in document
// order, reading each group's last "hooks" as Claude Code does.
func eventHooks(event string, groups *node) []Hook {
	var out []Hook
	for _, g := range groups.elems {
		if g.kind != '{' {
			continue
		}
		_, hs := g.last("hooks")
		if hs == nil || hs.kind != '[' {
			continue
		}
		for _, n := range hs.elems {
			c, ok := commandOf(n)
			if !ok {
				continue
			}
			h := Hook{Event: event, Command: c}
			if _, args := n.last("args"); args != nil && args.kind == '[' {
				h.Exec, h.Args = true, []string{}
				for _, a := range args.elems {
					h.Args = append(h.Args, a.str)
				}
			}
			out = append(out, h)
		}
	}
	return out
}

// commandOf is the command of a {"type": "command", "command": ...} hook.
func commandOf(h *node) (string, bool) {
	if h.kind != '{' {
		return "", false
	}
	_, t := h.last("type")
	_, c := h.last("command")
	if c == nil || c.kind != '"' || (t != nil && (t.kind != '"' || t.str != "command")) {
		return "", false
	}
	return c.str, true
}

// isAdded reports a Stop group exactly as AddStopHook writes it: only a
// "hooks" array holding one {"type": "command", "command": C} with ours(C).
// A group a person extended is theirs now and stays.
func isAdded(g *node, ours func(string) bool) bool {
	if g.kind != '{' || len(g.members) != 1 || g.members[0].key != "hooks" {
		return false
	}
	hs := g.members[0].val
	if hs.kind != '[' || len(hs.elems) != 1 {
		return false
	}
	h := hs.elems[0]
	if len(h.members) != 2 || h.members[0].key != "type" || h.members[1].key != "command" {
		return false
	}
	c, ok := commandOf(h)
	return ok && ours(c)
}

// RemoveStopHook removes the Stop groups AddStopHook added (see isAdded),
// then a "Stop" left empty and a "hooks" left empty, so that adding and
// removing gives back the original bytes. Removed lists their commands.
func RemoveStopHook(data []byte, ours func(string) bool) (out []byte, removed []string, err error) {
	prefix, text, err := editable(data)
	if err != nil {
		return nil, nil, err
	}
	out, removed, err = removeStopHook(text, ours)
	if len(prefix) > 0 && err == nil {
		out = append(append([]byte{}, prefix...), out...)
	}
	return out, removed, err
}

func removeStopHook(data []byte, ours func(string) bool) (out []byte, removed []string, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return data, nil, nil
	}
	root, err := parse(data)
	if err != nil {
		return nil, nil, err
	}
	if root.kind != '{' {
		return nil, nil, &ShapeError{"the document is not a JSON object"}
	}
	hi, hooks := root.last("hooks")
	if hooks == nil || hooks.kind != '{' {
		return data, nil, nil
	}
	si, stop := hooks.last("Stop")
	if stop == nil || stop.kind != '[' {
		return data, nil, nil
	}
	var keep, drop []int
	for i, g := range stop.elems {
		if isAdded(g, ours) {
			drop = append(drop, i)
			c, _ := commandOf(g.members[0].val.elems[0])
			removed = append(removed, c)
		} else {
			keep = append(keep, i)
		}
	}
	if len(drop) == 0 {
		return data, nil, nil
	}
	// A key emptied of ours goes too, unless an earlier key of the same
	// name would then be the one Claude Code reads: that one stays hidden
	// behind an empty [] or {}.
	switch {
	case len(keep) > 0 || hooks.count("Stop") > 1:
		// Remove from the last element on, so separators stay right.
		out = data
		for k := len(drop) - 1; k >= 0; k-- {
			out = cutElem(out, spans(stop.elems), drop[k])
			stop = reparseStop(out)
		}
		return out, removed, nil
	case len(hooks.members) > 1 || root.count("hooks") > 1:
		return cutElem(data, memberSpans(hooks), si), removed, nil
	default:
		return cutElem(data, memberSpans(root), hi), removed, nil
	}
}

// reparseStop finds the Stop array again after an edit moved the offsets.
func reparseStop(data []byte) *node {
	root, err := parse(data)
	if err != nil {
		return nil
	}
	_, hooks := root.last("hooks")
	if hooks == nil {
		return nil
	}
	_, stop := hooks.last("Stop")
	return stop
}

// span is an element or member's bytes: from its first byte (a member's
// key) to its value's end.
type span struct{ start, end int }

func spans(ns []*node) []span {
	out := make([]span, len(ns))
	for i, n := range ns {
		out[i] = span{n.start, n.end}
	}
	return out
}

func memberSpans(n *node) []span {
	out := make([]span, len(n.members))
	for i, m := range n.members {
		out[i] = span{m.keyStart, m.val.end}
	}
	return out
}

// cutElem removes element i of a container with its separator: after the
// previous element's end, or up to the next element's start for the first.
// A container's only element takes the whitespace around it too, leaving
// "{}" or "[]".
func cutElem(data []byte, ss []span, i int) []byte {
	var from, to int
	switch {
	case i > 0:
		from, to = ss[i-1].end, ss[i].end
	case len(ss) > 1:
		from, to = ss[0].start, ss[1].start
	default:
		from, to = ss[0].start, ss[0].end
		for from > 0 && isSpace(data[from-1]) {
			from--
		}
		for to < len(data) && isSpace(data[to]) {
			to++
		}
	}
	out := make([]byte, 0, len(data)-(to-from))
	out = append(out, data[:from]...)
	return append(out, data[to:]...)
}

// format is how a document is laid out: one indent unit, or none at all
// for a document on one line.
type format struct {
	unit    string
	oneLine bool
	nl      string // "\r\n" in a file written on Windows, else "\n"
}

// formatOf finds the document's indent unit: the leading whitespace of its
// first indented line. Two spaces when nothing is indented yet.
func formatOf(data []byte) format {
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	if !bytes.Contains(bytes.TrimSpace(data), []byte("\n")) {
		return format{oneLine: true, nl: nl}
	}
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && strings.TrimSpace(trimmed) != "" && len(trimmed) < len(line) {
			return format{unit: line[:len(line)-len(trimmed)], nl: nl}
		}
	}
	return format{unit: "  ", nl: nl}
}

// lineIndent is the whitespace that starts the line holding offset pos.
func lineIndent(data []byte, pos int) string {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// childIndent is the indentation of a container's children: that of its
// first child when the child starts its own line, else one unit deeper
// than the container's line.
func (f format) childIndent(data []byte, c *node, firstChild int) string {
	if firstChild >= 0 && bytes.Contains(data[c.start:firstChild], []byte("\n")) {
		return lineIndent(data, firstChild)
	}
	return lineIndent(data, c.start) + f.unit
}

// insert puts text (a rendered member or element) last in container c,
// whose children start at firsts and end at lasts.
func (f format) insert(data []byte, c *node, first, last int, text func(indent string, compact bool) string) []byte {
	var ins string
	var at int
	multi := !f.oneLine && (first < 0 || bytes.Contains(data[c.start:first], []byte("\n")))
	switch {
	case first < 0 && !multi:
		at, ins = c.start+1, text("", true)
	case first < 0:
		ind := lineIndent(data, c.start)
		// Replace the empty interior ("{}", "{ }", "{\n}") in full.
		at = c.start + 1
		end := c.end - 1
		out := append([]byte{}, data[:at]...)
		out = append(out, strings.ReplaceAll("\n"+ind+f.unit+text(ind+f.unit, false)+"\n"+ind, "\n", f.nl)...)
		return append(out, data[end:]...)
	case !multi:
		at, ins = last, ","+text("", true)
	default:
		ind := f.childIndent(data, c, first)
		at, ins = last, ",\n"+ind+text(ind, false)
	}
	ins = strings.ReplaceAll(ins, "\n", f.nl)
	out := make([]byte, 0, len(data)+len(ins))
	out = append(out, data[:at]...)
	out = append(out, ins...)
	return append(out, data[at:]...)
}

func (f format) addMember(data []byte, obj *node, key string, val any) []byte {
	first, last := -1, -1
	if len(obj.members) > 0 {
		first, last = obj.members[0].keyStart, obj.members[len(obj.members)-1].val.end
	}
	return f.insert(data, obj, first, last, func(indent string, compact bool) string {
		k := string(render(key, "", ""))
		if compact {
			return k + ":" + string(render(val, "", ""))
		}
		return k + ": " + string(render(val, indent, f.unit))
	})
}

func (f format) addElem(data []byte, arr *node, val any) []byte {
	first, last := -1, -1
	if len(arr.elems) > 0 {
		first, last = arr.elems[0].start, arr.elems[len(arr.elems)-1].end
	}
	return f.insert(data, arr, first, last, func(indent string, compact bool) string {
		if compact {
			return string(render(val, "", ""))
		}
		return string(render(val, indent, f.unit))
	})
}

// render encodes v; an indent of "" is compact. HTML escaping is off so a
// command with & or < reads as typed.
func render(v any, prefix, indent string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("settings: encoding a fixed shape: %v", err)) // cannot happen: only strings and slices
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
