// Package manual turns a binary's --help texts into its other two
// manuals, so that none can drift from --help: the man page (roff for
// man(7)) and the package documentation of its doc.go. Each binary's
// manual test runs every --help, regenerates both, and fails when the
// committed files differ (FORGECTL_UPDATE_MANUAL=1 rewrites them).
package manual

import (
	"fmt"
	"go/format"
	"strings"
	"unicode"
)

// Page is one binary's manual.
type Page struct {
	// Name is the binary ("forgectl"); Summary completes "NAME - ".
	Name, Summary string
	// Doc is the package comment's opening sentence ("Command forgectl is
	// the front door of forgectl resume.").
	Doc string
	// Sections are the --help texts, in reading order.
	Sections []Section
}

// Section is one command's --help.
type Section struct {
	Command string // "forgectl resume ls"
	Text    string // what --help prints
}

// UpdateEnv names the variable that makes the manual tests rewrite the
// generated files instead of comparing them.
const UpdateEnv = "FORGECTL_UPDATE_MANUAL"

// Roff renders the man page. Every help line is kept, in no-fill mode, so
// the page reads as --help does; the all-capitals lines that head a help
// text's parts become subsections, for man's navigation.
func (p Page) Roff() string {
	var b strings.Builder
	fmt.Fprintf(&b, ".\\\" Generated from the --help texts of %s (shared/manual); do not edit.\n", p.Name)
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"%s\" \"forgectl resume\"\n", strings.ToUpper(p.Name), p.Name)
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", p.Name, escape(p.Summary))
	for _, s := range p.Sections {
		fmt.Fprintf(&b, ".SH \"%s\"\n.nf\n", escape(strings.ToUpper(s.Command)))
		for _, line := range strings.Split(strings.TrimRight(s.Text, "\n"), "\n") {
			if IsHeading(line) {
				fmt.Fprintf(&b, ".fi\n.SS \"%s\"\n.nf\n", escape(line))
				continue
			}
			if strings.TrimSpace(line) == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString(escapeLine(line) + "\n")
		}
		b.WriteString(".fi\n")
	}
	return b.String()
}

// IsHeading reports a line that heads part of a help text: capitals at
// the margin, such as "EXIT STATUS" or "JSON FIELDS".
func IsHeading(line string) bool {
	if line == "" || line[0] == ' ' {
		return false
	}
	letters := 0
	for _, r := range line {
		switch {
		case r >= 'A' && r <= 'Z':
			letters++
		case r == ' ' || r == '-' || r == '(' || r == ')' || r == '/' || r == '_':
		default:
			return false
		}
	}
	return letters >= 3
}

// escapeLine keeps a line from being read as a request.
func escapeLine(line string) string {
	e := escape(line)
	if strings.HasPrefix(e, ".") || strings.HasPrefix(e, "'") {
		e = `\&` + e
	}
	return e
}

// escape writes text for roff: backslashes and dashes as their escapes,
// quotes as the ASCII glyphs, anything beyond ASCII as a \[uXXXX] glyph,
// which groff reads without preconv.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\'':
			b.WriteString(`\(aq`)
		case r == '`':
			b.WriteString(`\(ga`)
		case r == '"':
			b.WriteString(`\(dq`)
		case r == '\t':
			b.WriteString("        ")
		case r > unicode.MaxASCII:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// GoDoc renders doc.go: the opening sentence, then each --help text as a
// preformatted block under a heading naming its command.
func (p Page) GoDoc() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated from the --help texts by TestManual (%s=1 go test -run TestManual); DO NOT EDIT.\n\n", UpdateEnv)
	for _, line := range wrap(p.Doc, 76) {
		b.WriteString("// " + line + "\n")
	}
	b.WriteString("// Its manual is what each command's --help prints, reproduced below; the\n")
	fmt.Fprintf(&b, "// man page %s(1) is made from the same text.\n", p.Name)
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "//\n// # %s --help\n//\n", s.Command)
		for _, line := range strings.Split(strings.TrimRight(s.Text, "\n"), "\n") {
			if strings.TrimSpace(line) == "" {
				b.WriteString("//\n")
				continue
			}
			b.WriteString("//\t" + line + "\n")
		}
	}
	b.WriteString("package main\n")
	return format.Source([]byte(b.String()))
}

func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
