package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"forgectl.dev/shared/cli"
	"forgectl.dev/shared/exitcode"
	"forgectl.dev/shared/msg"
	"forgectl.dev/shared/version"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// command is one of forgectl's commands, declared once, in the file named
// for it (cmd_ls.go, cmd_launch_doctor.go, cmd_siblings.go ...). Everything
// that lists the commands is made from these declarations: the command
// tree, the root help's USAGE lines, completion's words and descriptions,
// the usage hint (cli.Path walks the tree), which commands take flags
// after their words (flagsFirst), the dispatch to the sibling binaries and
// the manual (doc.go and forgectl.1, TestManual). TestRoster checks each
// of them, and the README's command table, against the tree.
type command struct {
	name string
	// desc is the line completion shows beside the name.
	desc string
	// usage are the command's lines in the root help's USAGE: what to
	// type and what it does.
	usage []usageLine
	// help is the manual --help prints; nil for a sibling's command,
	// whose binary prints its own.
	help func() string
	// flags declares the command's flags on fs and returns what it runs.
	flags func(a *app, fs *flag.FlagSet) func(ctx context.Context, args []string) error
	// words completes the positional words (a FILTER, a shell name).
	words func(a *app, cur string) []candidate
	// interspersed: flags may follow the words ("resume api --dry-run"),
	// and flagsFirst moves them ahead for the flag package.
	interspersed bool
	subs         []*command
	// sibling is set for a command another binary runs.
	sibling *sibling
}

type usageLine struct{ text, what string }

// roster is forgectl's commands, in the order the root help and the
// manual list them.
func roster() []*command {
	return []*command{resumeCommand(), launchCommand(), doctorCommand(), initCommand(), completionCommand()}
}

// walkRoster calls fn for every command, parents before children, with
// its words after "forgectl".
func walkRoster(cs []*command, fn func(path []string, c *command)) {
	var walk func(prefix []string, cs []*command)
	walk = func(prefix []string, cs []*command) {
		for _, c := range cs {
			path := append(append([]string(nil), prefix...), c.name)
			fn(path, c)
			walk(path, c.subs)
		}
	}
	walk(nil, cs)
}

// rootCommand is the ffcli tree of forgectl's own commands (the siblings'
// are dispatched before it is built).
func (a *app) rootCommand(cs []*command) *ffcli.Command {
	fs := a.prog.FlagSet("forgectl")
	showVersion := fs.Bool("version", false, "print the version")
	help := rootHelp(cs)
	root := &ffcli.Command{
		Name:      "forgectl",
		FlagSet:   fs,
		UsageFunc: cli.Text(help),
		Exec: func(ctx context.Context, args []string) error {
			if *showVersion {
				fmt.Fprintf(a.stdout, "forgectl %s\n", version.String())
				return nil
			}
			if len(args) > 0 {
				a.errorf("unknown command %s", msg.Quoted(args[0]))
				a.hintf("run 'forgectl --help' for the list of commands")
				return exit(exitcode.Usage)
			}
			fmt.Fprint(a.stdout, strings.TrimLeft(help, "\n"))
			return nil
		},
	}
	for _, c := range cs {
		root.Subcommands = append(root.Subcommands, a.build(nil, c))
	}
	return root
}

// build makes a command's ffcli node; a sibling's command has none.
func (a *app) build(prefix []string, c *command) *ffcli.Command {
	path := append(append([]string(nil), prefix...), c.name)
	fs := a.prog.FlagSet(strings.Join(path, " "))
	n := &ffcli.Command{Name: c.name, FlagSet: fs, UsageFunc: cli.Text(c.help()), Exec: c.flags(a, fs)}
	for _, s := range c.subs {
		if s.sibling == nil {
			n.Subcommands = append(n.Subcommands, a.build(path, s))
		}
	}
	return n
}

// rootHelp is forgectl --help: its USAGE lines are the roster's.
func rootHelp(cs []*command) string {
	var b strings.Builder
	b.WriteString("\nforgectl — get back into your Claude Code sessions\n\nUSAGE\n")
	walkRoster(cs, func(_ []string, c *command) {
		for _, u := range c.usage {
			if len(u.text) >= 32 {
				// Too long for the column: the description goes under it.
				fmt.Fprintf(&b, "  %s\n  %-32s%s\n", u.text, "", u.what)
				continue
			}
			fmt.Fprintf(&b, "  %-32s%s\n", u.text, u.what)
		}
	})
	b.WriteString(`
  forgectl --version              print the version
  forgectl COMMAND --help         the manual of one command

` + exitcode.Table + `

ENVIRONMENT
  CLAUDE_CONFIG_DIR     Claude Code's directory (default ~/.claude)
  FORGECTL_CONFIG_DIR   forgectl's directory (default ~/.config/forgectl, or
                        ~/Library/Application Support/forgectl on macOS)
  FORGECTL_CLAUDE_BIN   the claude to run (else [launch] binary_path, else PATH)
  CODEX_HOME            the Codex CLI's directory (default ~/.codex)
  FORGECTL_CODEX_BIN    the codex to run (else [resume] codex_binary_path,
                        else PATH)
`)
	return b.String()
}

// manualPaths are the commands with a manual of their own, the root's
// first, in the order doc.go and forgectl.1 read.
func manualPaths() [][]string {
	out := [][]string{{}}
	walkRoster(roster(), func(path []string, c *command) {
		if c.sibling == nil {
			out = append(out, path)
		}
	})
	return out
}

// flagsFirst lets flags follow the filter, as people type them
// ("forgectl resume api --dry-run"): the flag package stops at the first
// word, so for the commands the roster declares interspersed (resume and
// its subcommands ls and search) the flags are moved ahead of the words,
// and "--" is put before the words so that one starting with "-" (after
// the user's own "--") stays a word.
//
// Which flags take a value is read from the FlagSets the commands declare
// (cli.TakesValue), so a new flag cannot be missed: such a flag keeps the
// word after it, unless that word starts with "-". A value that starts
// with "-" is written --flag=-x, or --flag -- -x: the user's "--" ends the
// flags, and the flag before it takes the first word after it, passed on
// as --flag=-x. A flag whose value is missing is left as it stands, next
// to the flag or the "--" that follows it, for cli.Parse's one rule on
// flag values to refuse ("resume --search" must not search for "--").
func flagsFirst(root *ffcli.Command, cs []*command, args []string) []string {
	if len(args) == 0 {
		return args
	}
	decl, cmd := declared(cs, args[0]), subcommand(root, args[0])
	if decl == nil || !decl.interspersed || cmd == nil {
		return args
	}
	path := []string{args[0]}
	rest := args[1:]
	at := decl // the declaration of the deepest command in path
	var flags, words []string
	for k := 0; k < len(rest); k++ {
		w := rest[k]
		if w == "--" {
			words = append(words, rest[k+1:]...)
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			// The first words may name subcommands, after flags too:
			// "forgectl resume --json ls" is still ls, and "forgectl
			// resume trash restore X" is trash's restore.
			if sub := subcommand(cmd, w); sub != nil && len(words) == 0 {
				if d := declared(at.subs, w); d != nil && d.interspersed {
					path, cmd, at = append(path, w), sub, d
					continue
				}
			}
			words = append(words, w)
			continue
		}
		flags = append(flags, w)
		name, _, inline := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-"), "=")
		f := cmd.FlagSet.Lookup(name)
		if f == nil || inline || !cli.TakesValue(f) || k+1 == len(rest) {
			// An unknown flag is the flag package's to report, a value
			// missing at the end cli.Parse's.
			continue
		}
		switch next := rest[k+1]; {
		case next == "--" && k+2 < len(rest) && rest[k+2] != "--":
			// The user's "--" ends the flags; the flag before it takes
			// the first word after it ("--" itself is never a value).
			flags[len(flags)-1] = w + "=" + rest[k+2]
			words = append(words, rest[k+3:]...)
			k = len(rest)
		case strings.HasPrefix(next, "-") && next != "-":
			// Not a value: left next to the flag for cli.Parse to refuse.
		default:
			flags = append(flags, next)
			k++
		}
	}
	out := append(append(path, flags...), "--")
	return append(out, words...)
}

func subcommand(c *ffcli.Command, name string) *ffcli.Command {
	for _, s := range c.Subcommands {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// declared is the command of cs named name, nil for none.
func declared(cs []*command, name string) *command {
	for _, c := range cs {
		if c.name == name {
			return c
		}
	}
	return nil
}
