package cli

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// Text is the UsageFunc of a hand-written manual (forgectl's): the text
// as written, from its first line.
func Text(text string) func(*ffcli.Command) string {
	return func(*ffcli.Command) string { return strings.TrimLeft(text, "\n") }
}

// Manual is what a generated manual says beyond the command's own fields.
type Manual struct {
	// Title is the first line ("" for none).
	Title string
	// Tail is what follows the flags: field tables, EXIT STATUS.
	Tail string
	// HelpFlag lists --help after the command's own flags.
	HelpFlag bool
}

// Generated is the UsageFunc of a manual made from the command's fields,
// the text --help prints and the man page and doc.go are generated from:
//
//	Title
//
//	USAGE
//	  ShortUsage
//
//	LongHelp
//
//	COMMANDS (each subcommand's name and ShortHelp)
//
//	FLAGS (each flag, its value's name and a default that says something)
//
//	Tail
func Generated(manual func(*ffcli.Command) Manual) func(*ffcli.Command) string {
	return func(c *ffcli.Command) string { return Render(c, manual(c)) }
}

// Render is Generated's text for c.
func Render(c *ffcli.Command, m Manual) string {
	var b strings.Builder
	if m.Title != "" {
		fmt.Fprintf(&b, "%s\n\n", m.Title)
	}
	fmt.Fprintf(&b, "USAGE\n  %s\n\n", c.ShortUsage)
	if c.LongHelp != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(c.LongHelp))
	}
	if len(c.Subcommands) > 0 {
		b.WriteString("COMMANDS\n")
		tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
		for _, sc := range c.Subcommands {
			fmt.Fprintf(tw, "  %s\t%s\n", sc.Name, sc.ShortHelp)
		}
		tw.Flush()
		b.WriteString("\n")
	}
	var flags strings.Builder
	tw := tabwriter.NewWriter(&flags, 0, 2, 2, ' ', 0)
	if c.FlagSet != nil {
		c.FlagSet.VisitAll(func(f *flag.Flag) {
			name, use := flag.UnquoteUsage(f)
			arg := ""
			if name != "" {
				arg = " " + name
			}
			def := ""
			if name != "" && f.DefValue != "" && f.DefValue != "[]" && f.DefValue != "0s" {
				def = " (default " + f.DefValue + ")"
			}
			fmt.Fprintf(tw, "  --%s%s\t%s%s\n", f.Name, arg, use, def)
		})
	}
	tw.Flush()
	if m.HelpFlag {
		// Not aligned with the flags above: the manuals have always
		// printed it so.
		flags.WriteString("  --help  print this manual\n")
	}
	if flags.Len() > 0 {
		b.WriteString("FLAGS\n" + flags.String())
	}
	if tail := strings.TrimSpace(m.Tail); tail != "" {
		b.WriteString("\n" + tail)
	}
	return b.String()
}
