package main

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"strings"

	"forgectl.dev/shared/exitcode"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// completeCommand is the hidden command the completion scripts call:
// `forgectl __complete WORD... CURRENT` prints the candidates for CURRENT
// (possibly ""), one "value<TAB>description" per line. It is not in the
// roster and never fails loudly: a completion error must not scribble on
// the user's command line, so problems exit 1 with nothing printed.
const completeCommand = "__complete"

// candidate is one completion.
type candidate struct{ value, desc string }

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

// commandDesc is the one-line description completion shows per command.
var commandDesc = map[string]string{
	"resume": "pick or match a session and resume it", "ls": "list sessions without acting",
	"snapshot": "capture live sessions (the Stop hook)", "outdated": "live sessions running an older claude",
	"restart": "restart outdated sessions in their herdr panes", "hooks": "update hooks: run, status, install",
	"launch": "start claude here with this directory's profile", "doctor": "check that session rescue is wired",
	"init": "write config.toml, or wire the Stop hook", "completion": "print a shell completion script",
	"run": "fire the hooks if claude changed version", "status": "watcher, versions and last runs",
	"install": "install the watcher", "uninstall": "remove the watcher",
}

// completionTree is forgectl's roster: its own commands read from their
// flag sets, the siblings' from the table below (TestCompletionSiblings
// checks that table against each sibling's --help).
func (a *app) completionTree() *compNode {
	root := fromFFCLI(a.rootCommand())
	for _, n := range root.subs {
		switch n.name {
		case "resume":
			n.args = completeFilter
			n.subs = append(n.subs, siblingNodes()...)
			for _, s := range n.subs {
				if s.name == "ls" {
					s.args = completeFilter
				}
			}
		case "completion":
			n.args = func(_ *app, cur string) []candidate {
				return prefixed(cur, []candidate{{"bash", ""}, {"zsh", ""}, {"fish", ""}})
			}
		}
	}
	return root
}

func fromFFCLI(c *ffcli.Command) *compNode {
	n := &compNode{name: c.Name, desc: commandDesc[c.Name]}
	if c.FlagSet != nil {
		c.FlagSet.VisitAll(func(f *flag.Flag) {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			n.flags = append(n.flags, compFlag{name: f.Name, desc: f.Usage, takesValue: !(ok && b.IsBoolFlag())})
		})
	}
	n.flags = append(n.flags, compFlag{name: "help", desc: "print the manual"})
	for _, s := range c.Subcommands {
		n.subs = append(n.subs, fromFFCLI(s))
	}
	return n
}

// siblingNodes are the commands forgectl hands to its sibling binaries.
func siblingNodes() []*compNode {
	help := compFlag{name: "help", desc: "print the manual"}
	b := func(name, desc string) compFlag { return compFlag{name: name, desc: desc} }
	return []*compNode{
		{name: "snapshot", desc: commandDesc["snapshot"], flags: []compFlag{b("quiet", "print nothing"), b("version", "print the version"), help}},
		{name: "outdated", desc: commandDesc["outdated"], flags: []compFlag{b("json", "print a JSON array"), help}},
		{name: "restart", desc: commandDesc["restart"], flags: []compFlag{
			b("outdated", "act on the sessions resume outdated lists"),
			{name: "session", desc: "narrow the set to this session id", takesValue: true, values: completeLive},
			{name: "timeout", desc: "how long to wait for sessions to become safe to stop", takesValue: true},
			b("dry-run", "print the plan; reads only"), b("json", "print the outcomes as JSON"), help,
		}},
		{name: "hooks", desc: commandDesc["hooks"], flags: []compFlag{b("version", "print the version"), help}, subs: []*compNode{
			{name: "run", desc: commandDesc["run"], flags: []compFlag{b("dry-run", "show what would fire; start nothing"), help}},
			{name: "status", desc: commandDesc["status"], flags: []compFlag{b("json", "print one JSON object"), help}},
			{name: "install", desc: commandDesc["install"], flags: []compFlag{b("dry-run", "print the files; write nothing"), help}},
			{name: "uninstall", desc: commandDesc["uninstall"], flags: []compFlag{help}},
		}},
	}
}

// complete answers `forgectl __complete WORD...`.
func (a *app) complete(ctx context.Context, words []string) int {
	if len(words) == 0 {
		words = []string{""}
	}
	for _, c := range a.candidates(words) {
		if c.desc != "" {
			fmt.Fprintf(a.stdout, "%s\t%s\n", c.value, c.desc)
		} else {
			fmt.Fprintln(a.stdout, c.value)
		}
	}
	return exitcode.OK
}

// candidates walks the words before the last through the tree, then
// completes the last one.
func (a *app) candidates(words []string) []candidate {
	cur := words[len(words)-1]
	before := words[:len(words)-1]
	node := a.completionTree()
	var pending *compFlag // a flag whose value comes next
	positional, afterDashes := false, false
	for i := 0; i < len(before); i++ {
		w := before[i]
		switch {
		case pending != nil:
			pending = nil
		case w == "=":
			// bash splits --session=ID at the "=": the flag's value follows.
		case w == "--":
			afterDashes = true
		case strings.HasPrefix(w, "-") && !afterDashes:
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
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
	if strings.HasPrefix(cur, "-") && !afterDashes {
		if name, val, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			f := node.flag(name)
			if f == nil || f.values == nil {
				return nil
			}
			var out []candidate
			for _, c := range f.values(a, val) {
				out = append(out, candidate{"--" + name + "=" + c.value, c.desc})
			}
			return out
		}
		var out []candidate
		for _, f := range node.flags {
			if strings.HasPrefix("--"+f.name, cur) {
				out = append(out, candidate{"--" + f.name, f.desc})
			}
		}
		return out
	}
	var out []candidate
	if !positional {
		for _, s := range node.subs {
			if strings.HasPrefix(s.name, cur) {
				out = append(out, candidate{s.name, s.desc})
			}
		}
	}
	if node.args != nil {
		out = append(out, node.args(a, cur)...)
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
	var ids, words []candidate
	for _, r := range rows {
		if cur != "" && strings.HasPrefix(r.ID, cur) {
			desc := r.Repo
			if r.Name != "" {
				desc += ": " + r.Name
			}
			ids = append(ids, candidate{r.ID, desc})
		}
		for _, w := range []struct{ v, kind string }{{r.Name, "name"}, {r.Repo, "repo"}} {
			if w.v == "" || seen[w.v] || !strings.HasPrefix(strings.ToLower(w.v), lower) {
				continue
			}
			seen[w.v] = true
			words = append(words, candidate{w.v, w.kind})
		}
	}
	sort.SliceStable(words, func(i, j int) bool { return words[i].value < words[j].value })
	return append(ids, words...)
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
			out = append(out, candidate{id, "live"})
		}
	}
	return out
}
