package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"forgectl.dev/shared/msg"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// Run is the whole life of an ffcli binary's command tree, the one path
// every binary of the suite takes: Parse (the flag-value rule, then
// ffcli's parse), Run, and Finish for what either returned.
func (p *Program) Run(ctx context.Context, root *ffcli.Command, args []string) int {
	if err := Parse(root, args); err != nil {
		return p.Finish(root, err, true)
	}
	return p.Finish(root, root.Run(ctx), false)
}

// Parse is root.Parse(args) after the suite's one rule on flag values: a
// flag that takes a value (any flag but a boolean one, as its FlagSet
// says), written -x or --x without "=", must be followed by its value, and
// that value may be neither "--" nor a word starting with "-" (but "-"
// itself, the usual name of stdin). Otherwise it is bad usage naming the
// flag (MissingValue), since the flag package would take "--" or the next
// flag as the value: "restart --session --dry-run" would narrow to a
// session called "--dry-run" and not be a dry run. A value that starts
// with "-" is written --x=-v.
//
// ffcli parses each level's FlagSet in turn, the root's first, and hands
// what is left to the subcommand the first remaining word names; the
// check walks the tree the same way, so each word is checked against the
// flags of the FlagSet that will parse it. A word the flag package will
// refuse itself (an unknown flag, bad syntax, --help) ends the check: its
// error, the one the user hits first, is the flag package's to report.
func Parse(root *ffcli.Command, args []string) error {
	c, words := root, args
	for c != nil {
		rest, err := checkValues(c.FlagSet, words)
		if err != nil {
			return err
		}
		var next *ffcli.Command
		if len(rest) > 0 {
			next, words = chosen(c.Subcommands, rest[0]), rest[1:]
		}
		c = next
	}
	return root.Parse(args)
}

// checkValues checks the flags at the head of args that fs parses, as the
// flag package reads them, and returns the words after them (after the
// "--" that ends them, which the flag package drops), or nil when the
// flag package will stop with an error of its own.
func checkValues(fs *flag.FlagSet, args []string) ([]string, error) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if len(w) < 2 || w[0] != '-' {
			return args[i:], nil
		}
		if w == "--" {
			return args[i+1:], nil
		}
		// The flag package's reading: one or two dashes, then the name,
		// then "=value" or not.
		name := w[1:]
		if name[0] == '-' {
			name = name[1:]
		}
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, nil // bad syntax: the flag package's to report
		}
		name, _, inline := strings.Cut(name, "=")
		var f *flag.Flag
		if fs != nil {
			f = fs.Lookup(name)
		}
		if f == nil {
			return nil, nil // unknown, or --help: the flag package's
		}
		if inline {
			continue // --x=v carries its value, whatever it is
		}
		if !TakesValue(f) {
			continue
		}
		if i+1 == len(args) || args[i+1] == "--" {
			return nil, MissingValue(name, "")
		}
		if next := args[i+1]; strings.HasPrefix(next, "-") && next != "-" {
			return nil, MissingValue(name, next)
		}
		i++
	}
	return nil, nil
}

// chosen is the subcommand of cs that word names, as ffcli matches it
// (case folded), nil for none.
func chosen(cs []*ffcli.Command, word string) *ffcli.Command {
	for _, s := range cs {
		if strings.EqualFold(word, s.Name) {
			return s
		}
	}
	return nil
}

// TakesValue says whether a flag reads a value, as the flag package
// decides it: every flag but a boolean one.
func TakesValue(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// MissingValue is the bad usage of a value-taking flag given no value;
// next is the word that stood where the value belongs, "" for none (or
// for "--").
func MissingValue(name, next string) error {
	text := fmt.Sprintf("flag --%s needs a value", name)
	if next != "" {
		text += fmt.Sprintf(", and %s starts with \"-\" so it is not taken as one", msg.Quoted(next))
	}
	return &UsageError{Msg: text, Hint: fmt.Sprintf(`give it one: --%s VALUE, or --%s=VALUE for a value that starts with "-"`, name, name)}
}
