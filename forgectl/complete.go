package main

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/render"
	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/exitcode"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// completeCommand is the hidden command the completion scripts call. It
// never fails loudly: a completion error must not scribble on the user's
// command line, so problems exit 1 with nothing printed.
//
//	forgectl __complete WORD... CURRENT
//	    the words as the program would receive them; prints
//	    "value<TAB>description" per candidate for CURRENT (possibly "")
//	forgectl __complete --shell zsh|fish WORD... RAW
//	    the words before the cursor unquoted by the shell, and the one
//	    under it as typed (quotes, backslashes, an open quote), which is
//	    unquoted here by that shell's rules; the lines are for the script
//	    (see shellLines)
//	forgectl __complete --shell bash LINE TEXT
//	    bash's command line up to the cursor and the text readline
//	    replaces ($2 of a -F function): bash's own words split at
//	    COMP_WORDBREAKS (":", "="), so the line is read here; prints the
//	    COMPREPLY entries, quoted
//
// No line printed ever holds a control character: values that would
// are never offered, and descriptions are cleaned as the table is.
const completeCommand = "__complete"

// candidate is one completion.
type candidate struct {
	value, desc string
	// dash: a FILTER value starting with "-", which resume would read as
	// a flag; the shell puts it after "--", or else behind a quoted
	// space (the filter ignores surrounding blanks).
	dash bool
	// byID: the value is the session id standing in for a name the shell
	// can neither show nor give back exactly (control characters, outer
	// blanks); desc shows the name cleaned.
	byID bool
}

// compNode is a command as completion sees it.
type compNode struct {
	name  string
	desc  string
	flags []compFlag
	subs  []*compNode
	// args completes the positional words (FILTER, a shell name).
	args func(a *app, cur string) []candidate
}

type compFlag struct {
	name, desc string
	// takesValue: the next word is the flag's value.
	takesValue bool
	values     func(a *app, cur string) []candidate
}

// completionTree is the roster as completion sees it: forgectl's own
// commands with the flags their flag sets declare, the siblings' as
// cmd_siblings.go declares them.
func (a *app) completionTree() *compNode {
	cs := roster()
	return completionNode(a.rootCommand(cs), &command{subs: cs})
}

// completionNode is c's node, its flags read from n, its flag set.
func completionNode(n *ffcli.Command, c *command) *compNode {
	node := &compNode{name: n.Name, desc: c.desc, args: c.words}
	n.FlagSet.VisitAll(func(f *flag.Flag) {
		cf := compFlag{name: f.Name, desc: f.Usage, takesValue: cli.TakesValue(f)}
		if f.Name == "harness" {
			cf.values = completeHarness
		}
		node.flags = append(node.flags, cf)
	})
	node.flags = append(node.flags, helpFlag())
	for _, s := range c.subs {
		if s.sibling != nil {
			node.subs = append(node.subs, &compNode{name: s.name, desc: s.desc, flags: s.sibling.flags, subs: s.sibling.subs})
			continue
		}
		node.subs = append(node.subs, completionNode(subcommand(n, s.name), s))
	}
	return node
}

// complete answers `forgectl __complete [--shell SHELL] ARGS...`.
func (a *app) complete(ctx context.Context, args []string) int {
	sh := ""
	if len(args) >= 2 && args[0] == "--shell" {
		sh, args = args[1], args[2:]
	}
	var lines []string
	switch sh {
	case "":
		if len(args) == 0 {
			args = []string{""}
		}
		for _, c := range a.candidates(args) {
			lines = append(lines, c.value+"\t"+c.desc)
		}
	case "bash":
		if len(args) != 2 {
			return exitcode.Failed
		}
		lines = a.bashReplies(args[0], args[1])
	case "zsh", "fish":
		if len(args) == 0 {
			return exitcode.Failed
		}
		raw := args[len(args)-1]
		cur, state := shellWords(sh, raw, false)
		words := append(args[:len(args)-1:len(args)-1], cur[0])
		lines = shellLines(sh, state, a.candidates(words))
	default:
		return exitcode.Failed
	}
	for _, l := range lines {
		fmt.Fprintln(a.stdout, strings.TrimSuffix(l, "\t"))
	}
	return exitcode.OK
}

// bashReplies are the COMPREPLY entries for bash: readline replaces only
// text, the end of the word under the cursor (after an open quote, or
// after a ":" or "="), and keeps what the word had before it, so each
// entry is the rest of its value after that kept part, quoted as the word
// stands there; a value that does not extend the kept part is left out.
// Bash shows the entries themselves, without descriptions.
func (a *app) bashReplies(line, text string) []string {
	words, _ := shellWords("bash", line, true)
	if len(words) < 2 {
		return nil
	}
	k := len(line) - len(text)
	if k < 0 || line[k:] != text {
		return nil
	}
	keptWords, state := shellWords("bash", line[:k], true)
	if len(keptWords) != len(words) {
		return nil // text reaches into an earlier word: nothing safe to say
	}
	kept := keptWords[len(keptWords)-1]
	var out []string
	for _, c := range a.candidates(words[1:]) {
		v := c.value
		if c.dash {
			if kept == "" && state == unquoted {
				out = append(out, "-- "+bashQuote(v, unquoted))
				continue
			}
			v = " " + v
		}
		if rest, ok := cutPrefixFold(v, kept); ok {
			r := bashQuote(rest, state)
			// Readline closes an open quote after a sole match unless the
			// line already ends with that quote character, as it does
			// after an escaped or a reopened one: then close it here.
			if q := quoteClose(state); q != "" && strings.HasSuffix(line[:k]+r, q) {
				r += q
			}
			out = append(out, r)
		}
	}
	return out
}

// shellLines are what the zsh and fish scripts read, one candidate a
// line; the value is plain, for the shell quotes it itself as the word
// stands (zsh's compadd, fish's completion). Fish reads "value<TAB>
// description". Zsh reads "kind<TAB>value<TAB>display", kind telling the
// script how to add it: "" matched by zsh, "--" inserted after "-- " (a
// dash value, outside quotes), " " after a space (a dash value inside an
// open quote, where "--" cannot go), "id" replacing the word: byID values
// when there is nothing else (zsh drops a value that does not start with
// what was typed, and replacing the word beside other matches would cut
// it to their common start).
func shellLines(sh string, state quoteState, cs []candidate) []string {
	onlyByID := true
	for _, c := range cs {
		onlyByID = onlyByID && c.byID
	}
	var out []string
	for _, c := range cs {
		if sh == "fish" {
			v := c.value
			if c.dash {
				v = " " + v // fish inserts one word: no room for "--"
			}
			out = append(out, v+"\t"+c.desc)
			continue
		}
		kind := ""
		switch {
		case c.byID && onlyByID:
			kind = "id"
		case c.dash && state == unquoted:
			kind = "--"
		case c.dash:
			kind = " "
		}
		display := c.value
		if c.desc != "" {
			display += "  -- " + c.desc
		}
		out = append(out, kind+"\t"+c.value+"\t"+display)
	}
	return out
}

// cutPrefixFold is s after prefix, compared rune by rune regardless of
// case, as FILTER values are matched.
func cutPrefixFold(s, prefix string) (string, bool) {
	i := 0
	for _, p := range prefix {
		if i == len(s) {
			return "", false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != p && !strings.EqualFold(string(r), string(p)) {
			return "", false
		}
		i += n
	}
	return s[i:], true
}

// candidates completes the last of words. No value holding a control
// character is offered (one could only reach the terminal raw, or split a
// line), and descriptions are cleaned as the table cleans its cells: this
// is the one place every shell's output passes.
func (a *app) candidates(words []string) []candidate {
	out := a.walk(words)
	kept := out[:0]
	for _, c := range out {
		if !render.HasControl(c.value) {
			c.desc = render.Clean(c.desc)
			kept = append(kept, c)
		}
	}
	return kept
}

// walk walks the words before the last through the tree, then completes
// the last one.
func (a *app) walk(words []string) []candidate {
	cur := words[len(words)-1]
	before := words[:len(words)-1]
	node := a.completionTree()
	var pending *compFlag // a flag whose value comes next
	positional, afterDashes := false, false
	for i := 0; i < len(before); i++ {
		w := before[i]
		switch {
		case pending != nil:
			if pending.name == "harness" {
				// FILTER completion then offers that agent's sessions.
				a.narrowTo(w)
			}
			pending = nil
		case w == "=":
			// bash splits --session=ID at the "=": the flag's value follows.
		case w == "--":
			afterDashes = true
		case strings.HasPrefix(w, "-") && !afterDashes:
			name, val, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if name == "harness" && hasValue {
				a.narrowTo(val)
			}
			if f := node.flag(name); f != nil && f.takesValue && !hasValue {
				pending = f
				if i+1 < len(before) && before[i+1] == "=" {
					i++
				}
			}
		default:
			if sub := node.sub(w); sub != nil && !positional {
				node = sub
				continue
			}
			positional = true
		}
	}
	if pending != nil {
		if pending.values == nil {
			return nil
		}
		return pending.values(a, cur)
	}
	var out []candidate
	if strings.HasPrefix(cur, "-") && !afterDashes {
		if name, val, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			if f := node.flag(name); f != nil && f.values != nil {
				for _, c := range f.values(a, val) {
					out = append(out, candidate{value: "--" + name + "=" + c.value, desc: c.desc})
				}
			}
		} else {
			for _, f := range node.flags {
				if strings.HasPrefix("--"+f.name, cur) {
					out = append(out, candidate{value: "--" + f.name, desc: f.desc})
				}
			}
		}
	} else if !positional {
		for _, s := range node.subs {
			if strings.HasPrefix(s.name, cur) {
				out = append(out, candidate{value: s.name, desc: s.desc})
			}
		}
	}
	if node.args != nil {
		// A name or repo starting with "-" is offered too, even for a
		// word starting with "-", and marked: before "--" resume would
		// read it as a flag.
		for _, c := range node.args(a, cur) {
			c.dash = !afterDashes && strings.HasPrefix(c.value, "-")
			out = append(out, c)
		}
	}
	return out
}

func (n *compNode) sub(name string) *compNode {
	for _, s := range n.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (n *compNode) flag(name string) *compFlag {
	for i := range n.flags {
		if n.flags[i].name == name {
			return &n.flags[i]
		}
	}
	return nil
}

func prefixed(cur string, cs []candidate) []candidate {
	var out []candidate
	for _, c := range cs {
		if strings.HasPrefix(c.value, cur) {
			out = append(out, c)
		}
	}
	return out
}

// completeFilter offers FILTER values: with a word typed, the full ids it
// prefixes, then names and repos starting with it (any case); with none,
// only names and repos, since ten thousand ids help nobody. A word that
// looks like an id prefix and prefixes some transcript's name is answered
// from the names alone, without the listing.
func completeFilter(a *app, cur string) []candidate {
	if looksLikeIDPrefix(cur) {
		if ids := a.transcriptIDs(cur); len(ids) > 0 {
			out := make([]candidate, len(ids))
			for i, id := range ids {
				out[i] = candidate{value: id}
			}
			return out
		}
	}
	rows, err := a.completionSessions()
	if err != nil {
		return nil
	}
	lower := strings.ToLower(cur)
	seen := map[string]bool{}
	var ids, words, byID []candidate
	for _, r := range rows {
		desc := r.Repo
		if r.Name != "" {
			desc += ": " + r.Name
		}
		isID := cur != "" && strings.HasPrefix(r.ID, cur)
		if isID {
			ids = append(ids, candidate{value: r.ID, desc: desc})
		}
		name := r.Name
		if name != "" && (render.HasControl(name) || strings.TrimSpace(name) != name) {
			// Offered as its id, matched as the table shows the name: the
			// cleaned name, typed back, would match nothing or another
			// session, and the raw one must not reach the terminal.
			if !isID && strings.HasPrefix(strings.ToLower(render.Clean(name)), lower) {
				byID = append(byID, candidate{value: r.ID, desc: desc, byID: true})
			}
			name = ""
		}
		for _, w := range []struct{ v, kind string }{{name, "name"}, {r.Repo, "repo"}} {
			// A repo with a control character is not offered at all: a
			// repo filters by substring, so no id can stand in for it.
			if w.v == "" || seen[w.v] || render.HasControl(w.v) || !strings.HasPrefix(strings.ToLower(w.v), lower) {
				continue
			}
			seen[w.v] = true
			words = append(words, candidate{value: w.v, desc: w.kind})
		}
	}
	sort.SliceStable(words, func(i, j int) bool { return words[i].value < words[j].value })
	sort.SliceStable(byID, func(i, j int) bool { return byID[i].desc < byID[j].desc })
	return append(append(ids, words...), byID...)
}

// looksLikeIDPrefix: 4 or more characters of a session id (lowercase hex
// and dashes), the length the filter takes as an id prefix.
func looksLikeIDPrefix(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == '-') {
			return false
		}
	}
	return true
}

// completeLive offers the live sessions' ids for restart --session.
func completeLive(a *app, cur string) []candidate {
	var out []candidate
	for _, id := range a.liveSessionIDs() {
		if strings.HasPrefix(id, cur) {
			out = append(out, candidate{value: id, desc: "live"})
		}
	}
	return out
}

// completeHarness offers --harness's values.
func completeHarness(a *app, cur string) []candidate {
	var out []candidate
	for _, e := range harnessRoster() {
		if strings.HasPrefix(e.name, cur) {
			out = append(out, candidate{value: e.name, desc: a.harnessNamed(e.name).About().Desc})
		}
	}
	return out
}
