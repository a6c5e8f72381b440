package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// tree is a root with a subcommand with a subcommand, each returning what
// its arguments ask for.
func tree(p *Program) *ffcli.Command {
	exec := func(ctx context.Context, args []string) error {
		if len(args) == 0 {
			return nil
		}
		switch args[0] {
		case "exit":
			return Exit(130)
		case "usage":
			return Usagef("unexpected argument %q", args[0])
		case "hinted":
			return &UsageError{Msg: "bad", Hint: "do this"}
		}
		return errors.New("it broke")
	}
	leaf := &ffcli.Command{Name: "ls", FlagSet: p.FlagSet("ls"), UsageFunc: Text("\nls manual\n"), Exec: exec}
	leaf.FlagSet.Bool("json", false, "print JSON")
	mid := &ffcli.Command{Name: "resume", FlagSet: p.FlagSet("resume"), UsageFunc: Text("resume manual\n"), Exec: exec, Subcommands: []*ffcli.Command{leaf}}
	mid.FlagSet.Bool("all", false, "all")
	return &ffcli.Command{Name: "forgectl", FlagSet: p.FlagSet("forgectl"), UsageFunc: Text("root manual\n"), Exec: exec, Subcommands: []*ffcli.Command{mid}}
}

func TestFinish(t *testing.T) {
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"resume", "ls"}, 0, "", ""},
		{[]string{"resume", "ls", "--help"}, 0, "ls manual\n\n", ""},
		{[]string{"-h"}, 0, "root manual\n\n", ""},
		{[]string{"resume", "exit"}, 130, "", ""},
		{[]string{"resume", "ls", "usage"}, 2, "", "forgectl: error: unexpected argument \"usage\"\nforgectl: hint: run 'forgectl resume ls --help' for usage\n"},
		{[]string{"usage"}, 2, "", "forgectl: error: unexpected argument \"usage\"\nforgectl: hint: run 'forgectl --help' for usage\n"},
		{[]string{"resume", "hinted"}, 2, "", "forgectl: error: bad\nforgectl: hint: do this\n"},
		{[]string{"resume", "ls", "--bogus"}, 2, "", "forgectl: error: flag provided but not defined: -bogus\nforgectl: hint: run 'forgectl resume ls --help' for usage\n"},
		// The flags of resume come before ls: the bad one is ls's.
		{[]string{"resume", "--all", "ls", "--bogus"}, 2, "", "forgectl: error: flag provided but not defined: -bogus\nforgectl: hint: run 'forgectl resume ls --help' for usage\n"},
		{[]string{"--bogus", "resume"}, 2, "", "forgectl: error: flag provided but not defined: -bogus\nforgectl: hint: run 'forgectl --help' for usage\n"},
		{[]string{"resume", "broke"}, 1, "", "forgectl: error: it broke\n"},
	} {
		var out, errb bytes.Buffer
		p := &Program{Command: "forgectl", Stdout: &out, Stderr: &errb}
		root := tree(p)
		code := 0
		if err := root.Parse(c.args); err != nil {
			code = p.Finish(root, err, true)
		} else {
			code = p.Finish(root, root.Run(context.Background()), false)
		}
		if code != c.code || out.String() != c.stdout || errb.String() != c.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, out.String(), errb.String(), c.code, c.stdout, c.stderr)
		}
	}
}

func TestExit(t *testing.T) {
	if Exit(0) != nil {
		t.Error("Exit(0) is not nil")
	}
	if code, ok := Code(Exit(2)); !ok || code != 2 {
		t.Errorf("Code(Exit(2)) = %d, %v", code, ok)
	}
	if _, ok := Code(errors.New("x")); ok {
		t.Error("a plain error carries a code")
	}
}

// Render lays a manual out from the command's fields.
func TestRender(t *testing.T) {
	fs := flag.NewFlagSet("restart", flag.ContinueOnError)
	fs.Bool("dry-run", false, "print the plan")
	fs.String("session", "", "narrow to this session `id`")
	fs.Int("limit", 3, "at most N")
	sub := &ffcli.Command{Name: "run", ShortHelp: "run it"}
	c := &ffcli.Command{Name: "restart", ShortUsage: "forgectl resume restart [flags]", LongHelp: "\nRestarts.\n", FlagSet: fs, Subcommands: []*ffcli.Command{sub}}
	got := Render(c, Manual{Title: "restart — restart", Tail: "EXIT STATUS\n  0  done\n"})
	want := `restart — restart

USAGE
  forgectl resume restart [flags]

Restarts.

COMMANDS
  run  run it

FLAGS
  --dry-run     print the plan
  --limit int   at most N (default 3)
  --session id  narrow to this session id

EXIT STATUS
  0  done`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got = Render(&ffcli.Command{Name: "uninstall", ShortUsage: "x uninstall", FlagSet: flag.NewFlagSet("u", flag.ContinueOnError)}, Manual{HelpFlag: true})
	if want := "USAGE\n  x uninstall\n\nFLAGS\n  --help  print this manual\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !strings.HasPrefix(Text("\n\nmanual\n")(nil), "manual") {
		t.Error("Text keeps the leading blank lines")
	}
}
