package cli

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// valueTree is a root, a subcommand and its subcommand, each with a flag
// that takes a value and a boolean one; each Exec records what it got.
func valueTree(p *Program, got *string) *ffcli.Command {
	exec := func(name string, fs *flag.FlagSet) func(context.Context, []string) error {
		return func(_ context.Context, args []string) error {
			var b strings.Builder
			b.WriteString(name)
			fs.Visit(func(f *flag.Flag) { b.WriteString(" " + f.Name + "=" + f.Value.String()) })
			for _, a := range args {
				b.WriteString(" [" + a + "]")
			}
			*got = b.String()
			return nil
		}
	}
	node := func(name, value string, subs ...*ffcli.Command) *ffcli.Command {
		fs := p.FlagSet(name)
		fs.String(value, "", "a value")
		fs.Bool("all", false, "a switch")
		return &ffcli.Command{Name: name, FlagSet: fs, UsageFunc: Text(name + " manual\n"), Exec: exec(name, fs), Subcommands: subs}
	}
	return node("root", "config", node("resume", "limit", node("ls", "session")))
}

// TestParseValues: a flag that takes a value, written without "=", is bad
// usage naming it when its value is missing, "--" or a word starting with
// "-", at whichever level of the tree the flag's FlagSet parses it; "=" and
// "-" give values, and the flag package's own errors still come first.
func TestParseValues(t *testing.T) {
	hint := func(name string) string {
		return "forgectl: hint: give it one: --" + name + " VALUE, or --" + name + `=VALUE for a value that starts with "-"` + "\n"
	}
	missing := func(name string) string { return "forgectl: error: flag --" + name + " needs a value\n" + hint(name) }
	notValue := func(name, next string) string {
		return "forgectl: error: flag --" + name + " needs a value, and " + next + ` starts with "-" so it is not taken as one` + "\n" + hint(name)
	}
	for _, c := range []struct {
		args   []string
		code   int
		ran    string // what Exec recorded, for code 0
		stderr string
	}{
		{[]string{"--config"}, 2, "", missing("config")},
		{[]string{"--config", "--all"}, 2, "", notValue("config", `"--all"`)},
		{[]string{"-config", "--", "resume"}, 2, "", missing("config")},
		{[]string{"resume", "--limit", "--all"}, 2, "", notValue("limit", `"--all"`)},
		{[]string{"resume", "--all", "ls", "--session", "--all"}, 2, "", notValue("session", `"--all"`)},
		{[]string{"resume", "ls", "--session", "--"}, 2, "", missing("session")},
		{[]string{"resume", "ls", "--session", "--", "x"}, 2, "", missing("session")},
		{[]string{"resume", "ls", "--all", "--session"}, 2, "", missing("session")},
		{[]string{"resume", "ls", "--session", "-x"}, 2, "", notValue("session", `"-x"`)},
		{[]string{"resume", "ls", "--session", "-" + strings.Repeat("y", 500)}, 2, "", notValue("session", `"-`+strings.Repeat("y", 78)+`…"`)},
		// The root's "--" ends its flags, and ffcli still takes the next
		// word as the subcommand; so does the check. Names fold as ffcli
		// folds them.
		{[]string{"--", "resume", "ls", "--session"}, 2, "", missing("session")},
		{[]string{"RESUME", "Ls", "--session"}, 2, "", missing("session")},
		// The flag package's errors before the missing value stay its own.
		{[]string{"resume", "--bogus", "ls", "--session"}, 2, "", "forgectl: error: flag provided but not defined: -bogus\nforgectl: hint: run 'forgectl resume --help' for usage\n"},
		{[]string{"resume", "---limit", "--all"}, 2, "", "forgectl: error: bad flag syntax: ---limit\nforgectl: hint: run 'forgectl resume --help' for usage\n"},
		{[]string{"resume", "ls", "--help", "--session"}, 0, "", ""},
		// Values.
		{[]string{"resume", "ls", "--session=--all"}, 0, "ls session=--all", ""},
		{[]string{"resume", "ls", "--session=", "--all"}, 0, "ls all=true session=", ""},
		{[]string{"resume", "ls", "--session", "-"}, 0, "ls session=-", ""},
		{[]string{"resume", "ls", "-session", "s1", "--all", "x"}, 0, "ls all=true session=s1 [x]", ""},
		{[]string{"--config", "c", "resume", "--limit", "3", "ls", "--session", "s"}, 0, "ls session=s", ""},
		// After the flags, a word is a word.
		{[]string{"resume", "ls", "x", "--session"}, 0, "ls [x] [--session]", ""},
		{[]string{"resume", "ls", "--", "--session"}, 0, "ls [--session]", ""},
	} {
		var out, errb bytes.Buffer
		p := &Program{Command: "forgectl", Stdout: &out, Stderr: &errb}
		var ran string
		code := p.Run(context.Background(), valueTree(p, &ran), c.args)
		if code != c.code || ran != c.ran || errb.String() != c.stderr {
			t.Errorf("%q: exit %d, ran %q, stderr %q; want %d, %q, %q", c.args, code, ran, errb.String(), c.code, c.ran, c.stderr)
		}
	}
}

// TestTakesValue reads the flag package's own distinction.
func TestTakesValue(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("b", false, "")
	fs.String("s", "", "")
	fs.Duration("d", 0, "")
	fs.Func("f", "", func(string) error { return nil })
	fs.BoolFunc("bf", "", func(string) error { return nil })
	for name, want := range map[string]bool{"b": false, "s": true, "d": true, "f": true, "bf": false} {
		if got := TakesValue(fs.Lookup(name)); got != want {
			t.Errorf("TakesValue(%s) = %v, want %v", name, got, want)
		}
	}
}
