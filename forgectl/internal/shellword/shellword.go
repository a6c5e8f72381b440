// Package shellword quotes words for, and splits command lines as, the POSIX
// shell Claude Code runs a hook's command with (/bin/sh -c, observed).
//
// It is the one place forgectl writes or reads shell quoting: init writes
// the Stop hook's command with Quote, and both init and doctor read any hook
// command back with Parse, so a path holding a quote, a space, a $ or a
// backslash means the same file to forgectl as to the shell.
package shellword

import (
	"errors"
	"fmt"
	"strings"
)

// Quote returns s as one shell word: as is when it holds only characters no
// shell treats specially, else in single quotes, where each quote inside
// becomes a closing quote, a backslash-escaped quote and an opening quote.
// Inside single quotes sh, bash and zsh take every byte literally,
// newlines and backslashes included.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words []string) string {
	q := make([]string, len(words))
	for i, s := range words {
		q[i] = Quote(s)
	}
	return strings.Join(q, " ")
}

// Word is one word of a command after quote removal.
type Word struct {
	Text string
	// Literal is false when the shell would still expand the word at run
	// time (a parameter, a command substitution, a glob, a leading ~), so
	// Text is only what was written, not what runs.
	Literal bool
}

// ErrUnsupported is shell syntax Parse does not follow (a here-document);
// the caller cannot tell what the command runs.
var ErrUnsupported = errors.New("unsupported shell syntax")

// Parse splits a command line into its simple commands (separated by ;, &,
// |, &&, ||, newlines and parentheses), each a list of words with quotes
// removed as sh removes them. Redirections and comments are dropped. A
// line sh would reject (an unterminated quote) is an error.
func Parse(line string) ([][]Word, error) {
	p := parser{s: line}
	return p.parse()
}

type parser struct {
	s   string
	i   int
	cmd []Word
	out [][]Word
	// dropNext marks the next word as a redirection's target.
	dropNext bool
}

func (p *parser) endCommand() {
	if len(p.cmd) > 0 {
		p.out = append(p.out, p.cmd)
	}
	p.cmd = nil
}

func (p *parser) parse() ([][]Word, error) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t':
			p.i++
		case c == '\\' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n':
			p.i += 2 // a line continuation between words
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if p.dropNext {
				return nil, fmt.Errorf("a redirection at offset %d has no target", p.i)
			}
			p.i++
			p.endCommand()
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '<' || c == '>':
			if err := p.redirection(); err != nil {
				return nil, err
			}
		default:
			w, err := p.word()
			if err != nil {
				return nil, err
			}
			if p.dropNext {
				p.dropNext = false
				continue
			}
			if isIONumber(w) && p.i < len(p.s) && (p.s[p.i] == '<' || p.s[p.i] == '>') {
				continue // the 2 of 2>&1: the redirection follows
			}
			p.cmd = append(p.cmd, w)
		}
	}
	if p.dropNext {
		return nil, errors.New("a redirection at the end has no target")
	}
	p.endCommand()
	return p.out, nil
}

func isIONumber(w Word) bool {
	if !w.Literal || w.Text == "" {
		return false
	}
	for _, r := range w.Text {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// redirection consumes a redirection operator; its target is the next word.
func (p *parser) redirection() error {
	if p.dropNext {
		return fmt.Errorf("a redirection at offset %d has no target", p.i)
	}
	op := p.s[p.i]
	p.i++
	if p.i < len(p.s) {
		switch n := p.s[p.i]; {
		case op == '<' && n == '<':
			return fmt.Errorf("%w: a here-document", ErrUnsupported)
		case n == '&' || (op == '>' && (n == '>' || n == '|')) || (op == '<' && n == '>'):
			p.i++
		}
	}
	p.dropNext = true
	return nil
}

// word reads one word from p.i, removing quotes.
func (p *parser) word() (Word, error) {
	var b strings.Builder
	w := Word{Literal: true}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
			w.Text = b.String()
			return w, nil
		case '\\':
			if p.i+1 >= len(p.s) {
				b.WriteByte('\\') // sh keeps a backslash that ends the text
				p.i++
				continue
			}
			if p.s[p.i+1] != '\n' {
				b.WriteByte(p.s[p.i+1])
			}
			p.i += 2
		case '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				return w, fmt.Errorf("unterminated ' at offset %d", p.i)
			}
			b.WriteString(p.s[p.i+1 : p.i+1+end])
			p.i += end + 2
		case '"':
			if err := p.doubleQuoted(&b, &w); err != nil {
				return w, err
			}
		case '$':
			n, err := p.dollar(&b, false)
			if err != nil {
				return w, err
			}
			if n {
				w.Literal = false
			}
		case '`':
			if err := p.backquoted(&b); err != nil {
				return w, err
			}
			w.Literal = false
		case '*', '?', '[':
			b.WriteByte(c)
			p.i++
			w.Literal = false
		case '~':
			if p.i == start {
				w.Literal = false
			}
			b.WriteByte(c)
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	w.Text = b.String()
	return w, nil
}

// doubleQuoted reads "...": a backslash escapes only $ ` " \ and a newline,
// and $ and ` still expand.
func (p *parser) doubleQuoted(b *strings.Builder, w *Word) error {
	open := p.i
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return nil
		case '\\':
			if p.i+1 < len(p.s) && strings.IndexByte("$`\"\\\n", p.s[p.i+1]) >= 0 {
				if p.s[p.i+1] != '\n' {
					b.WriteByte(p.s[p.i+1])
				}
				p.i += 2
				continue
			}
			b.WriteByte('\\')
			p.i++
		case '$':
			n, err := p.dollar(b, true)
			if err != nil {
				return err
			}
			if n {
				w.Literal = false
			}
		case '`':
			if err := p.backquoted(b); err != nil {
				return err
			}
			w.Literal = false
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return fmt.Errorf("unterminated \" at offset %d", open)
}

// dollar reads a $ and whatever it expands, writing the text as written;
// it reports whether anything expands (a lone $ is a literal $).
func (p *parser) dollar(b *strings.Builder, inDouble bool) (bool, error) {
	start := p.i
	p.i++
	if p.i >= len(p.s) {
		b.WriteByte('$')
		return false, nil
	}
	switch c := p.s[p.i]; {
	case c == '{':
		if err := p.skipTo('{', '}'); err != nil {
			return false, err
		}
	case c == '(':
		if err := p.skipTo('(', ')'); err != nil {
			return false, err
		}
	case !inDouble && (c == '\'' || c == '"'):
		// $'…' and $"…" are bash's; dash reads a literal $ then a quote.
		// Either way the word is not what it looks like.
		b.WriteByte('$')
		return true, nil
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
			p.i++
		}
	case c >= '0' && c <= '9' || strings.IndexByte("@*#?-$!", c) >= 0:
		p.i++
	default:
		b.WriteByte('$')
		return false, nil
	}
	b.WriteString(p.s[start:p.i])
	return true, nil
}

// skipTo moves past a ${…} or $(…) whose opening bracket is at p.i,
// counting nested brackets and stepping over quoted text.
func (p *parser) skipTo(open, close byte) error {
	start := p.i
	depth := 0
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case '\\':
			p.i += 2
			continue
		case '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				return fmt.Errorf("unterminated ' at offset %d", p.i)
			}
			p.i += end + 2
			continue
		case '"':
			var discard strings.Builder
			if err := p.doubleQuoted(&discard, &Word{}); err != nil {
				return err
			}
			continue
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		}
		p.i++
	}
	return fmt.Errorf("unterminated %c at offset %d", open, start)
}

// backquoted moves past a `…` command substitution.
func (p *parser) backquoted(b *strings.Builder) error {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '`':
			p.i++
			b.WriteString(p.s[start:p.i])
			return nil
		}
		p.i++
	}
	return fmt.Errorf("unterminated ` at offset %d", start)
}
